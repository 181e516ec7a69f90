"""The local corpus: a folder (or one .jsonl file) indexed with BM25F, kept on disk.

A passage is scored on its own words and on the fields that say what it is about
(`fields`): its document's title, the path of headings above it and the file's path,
weighted in one BM25F (`bm25f`). Opening an unchanged corpus reads the saved index;
files whose size or modification time changed are extracted again (in parallel) and
only then is the index rebuilt. The corpus never reads outside its root: symlinks that
lead out are refused; a link loop or a folder that cannot be read is recorded as a
failed source, and the scan goes on.

The index on disk is shared by every run that opens the same corpus with the same cache
folder, in any process. A refresh holds the index folder's lock (`files.exclusive`), so a
second run waits for the first and then reads what it saved. Each build is written into a
new folder (`bm25f-<random>`) and becomes the index only when the manifest naming it, with
every file's size and sha256, replaces the old manifest: a kill mid-build leaves the
previous index. Opening checks those files against the manifest, and anything damaged is
rebuilt with one line on stderr (the `logging` warning); a damaged snapshot is extracted
again from its file, or its source is recorded as failed, never quoted.
"""

from __future__ import annotations

import asyncio
import ctypes
import errno
import functools
import hashlib
import io
import json
import logging
import multiprocessing
import os
import secrets
import shutil
import signal
import sys
import threading
import time
import zipfile
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from grounded_research.errors import CorpusError
from grounded_research.files import Fingerprint, damage, exclusive, write_atomic
from grounded_research.retrieval import bm25f, fields
from grounded_research.retrieval.base import SearchHit, SourceProblem
from grounded_research.retrieval.dense import DenseIndex, DenseRetrieval, fuse, passage_text
from grounded_research.retrieval.documents import SUPPORTED_SUFFIXES, read_documents
from grounded_research.retrieval.fields import (
    heading_tokens,
    option_tokens,
    path_tokens,
    title_tokens,
)
from grounded_research.retrieval.links import (
    LINK_FROM,
    LINKS_PER_SEARCH,
    TitleLinks,
    names_whole,
    query_words,
)
from grounded_research.retrieval.snapshots import SnapshotDamaged, SnapshotStore
from grounded_research.text.answers import title_name
from grounded_research.text.chunking import chunk_text
from grounded_research.text.editions import edition_of, edition_releases
from grounded_research.text.tokenize import tokenize

# 36: a CGI header before an HTML page is no part of it (`documents._CGI_HEADER`: man2html's
# bash manual page had lost every heading); 35: a bold term anchored by its own name on a line
# of its own a heading over what follows
# (`documents._anchored_terms_as_headings`: HAProxy's keyword entries); 34: block elements
# inside a <pre> unwrapped: a source listing that Sphinx's viewcode wraps
# entry by entry in <div>s is one code block, without its "[docs]" links; 33: an edition stated
# as its product's name, as the title names it, and a number ("This
# document contains installation instructions for the Debian GNU/Linux 12 system"; 31 and 32
# were measured and not kept); 30: a man page's manual, as mandoc's header line names it, its
# collection (`documents._manual_volume`); 29: text loose in a page's <body> kept as paragraphs
# (`documents._loose_text_in_paragraphs`); 28: prose set in a bare <pre> read as paragraphs
# (`documents._prose_as_paragraphs`); 27: the release a page says at its top that it
# documents, its edition (`editions.edition_of`);
# 26: a section whose id is made of its title's words kept, a <summary> a paragraph
# (`documents._sections_kept`, `documents._labels`); 25: a line opening in lowercase goes on with
# the sentence of the line before it, however short
# (`chunking._goes_on_in_lowercase`); 24: a manual page's bold term line and the lines indented
# under it are one sentence (`chunking._hangs_under`); 23: a list's bold label ending with a colon
# heads the list's items (`chunking.list_labels`); 22: a Markdown file's front matter without a
# title is not its title; 21: titles and ranks ("Adm.", "Jr.", "(Ret.)") end no sentence; 20: a
# definition term over terms of its own a heading level above them; 19: the options a passage
# names, whole, a field of their own (`fields.option_tokens`); 18: a page's collection is also the
# site its <title> names after the page's own title ("mod_ssl - Apache HTTP Server Version 2.4");
# 17: a page's collection (its manual's name, <link rel="home" title=…>) kept; 16: three backticks
# with text after them on their line open no code fence (14 and 15 were chunkings measured and not
# kept); 13: an HTML file's title and date are what it declares (retrieval/documents.py); 12: a
# short line ending with "in", "the", … joins the next; 11: headings wrapped in bare boxes kept,
# no headings in code fences; 10: a passage lies under the path of most of its words; 8: hidden
# HTML text dropped; 7: decode notes and .jsonl lines kept
INDEX_VERSION = 36
# The libraries whose output the index holds (pages read, words stemmed and segmented): an
# index built with other releases of them is built again, as one of an older version is.
# What the index holds of some real pages is guarded by a test against a change that
# leaves INDEX_VERSION (tests/unit/test_local_corpus.py).
INDEX_LIBRARIES = ("trafilatura", "lxml", "PyStemmer", "jieba")
MANIFEST = "manifest.json"
LOCK_FILE = "refresh.lock"
BUILD_PREFIX = "bm25f-"  # one folder per build: the BM25F arrays and TOKENS_FILE
TOKENS_FILE = "tokens.npz"  # every chunk's tokens: a rebuild re-tokenizes only new files
PARALLEL_FROM_FILES = 16
PARENT_POLL_SECONDS = 0.5  # how often an extraction worker checks that its parent lives
PR_SET_PDEATHSIG = 1  # prctl option (linux/prctl.h): a signal for when the parent dies
LOG = logging.getLogger(__name__)
_NONE = np.zeros(0, dtype=np.int64)  # no documents: no folders
# The fields, those `fields.FIELD_WEIGHTS` weighs: "body" (a passage's own words),
# "heading" (its heading path) and "options" (the options it names whole) have a row per
# passage, "title" and "path" one per document.
FIELDS = tuple(fields.FIELD_WEIGHTS)


@dataclass
class IndexedDocument:
    location: str
    title: str
    sha256: str
    published: str | None
    chunks: list[tuple[int, int, str]]  # start, end, heading path ("\n"-joined)
    note: str = ""  # how its file was decoded, when it was not clean UTF-8
    line: int = 0  # its line in a .jsonl file (0: the whole file is the document)
    collection: str = ""  # the manual or site it belongs to, as the page declares it
    edition: str = ""  # the release it says at its top that it documents (`edition_of`)

    def where(self, rel: str) -> str:
        """Where it was read from, as a failed source names it: the file, or the file's
        line for a .jsonl document."""
        return f"{rel}:{self.line}" if self.line else rel


@dataclass
class DocumentTokens:
    """A document's search tokens: its title's and path's, and each chunk's words,
    heading path and the options it names (`fields.option_tokens`)."""

    title: list[str]
    path: list[str]
    bodies: list[list[str]]
    headings: list[list[str]]
    options: list[list[str]]


@dataclass
class IndexedFile:
    size: int
    mtime_ns: int
    documents: list[IndexedDocument] = field(default_factory=list)
    problems: list[tuple[str, str, str]] = field(default_factory=list)  # location, status, reason


@dataclass(frozen=True)
class FoundFile:
    """A file the scan found: its size and modification time, or, for an entry that is
    not read at all (a link loop, a folder that cannot be listed), why not."""

    size: int
    mtime_ns: int
    refused: tuple[str, str] | None = None  # status, reason

    @classmethod
    def refuse(cls, status: str, reason: str) -> FoundFile:
        return cls(-1, -1, (status, reason))


@dataclass(frozen=True)
class RefreshStats:
    files: int
    extracted: int
    removed: int
    documents: int
    chunks: int
    seconds: float
    rebuilt: bool
    embedded: int = 0  # chunks embedded for dense retrieval by this refresh


class LocalCorpus:
    name = "local"

    def __init__(
        self, root: Path, cache_dir: Path, chunk_size: int, dense: DenseRetrieval | None = None
    ) -> None:
        """`dense`: retrieve by embeddings too, every chunk embedded at refresh (off by
        default: embedding every chunk of the Debian docs corpus with the local MiniLM
        costs about 40 index builds, see benchmarks/README.md)."""
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
        self._shelves: tuple[list[IndexedDocument] | None, list[str]] = (None, [])
        self._top_folders: tuple[list[IndexedDocument] | None, np.ndarray] = (None, _NONE)
        self._editions: tuple[list[IndexedDocument] | None, list[str]] = (None, [])
        self._links: tuple[list[IndexedDocument] | None, TitleLinks] = (None, TitleLinks([]))
        self._chunk_document = np.zeros(0, dtype=np.int32)
        self._chunk_index = np.zeros(0, dtype=np.int32)
        self._index: bm25f.Index | None = None
        self._dense_retrieval = dense
        self._dense: DenseIndex | None = None
        self._lock = threading.Lock()
        self._texts: dict[str, str] = {}
        self._unreadable: dict[str, tuple[str, str]] = {}  # sha256: location, reason
        self._clashes: list[tuple[str, str]] = []  # where, reason: a location taken twice
        self._unsaved_tokens: tuple[list[str], dict[str, bm25f.TokenIds]] | None = None
        self._build_folder: str | None = None  # the saved build this state was read from
        self._parts: dict[str, Fingerprint] = {}  # its files, as the manifest gives them
        self._manifest_seen: tuple[int, int, int] | None = None  # the manifest's stat

    # -- opening and refreshing ------------------------------------------------------

    def refresh(self) -> RefreshStats:
        """Bring the index up to date with the files on disk. Holds the index's lock
        across processes: a run that finds another refreshing waits, then reads (and
        only checks) what the other saved."""
        with self._lock, exclusive(self.index_dir / LOCK_FILE, on_wait=self._say_waiting):
            started = time.perf_counter()
            if self._manifest_seen is None or self._manifest_seen != self._manifest_stat():
                self._load()  # never read, or saved since by another process
            on_disk = self._scan()
            refused = self._record_refused(on_disk)
            changed = [
                rel
                for rel, found in on_disk.items()
                if found.refused is None
                and (
                    rel not in self._files
                    or (self._files[rel].size, self._files[rel].mtime_ns)
                    != (found.size, found.mtime_ns)
                )
            ]
            removed = [rel for rel in self._files if rel not in on_disk]
            needs_build = bool(changed or removed or refused) or self._index is None
            extracted_tokens: dict[str, DocumentTokens] = {}
            if changed:
                extracted_tokens = self._extract(changed, on_disk)
            for rel in removed:
                del self._files[rel]
            if needs_build:
                self._build(extracted_tokens)
                try:
                    self._save()
                except OSError as error:  # a full disk: this run searches what it built
                    self._manifest_seen = None  # the next refresh reads what is saved
                    LOG.warning(
                        "%s: index not saved (%s); this run uses it from memory",
                        self.root,
                        error.strerror or error,
                    )
            dense = self._dense_retrieval
            embedded = self._sync_dense(dense) if dense is not None else 0
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

    def _say_waiting(self) -> None:
        LOG.warning("waiting for another run that is indexing %s", self.root)

    def _sync_dense(self, dense: DenseRetrieval) -> int:
        """Vectors for the chunks that have none yet; how many were embedded."""
        if self._dense is None:
            self._dense = dense.index_in(self.index_dir)
        chunks = [(d, start, end, h) for d in self._documents for start, end, h in d.chunks]

        def text_of(i: int) -> str:
            document, start, end, path = chunks[i]
            heading = path.rsplit("\n", 1)[-1]
            return passage_text(document.title, heading, self.text(document.sha256)[start:end])

        return self._dense.sync([(d.sha256, start, end) for d, start, end, _ in chunks], text_of)

    def _scan(self) -> dict[str, FoundFile]:
        """Every file to index, by its path under the root. What cannot be read (a folder
        without permission, a link loop, a link out of the corpus) is kept with its
        reason, so that it becomes a failed source instead of vanishing or ending the
        run."""
        if self.root.is_file():
            stat = self.root.stat()
            return {self.root.name: FoundFile(stat.st_size, stat.st_mtime_ns)}
        found: dict[str, FoundFile] = {}

        def unreadable_folder(error: OSError) -> None:
            where = Path(error.filename or self.root)
            rel = where.relative_to(self.root).as_posix() if where != self.root else "."
            reason = f"folder cannot be read: {error.strerror or error}"
            found[rel + "/"] = FoundFile.refuse("failed", reason)

        for folder, subfolders, names in os.walk(
            self.root, onerror=unreadable_folder, followlinks=False
        ):
            kept: list[str] = []
            for name in sorted(subfolders):
                path = Path(folder) / name
                if name.startswith("."):
                    continue
                if path.is_symlink():  # not walked into: its target is indexed where it is
                    problem = self._link_problem(path)
                    if problem is not None:
                        rel = path.relative_to(self.root).as_posix() + "/"
                        found[rel] = FoundFile.refuse(*problem)
                    continue
                kept.append(name)
            subfolders[:] = kept
            for name in sorted(names):
                path = Path(folder) / name
                if name.startswith(".") or path.suffix.lower() not in SUPPORTED_SUFFIXES:
                    continue
                rel = path.relative_to(self.root).as_posix()
                problem = self._link_problem(path)
                if problem is not None:
                    found[rel] = FoundFile.refuse(*problem)
                    continue
                try:
                    stat = path.stat()
                except OSError as error:
                    found[rel] = FoundFile.refuse("failed", f"cannot be read: {error.strerror}")
                    continue
                found[rel] = FoundFile(stat.st_size, stat.st_mtime_ns)
        return found

    def _link_problem(self, path: Path) -> tuple[str, str] | None:
        """Why the entry at `path` cannot be followed (status, reason), or None."""
        try:
            real = path.resolve(strict=True)
        except RuntimeError:  # Python 3.11 and 3.12 report a loop so
            return "failed", "symbolic link loop"
        except OSError as error:
            if error.errno == errno.ELOOP:
                return "failed", "symbolic link loop"
            return "failed", f"broken link: {error.strerror or error}"
        if not real.is_relative_to(self.root):
            return "blocked", "link leads outside the corpus"
        return None

    def _record_refused(self, on_disk: dict[str, FoundFile]) -> list[str]:
        """Keep what the scan refused, with its reason; which entries are new or
        changed (each one a reason to rebuild the index)."""
        refused: list[str] = []
        for rel, found in on_disk.items():
            if found.refused is None:
                continue
            entry = IndexedFile(size=found.size, mtime_ns=found.mtime_ns)
            entry.problems.append((rel, *found.refused))
            if self._files.get(rel) != entry:
                self._files[rel] = entry
                refused.append(rel)
        return refused

    def _path(self, rel: str) -> Path:
        return self.root if self.root.is_file() else self.root / rel

    def _extract(
        self, changed: list[str], on_disk: dict[str, FoundFile]
    ) -> dict[str, DocumentTokens]:
        jobs = [(str(self._path(rel)), rel, self.chunk_size) for rel in changed]
        tokens: dict[str, DocumentTokens] = {}
        if len(jobs) >= PARALLEL_FROM_FILES and (os.cpu_count() or 1) > 1:
            # Fork where it exists (so a worker's parent is this process, which
            # `_die_with_parent` watches), spawn elsewhere.
            method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
            with ProcessPoolExecutor(
                max_workers=os.cpu_count(),
                mp_context=multiprocessing.get_context(method),
                initializer=_die_with_parent,
                initargs=(os.getpid(),),
            ) as pool:
                results = list(pool.map(_extract_file, jobs, chunksize=8))
        else:
            results = [_extract_file(job) for job in jobs]
        for rel, (documents, problems) in zip(changed, results, strict=True):
            found = on_disk[rel]
            indexed = IndexedFile(size=found.size, mtime_ns=found.mtime_ns, problems=problems)
            for document, text, chunk_tokens in documents:
                try:
                    self.snapshots.put(text)
                except OSError as error:  # a read-only or full cache: this file fails
                    reason = f"its text could not be saved: {error.strerror or error}"
                    indexed.problems.append((document.where(rel), "failed", reason))
                    indexed.size = indexed.mtime_ns = -1  # extracted again next time
                    continue
                self._texts[document.sha256] = text
                self._unreadable.pop(document.sha256, None)
                indexed.documents.append(document)
                tokens[document.sha256] = chunk_tokens
            self._files[rel] = indexed
        return tokens

    def _build(self, fresh_tokens: dict[str, DocumentTokens]) -> None:
        chunk_document: list[int] = []
        chunk_index: list[int] = []
        streams: dict[str, list[list[str]]] = {name: [] for name in FIELDS}
        stored: dict[tuple[str, str], DocumentTokens] | None = None
        tokens_of: dict[int, DocumentTokens] = {}
        for rel in sorted(self._files):
            for document in list(self._files[rel].documents):
                tokens = fresh_tokens.get(document.sha256)
                if tokens is None:
                    if stored is None:
                        stored = self._stored_tokens()
                    tokens = stored.get((document.location, document.sha256))
                    if tokens is not None and len(tokens.bodies) != len(document.chunks):
                        tokens = None  # two documents with one key: tokenize again
                if tokens is None:
                    try:
                        tokens = _tokenize_chunks(document, self.text(document.sha256))
                    except SnapshotDamaged as lost:
                        self._leave_out(rel, document, str(lost))
                        continue
                tokens_of[id(document)] = tokens
        documents, self._clashes = _one_per_location(self._files)
        for number, document in enumerate(documents):
            tokens = tokens_of[id(document)]
            streams["title"].append(tokens.title)
            streams["path"].append(tokens.path)
            for position, (body, heading, options) in enumerate(
                zip(tokens.bodies, tokens.headings, tokens.options, strict=True)
            ):
                chunk_document.append(number)
                chunk_index.append(position)
                streams["body"].append(body)
                streams["heading"].append(heading)
                streams["options"].append(options)
        vocabulary, ids = bm25f.token_ids(streams)
        self._unsaved_tokens = vocabulary, ids
        self._documents = documents
        self._chunk_document = np.asarray(chunk_document, dtype=np.int32)
        self._chunk_index = np.asarray(chunk_index, dtype=np.int32)
        self._index = None
        if chunk_document:
            self._index = bm25f.build(vocabulary, ids, self._chunk_document)

    def _leave_out(self, rel: str, document: IndexedDocument, reason: str) -> None:
        """A document whose text is lost (its snapshot damaged, its file changed) is left
        out of the index, and its file is marked to be extracted again next time."""
        indexed = self._files[rel]
        indexed.documents.remove(document)
        indexed.problems.append((document.location, "failed", reason))
        indexed.size = indexed.mtime_ns = -1

    # -- persistence -----------------------------------------------------------------

    def _manifest_stat(self) -> tuple[int, int, int] | None:
        try:
            stat = (self.index_dir / MANIFEST).stat()
        except OSError:
            return None
        return stat.st_ino, stat.st_size, stat.st_mtime_ns

    def _save(self) -> None:
        """Write this build into a folder of its own, then the manifest that names it
        (the one atomic step that makes it the index), then remove older builds."""
        folder_name = BUILD_PREFIX + secrets.token_hex(6)
        folder = self.index_dir / folder_name
        parts: dict[str, Fingerprint] = {}
        if self._index is not None:
            parts |= bm25f.save(self._index, folder)
        if self._unsaved_tokens is not None:
            parts[TOKENS_FILE] = self._save_tokens(folder, *self._unsaved_tokens)
            self._unsaved_tokens = None
        content = {
            "root": str(self.root),
            "chunk_size": self.chunk_size,
            "files": {rel: asdict(indexed) for rel, indexed in self._files.items()},
            "build": {
                "folder": folder_name,
                "parts": {name: [p.size, p.sha256] for name, p in parts.items()},
            },
        }
        manifest = {
            "version": INDEX_VERSION,
            "libraries": index_libraries(),
            "sha256": _checksum(content),
            "content": content,
        }
        write_atomic(self.index_dir / MANIFEST, json.dumps(manifest))
        self._build_folder, self._parts = folder_name, parts
        self._manifest_seen = self._manifest_stat()
        self._remove_old_builds()

    def _remove_old_builds(self) -> None:
        """Earlier builds, builds a killed run left half-written and the files of older
        index versions; the vectors kept beside the index stay."""
        for path in self.index_dir.iterdir():
            old_build = path.name.startswith(BUILD_PREFIX) and path.name != self._build_folder
            old_layout = path.name in ("bm25f", TOKENS_FILE) or path.name.endswith(".part")
            if old_build or old_layout:
                if path.is_dir():
                    shutil.rmtree(path, ignore_errors=True)
                else:
                    path.unlink(missing_ok=True)

    def _save_tokens(
        self, folder: Path, vocabulary: list[str], ids: dict[str, bm25f.TokenIds]
    ) -> Fingerprint:
        """Every field's tokens as vocabulary ids, in index order, beside the index."""
        arrays: dict[str, np.ndarray] = {}
        for name, (token_ids, lengths) in ids.items():
            arrays[f"{name}_ids"], arrays[f"{name}_lengths"] = token_ids, lengths
        documents = [[d.location, d.sha256] for d in self._documents]
        arrays["vocabulary"] = np.frombuffer(json.dumps(list(vocabulary)).encode(), np.uint8)
        arrays["documents"] = np.frombuffer(json.dumps(documents).encode(), dtype=np.uint8)
        arrays["chunk_document"] = self._chunk_document
        buffer = io.BytesIO()
        np.savez(buffer, allow_pickle=False, **arrays)
        payload = buffer.getvalue()
        write_atomic(folder / TOKENS_FILE, payload)
        return Fingerprint.of(payload)

    def _stored_tokens(self) -> dict[tuple[str, str], DocumentTokens]:
        """The tokens saved with the index, by (location, sha256) of their document;
        none if they are damaged (the documents are then tokenized again)."""
        expected = self._parts.get(TOKENS_FILE)
        if self._build_folder is None or expected is None:
            return {}
        path = self.index_dir / self._build_folder / TOKENS_FILE
        problem = damage(path, expected)
        if problem is not None:
            LOG.warning("%s: saved tokens damaged (%s); tokenizing again", self.root, problem)
            return {}
        try:
            with np.load(path) as saved:
                vocabulary = np.array(json.loads(saved["vocabulary"].tobytes()), dtype=object)
                rows = {
                    name: _rows(vocabulary, saved[f"{name}_ids"], saved[f"{name}_lengths"])
                    for name in FIELDS
                }
                documents = json.loads(saved["documents"].tobytes())
                chunk_document = saved["chunk_document"].tolist()
        except (OSError, ValueError, KeyError, zipfile.BadZipFile):
            return {}
        out = [
            DocumentTokens(title=title, path=path, bodies=[], headings=[], options=[])
            for title, path in zip(rows["title"], rows["path"], strict=True)
        ]
        for document, body, heading, options in zip(
            chunk_document, rows["body"], rows["heading"], rows["options"], strict=True
        ):
            out[document].bodies.append(body)
            out[document].headings.append(heading)
            out[document].options.append(options)
        return {
            (str(location), str(sha256)): tokens
            for (location, sha256), tokens in zip(documents, out, strict=True)
        }

    def _read_manifest(self) -> dict[str, Any] | None:
        """The saved manifest's content; None when there is none, when it is of an older
        version (both rebuilt without a word) or when it is damaged (said on stderr)."""
        path = self.index_dir / MANIFEST
        try:
            with path.open("rb") as handle:
                raw = handle.read()
                stat = os.fstat(handle.fileno())
        except FileNotFoundError:
            return None
        except OSError as error:
            LOG.warning("%s: index unreadable (%s); rebuilding it", self.root, error)
            return None
        self._manifest_seen = stat.st_ino, stat.st_size, stat.st_mtime_ns
        try:
            manifest = json.loads(raw)
            if manifest.get("version") != INDEX_VERSION:
                return None
            if manifest.get("libraries") != index_libraries():
                LOG.info("%s: built with other library releases; indexing again", self.root)
                return None
            content: dict[str, Any] = manifest["content"]
            if _checksum(content) == manifest["sha256"]:
                return content
        except (ValueError, KeyError, TypeError, AttributeError):
            pass
        LOG.warning("%s: index manifest damaged; indexing the corpus again", self.root)
        return None

    def _load(self) -> None:
        """The saved index, as far as it is whole: files whose snapshots are gone are
        extracted again, and damaged index files are rebuilt (`refresh` does both)."""
        self._files, self._documents, self._index, self._clashes = {}, [], None, []
        self._chunk_document = np.zeros(0, dtype=np.int32)
        self._chunk_index = np.zeros(0, dtype=np.int32)
        self._build_folder, self._parts = None, {}
        content = self._read_manifest()
        if content is None:
            return
        try:
            files = {rel: _indexed_file(raw) for rel, raw in content["files"].items()}
            build = content["build"]
            folder_name = str(build["folder"])
            parts = {str(n): Fingerprint(int(s), str(h)) for n, (s, h) in build["parts"].items()}
        except (KeyError, TypeError, ValueError):
            LOG.warning("%s: index manifest damaged; indexing the corpus again", self.root)
            return
        # A file whose snapshot is gone is left out here, and so extracted again.
        self._files = {
            rel: indexed
            for rel, indexed in files.items()
            if all(d.sha256 in self.snapshots for d in indexed.documents)
        }
        self._build_folder, self._parts = folder_name, parts
        if len(self._files) < len(files):
            lost = len(files) - len(self._files)
            LOG.warning(
                "%s: saved text of %d files missing; extracting them again", self.root, lost
            )
            return  # the index is rebuilt with those files
        documents, self._clashes = _one_per_location(files)
        self._documents = documents
        self._chunk_document = np.asarray(
            [i for i, d in enumerate(documents) for _ in d.chunks], dtype=np.int32
        )
        self._chunk_index = np.asarray(
            [j for d in documents for j in range(len(d.chunks))], dtype=np.int32
        )
        if not self._chunk_document.size:
            return
        folder = self.index_dir / folder_name
        for name, expected in parts.items():
            problem = None if name == TOKENS_FILE else damage(folder / name, expected)
            if problem is not None:
                LOG.warning("%s: index damaged (%s); rebuilding it", self.root, problem)
                return
        try:
            index = bm25f.load(folder)
        except (OSError, ValueError, KeyError):
            LOG.warning("%s: index unreadable; rebuilding it", self.root)
            return
        if index.chunks == self._chunk_document.size:
            self._index = index

    # -- searching -------------------------------------------------------------------

    def text(self, sha256: str) -> str:
        """A document's text, from its snapshot. A damaged or lost snapshot is made again
        from the document's file when the file still holds that text; otherwise
        `SnapshotDamaged` (and the document is one of `problems`)."""
        known = self._texts.get(sha256)
        if known is not None:
            return known
        if sha256 in self._unreadable:
            raise SnapshotDamaged(self._unreadable[sha256][1])
        try:
            text = self.snapshots.get(sha256)
        except (SnapshotDamaged, OSError) as error:
            text = self._extract_again(sha256, error)
        self._texts[sha256] = text
        return text

    def _extract_again(self, sha256: str, error: Exception) -> str:
        """The text of the snapshot `sha256` from its file, stored again."""
        owner = next(
            (
                (rel, document)
                for rel, indexed in self._files.items()
                for document in indexed.documents
                if document.sha256 == sha256
            ),
            None,
        )
        if owner is None:
            raise SnapshotDamaged(f"no indexed document has the text {sha256[:12]}") from error
        rel, document = owner
        lost = "damaged" if isinstance(error, SnapshotDamaged) else "missing"
        try:
            found, _ = _extract_file((str(self._path(rel)), rel, self.chunk_size))
        except Exception:  # an unreadable file is no worse than a changed one
            found = []
        for again, text, _ in found:
            if again.sha256 == sha256:
                self.snapshots.put(text)
                LOG.warning("%s: saved text %s; extracted it again", document.location, lost)
                return text
        reason = f"saved text {lost}, and the file no longer holds the text that was indexed"
        self._unreadable[sha256] = (document.location, reason)
        raise SnapshotDamaged(reason) from error

    def scores(self, query: str) -> np.ndarray:
        """Every chunk's score for this query (`fields.query_scores`)."""
        if self._index is None:
            return np.zeros(int(self._chunk_document.size), dtype=np.float32)
        return fields.query_scores(self._index, query, self._top_folder_of())

    def search_sync(self, query: str, k: int) -> list[SearchHit]:
        if self._index is None or k < 1:
            return []
        scores = self.scores(query)
        if self._dense is not None and self._dense.matrix.shape[0] == scores.size:
            scores = fuse(scores, self._dense.scores(query))
        scores = fields.code_boost(scores, query, k, self._headings_of)
        found = np.flatnonzero(scores > 0)
        if found.size > k:
            found = found[np.argpartition(-scores[found], k - 1)[:k]]
        ranked = sorted(found.tolist(), key=lambda i: (-float(scores[i]), i))
        ranked += self._linked(ranked, scores, query)
        hits: list[SearchHit] = []
        editions = self._editions_of()
        for chunk_id in ranked:
            score = scores[chunk_id]
            number = int(self._chunk_document[chunk_id])
            document = self._documents[number]
            start, end, path = document.chunks[int(self._chunk_index[chunk_id])]
            try:
                text = self.text(document.sha256)
            except SnapshotDamaged:
                continue  # never quoted; the document is one of `problems`
            hits.append(
                SearchHit(
                    location=document.location,
                    title=document.title,
                    sha256=document.sha256,
                    start=start,
                    end=end,
                    text=text[start:end],
                    score=float(score),
                    origin="local",
                    published=document.published,
                    note=document.note,
                    headings=tuple(path.split("\n")) if path else (),
                    collection=document.collection,
                    edition=editions[number],
                )
            )
        return hits

    def _linked(self, ranked: list[int], scores: np.ndarray, query: str) -> list[int]:
        """The best chunk of each page the query names by its title and the best hits
        do not hold ("The author of The Thing of It Is..." names a page whose title is
        all stop words, which no score finds), then of each page the best hits name
        (`links`): from a hit on a page the query names, to a page it does not name and
        that shares a word with it, not one already among the hits. From a page the
        query names and no hit held, a page is followed though it shares no word: the
        novel's page names its author, whose page says nothing of "author"."""
        links = self._title_links()
        asked = query_words(query)
        pages = {int(self._chunk_document[i]) for i in ranked}
        named: list[int] = []  # the best chunk of each page the query names, not among them
        for page, _ in links.named_in(query):
            best = self._best_chunk(page, scores)
            if page not in pages and best is not None and len(named) < LINKS_PER_SEARCH:
                pages.add(page)
                named.append(best)
        followed: list[tuple[int, bool]] = []  # a page, and whether a named page names it
        for chunk_id in [*ranked[:LINK_FROM], *named]:
            document = self._documents[int(self._chunk_document[chunk_id])]
            if not names_whole(asked, document.title):
                continue
            start, end, _ = document.chunks[int(self._chunk_index[chunk_id])]
            for page, title in links.named_in(self.text(document.sha256)[start:end]):
                if page not in pages and not names_whole(asked, title):
                    pages.add(page)
                    followed.append((page, chunk_id in named))
        chunks = list(named)
        for page, from_named in followed[: LINKS_PER_SEARCH - len(named)]:
            best = self._best_chunk(page, scores)
            if best is not None and (scores[best] > 0 or from_named):
                chunks.append(best)
        return chunks

    def _best_chunk(self, page: int, scores: np.ndarray) -> int | None:
        """The page's best scored chunk (None for a page without chunks)."""
        ids = np.flatnonzero(self._chunk_document == page)
        return int(ids[np.argmax(scores[ids])]) if ids.size else None

    def _title_links(self) -> TitleLinks:
        """The titles of the documents (`links`), read once per set of documents."""
        documents = self._documents
        if self._links[0] is not documents:
            self._links = (documents, TitleLinks([d.title for d in documents]))
        return self._links[1]

    def _headings_of(self, chunk_id: int) -> str:
        document = self._documents[int(self._chunk_document[chunk_id])]
        return document.chunks[int(self._chunk_index[chunk_id])][2]

    async def search(self, query: str, k: int) -> list[SearchHit]:
        return await asyncio.to_thread(self.search_sync, query, k)

    def shelves(self) -> list[str]:
        """The folders the corpus files its documents under and the products its
        collections are titled by (python-click-doc/…, "Click" of "Click Documentation
        (8.1.x)", `title_name`): a product the question names has documentation here even
        when no search reached it (`filed_names`). Read once per set of documents, not on
        every search of a run."""
        documents = self._documents
        if self._shelves[0] is not documents:
            folders = {d.location.rsplit("/", 1)[0] for d in documents if "/" in d.location}
            collections = {title_name(d.collection) for d in documents if d.collection}
            self._shelves = (documents, sorted(folders | collections))
        return list(self._shelves[1])

    def _editions_of(self) -> list[str]:
        """Each document's edition: its own, or else the one edition the documents of
        its folder state (a manual says its release once, at its front: Exim's
        spec_html/ch-introduction.html "applies to version 4.96 of Exim", and its other
        chapters are of 4.96 too); none where they state two releases (PostgreSQL's
        release notes, each of its own). Read once per set of documents."""
        documents = self._documents
        if self._editions[0] is not documents:
            folders = [d.location.rsplit("/", 1)[0] for d in documents]
            stated: dict[str, dict[str, str]] = {}
            for d, folder in zip(documents, folders, strict=True):
                if d.edition:
                    release = " ".join(sorted(set(edition_releases(d.edition))))
                    stated.setdefault(folder, {}).setdefault(release, d.edition)
            lent = {folder: next(iter(s.values())) for folder, s in stated.items() if len(s) == 1}
            pairs = zip(documents, folders, strict=True)
            editions = [d.edition or lent.get(folder, "") for d, folder in pairs]
            self._editions = (documents, editions)
        return self._editions[1]

    def _top_folder_of(self) -> np.ndarray:
        """Each document's top folder in the corpus, numbered (a package of the Debian
        docs, python-click-doc/…); a file at the top is a folder of its own. Read once
        per set of documents."""
        documents = self._documents
        if self._top_folders[0] is not documents:
            tops = [d.location.split("/", 1)[0] for d in documents]
            numbers = {top: number for number, top in enumerate(dict.fromkeys(tops))}
            folder_of = np.array([numbers[top] for top in tops], dtype=np.int64)
            self._top_folders = (documents, folder_of)
        return self._top_folders[1]

    def problems(self) -> list[SourceProblem]:
        recorded = [
            SourceProblem(location, status, reason, "local")
            for rel in sorted(self._files)
            for location, status, reason in self._files[rel].problems
        ]
        clashes = [
            SourceProblem(where, "failed", reason, "local") for where, reason in self._clashes
        ]
        lost = [
            SourceProblem(location, "failed", reason, "local")
            for location, reason in sorted(self._unreadable.values())
        ]
        return recorded + clashes + lost


def _one_per_location(
    files: dict[str, IndexedFile],
) -> tuple[list[IndexedDocument], list[tuple[str, str]]]:
    """The documents to index, in path order, and the ones refused (where, reason): a
    location names one document, so a document whose location an earlier file already
    gave one (the same id in two .jsonl files, an id equal to another file's path) is a
    failed source instead of a second text under that name. Worked out from the files
    each time, so that once the earlier file is gone the later one is indexed again."""
    owner: dict[str, str] = {}
    kept: list[IndexedDocument] = []
    clashes: list[tuple[str, str]] = []
    for rel in sorted(files):
        for document in files[rel].documents:
            first = owner.setdefault(document.location, rel)
            if first == rel:
                kept.append(document)
            else:
                reason = f"{document.location!r} is already the location of a document of {first}"
                clashes.append((document.where(rel), reason))
    return kept, clashes


def _checksum(content: dict[str, Any]) -> str:
    """The manifest's own checksum: of its content as `json.dumps` writes it (which the
    content read back from the file gives again)."""
    return hashlib.sha256(json.dumps(content).encode("utf-8")).hexdigest()


def _indexed_file(raw: dict[str, Any]) -> IndexedFile:
    """An `IndexedFile` as the manifest holds it."""
    return IndexedFile(
        size=int(raw["size"]),
        mtime_ns=int(raw["mtime_ns"]),
        documents=[
            IndexedDocument(
                location=str(d["location"]),
                title=str(d["title"]),
                sha256=str(d["sha256"]),
                published=d["published"],
                chunks=[(int(s), int(e), str(h)) for s, e, h in d["chunks"]],
                note=str(d["note"]),
                line=int(d["line"]),
                collection=str(d["collection"]),
                edition=str(d["edition"]),
            )
            for d in raw["documents"]
        ],
        problems=[(str(loc), str(status), str(why)) for loc, status, why in raw["problems"]],
    )


def _die_with_parent(parent: int) -> None:
    """Runs first in every extraction worker, so that a worker dies with the run that
    started it: a run killed with SIGKILL cannot stop its pool, and its workers would
    otherwise go on (about 130 MB each) under init. On Linux the kernel kills the worker
    when its parent goes (PR_SET_PDEATHSIG); everywhere, a thread checks the parent
    every PARENT_POLL_SECONDS and ends the worker once it is gone."""
    if sys.platform == "linux":
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        except (OSError, AttributeError):
            pass  # the thread below still watches
    if os.getppid() != parent:  # the parent died before the line above
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="watch-parent", daemon=True).start()


def _tokenize_chunks(document: IndexedDocument, text: str) -> DocumentTokens:
    """A document's tokens, field by field: a passage under "## v2.1 release" is about
    v2.1 even if it never says so, and its heading path says it."""
    by_path: dict[str, list[str]] = {}
    bodies: list[list[str]] = []
    headings: list[list[str]] = []
    options: list[list[str]] = []
    for start, end, path in document.chunks:
        if path not in by_path:
            by_path[path] = heading_tokens(tuple(path.split("\n")) if path else ())
        bodies.append(tokenize(text[start:end]))
        headings.append(by_path[path])
        options.append(option_tokens(path.split("\n"), text[start:end]))
    return DocumentTokens(
        title=title_tokens(document.title),
        path=path_tokens(document.location, document.title),
        bodies=bodies,
        headings=headings,
        options=options,
    )


def _rows(vocabulary: np.ndarray, ids: np.ndarray, lengths: np.ndarray) -> list[list[str]]:
    words = vocabulary[ids].tolist() if vocabulary.size else []
    out: list[list[str]] = []
    start = 0
    for end in np.cumsum(lengths).tolist():
        out.append([w for w in words[start:end] if w])
        start = end
    return out


@functools.cache
def index_libraries() -> dict[str, str]:
    """The installed release of each library the index's content depends on."""
    from importlib.metadata import PackageNotFoundError, version

    releases: dict[str, str] = {}
    for name in INDEX_LIBRARIES:
        try:
            releases[name] = version(name)
        except PackageNotFoundError:
            releases[name] = ""
    return releases


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
            note=document.note,
            line=document.line,
            collection=document.collection,
            edition=edition_of(document.text, document.title),
        )
        documents.append((indexed, document.text, _tokenize_chunks(indexed, document.text)))
    problems = [(p.location, "failed", p.reason) for p in result.problems]
    return documents, problems


_OPEN: dict[tuple[str, str, int, str], LocalCorpus] = {}
_OPEN_LOCK = threading.Lock()


def open_corpus(
    root: str,
    cache_dir: str,
    chunk_size: int,
    refresh: bool = True,
    dense: DenseRetrieval | None = None,
) -> LocalCorpus:
    """The corpus for these settings, shared within the process; `refresh` re-checks
    the files (a run does it once, at its start)."""
    if not root:
        raise CorpusError("no corpus given: pass a folder or a .jsonl file")
    dense_key = dense.embedder_id if dense is not None else ""
    key = (str(Path(root).expanduser().resolve()), cache_dir, chunk_size, dense_key)
    with _OPEN_LOCK:
        corpus = _OPEN.get(key)
        if corpus is None:
            corpus = LocalCorpus(Path(root), Path(cache_dir), chunk_size, dense)
            _OPEN[key] = corpus
            refresh = True
    if refresh:
        if not corpus.root.exists():
            raise CorpusError(f"corpus not found: {root}")
        corpus.refresh()
    return corpus
