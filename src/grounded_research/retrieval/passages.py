"""Ranking the passages of web pages for one query.

Pages found on the web have no index: their text is cut into passages with
`chunk_text` (spans of the page's snapshot, so evidence stays verbatim) and the
passages are scored over those pages alone with the local corpus's rules: BM25F over
the passage's words, its heading path, the page's title and its URL (`fields`,
`bm25f`), times the boost for the query's category names.
"""

from __future__ import annotations

import math
from collections import Counter
from functools import lru_cache
from urllib.parse import urlsplit

import numpy as np

from grounded_research.retrieval import fields
from grounded_research.retrieval.base import SearchHit
from grounded_research.retrieval.bm25f import K1, B
from grounded_research.retrieval.web import WebPage
from grounded_research.text.chunking import Chunk, chunk_text
from grounded_research.text.tokenize import tokenize

Row = dict[str, Counter[str]]  # a passage's tokens, field by field


@lru_cache(maxsize=512)
def _passages(
    sha256: str, text: str, title: str, location: str, chunk_size: int
) -> tuple[tuple[Chunk, ...], tuple[Row, ...]]:
    """Chunks of one page and their tokens per field, computed once per page and size."""
    chunks = tuple(chunk_text(text, chunk_size))
    url = urlsplit(location)
    page = {
        "title": Counter(fields.title_tokens(title)),
        "path": Counter(fields.path_tokens(f"{url.hostname or ''}/{url.path}", title)),
    }
    rows = tuple(
        {
            "body": Counter(tokenize(text[c.start : c.end])),
            "heading": Counter(fields.heading_tokens(c.headings)),
            **page,
        }
        for c in chunks
    )
    return chunks, rows


def rank_passages(pages: list[WebPage], query: str, k: int, chunk_size: int) -> list[SearchHit]:
    """The `k` passages of these pages that best match `query` (BM25F), best first."""
    query_terms = set(tokenize(query))
    found: list[tuple[WebPage, Chunk, Row]] = []
    for page in pages:
        if page.status != "fetched" or not page.text:
            continue
        chunks, rows = _passages(page.sha256, page.text, page.title, page.location, chunk_size)
        found.extend((page, chunk, row) for chunk, row in zip(chunks, rows, strict=True))
    if not found or not query_terms or k < 1:
        return []
    total = len(found)
    names = list(fields.FIELD_WEIGHTS)
    average = {
        name: sum(sum(row[name].values()) for _, _, row in found) / total or 1.0 for name in names
    }
    frequency = {
        t: sum(1 for _, _, row in found if any(t in row[name] for name in names))
        for t in query_terms
    }
    scores = np.zeros(total, dtype=np.float32)
    for order, (_, _, row) in enumerate(found):
        score = 0.0
        for term in query_terms:
            weighted = 0.0
            for name in names:
                tf = row[name].get(term, 0)
                if tf:
                    length = sum(row[name].values())
                    b = B.get(name, 0.75)
                    norm = 1 - b + b * length / average[name]
                    weighted += fields.FIELD_WEIGHTS[name] * tf / norm
            if weighted:
                idf = math.log(1 + (total - frequency[term] + 0.5) / (frequency[term] + 0.5))
                score += idf * weighted * (K1 + 1) / (weighted + K1)
        scores[order] = score
    held = [
        np.array([any(name in row[f] for f in fields.NAME_FIELDS) for _, _, row in found])
        for name in sorted(fields.query_names(query))
    ]
    number = {id(page): i for i, page in enumerate(pages)}
    documents = np.array([number[id(page)] for page, _, _ in found])
    scores = fields.name_boost(scores, held, documents)
    ranked = sorted((i for i in range(total) if scores[i] > 0), key=lambda i: (-scores[i], i))
    out: list[SearchHit] = []
    for i in ranked[:k]:
        page, chunk, _ = found[i]
        out.append(
            SearchHit(
                location=page.location,
                title=page.title,
                sha256=page.sha256,
                start=chunk.start,
                end=chunk.end,
                text=page.text[chunk.start : chunk.end],
                score=round(float(scores[i]), 6),
                origin="web",
                published=page.published,
                retrieved_at=page.fetched_at or None,
                note=f"cut at {page.cut_at} bytes (the byte cap)" if page.cut_at else "",
            )
        )
    return out
