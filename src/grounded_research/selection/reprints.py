"""Reprints: the same article under another name counts as one source, not two.

MinHash over word 3-shingles finds the candidate pairs fast (LSH, at a lower threshold
than the verdict, since an estimate near 0.8 falls on either side by chance); the exact
Jaccard similarity of the two shingle sets decides: at 0.8 or more the later copy (by
its published date, then its location) is a duplicate of the earliest one.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING

from grounded_research.state import Source
from grounded_research.text.dates import date_key
from grounded_research.text.tokenize import words

if TYPE_CHECKING:  # datasketch brings scipy: imported when reprints are first looked for
    from datasketch import MinHash

THRESHOLD = 0.8
CANDIDATE_THRESHOLD = 0.5
PERMUTATIONS = 128


def find_reprints(sources: list[Source], text_of: Callable[[str], str]) -> dict[str, str]:
    """Map each reprint's source id to the id of the source it copies."""
    from datasketch import MinHashLSH

    ordered = sorted(sources, key=lambda s: (date_key(s.published) or "9999", s.location))
    index = MinHashLSH(threshold=CANDIDATE_THRESHOLD, num_perm=PERMUTATIONS)
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
        signature = _signature(source.sha256, text_of)
        candidates = index.query(signature)
        similar = [
            other
            for other in candidates
            if jaccard(shingles_of(source.sha256), shingles_of(sha_of[other])) >= THRESHOLD
        ]
        if similar:
            originals[source.id] = min(similar, key=[s.id for s in ordered].index)
            continue
        index.insert(source.id, signature)
        by_hash[source.sha256] = source.id
    return originals


def shingles(text: str) -> set[str]:
    """The text's word 3-shingles."""
    tokens = words(text)
    return {" ".join(tokens[i : i + 3]) for i in range(max(1, len(tokens) - 2))}


def jaccard(left: set[str], right: set[str]) -> float:
    return len(left & right) / len(left | right) if left or right else 1.0


SIGNATURES_KEPT = 4096  # ~3 kB each: what a process keeps at most


class _Signatures:
    """MinHash signatures by snapshot hash, the most recently used kept: a text's
    signature never changes, so runs may share them, but the process keeps a bounded
    number (selection runs in worker threads, hence the lock)."""

    def __init__(self, kept: int) -> None:
        self.kept = kept
        self._known: OrderedDict[str, MinHash] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, sha256: str, text_of: Callable[[str], str]) -> MinHash:
        with self._lock:
            known = self._known.get(sha256)
            if known is not None:
                self._known.move_to_end(sha256)
                return known
        from datasketch import MinHash

        signature = MinHash(num_perm=PERMUTATIONS)
        signature.update_batch([s.encode("utf-8") for s in shingles(text_of(sha256))])
        with self._lock:
            self._known[sha256] = signature
            while len(self._known) > self.kept:
                self._known.popitem(last=False)
        return signature

    def __len__(self) -> int:
        return len(self._known)


_SIGNATURES = _Signatures(SIGNATURES_KEPT)


def _signature(sha256: str, text_of: Callable[[str], str]) -> MinHash:
    return _SIGNATURES.get(sha256, text_of)
