"""Ranking the passages of web pages for one query.

Pages found on the web have no index: their text is cut into passages with
`chunk_text` (spans of the page's snapshot, so evidence stays verbatim) and the
passages are scored with BM25 over those pages alone, with the same tokens as the
local corpus (`tokenize`, the page title and the passage's heading included).
"""

from __future__ import annotations

import math
from collections import Counter
from functools import lru_cache

from grounded_research.retrieval.base import SearchHit
from grounded_research.retrieval.web import WebPage
from grounded_research.text.chunking import Chunk, chunk_text
from grounded_research.text.tokenize import tokenize

K1 = 1.5
B = 0.75


@lru_cache(maxsize=512)
def _passages(
    sha256: str, text: str, title: str, chunk_size: int
) -> tuple[tuple[Chunk, ...], tuple[Counter[str], ...]]:
    """Chunks of one page and their token counts, computed once per page and size."""
    chunks = tuple(chunk_text(text, chunk_size))
    title_tokens = tokenize(title)
    counts = tuple(
        Counter(title_tokens + tokenize(c.heading) + tokenize(text[c.start : c.end]))
        for c in chunks
    )
    return chunks, counts


def rank_passages(pages: list[WebPage], query: str, k: int, chunk_size: int) -> list[SearchHit]:
    """The `k` passages of these pages that best match `query` (BM25), best first."""
    query_terms = set(tokenize(query))
    rows: list[tuple[WebPage, Chunk, Counter[str]]] = []
    for page in pages:
        if page.status != "fetched" or not page.text:
            continue
        chunks, counts = _passages(page.sha256, page.text, page.title, chunk_size)
        rows.extend((page, chunk, count) for chunk, count in zip(chunks, counts, strict=True))
    if not rows or not query_terms or k < 1:
        return []
    total = len(rows)
    average = sum(sum(count.values()) for _, _, count in rows) / total or 1.0
    frequency = {t: sum(1 for _, _, count in rows if t in count) for t in query_terms}
    scored: list[tuple[float, int, WebPage, Chunk]] = []
    for order, (page, chunk, count) in enumerate(rows):
        length = sum(count.values())
        score = 0.0
        for term in query_terms:
            tf = count.get(term, 0)
            if not tf:
                continue
            idf = math.log(1 + (total - frequency[term] + 0.5) / (frequency[term] + 0.5))
            score += idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / average))
        if score > 0:
            scored.append((score, order, page, chunk))
    scored.sort(key=lambda row: (-row[0], row[1]))
    return [
        SearchHit(
            location=page.location,
            title=page.title,
            sha256=page.sha256,
            start=chunk.start,
            end=chunk.end,
            text=page.text[chunk.start : chunk.end],
            score=round(score, 6),
            origin="web",
            published=page.published,
            retrieved_at=page.fetched_at or None,
            note=f"cut at {page.cut_at} bytes (the byte cap)" if page.cut_at else "",
        )
        for score, _, page, chunk in scored[:k]
    ]
