"""Chunk vectors, computed once and kept on disk.

A `VectorFile` holds the vectors one embedder made for passages, keyed by the
passage's snapshot hash and span (`sha256:start:end`): the same passage is never
embedded twice, not for another sub-question, not in another run. It is two
append-only files next to a corpus index (or, for web pages, in the cache):
`<stem>.keys`, a header line naming the embedder then one key a line, and `<stem>.f32`,
the float32 rows in the same order. New vectors are appended under a file lock, so
parallel runs and processes only ever add; a torn last write (a key without its row)
is ignored on reading.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from grounded_research.retrieval.dense import DenseIndex, DenseRetrieval, Key
from grounded_research.selection.embeddings import Embedder


@dataclass(frozen=True)
class PassageText:
    key: Key
    text: str  # what is embedded: the passage with its title and heading


def key_text(key: Key) -> str:
    return f"{key[0]}:{key[1]}:{key[2]}"


def stem_for(folder: Path, embedder: Embedder) -> Path:
    """Where one embedder's vectors live in a folder: one pair of files per embedder."""
    digest = hashlib.sha1(embedder.id.encode()).hexdigest()[:12]
    return folder / f"vectors-{digest}"


class VectorFile:
    def __init__(self, stem: Path, embedder: Embedder) -> None:
        self.stem = stem
        self.embedder = embedder
        self.embedded = 0  # texts this process embedded into this file
        self._rows: dict[str, int] = {}
        self._matrix = np.zeros((0, 0), dtype=np.float32)
        self._keys_read = 0  # bytes of the keys file already read
        self._dimension = 0
        self._row_count = 0  # rows read; a key appended twice keeps its first row
        self._lock = threading.Lock()

    @property
    def keys_path(self) -> Path:
        return self.stem.with_suffix(".keys")

    @property
    def rows_path(self) -> Path:
        return self.stem.with_suffix(".f32")

    def __len__(self) -> int:
        return len(self._rows)

    def __contains__(self, key: Key) -> bool:
        """Whether the passage has a vector here already (read without the lock: a key
        appended meanwhile is only embedded again, and `vectors` keeps its first row)."""
        return key_text(key) in self._rows

    def get(self, keys: Sequence[Key], texts: Sequence[str]) -> np.ndarray:
        """`vectors` for keys and their texts: what dense retrieval's store does."""
        passages = [PassageText(key, text) for key, text in zip(keys, texts, strict=True)]
        return self.vectors(passages)[0]

    def vectors(self, passages: Sequence[PassageText]) -> tuple[np.ndarray, int]:
        """One row per passage, and how many of them had to be embedded now."""
        with self._lock:
            wanted = [key_text(p.key) for p in passages]
            if any(k not in self._rows for k in wanted):
                with self._file_lock():
                    self._read_new()
                    missing = {k: p for k, p in zip(wanted, passages, strict=True)}
                    missing = {k: p for k, p in missing.items() if k not in self._rows}
                    embedded = self._append(list(missing), [p.text for p in missing.values()])
            else:
                embedded = 0
            rows = [self._rows[k] for k in wanted]
            return self._matrix[rows], embedded

    def _append(self, keys: list[str], texts: list[str]) -> int:
        if not keys:
            return 0
        expected = self._row_count * 4 * self._dimension
        if self.rows_path.exists() and self.rows_path.stat().st_size != expected:
            self._repair()
        fresh = np.ascontiguousarray(self.embedder.embed(texts), dtype=np.float32)
        if self._dimension and fresh.shape[1] != self._dimension:
            raise ValueError("embedder changed its dimension under the same id")
        self.stem.parent.mkdir(parents=True, exist_ok=True)
        new_file = not self.keys_path.exists() or self.keys_path.stat().st_size == 0
        # Rows first, keys second: a key is only ever read once its row is on disk.
        with self.rows_path.open("ab") as rows:
            rows.write(fresh.tobytes())
            rows.flush()
            os.fsync(rows.fileno())
        with self.keys_path.open("a", encoding="utf-8") as out:
            if new_file:
                out.write(f"# {self.embedder.id} dim={fresh.shape[1]}\n")
            out.write("".join(f"{k}\n" for k in keys))
        self._read_new()
        self.embedded += len(keys)
        return len(keys)

    def _read_new(self) -> None:
        """Take in what was appended since the last read (by us or by another process)."""
        if not self.keys_path.exists():
            return
        with self.keys_path.open("rb") as handle:
            handle.seek(self._keys_read)
            lines = handle.read().splitlines(keepends=True)
        if lines and not lines[-1].endswith(b"\n"):
            lines.pop()  # a line still being written
        if self._keys_read == 0 and lines:
            header = lines.pop(0)
            self._keys_read += len(header)
            if not header.decode("utf-8").startswith(f"# {self.embedder.id} dim="):
                raise ValueError(f"{self.keys_path} holds vectors of another embedder")
            self._dimension = int(header.decode("utf-8").rsplit("dim=", 1)[1])
        if not lines or not self.rows_path.exists():
            return
        rows = np.memmap(self.rows_path, dtype=np.float32, mode="r")
        matrix = rows[: rows.size - rows.size % self._dimension].reshape(-1, self._dimension)
        for line in lines:
            if self._row_count >= matrix.shape[0]:
                break  # its row is not written yet
            self._rows.setdefault(line.decode("utf-8").strip(), self._row_count)
            self._row_count += 1
            self._keys_read += len(line)
        self._matrix = matrix[: self._row_count]

    def _repair(self) -> None:
        """Rows written without their keys (a process killed between the two writes)
        are cut off, so that the next rows line up with their keys again."""
        with self.rows_path.open("r+b") as rows:
            rows.truncate(self._row_count * 4 * self._dimension)
        if not self._row_count:
            self.keys_path.unlink(missing_ok=True)  # no row: the header may be stale too
            self._keys_read = 0

    @contextmanager
    def _file_lock(self) -> Iterator[None]:
        self.stem.parent.mkdir(parents=True, exist_ok=True)
        with self.stem.with_suffix(".lock").open("a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)


_OPEN: dict[tuple[str, str], VectorFile] = {}
_OPEN_LOCK = threading.Lock()


def vector_file(folder: Path, embedder: Embedder) -> VectorFile:
    """The vector file of this embedder in this folder, shared within the process."""
    stem = stem_for(folder, embedder)
    with _OPEN_LOCK:
        known = _OPEN.get((str(stem), embedder.id))
        if known is None:
            known = VectorFile(stem, embedder)
            with known._lock:
                known._read_new()
            _OPEN[(str(stem), embedder.id)] = known
        return known


def dense_retrieval(embedder: Embedder) -> DenseRetrieval:
    """Dense retrieval of a local corpus with this embedder: its chunks' vectors go to the
    vector file the selection reads in the index folder, so no passage is embedded twice."""
    return DenseRetrieval(
        embedder.id,
        lambda folder: DenseIndex(vector_file(folder, embedder), lambda q: embedder.embed([q])[0]),
    )
