"""The `urls` retriever: research a given list of pages (`--urls FILE`), alone or
beside search. Each page is fetched once per run, by the guarded fetcher; every query
ranks the passages of all the pages that arrived."""

from __future__ import annotations

import asyncio
from pathlib import Path

from grounded_research.configuration import Context
from grounded_research.errors import InputError
from grounded_research.retrieval.base import SearchHit, SourceProblem
from grounded_research.retrieval.passages import rank_passages
from grounded_research.retrieval.session import RunSession, problem_of
from grounded_research.retrieval.web import WebPage


def read_url_list(path: Path) -> list[str]:
    """URLs from a file: one a line; blank lines and `#` comments are skipped."""
    try:
        lines = path.expanduser().read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"cannot read the URL list {path}: {error}") from None
    stripped = (line.strip() for line in lines)
    urls = list(dict.fromkeys(line.split()[0] for line in stripped if line and line[0] != "#"))
    if not urls:
        raise InputError(f"no URLs in {path} (one a line; # starts a comment)")
    return urls


class UrlsRetriever:
    name = "urls"

    def __init__(self, context: Context, session: RunSession) -> None:
        self.urls = list(dict.fromkeys(u.strip() for u in context.urls if u.strip()))
        self.chunk_size = context.chunk_size
        self.session = session
        self.fetches = 0
        self._problems: dict[str, SourceProblem] = {}

    async def search(self, query: str, k: int) -> list[SearchHit]:
        pages = await asyncio.gather(*(self._page(url) for url in self.urls))
        return rank_passages(pages, query, k, self.chunk_size)

    def problems(self) -> list[SourceProblem]:
        return list(self._problems.values())

    async def _page(self, url: str) -> WebPage:
        page, fetched_here = await self.session.page(url)
        if fetched_here and page.downloaded:
            self.fetches += 1
        if page.status != "fetched":
            self._problems[url] = problem_of(page)
        return page
