"""A web search engine as a retriever (Tavily, SearXNG): ask it, take the pages of its
results, rank their passages for the query. An engine says how it is asked and what a
result's page is; the rest is one way for all of them.

A result's page is fetched by the run's guarded fetcher, within the run's page budget
and limits, unless the engine gave its text whole; either way it is snapshotted, and
evidence is a verbatim span of that snapshot, never the engine's snippet. A page that
could not be read is a problem the ledger keeps.
"""

from __future__ import annotations

import asyncio
from typing import Any

from grounded_research.configuration import Context
from grounded_research.retrieval.base import SearchHit, SourceProblem
from grounded_research.retrieval.passages import rank_passages
from grounded_research.retrieval.session import RunSession, problem_of
from grounded_research.retrieval.web import WebPage


class SearchEngine:
    name: str

    def __init__(self, context: Context, session: RunSession) -> None:
        self.context = context
        self.session = session
        self.fetches = 0
        self._problems: dict[str, SourceProblem] = {}

    async def search(self, query: str, k: int) -> list[SearchHit]:
        answer = await self.session.search(lambda: self._ask(query))
        pages = await asyncio.gather(*(self._page(result) for result in self._results(answer)))
        for page in pages:
            if page.status != "fetched":
                self._problems[page.url] = problem_of(page)
        return rank_passages(pages, query, k, self.context.chunk_size)

    def problems(self) -> list[SourceProblem]:
        return list(self._problems.values())

    async def _ask(self, query: str) -> Any:
        """The engine's answer to the query."""
        raise NotImplementedError

    def _results(self, answer: Any) -> list[Any]:
        """The results of an answer that have a page."""
        raise NotImplementedError

    async def _page(self, result: Any) -> WebPage:
        """A result's page."""
        raise NotImplementedError

    async def _fetched(self, url: str, title: str) -> WebPage:
        """A result's page, fetched (or found fetched already) by the run."""
        page, fetched_here = await self.session.result_page(url, title)
        if fetched_here and page.downloaded:
            self.fetches += 1
        return page
