"""BM25F over the fields of the local corpus, in numpy, kept on disk as memory-mapped
arrays.

BM25F (Robertson, Zaragoza and Taylor, "Simple BM25 extension to multiple weighted
fields", 2004; Zaragoza et al., TREC 2004) adds up a term's frequencies over the fields
of a passage, each normalised by its field's length and multiplied by the field's
weight, and saturates the sum once: a word in the title and the text counts more than in
the text alone, but not twice its BM25 (what summing one BM25 per field would give, a
second IDF and a second saturation for the same word). The IDF is the passage's: a
term occurs in a passage when any of its fields holds it.

Rows are passages ("chunks"); the fields "title" and "path" belong to the document and
are stored once per document, every passage of it sharing them (`chunk_document`).
"""

from __future__ import annotations

import io
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from grounded_research.files import Fingerprint, write_atomic

K1 = 1.5
# Length normalisation per field (applied when searching): full for the text, less for
# the short fields, whose length says little (a long title is not a diluted one).
B = {"body": 0.75, "heading": 0.5, "title": 0.5, "path": 0.3, "options": 0.0}
PER_DOCUMENT = frozenset({"title", "path"})


@dataclass(frozen=True)
class Field:
    """One field's term frequencies, a column of rows per term (CSC), and its rows'
    lengths."""

    indptr: np.ndarray  # int64, vocabulary + 1
    rows: np.ndarray  # int32: chunk (or document) numbers
    tf: np.ndarray  # float32
    lengths: np.ndarray  # float32 per row: tokens in the field
    mean_length: float

    @property
    def size(self) -> int:
        return int(self.lengths.size)

    def column(self, term: int) -> tuple[np.ndarray, np.ndarray]:
        start, end = int(self.indptr[term]), int(self.indptr[term + 1])
        return self.rows[start:end], self.tf[start:end]

    def frequencies(self, term: int, b: float) -> np.ndarray:
        """Every row's frequency of the term, normalised by the row's length."""
        rows, tf = self.column(term)
        norm = 1.0 - b + b * self.lengths[rows] / self.mean_length
        return np.bincount(rows, weights=tf / norm, minlength=self.size)


@dataclass(frozen=True)
class Index:
    vocabulary: dict[str, int]
    idf: np.ndarray  # float32 per term
    fields: dict[str, Field]
    chunk_document: np.ndarray  # int32 per chunk

    @property
    def chunks(self) -> int:
        return int(self.chunk_document.size)

    def term(self, token: str) -> int | None:
        return self.vocabulary.get(token)

    def scores(self, terms: Mapping[str, float], weights: Mapping[str, float]) -> np.ndarray:
        """BM25F of every chunk: for each query term (times its weight in `terms`), the
        fields' normalised frequencies times `weights`, saturated once, times the IDF."""
        total = np.zeros(self.chunks, dtype=np.float64)
        for token, query_weight in terms.items():
            term = self.vocabulary.get(token)
            if term is None or not query_weight:
                continue
            frequency = np.zeros(self.chunks, dtype=np.float64)
            per_document: np.ndarray | None = None
            for name, field in self.fields.items():
                weight = weights.get(name, 0.0)
                if not weight or field.indptr[term] == field.indptr[term + 1]:
                    continue
                found = weight * field.frequencies(term, B.get(name, 0.75))
                if name in PER_DOCUMENT:
                    per_document = found if per_document is None else per_document + found
                else:
                    frequency += found
            if per_document is not None:
                frequency += per_document[self.chunk_document]
            total += query_weight * float(self.idf[term]) * frequency * (K1 + 1) / (frequency + K1)
        return total.astype(np.float32)

    def holds(self, token: str, names: Sequence[str]) -> np.ndarray:
        """Which chunks hold this token in one of these fields."""
        out = np.zeros(self.chunks, dtype=bool)
        term = self.vocabulary.get(token)
        if term is None:
            return out
        documents = np.zeros(int(self.chunk_document.max(initial=-1)) + 1, dtype=bool)
        for name in names:
            rows, _ = self.fields[name].column(term)
            if name in PER_DOCUMENT:
                documents[rows] = True
            else:
                out[rows] = True
        return out | documents[self.chunk_document] if documents.any() else out


TokenIds = tuple[np.ndarray, np.ndarray]  # a field's token ids, and each row's length


def token_ids(
    streams: Mapping[str, Sequence[Sequence[str]]],
) -> tuple[list[str], dict[str, TokenIds]]:
    """One vocabulary for every field, and each field's tokens as ids with each row's
    length: what `build` takes."""
    vocabulary: dict[str, int] = {}
    out: dict[str, TokenIds] = {}
    for name, rows in streams.items():
        ids = np.fromiter(
            (vocabulary.setdefault(t, len(vocabulary)) for tokens in rows for t in tokens),
            dtype=np.int32,
        )
        out[name] = ids, np.fromiter(map(len, rows), dtype=np.int64, count=len(rows))
    return list(vocabulary), out


def build(
    vocabulary: Sequence[str],
    rows: Mapping[str, tuple[np.ndarray, np.ndarray]],
    chunk_document: np.ndarray,
) -> Index:
    """The index from each field's token ids (`ids`, `lengths` per row, as in
    local.TOKENS_FILE): no Python loop over tokens."""
    size = len(vocabulary)
    chunks = int(chunk_document.size)
    documents = int(chunk_document.max(initial=-1)) + 1
    chunks_per_document = np.bincount(chunk_document, minlength=documents)
    fields: dict[str, Field] = {}
    presence: list[np.ndarray] = []  # (term, chunk) keys of every occurrence, for the IDF
    for name, (ids, lengths) in rows.items():
        count = documents if name in PER_DOCUMENT else chunks
        row_of = np.repeat(np.arange(count, dtype=np.int64), lengths)
        keys, tf = np.unique(ids.astype(np.int64) * count + row_of, return_counts=True)
        terms, row = keys // count, (keys % count).astype(np.int32)
        mean = float(lengths.mean()) if lengths.size and lengths.mean() > 0 else 1.0
        indptr = np.zeros(size + 1, dtype=np.int64)
        np.cumsum(np.bincount(terms, minlength=size), out=indptr[1:])
        fields[name] = Field(indptr, row, tf.astype(np.float32), lengths.astype(np.float32), mean)
        if name in PER_DOCUMENT:  # every chunk of the document holds the term
            per_chunk = np.repeat(terms, chunks_per_document[row])
            first = np.cumsum(chunks_per_document) - chunks_per_document
            offsets = np.arange(per_chunk.size) - np.repeat(
                np.cumsum(chunks_per_document[row]) - chunks_per_document[row],
                chunks_per_document[row],
            )
            chunk = np.repeat(first[row], chunks_per_document[row]) + offsets
            presence.append(per_chunk * chunks + chunk)
        else:
            presence.append(terms * chunks + row)
    held = np.unique(np.concatenate(presence)) if presence else np.zeros(0, dtype=np.int64)
    df = np.bincount(held // max(chunks, 1), minlength=size).astype(np.float64)
    idf = np.log1p((chunks - df + 0.5) / (df + 0.5)).astype(np.float32)
    return Index({token: i for i, token in enumerate(vocabulary)}, idf, fields, chunk_document)


def save(index: Index, folder: Path) -> dict[str, Fingerprint]:
    """Write the index into `folder`, one file at a time (`write_atomic`); the files
    written, by name, with what they hold, for the caller's manifest to check them by."""
    arrays = {"idf": index.idf, "chunk_document": index.chunk_document}
    for name, field in index.fields.items():
        arrays |= {f"{name}.indptr": field.indptr, f"{name}.rows": field.rows}
        arrays |= {f"{name}.tf": field.tf, f"{name}.lengths": field.lengths}
    meta = {
        "vocabulary": sorted(index.vocabulary, key=index.vocabulary.__getitem__),
        "fields": {name: field.mean_length for name, field in index.fields.items()},
    }
    payloads = {"meta.json": json.dumps(meta).encode("utf-8")}
    for key, array in arrays.items():
        buffer = io.BytesIO()
        np.save(buffer, array, allow_pickle=False)
        payloads[f"{key}.npy"] = buffer.getvalue()
    for name, payload in payloads.items():
        write_atomic(folder / name, payload)
    return {name: Fingerprint.of(payload) for name, payload in payloads.items()}


def load(folder: Path) -> Index:
    """The saved index, its arrays memory-mapped."""
    meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))

    def array(key: str) -> np.ndarray:
        loaded: np.ndarray = np.load(folder / f"{key}.npy", mmap_mode="r")
        return loaded

    fields = {
        name: Field(
            array(f"{name}.indptr"),
            array(f"{name}.rows"),
            array(f"{name}.tf"),
            np.asarray(array(f"{name}.lengths")),
            float(mean),
        )
        for name, mean in meta["fields"].items()
    }
    vocabulary = {token: i for i, token in enumerate(meta["vocabulary"])}
    return Index(vocabulary, np.asarray(array("idf")), fields, np.asarray(array("chunk_document")))
