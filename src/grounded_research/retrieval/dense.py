"""Dense retrieval over the local corpus, an option (the `dense_retrieval` knob): every
chunk embedded once, at index time, and the query's nearest chunks fused with BM25F's
ranking.

The vectors are kept by a `VectorStore` keyed by the chunk's snapshot hash and span,
with the text the selection embeds for a passage (title, heading, passage:
`selection.select.candidate_of`): given the selection's vector file of the corpus (a
`selection.vectors.VectorFile` in the index folder), a chunk embedded here is never
embedded again, not by a refresh (only new chunks are), not by the hybrid selection of a
run. They are embedded in batches, each stored when done, so an interrupted build keeps
what it embedded. (The retrieval layer does not import the selection's embedders: the
layer above hands a `DenseRetrieval` to `local.open_corpus`, see
`selection.vectors.dense_retrieval`.)

Fusion is reciprocal rank fusion (Cormack, Clarke and Büttcher, 2009) of the two
rankings' first FUSION_DEPTH chunks: rank-based, so the scales of a BM25F score and a
cosine never meet.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

FUSION_DEPTH = 100
RRF_K = 60
BATCH = 512  # chunks embedded, then stored, at a time

Key = tuple[str, int, int]  # snapshot sha256, start, end


class VectorStore(Protocol):
    def __contains__(self, key: Key) -> bool:
        """Whether the chunk has a vector already."""
        ...

    def get(self, keys: Sequence[Key], texts: Sequence[str]) -> np.ndarray:
        """One unit-length row per key, embedding `texts[i]` for a key that has none."""
        ...


@dataclass(frozen=True)
class DenseRetrieval:
    """Dense retrieval as a run asks for it: which embedder, and the corpus's
    `DenseIndex` given its index folder."""

    embedder_id: str  # a corpus opened with one embedder's vectors is not another's
    index_in: Callable[[Path], DenseIndex]


def passage_text(title: str, heading: str, text: str) -> str:
    """What is embedded for a chunk: the same text the selection embeds for it."""
    return "\n".join(part for part in (title, heading, text) if part)


class DenseIndex:
    def __init__(self, store: VectorStore, embed_query: Callable[[str], np.ndarray]) -> None:
        self.store = store
        self.embed_query = embed_query
        self.matrix = np.zeros((0, 0), dtype=np.float32)
        self.embedded = 0  # chunks this process embedded

    def sync(self, keys: Sequence[Key], text_of: Callable[[int], str]) -> int:
        """Embed the chunks not embedded yet (`text_of(i)`: the text of `keys[i]`, read
        only for those), and hold every chunk's vector in index order. Returns how many
        were embedded."""
        missing = [i for i, key in enumerate(keys) if key not in self.store]
        for first in range(0, len(missing), BATCH):
            batch = missing[first : first + BATCH]
            self.store.get([keys[i] for i in batch], [text_of(i) for i in batch])
        self.embedded += len(missing)
        if keys:
            matrix = self.store.get(keys, [""] * len(keys))
            self.matrix = np.ascontiguousarray(matrix, dtype=np.float32)
        else:
            self.matrix = np.zeros((0, 0), dtype=np.float32)
        return len(missing)

    def scores(self, query: str) -> np.ndarray:
        """Every chunk's cosine with the query."""
        if not self.matrix.size:
            return np.zeros(0, dtype=np.float32)
        scores: np.ndarray = self.matrix @ self.embed_query(query).astype(np.float32)
        return scores


def fuse(lexical: np.ndarray, dense: np.ndarray, depth: int = FUSION_DEPTH) -> np.ndarray:
    """Reciprocal rank fusion of two score arrays over the same chunks: each chunk among
    a ranking's first `depth` (with a positive lexical score) gains 1 / (RRF_K + rank);
    the others score 0."""
    fused = np.zeros(lexical.size, dtype=np.float32)
    for scores, floor in ((lexical, 0.0), (dense, -np.inf)):
        eligible = np.flatnonzero(scores > floor)
        if not eligible.size:
            continue
        if eligible.size > depth:
            eligible = eligible[np.argpartition(-scores[eligible], depth - 1)[:depth]]
        order = eligible[np.lexsort((eligible, -scores[eligible]))]
        fused[order] += 1.0 / (RRF_K + np.arange(1, order.size + 1, dtype=np.float32))
    return fused
