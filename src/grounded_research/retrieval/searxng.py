"""The `searxng` retriever: web search without a paid key, through a SearXNG instance's
JSON API (`GET /search?q=...&format=json`, which its settings.yml must allow).

SearXNG is the operator's own service (often on this machine), named by the
operator-only `searxng_url` and asked directly; the pages it finds are other people's,
and are fetched like any web page: by the run's guarded fetcher, within its page budget,
limits and deadline. Its snippets are never evidence: a page's passages are ranked for
the query from its snapshot, as for Tavily and `--urls`.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import httpx

from grounded_research.retrieval.engine import SearchEngine
from grounded_research.retrieval.tavily import RetryAfter
from grounded_research.retrieval.web import USER_AGENT, WebPage, shared_ssl_context


class SearxngError(Exception):
    """SearXNG answered, but not with search results."""


def result_links(answer: Any, most: int) -> list[tuple[str, str]]:
    """The (url, title) of the first `most` http(s) results of a SearXNG JSON answer,
    each URL once; whatever else the answer holds is ignored."""
    results = answer.get("results") if isinstance(answer, dict) else None
    links: dict[str, str] = {}
    for result in results if isinstance(results, list) else []:
        url = result.get("url") if isinstance(result, dict) else None
        if not isinstance(url, str) or urlsplit(url.strip()).scheme not in ("http", "https"):
            continue
        title = result.get("title")
        links.setdefault(url.strip(), title if isinstance(title, str) else "")
        if len(links) >= most:
            break
    return list(links.items())


class SearxngRetriever(SearchEngine):
    name = "searxng"

    def _results(self, answer: Any) -> list[tuple[str, str]]:
        return result_links(answer, self.context.searxng_max_results)

    async def _ask(self, query: str) -> Any:
        transport = RetryAfter(httpx.AsyncHTTPTransport(verify=shared_ssl_context()))
        async with httpx.AsyncClient(
            base_url=self.context.searxng_url,
            transport=transport,
            timeout=self.context.search_timeout,
            headers={"User-Agent": USER_AGENT, "Accept": "application/json"},
        ) as http:
            response = await http.get("/search", params={"q": query, "format": "json"})
        if response.status_code == 403:
            raise SearxngError(
                "SearXNG refused the JSON format (403): add json to search.formats in its "
                "settings.yml"
            )
        response.raise_for_status()
        try:
            return response.json()
        except ValueError as error:
            raise SearxngError(f"SearXNG's answer is not JSON: {error}") from None

    async def _page(self, result: tuple[str, str]) -> WebPage:
        url, title = result
        return await self._fetched(url, title)
