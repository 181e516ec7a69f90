"""What all parallel branches of one run share: the limits on searches and fetches in
flight, the run's deadline, its page budget, and the pages already fetched.

A run makes one `RunSession` when it starts and holds it (`resources.RunResources`);
its retrievers search and fetch through it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import TypeVar

from grounded_research.configuration import Context
from grounded_research.retrieval.base import Retriever, SearchHit, SourceProblem, shelves_of
from grounded_research.retrieval.ssrf import Resolver, system_resolver
from grounded_research.retrieval.web import FetchLimits, WebFetcher, WebPage
from grounded_research.state import Limit

T = TypeVar("T")


class SearchNotStarted(Exception):
    """A budget of the run (`limit`) refused a search before it began."""

    limit: Limit


class DeadlineReached(SearchNotStarted):
    """The run's deadline passed: no new search starts."""

    limit = "run_deadline"


class SearchBudgetReached(SearchNotStarted):
    """The run started its `max_searches` searches: no new one starts."""

    limit = "max_searches"


class SearchTimedOut(Exception):
    """One search call took longer than `search_timeout`."""


class RunSession:
    def __init__(self, context: Context, resolve: Resolver = system_resolver) -> None:
        self.searches = asyncio.Semaphore(context.search_concurrency)
        self.fetch_slots = asyncio.Semaphore(context.fetch_concurrency)
        self.search_timeout = context.search_timeout
        self.max_pages = context.max_pages
        self.max_searches = context.max_searches
        self.searches_started = 0
        self.limits_reached: set[Limit] = set()  # the budgets that refused or cut work
        self.deadline = time.monotonic() + context.run_deadline if context.run_deadline else None
        self.fetcher = WebFetcher(
            context.cache_dir,
            FetchLimits(
                timeout=context.fetch_timeout,
                max_bytes=context.max_page_bytes,
                retries=context.fetch_retries,
                cache_days=context.page_cache_days,
                allow_private=context.allow_private_network,
            ),
            resolve,
        )
        self._pages: dict[str, asyncio.Future[WebPage]] = {}
        self._fetching = 0

    def time_left(self) -> float | None:
        return None if self.deadline is None else self.deadline - time.monotonic()

    async def search(self, call: Callable[[], Awaitable[T]]) -> T:
        """Run one search call within the search limit, its timeout, the run's search
        budget and the deadline (which cuts a search in flight too)."""
        async with self.searches:
            left = self.time_left()
            if left is not None and left <= 0:
                self.limits_reached.add("run_deadline")
                raise DeadlineReached("the run's deadline has passed: search not started")
            if self.max_searches and self.searches_started >= self.max_searches:
                self.limits_reached.add("max_searches")
                raise SearchBudgetReached(
                    f"the run's limit of {self.max_searches} searches is reached: not started"
                )
            self.searches_started += 1
            cut_by_deadline = left is not None and left < self.search_timeout
            limit = self.search_timeout if left is None else min(self.search_timeout, left)
            try:
                async with asyncio.timeout(limit):
                    return await call()
            except TimeoutError:
                if cut_by_deadline:
                    self.limits_reached.add("run_deadline")
                raise SearchTimedOut(f"no answer within {limit:g} s") from None

    async def page(self, url: str) -> tuple[WebPage, bool]:
        """The page at `url`, fetched once per run however many branches ask for it;
        True when this call is the one that fetched it."""
        url = url.strip()
        known = self._pages.get(url)
        if known is not None:
            return await asyncio.shield(known), False
        if self._fetching >= self.max_pages:
            self.limits_reached.add("max_pages")
            error = f"not fetched: the run's limit of {self.max_pages} pages is reached"
            return WebPage(url=url, status="failed", error=error, location=url), False
        self._fetching += 1
        task = asyncio.ensure_future(self._fetch(url))
        self._pages[url] = task
        return await asyncio.shield(task), True

    async def result_page(self, url: str, title: str) -> tuple[WebPage, bool]:
        """A search result's page, as `page` gives it; a page that names no title of
        its own takes the one the search gave."""
        page, fetched_here = await self.page(url)
        if page.status == "fetched" and not page.title:
            page = replace(page, title=title or url)
        return page, fetched_here

    def remember(self, page: WebPage) -> WebPage:
        """A page whose text a search API supplied: the run reuses it, unfetched."""
        known = self._pages.get(page.url)
        if known is not None and known.done():
            return known.result()
        if known is None:
            future: asyncio.Future[WebPage] = asyncio.get_running_loop().create_future()
            future.set_result(page)
            self._pages[page.url] = future
        return page

    def close(self) -> None:
        """The run is over (finished, failed or cancelled): a fetch still in flight, which
        a search that timed out left behind or a cancelled branch no longer awaits,
        stops here instead of outliving it."""
        for page in self._pages.values():
            if not page.done():
                page.cancel()

    async def _fetch(self, url: str) -> WebPage:
        async with self.fetch_slots:
            left = self.time_left()
            if left is not None and left <= 0:
                self.limits_reached.add("run_deadline")
                error = "not fetched: the run's deadline has passed"
                return WebPage(url=url, status="failed", error=error, location=url)
            try:
                page = await self.fetcher.fetch(url, timeout=left)
            except Exception as error:  # a bug or a full disk fails this page, not the run
                error_text = f"{type(error).__name__}: {error}"
                return WebPage(url=url, status="failed", error=error_text, location=url)
            cut_by_deadline = left is not None and left < self.fetcher.limits.timeout
            if cut_by_deadline and page.error.startswith("timed out"):
                self.limits_reached.add("run_deadline")
            return page


class Limited:
    """A retriever whose searches count against the run's search limit and deadline."""

    def __init__(self, inner: Retriever, session: RunSession) -> None:
        self.inner = inner
        self.name = inner.name
        self.session = session

    async def search(self, query: str, k: int) -> list[SearchHit]:
        return await self.session.search(lambda: self.inner.search(query, k))

    def problems(self) -> list[SourceProblem]:
        return self.inner.problems()

    def shelves(self) -> list[str]:
        return shelves_of(self.inner)


def problem_of(page: WebPage) -> SourceProblem:
    status = "blocked" if page.status == "blocked" else "failed"
    return SourceProblem(page.location or page.url, status, page.error, "web")
