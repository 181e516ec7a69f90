"""The local corpus: a folder (or one .jsonl file) indexed with BM25F, kept on disk.

A passage is scored on its own words and on the fields that say what it is about
(`fields`): its document's title, the path of headings above it and the file's path,
weighted in one BM25F (`bm25f`). Opening an unchanged corpus reads the saved index;
files whose size or modification time changed are extracted again (in parallel) and
only then is the index rebuilt. The corpus never reads outside its root: symlinks that
lead out are refused.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import shutil
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from grounded_research.errors import CorpusError
from grounded_research.retrieval import bm25f, fields
from grounded_research.retrieval.base import SearchHit, SourceProblem
from grounded_research.retrieval.dense import DenseIndex, fuse, passage_text
from grounded_research.retrieval.documents import SUPPORTED_SUFFIXES, read_documents
from grounded_research.retrieval.fields import heading_tokens, path_tokens, title_tokens
from grounded_research.retrieval.snapshots import SnapshotStore
from grounded_research.text.chunking import chunk_text
from grounded_research.text.tokenize import tokenize

INDEX_VERSION = 5
TOKENS_FILE = "tokens.npz"  # every chunk's tokens: a rebuild re-tokenizes only new files
PARALLEL_FROM_FILES = 16
INDEX_FOLDER = "bm25f"
# Dense retrieval (`dense`), off by default: embedding every chunk of the Debian docs
# corpus with the local MiniLM costs far more than the whole index build (see
# benchmarks/README.md). To turn it on, the layer that knows the embedders sets this to
# a function of the index folder giving the corpus's DenseIndex.
DENSE: Callable[[Path], DenseIndex] | None = None
# The fields: "body" (a passage's own words) and "heading" (its heading path) have a row
# per passage, "title" and "path" one per document.
FIELDS = ("body", "heading", "title", "path")


@dataclass
class IndexedDocument:
    location: str
    title: str
    sha256: str
    published: str | None
    chunks: list[tuple[int, int, str]]  # start, end, heading path ("\n"-joined)


@dataclass
class DocumentTokens:
    """A document's search tokens: its title's and path's, and each chunk's words and
    heading path."""

    title: list[str]
    path: list[str]
    bodies: list[list[str]]
    headings: list[list[str]]


@dataclass
class IndexedFile:
    size: int
    mtime_ns: int
    documents: list[IndexedDocument] = field(default_factory=list)
    problems: list[tuple[str, str, str]] = field(default_factory=list)  # location, status, reason


@dataclass(frozen=True)
class RefreshStats:
    files: int
    extracted: int
    removed: int
    documents: int
    chunks: int
    seconds: float
    rebuilt: bool
    embedded: int = 0  # chunks embedded for dense retrieval (DENSE) by this refresh


class LocalCorpus:
    name = "local"

    def __init__(self, root: Path, cache_dir: Path, chunk_size: int) -> None:
        resolved = root.expanduser().resolve()
        if not resolved.exists():
            raise CorpusError(f"corpus not found: {root}")
        if resolved.is_file() and resolved.suffix.lower() != ".jsonl":
            raise CorpusError(f"corpus must be a folder or a .jsonl file: {root}")
        self.root = resolved
        self.chunk_size = chunk_size
        key = hashlib.sha1(f"{resolved}|{chunk_size}".encode()).hexdigest()[:16]
        self.index_dir = cache_dir / "index" / key
        self.snapshots = SnapshotStore.in_cache(cache_dir)
        self._files: dict[str, IndexedFile] = {}
        self._documents: list[IndexedDocument] = []
        self._chunk_document = np.zeros(0, dtype=np.int32)
        self._chunk_index = np.zeros(0, dtype=np.int32)
        self._index: bm25f.Index | None = None
        self._dense: DenseIndex | None = None
        self._lock = threading.Lock()
        self._texts: dict[str, str] = {}
        self._unsaved_tokens: tuple[list[str], dict[str, bm25f.TokenIds]] | None = None

    # -- opening and refreshing ------------------------------------------------------

    def refresh(self) -> RefreshStats:
        """Bring the index up to date with the files on disk."""
        with self._lock:
            started = time.perf_counter()
            if not self._files:
                self._load()
            on_disk = dict(self._scan())
            changed = [
                rel
                for rel, (size, mtime) in on_disk.items()
                if rel not in self._files
                or (self._files[rel].size, self._files[rel].mtime_ns) != (size, mtime)
            ]
            removed = [rel for rel in self._files if rel not in on_disk]
            needs_build = bool(changed or removed) or self._index is None
            extracted_tokens: dict[str, DocumentTokens] = {}
            if changed:
                extracted_tokens = self._extract(changed, on_disk)
            for rel in removed:
                del self._files[rel]
            if needs_build:
                self._build(extracted_tokens)
                self._save()
            embedded = self._sync_dense() if DENSE is not None else 0
            return RefreshStats(
                files=len(self._files),
                extracted=len(changed),
                removed=len(removed),
                documents=len(self._documents),
                chunks=int(self._chunk_document.size),
                seconds=round(time.perf_counter() - started, 3),
                rebuilt=needs_build,
                embedded=embedded,
            )

    def _sync_dense(self) -> int:
        """Vectors for the chunks that have none yet (`dense`); how many were embedded."""
        if self._dense is None:
            if DENSE is None:
                return 0
            self._dense = DENSE(self.index_dir)
        chunks = [(d, start, end, h) for d in self._documents for start, end, h in d.chunks]

        def text_of(i: int) -> str:
            document, start, end, path = chunks[i]
            heading = path.rsplit("\n", 1)[-1]
            return passage_text(document.title, heading, self.text(document.sha256)[start:end])

        return self._dense.sync([(d.sha256, start, end) for d, start, end, _ in chunks], text_of)

    def _scan(self) -> Iterator[tuple[str, tuple[int, int]]]:
        if self.root.is_file():
            stat = self.root.stat()
            yield self.root.name, (stat.st_size, stat.st_mtime_ns)
            return
        for folder, subfolders, names in os.walk(self.root, followlinks=False):
            subfolders[:] = sorted(d for d in subfolders if not d.startswith("."))
            for name in sorted(names):
                path = Path(folder) / name
                if name.startswith(".") or path.suffix.lower() not in SUPPORTED_SUFFIXES:
                    continue
                rel = path.relative_to(self.root).as_posix()
                try:
                    real = path.resolve(strict=True)
                    stat = real.stat()
                except OSError:
                    yield rel, (-1, -1)  # broken link: reported when extracted
                    continue
                if not real.is_relative_to(self.root):
                    yield rel, (-2, -2)  # leads outside the corpus: refused
                    continue
                yield rel, (stat.st_size, stat.st_mtime_ns)

    def _path(self, rel: str) -> Path:
        return self.root if self.root.is_file() else self.root / rel

    def _extract(
        self, changed: list[str], on_disk: dict[str, tuple[int, int]]
    ) -> dict[str, DocumentTokens]:
        jobs = [(str(self._path(rel)), rel, self.chunk_size) for rel in changed]
        tokens: dict[str, DocumentTokens] = {}
        if len(jobs) >= PARALLEL_FROM_FILES and (os.cpu_count() or 1) > 1:
            with ProcessPoolExecutor(max_workers=os.cpu_count()) as pool:
                results = list(pool.map(_extract_file, jobs, chunksize=8))
        else:
            results = [_extract_file(job) for job in jobs]
        for rel, (documents, problems) in zip(changed, results, strict=True):
            size, mtime = on_disk[rel]
            if size == -2:
                documents, problems = [], [(rel, "blocked", "link leads outside the corpus")]
            indexed = IndexedFile(size=size, mtime_ns=mtime, problems=problems)
            for document, text, chunk_tokens in documents:
                self.snapshots.put(text)
                self._texts[document.sha256] = text
                indexed.documents.append(document)
                tokens[document.sha256] = chunk_tokens
            self._files[rel] = indexed
        return tokens

    def _build(self, fresh_tokens: dict[str, DocumentTokens]) -> None:
        documents: list[IndexedDocument] = []
        chunk_document: list[int] = []
        chunk_index: list[int] = []
        streams: dict[str, list[list[str]]] = {name: [] for name in FIELDS}
        stored: dict[tuple[str, str], DocumentTokens] | None = None
        for rel in sorted(self._files):
            for document in self._files[rel].documents:
                tokens = fresh_tokens.get(document.sha256)
                if tokens is None:
                    if stored is None:
                        stored = self._stored_tokens()
                    tokens = stored.get((document.location, document.sha256))
                    if tokens is not None and len(tokens.bodies) != len(document.chunks):
                        tokens = None  # two documents with one key: tokenize again
                if tokens is None:
                    tokens = _tokenize_chunks(document, self.text(document.sha256))
                documents.append(document)
                streams["title"].append(tokens.title)
                streams["path"].append(tokens.path)
                for position, (body, heading) in enumerate(
                    zip(tokens.bodies, tokens.headings, strict=True)
                ):
                    chunk_document.append(len(documents) - 1)
                    chunk_index.append(position)
                    streams["body"].append(body)
                    streams["heading"].append(heading)
        vocabulary, ids = bm25f.token_ids(streams)
        self._unsaved_tokens = vocabulary, ids
        self._documents = documents
        self._chunk_document = np.asarray(chunk_document, dtype=np.int32)
        self._chunk_index = np.asarray(chunk_index, dtype=np.int32)
        self._index = None
        if chunk_document:
            self._index = bm25f.build(vocabulary, ids, self._chunk_document)

    # -- persistence -----------------------------------------------------------------

    def _save(self) -> None:
        self.index_dir.mkdir(parents=True, exist_ok=True)
        folder = self.index_dir / INDEX_FOLDER
        if folder.exists():
            shutil.rmtree(folder)
        if self._index is not None:
            bm25f.save(self._index, folder)
        manifest = {
            "version": INDEX_VERSION,
            "root": str(self.root),
            "chunk_size": self.chunk_size,
            "files": {rel: asdict(indexed) for rel, indexed in self._files.items()},
        }
        if self._unsaved_tokens is not None:
            self._save_tokens(*self._unsaved_tokens)
            self._unsaved_tokens = None
        temporary = self.index_dir / "manifest.json.part"
        temporary.write_text(json.dumps(manifest), encoding="utf-8")
        os.replace(temporary, self.index_dir / "manifest.json")

    def _save_tokens(self, vocabulary: list[str], ids: dict[str, bm25f.TokenIds]) -> None:
        """Every field's tokens as vocabulary ids, in index order, beside the index."""
        arrays: dict[str, np.ndarray] = {}
        for name, (token_ids, lengths) in ids.items():
            arrays[f"{name}_ids"], arrays[f"{name}_lengths"] = token_ids, lengths
        documents = [[d.location, d.sha256] for d in self._documents]
        arrays["vocabulary"] = np.frombuffer(json.dumps(list(vocabulary)).encode(), np.uint8)
        arrays["documents"] = np.frombuffer(json.dumps(documents).encode(), dtype=np.uint8)
        arrays["chunk_document"] = self._chunk_document
        temporary = self.index_dir / (TOKENS_FILE + ".part.npz")
        np.savez(temporary, allow_pickle=False, **arrays)
        os.replace(temporary, self.index_dir / TOKENS_FILE)

    def _stored_tokens(self) -> dict[tuple[str, str], DocumentTokens]:
        """The tokens saved with the index, by (location, sha256) of their document."""
        try:
            with np.load(self.index_dir / TOKENS_FILE) as saved:
                vocabulary = np.array(json.loads(saved["vocabulary"].tobytes()), dtype=object)
                rows = {
                    name: _rows(vocabulary, saved[f"{name}_ids"], saved[f"{name}_lengths"])
                    for name in FIELDS
                }
                documents = json.loads(saved["documents"].tobytes())
                chunk_document = saved["chunk_document"].tolist()
        except (OSError, ValueError, KeyError):
            return {}
        out = [
            DocumentTokens(title=title, path=path, bodies=[], headings=[])
            for title, path in zip(rows["title"], rows["path"], strict=True)
        ]
        for document, body, heading in zip(
            chunk_document, rows["body"], rows["heading"], strict=True
        ):
            out[document].bodies.append(body)
            out[document].headings.append(heading)
        return {
            (str(location), str(sha256)): tokens
            for (location, sha256), tokens in zip(documents, out, strict=True)
        }

    def _load(self) -> None:
        manifest_path = self.index_dir / "manifest.json"
        try:
            manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return
        if manifest.get("version") != INDEX_VERSION:
            return
        files: dict[str, IndexedFile] = {}
        for rel, raw in manifest["files"].items():
            files[rel] = IndexedFile(
                size=raw["size"],
                mtime_ns=raw["mtime_ns"],
                documents=[
                    IndexedDocument(
                        location=d["location"],
                        title=d["title"],
                        sha256=d["sha256"],
                        published=d["published"],
                        chunks=[(int(s), int(e), str(h)) for s, e, h in d["chunks"]],
                    )
                    for d in raw["documents"]
                ],
                problems=[
                    (str(loc), str(status), str(why)) for loc, status, why in raw["problems"]
                ],
            )
        missing_snapshot = any(
            d.sha256 not in self.snapshots for f in files.values() for d in f.documents
        )
        if missing_snapshot:
            return
        self._files = files
        documents = [d for rel in sorted(files) for d in files[rel].documents]
        self._documents = documents
        self._chunk_document = np.asarray(
            [i for i, d in enumerate(documents) for _ in d.chunks], dtype=np.int32
        )
        self._chunk_index = np.asarray(
            [j for d in documents for j in range(len(d.chunks))], dtype=np.int32
        )
        folder = self.index_dir / INDEX_FOLDER
        if self._chunk_document.size and (folder / "meta.json").exists():
            try:
                index = bm25f.load(folder)
            except (OSError, ValueError, KeyError):
                return  # rebuilt by refresh
            if index.chunks == self._chunk_document.size:
                self._index = index

    # -- searching -------------------------------------------------------------------

    def text(self, sha256: str) -> str:
        if sha256 not in self._texts:
            self._texts[sha256] = self.snapshots.get(sha256)
        return self._texts[sha256]

    def scores(self, query: str) -> np.ndarray:
        """Every chunk's score for this query (`fields.query_scores`)."""
        if self._index is None:
            return np.zeros(int(self._chunk_document.size), dtype=np.float32)
        return fields.query_scores(self._index, query)

    def search_sync(self, query: str, k: int) -> list[SearchHit]:
        if self._index is None or k < 1:
            return []
        scores = self.scores(query)
        if self._dense is not None and self._dense.matrix.shape[0] == scores.size:
            scores = fuse(scores, self._dense.scores(query))
        found = np.flatnonzero(scores > 0)
        if found.size > k:
            found = found[np.argpartition(-scores[found], k - 1)[:k]]
        ranked = sorted(found.tolist(), key=lambda i: (-float(scores[i]), i))
        hits: list[SearchHit] = []
        for chunk_id in ranked:
            score = scores[chunk_id]
            document = self._documents[int(self._chunk_document[chunk_id])]
            start, end, path = document.chunks[int(self._chunk_index[chunk_id])]
            hits.append(
                SearchHit(
                    location=document.location,
                    title=document.title,
                    sha256=document.sha256,
                    start=start,
                    end=end,
                    text=self.text(document.sha256)[start:end],
                    score=float(score),
                    origin="local",
                    published=document.published,
                    headings=tuple(path.split("\n")) if path else (),
                )
            )
        return hits

    async def search(self, query: str, k: int) -> list[SearchHit]:
        return await asyncio.to_thread(self.search_sync, query, k)

    def problems(self) -> list[SourceProblem]:
        return [
            SourceProblem(location, status, reason, "local")
            for rel in sorted(self._files)
            for location, status, reason in self._files[rel].problems
        ]


def _tokenize_chunks(document: IndexedDocument, text: str) -> DocumentTokens:
    """A document's tokens, field by field: a passage under "## v2.1 release" is about
    v2.1 even if it never says so, and its heading path says it."""
    by_path: dict[str, list[str]] = {}
    bodies: list[list[str]] = []
    headings: list[list[str]] = []
    for start, end, path in document.chunks:
        if path not in by_path:
            by_path[path] = heading_tokens(tuple(path.split("\n")) if path else ())
        bodies.append(tokenize(text[start:end]))
        headings.append(by_path[path])
    return DocumentTokens(
        title=title_tokens(document.title),
        path=path_tokens(document.location, document.title),
        bodies=bodies,
        headings=headings,
    )


def _rows(vocabulary: np.ndarray, ids: np.ndarray, lengths: np.ndarray) -> list[list[str]]:
    words = vocabulary[ids].tolist() if vocabulary.size else []
    out: list[list[str]] = []
    start = 0
    for end in np.cumsum(lengths).tolist():
        out.append([w for w in words[start:end] if w])
        start = end
    return out


def _extract_file(
    job: tuple[str, str, int],
) -> tuple[list[tuple[IndexedDocument, str, DocumentTokens]], list[tuple[str, str, str]]]:
    """Read, chunk and tokenize one file; runs in a worker process for big corpora."""
    from grounded_research.retrieval.snapshots import sha256_text

    path, location, chunk_size = job
    result = read_documents(Path(path), location)
    documents: list[tuple[IndexedDocument, str, DocumentTokens]] = []
    for document in result.documents:
        chunks = [
            (c.start, c.end, "\n".join(c.headings)) for c in chunk_text(document.text, chunk_size)
        ]
        indexed = IndexedDocument(
            location=document.location,
            title=document.title,
            sha256=sha256_text(document.text),
            published=document.published,
            chunks=chunks,
        )
        documents.append((indexed, document.text, _tokenize_chunks(indexed, document.text)))
    problems = [(p.location, "failed", p.reason) for p in result.problems]
    return documents, problems


_OPEN: dict[tuple[str, str, int], LocalCorpus] = {}
_OPEN_LOCK = threading.Lock()


def open_corpus(root: str, cache_dir: str, chunk_size: int, refresh: bool = True) -> LocalCorpus:
    """The corpus for these settings, shared within the process; `refresh` re-checks
    the files (a run does it once, at its start)."""
    if not root:
        raise CorpusError("no corpus given: pass a folder or a .jsonl file")
    key = (str(Path(root).expanduser().resolve()), cache_dir, chunk_size)
    with _OPEN_LOCK:
        corpus = _OPEN.get(key)
        if corpus is None:
            corpus = LocalCorpus(Path(root), Path(cache_dir), chunk_size)
            _OPEN[key] = corpus
            refresh = True
    if refresh:
        if not corpus.root.exists():
            raise CorpusError(f"corpus not found: {root}")
        corpus.refresh()
    return corpus
