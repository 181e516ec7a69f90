"""Ranking the passages of web pages for one query.

Pages found on the web have no index: their text is cut into passages with
`chunk_text` (spans of the page's snapshot, so evidence stays verbatim), and the
passages of the pages at hand are put in a BM25F index of their own, scored with the
local corpus's rules (`fields.query_scores`): the passage's words, its heading path,
the page's title and its URL, times the boost for the query's category names.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple
from urllib.parse import urlsplit

import numpy as np

from grounded_research.retrieval import bm25f, fields
from grounded_research.retrieval.base import SearchHit
from grounded_research.retrieval.web import WebPage
from grounded_research.state import Origin
from grounded_research.text.chunking import Chunk, chunk_text
from grounded_research.text.tokenize import tokenize


class PageTokens(NamedTuple):
    """One page's passages and their tokens, field by field."""

    chunks: tuple[Chunk, ...]
    title: list[str]
    path: list[str]
    bodies: tuple[list[str], ...]
    headings: tuple[list[str], ...]
    options: tuple[list[str], ...]  # the options each passage names (`fields.option_tokens`)


@lru_cache(maxsize=512)
def _passages(sha256: str, text: str, title: str, location: str, chunk_size: int) -> PageTokens:
    """Chunks of one page and their tokens per field, computed once per page and size."""
    chunks = tuple(chunk_text(text, chunk_size))
    url = urlsplit(location)
    return PageTokens(
        chunks,
        fields.title_tokens(title),
        fields.path_tokens(f"{url.hostname or ''}/{url.path}", title),
        tuple(tokenize(text[c.start : c.end]) for c in chunks),
        tuple(fields.heading_tokens(c.headings) for c in chunks),
        tuple(fields.option_tokens(c.headings, text[c.start : c.end]) for c in chunks),
    )


def rank_passages(
    pages: list[WebPage], query: str, k: int, chunk_size: int, origin: Origin = "web"
) -> list[SearchHit]:
    """The `k` passages of these pages that best match `query` (BM25F), best first,
    labelled with the `origin` of the retriever that found them."""
    found: list[tuple[WebPage, Chunk]] = []
    streams: dict[str, list[list[str]]] = {name: [] for name in fields.FIELD_WEIGHTS}
    chunk_document: list[int] = []
    for page in pages:
        if page.status != "fetched" or not page.text:
            continue
        tokens = _passages(page.sha256, page.text, page.title, page.location, chunk_size)
        if not tokens.chunks:
            continue
        streams["title"].append(tokens.title)
        streams["path"].append(tokens.path)
        streams["body"].extend(tokens.bodies)
        streams["heading"].extend(tokens.headings)
        streams["options"].extend(tokens.options)
        chunk_document.extend([len(streams["title"]) - 1] * len(tokens.chunks))
        found.extend((page, chunk) for chunk in tokens.chunks)
    if not found or k < 1:
        return []
    vocabulary, ids = bm25f.token_ids(streams)
    index = bm25f.build(vocabulary, ids, np.asarray(chunk_document, dtype=np.int32))
    scores = fields.query_scores(index, query)
    ranked = sorted((i for i in range(len(found)) if scores[i] > 0), key=lambda i: (-scores[i], i))
    out: list[SearchHit] = []
    for i in ranked[:k]:
        page, chunk = found[i]
        out.append(
            SearchHit(
                location=page.location,
                title=page.title,
                sha256=page.sha256,
                start=chunk.start,
                end=chunk.end,
                text=page.text[chunk.start : chunk.end],
                score=round(float(scores[i]), 6),
                origin=origin,
                published=page.published,
                retrieved_at=page.fetched_at or None,
                note=page_note(page),
                headings=chunk.headings,
            )
        )
    return out


def page_note(page: WebPage) -> str:
    """What a reader of a quote from this page should know: that its bytes were not
    clean in their charset, that it was cut at the byte cap."""
    cut = f"cut at {page.cut_at} bytes (the byte cap)" if page.cut_at else ""
    return "; ".join(note for note in (page.note, cut) if note)
