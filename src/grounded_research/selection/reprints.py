"""Reprints: the same article under another name counts as one source, not two.

MinHash over word 3-shingles finds the candidate pairs fast (LSH, at a lower threshold
than the verdict, since an estimate near 0.8 falls on either side by chance); the exact
Jaccard similarity of the two shingle sets decides: at 0.8 or more the later copy (by
its published date, then its location) is a duplicate of the earliest one.

The signatures and bands are datasketch 2.0's, reproduced to the bit (its default
`affine32` scheme: SHA-1's first 4 bytes, MurmurHash3's finalizer, 128 odd affine
permutations mod 2^32 drawn from `RandomState(1)`; LSH of 25 bands of 5 rows, its
optimum for a 0.5 threshold), without datasketch, which imports scipy's integrators
(30 MiB and 0.35 s of CPU in every run) to find those 25 and 5.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from functools import cache

import numpy as np

from grounded_research.state import Source
from grounded_research.text.dates import date_key
from grounded_research.text.tokenize import words

THRESHOLD = 0.8
CANDIDATE_THRESHOLD = 0.5
PERMUTATIONS = 128
BANDS, ROWS = 25, 5  # datasketch's MinHashLSH(threshold=CANDIDATE_THRESHOLD, num_perm=128)
_EMPTY = np.uint32(0xFFFFFFFF)


def find_reprints(sources: list[Source], text_of: Callable[[str], str]) -> dict[str, str]:
    """Map each reprint's source id to the id of the source it copies."""
    ordered = sorted(sources, key=lambda s: (date_key(s.published) or "9999", s.location))
    index = _Bands()
    sha_of = {s.id: s.sha256 for s in ordered}
    known: dict[str, set[str]] = {}

    def shingles_of(sha256: str) -> set[str]:
        """Read and shingled only for the pairs LSH proposes, once each."""
        if sha256 not in known:
            known[sha256] = shingles(text_of(sha256))
        return known[sha256]

    originals: dict[str, str] = {}
    by_hash: dict[str, str] = {}
    for source in ordered:
        if not source.sha256:
            continue
        if source.sha256 in by_hash:
            originals[source.id] = by_hash[source.sha256]
            continue
        minhash = _signature(source.sha256, text_of)
        candidates = index.query(minhash)
        similar = [
            other
            for other in candidates
            if jaccard(shingles_of(source.sha256), shingles_of(sha_of[other])) >= THRESHOLD
        ]
        if similar:
            originals[source.id] = min(similar, key=[s.id for s in ordered].index)
            continue
        index.insert(source.id, minhash)
        by_hash[source.sha256] = source.id
    return originals


def shingles(text: str) -> set[str]:
    """The text's word 3-shingles."""
    tokens = words(text)
    return {" ".join(tokens[i : i + 3]) for i in range(max(1, len(tokens) - 2))}


def jaccard(left: set[str], right: set[str]) -> float:
    return len(left & right) / len(left | right) if left or right else 1.0


def signature(items: Iterable[str]) -> np.ndarray:
    """The MinHash signature of a set of strings: per permutation, the least permuted
    hash of any item (datasketch's `MinHash(num_perm=128)` after `update_batch`)."""
    a, b = _permutations()
    digests = [hashlib.sha1(item.encode("utf-8")).digest()[:4] for item in items]
    if not digests:
        return np.full(PERMUTATIONS, _EMPTY, dtype=np.uint32)
    hashes = _fmix32(np.frombuffer(b"".join(digests), dtype="<u4").astype(np.uint32))
    permuted: np.ndarray = hashes.reshape(-1, 1) * a + b  # wraps: mod 2^32
    least: np.ndarray = permuted.min(axis=0)
    return least


@cache
def _permutations() -> tuple[np.ndarray, np.ndarray]:
    generator = np.random.RandomState(1)
    a = generator.randint(0, 1 << 31, PERMUTATIONS, dtype=np.uint32) * np.uint32(2) + np.uint32(1)
    b = generator.randint(0, 1 << 32, PERMUTATIONS, dtype=np.uint32)
    return a, b


def _fmix32(hashes: np.ndarray) -> np.ndarray:
    """MurmurHash3's 32-bit finalizer, element-wise (products wrap mod 2^32)."""
    hashes = hashes ^ (hashes >> np.uint32(16))
    hashes = hashes * np.uint32(0x85EBCA6B)
    hashes = hashes ^ (hashes >> np.uint32(13))
    hashes = hashes * np.uint32(0xC2B2AE35)
    mixed: np.ndarray = hashes ^ (hashes >> np.uint32(16))
    return mixed


class _Bands:
    """LSH: two signatures are candidates when one band of ROWS values is equal."""

    def __init__(self) -> None:
        self._tables: list[dict[bytes, list[str]]] = [{} for _ in range(BANDS)]

    def _keys(self, signature: np.ndarray) -> list[bytes]:
        return [signature[i * ROWS : (i + 1) * ROWS].tobytes() for i in range(BANDS)]

    def query(self, signature: np.ndarray) -> set[str]:
        found: set[str] = set()
        for table, key in zip(self._tables, self._keys(signature), strict=True):
            found.update(table.get(key, ()))
        return found

    def insert(self, name: str, signature: np.ndarray) -> None:
        for table, key in zip(self._tables, self._keys(signature), strict=True):
            table.setdefault(key, []).append(name)


SIGNATURES_KEPT = 4096  # 512 bytes each: what a process keeps at most


class _Signatures:
    """MinHash signatures by snapshot hash, the most recently used kept: a text's
    signature never changes, so runs may share them, but the process keeps a bounded
    number (selection runs in worker threads, hence the lock)."""

    def __init__(self, kept: int) -> None:
        self.kept = kept
        self._known: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, sha256: str, text_of: Callable[[str], str]) -> np.ndarray:
        with self._lock:
            known = self._known.get(sha256)
            if known is not None:
                self._known.move_to_end(sha256)
                return known
        computed = signature(shingles(text_of(sha256)))
        with self._lock:
            self._known[sha256] = computed
            while len(self._known) > self.kept:
                self._known.popitem(last=False)
        return computed

    def __len__(self) -> int:
        return len(self._known)


_SIGNATURES = _Signatures(SIGNATURES_KEPT)


def _signature(sha256: str, text_of: Callable[[str], str]) -> np.ndarray:
    return _SIGNATURES.get(sha256, text_of)
