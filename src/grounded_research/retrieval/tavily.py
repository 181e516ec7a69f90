"""The `tavily` retriever: web search through Tavily's API (tavily-python's async client).

Tavily is asked for each result's page content (`include_raw_content`); a result that
comes without it is fetched by the guarded fetcher instead. Either way the page is
snapshotted and its passages are ranked for the query like any other web page, so
evidence is a verbatim span of a saved text, never Tavily's summary snippet.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

import httpx

from grounded_research.configuration import Context
from grounded_research.retrieval.engine import SearchEngine
from grounded_research.retrieval.session import RunSession
from grounded_research.retrieval.web import WebPage, shared_ssl_context

RETRIES = 2  # asks again after a 429 or 503, at most this many times
LONGEST_WAIT = 10.0  # seconds: a longer Retry-After is not waited for


class RetryAfter(httpx.AsyncBaseTransport):
    """A rate limit (429) or a busy API (503) answered as the API asks: wait what its
    `Retry-After` says (seconds or an HTTP date; 1 s when it says nothing readable) and
    ask again, `RETRIES` times at most; a wait longer than `LONGEST_WAIT` is not worth a
    run's time, and the answer is returned as it is (the search then fails, recorded)."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        for _ in range(RETRIES):
            response = await self.inner.handle_async_request(request)
            wait = retry_after(response)
            if wait is None:
                return response
            await response.aclose()
            await asyncio.sleep(wait)
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


def retry_after(response: httpx.Response) -> float | None:
    """Seconds to wait before asking again, or None when the answer stands."""
    if response.status_code not in (429, 503):
        return None
    value = response.headers.get("retry-after", "").strip()
    try:
        wait = float(value)
    except ValueError:
        try:
            wait = (parsedate_to_datetime(value) - datetime.now(UTC)).total_seconds()
        except (TypeError, ValueError):
            wait = 1.0
    wait = max(0.0, wait)
    return wait if wait <= LONGEST_WAIT else None


class TavilyRetriever(SearchEngine):
    name = "tavily"

    def __init__(self, context: Context, session: RunSession, api_key: str) -> None:
        super().__init__(context, session)
        self.api_key = api_key

    def _results(self, answer: dict[str, Any]) -> list[dict[str, Any]]:
        return [r for r in answer.get("results", []) if isinstance(r, dict) and r.get("url")]

    async def _ask(self, query: str) -> dict[str, Any]:
        from tavily import AsyncTavilyClient  # with `requests`: only for a web search

        context = self.context
        transport = RetryAfter(httpx.AsyncHTTPTransport(verify=shared_ssl_context()))
        async with httpx.AsyncClient(base_url=context.tavily_base_url, transport=transport) as http:
            client = AsyncTavilyClient(
                api_key=self.api_key, api_base_url=context.tavily_base_url, client=http
            )
            answer: dict[str, Any] = await client.search(
                query,
                search_depth=context.tavily_search_depth,
                topic=context.tavily_topic,
                time_range=context.tavily_time_range or None,
                max_results=context.tavily_max_results,
                include_domains=context.tavily_include_domains or None,
                exclude_domains=context.tavily_exclude_domains or None,
                include_raw_content="markdown",
                timeout=context.search_timeout,
            )
        return answer

    async def _page(self, result: dict[str, Any]) -> WebPage:
        url = str(result["url"]).strip()
        raw = result.get("raw_content")
        if isinstance(raw, str) and raw.strip():
            store = self.session.fetcher.snapshots
            return self.session.remember(
                WebPage(
                    url=url,
                    status="fetched",
                    location=url,
                    title=str(result.get("title") or url),
                    published=result.get("published_date") or None,
                    content_type="text/markdown",
                    sha256=store.put(raw),
                    fetched_at=datetime.now(UTC).isoformat(timespec="seconds"),
                    text=raw,
                )
            )
        return await self._fetched(url, str(result.get("title") or ""))
