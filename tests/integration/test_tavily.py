"""The tavily retriever against a local server speaking Tavily's wire format (POST
/search, bearer key, JSON body and results as tavily-python sends and reads them)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from grounded_research.api import aresearch
from grounded_research.configuration import Context
from grounded_research.gathering import gather
from grounded_research.retrieval.local import open_corpus
from grounded_research.retrieval.session import Limited, RunSession
from grounded_research.retrieval.snapshots import SnapshotStore
from grounded_research.retrieval.tavily import TavilyRetriever
from grounded_research.state import SubQuestion
from tests.conftest import EXAMPLE_CORPUS
from tests.integration.test_web_fetch import ARTICLE
from tests.servers import Server, serve, tavily_route

KEY = "tvly-test"
RAW = (
    "# Aurora A1 pilot line\n\nAurora Cellworks runs its solid-state pilot line in Lund.\n\n"
    "Series production of the Aurora A1 was moved to 2027, the company said in February."
)


@pytest.fixture
def web() -> Iterator[Server]:
    with serve({"/article": lambda r: (200, {"Content-Type": "text/html"}, ARTICLE.encode())}) as s:
        yield s


@pytest.fixture
def tavily(web: Server) -> Iterator[Server]:
    def results(query: dict[str, Any]) -> list[dict[str, Any]]:
        return [
            {
                "url": "https://news.example/aurora-pilot-line",  # never fetched: content given
                "title": "Aurora A1 pilot line",
                "content": "Aurora Cellworks runs its pilot line in Lund.",
                "score": 0.91,
                "raw_content": RAW,
                "published_date": "Tue, 03 Feb 2026 08:00:00 GMT",
            },
            {
                "url": web.url("/article"),  # no content: fetched by the guarded fetcher
                "title": "Aurora A1 slips to 2027",
                "content": "Series production slipped to 2027.",
                "score": 0.87,
                "raw_content": None,
            },
        ]

    with serve({"/search": tavily_route(results, api_key=KEY)}) as server:
        yield server


def context(tmp_path: Path, tavily: Server, **overrides: object) -> Context:
    values: dict[str, object] = {
        "cache_dir": str(tmp_path / "cache"),
        "tavily_base_url": tavily.url("").rstrip("/"),
        "allow_private_network": True,  # the result page is on 127.0.0.1
    }
    return Context.from_mapping(values | overrides)


async def test_request_is_tavilys_wire_format(tavily: Server, tmp_path: Path) -> None:
    settings = context(
        tmp_path,
        tavily,
        tavily_search_depth="advanced",
        tavily_topic="news",
        tavily_time_range="week",
        tavily_max_results=3,
        tavily_include_domains=["news.example"],
        tavily_exclude_domains=["spam.example"],
    )
    await TavilyRetriever(settings, RunSession(settings), KEY).search("Aurora A1 production", 4)
    (request,) = tavily.requests
    assert (request.method, request.path) == ("POST", "/search")
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.headers["content-type"] == "application/json"
    body = json.loads(request.body)
    assert body == {
        "query": "Aurora A1 production",
        "search_depth": "advanced",
        "topic": "news",
        "time_range": "week",
        "max_results": 3,
        "include_domains": ["news.example"],
        "exclude_domains": ["spam.example"],
        "include_raw_content": "markdown",
    }


async def test_given_content_is_used_and_missing_content_is_fetched(
    tavily: Server, web: Server, tmp_path: Path
) -> None:
    settings = context(tmp_path, tavily)
    retriever = TavilyRetriever(settings, RunSession(settings), KEY)
    hits = await retriever.search("Aurora A1 series production 2027", 6)
    locations = {hit.location for hit in hits}
    assert locations == {"https://news.example/aurora-pilot-line", web.url("/article")}
    assert web.hits("/article") == 1 and retriever.fetches == 1
    store = SnapshotStore.in_cache(settings.cache_dir)
    for hit in hits:
        assert hit.origin == "web"
        assert store.get(hit.sha256)[hit.start : hit.end] == hit.text
    given = next(h for h in hits if h.location.startswith("https://news.example"))
    assert given.published == "Tue, 03 Feb 2026 08:00:00 GMT"
    assert given.title == "Aurora A1 pilot line"


async def test_the_result_page_is_guarded_like_any_other(tavily: Server, tmp_path: Path) -> None:
    settings = context(tmp_path, tavily, allow_private_network=False)
    retriever = TavilyRetriever(settings, RunSession(settings), KEY)
    hits = await retriever.search("Aurora A1 series production 2027", 6)
    assert {hit.location for hit in hits} == {"https://news.example/aurora-pilot-line"}
    (problem,) = retriever.problems()
    assert problem.status == "blocked" and "loopback" in problem.error


async def test_a_failing_or_slow_search_leaves_the_branch_its_other_results(
    web: Server, tmp_path: Path
) -> None:
    question = SubQuestion(id="q0", text="Aurora A1 energy density", queries=["Aurora A1"])
    with (
        serve(
            {"/search": tavily_route(lambda q: [], api_key="another-key", delay=0.0)}
        ) as refusing,
        serve({"/search": tavily_route(lambda q: [], api_key=KEY, delay=3)}) as slow,
    ):
        for server, expected in (
            (refusing, "InvalidAPIKeyError"),
            (slow, "no answer within 0.5 s"),
        ):
            settings = context(tmp_path, server, corpus=str(EXAMPLE_CORPUS), search_timeout=0.5)
            session = RunSession(settings)
            local = open_corpus(settings.corpus, settings.cache_dir, settings.chunk_size)
            retrievers = [Limited(local, session), TavilyRetriever(settings, session, KEY)]
            gathered = await gather(retrievers, question, ["Aurora A1"], 5, 0)  # type: ignore[list-item]
            assert gathered.evidence, "the local corpus still answers"
            assert any(expected in warning for warning in gathered.warnings), gathered.warnings


async def test_hybrid_run_labels_every_source_and_the_references_say_which(
    tavily: Server, web: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TAVILY_API_KEY", KEY)
    result = await aresearch(
        "When will Aurora Cellworks' Aurora A1 solid-state cells reach series production?",
        corpus=str(EXAMPLE_CORPUS),
        retrievers="local,tavily",
        cache_dir=str(tmp_path / "cache"),
        tavily_base_url=tavily.url("").rstrip("/"),
        allow_private_network=True,
        max_rounds=1,
    )
    assert result.status == "ok"
    origins = {source.origin for source in result.sources.values()}
    assert origins == {"local", "web"}
    for source in result.sources.values():
        if source.origin == "web":
            assert source.location.startswith(("http://", "https://"))
        else:
            assert not source.location.startswith("http")
    cited = {ref.origin for ref in result.references}
    assert cited == {"local", "web"}, result.report
    for ref in result.references:
        line = next(x for x in result.report.splitlines() if x.startswith(f"[{ref.number}] "))
        assert line.startswith(f"[{ref.number}] {ref.location} — ")
        assert line.endswith(f"({ref.origin})")
        assert f"\n- chars {ref.start}–{ref.end}" in result.report.split(line, 1)[1]
    assert result.usage.fetches >= 1
