"""How candidate passages are ranked for a sub-question.

- `none`: the retriever's own scores, as they came.
- `keyword`: BM25 (bm25s) over the candidates themselves, with the tokens of the local
  index (`tokenize`: English stemmed, Chinese cut by jieba), the passage's title and
  heading included.
- `embeddings`: cosine similarity of unit vectors, the inner products of the candidates'
  chunk vectors (kept on disk, see `vectors.py`) with the texts' vectors.
- `hybrid`: reciprocal rank fusion (RRF, k = 60) of the keyword and embedding rankings.

A candidate is ranked against the sub-question and against the query that found it
(a follow-up query names the bridge entity the sub-question does not): its strength is
the mean over those texts of `1 / (k + rank)`, summed over the strategy's rankings.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from grounded_research.retrieval.dense import RRF_K, Key
from grounded_research.selection.embeddings import Embedder
from grounded_research.selection.vectors import PassageText, VectorFile
from grounded_research.text.tokenize import tokenize

QUERY_CACHE = 4096


@dataclass(frozen=True)
class Candidate:
    key: Key  # snapshot sha256, start, end
    text: str  # the passage with its title and heading: what is ranked
    query: str  # the query that found it
    origin: str = "local"  # which vector file keeps its vector
    score: float = 0.0  # the retriever's score, for `none`


def keyword_scores(queries: Sequence[str], texts: Sequence[str]) -> np.ndarray:
    """BM25 score of every text for every query, IDF taken from these texts."""
    import bm25s  # with scipy.sparse: loaded by the first keyword ranking

    scores = np.zeros((len(queries), len(texts)), dtype=np.float32)
    if not texts:
        return scores
    bm25 = bm25s.BM25()
    bm25.index([tokenize(t) or [""] for t in texts], show_progress=False)
    for row, query in enumerate(queries):
        known = [t for t in tokenize(query) if t in bm25.vocab_dict]
        if known:
            scores[row] = bm25.get_scores(known)
    return scores


def cosine_scores(query_vectors: np.ndarray, vectors: np.ndarray) -> np.ndarray:
    """Inner products of unit vectors, every passage for every query.

    A sub-question's candidates are tens, so each product is summed in float32 row by row
    (numpy's pairwise sum), not through a vector index: the same vector always scores
    the same, and a search index library (FAISS: 11 MiB and 0.15 s to load) is not
    needed. Against FAISS's flat index the scores differ by at most 6e-8, and not one
    of 233,296 rank positions compared (random unit vectors, some duplicated) moved."""
    queries = np.asarray(query_vectors, dtype=np.float32)
    passages = np.ascontiguousarray(vectors, dtype=np.float32)
    scores = np.zeros((queries.shape[0], passages.shape[0]), dtype=np.float32)
    if not scores.size:
        return scores
    for row, query in enumerate(queries):
        scores[row] = (passages * query).sum(axis=1, dtype=np.float32)
    return scores


def rank_positions(scores: np.ndarray) -> np.ndarray:
    """0 for the best of each row; ties keep the candidates' order."""
    order = np.argsort(-scores, axis=1, kind="stable")
    positions = np.empty_like(order)
    np.put_along_axis(positions, order, np.arange(scores.shape[1])[None, :], axis=1)
    return positions


def fused(matrices: list[np.ndarray], asked: list[list[int]]) -> np.ndarray:
    """Reciprocal rank fusion: for each candidate, over each ranking, the mean over the
    query rows it is asked against of 1 / (k + rank)."""
    strength = np.zeros(len(asked), dtype=np.float64)
    for matrix in matrices:
        reciprocal = 1.0 / (RRF_K + 1 + rank_positions(matrix))
        for column, rows in enumerate(asked):
            strength[column] += float(reciprocal[rows, column].mean())
    return strength


_QUERY_VECTORS: dict[str, OrderedDict[str, np.ndarray]] = {}
_QUERY_LOCK = threading.Lock()


@dataclass(frozen=True)
class Ranker:
    """Ranks candidates with one strategy."""

    strategy: str
    embedder: Embedder | None = None
    vector_files: Callable[[str], VectorFile] | None = None

    def strengths(
        self, sub_question: str, candidates: Sequence[Candidate]
    ) -> tuple[list[float], int]:
        """One strength per candidate (higher is better), and how many texts had to be
        embedded for it."""
        if self.strategy == "none" or not candidates:
            return [c.score for c in candidates], 0
        texts = list(dict.fromkeys([sub_question, *(c.query or sub_question for c in candidates)]))
        row = {text: i for i, text in enumerate(texts)}
        asked = [sorted({row[sub_question], row[c.query or sub_question]}) for c in candidates]
        matrices: list[np.ndarray] = []
        embedded = 0
        if self.strategy in ("keyword", "hybrid"):
            matrices.append(keyword_scores(texts, [c.text for c in candidates]))
        if self.strategy in ("embeddings", "hybrid"):
            queries, embedded_queries = self.query_vectors(texts)
            vectors, embedded_passages = self.vectors(candidates)
            matrices.append(cosine_scores(queries, vectors))
            embedded = embedded_queries + embedded_passages
        return [round(float(s), 6) for s in fused(matrices, asked)], embedded

    def vectors(self, candidates: Sequence[Candidate]) -> tuple[np.ndarray, int]:
        """Chunk vectors from their vector files, where each is embedded once, ever."""
        if self.vector_files is None:
            raise ValueError("the embeddings strategy needs vector files")
        rows: list[np.ndarray] = [np.zeros(0)] * len(candidates)
        embedded = 0
        by_origin: dict[str, list[int]] = {}
        for position, candidate in enumerate(candidates):
            by_origin.setdefault(candidate.origin, []).append(position)
        for origin, positions in by_origin.items():
            passages = [PassageText(candidates[p].key, candidates[p].text) for p in positions]
            matrix, fresh = self.vector_files(origin).vectors(passages)
            embedded += fresh
            for position, vector in zip(positions, matrix, strict=True):
                rows[position] = vector
        return np.vstack(rows).astype(np.float32), embedded

    def query_vectors(self, texts: Sequence[str]) -> tuple[np.ndarray, int]:
        """Queries are embedded when first seen and kept in memory, per embedder."""
        if self.embedder is None:
            raise ValueError("the embeddings strategy needs an embedder")
        with _QUERY_LOCK:
            known = _QUERY_VECTORS.setdefault(self.embedder.id, OrderedDict())
            missing = [t for t in dict.fromkeys(texts) if t not in known]
            if missing:
                for text, vector in zip(missing, self.embedder.embed(missing), strict=True):
                    known[text] = vector
            for text in texts:
                known.move_to_end(text)
            vectors = np.vstack([known[t] for t in texts]).astype(np.float32)
            while len(known) > QUERY_CACHE:
                known.popitem(last=False)
            return vectors, len(missing)
