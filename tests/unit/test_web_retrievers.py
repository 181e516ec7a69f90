"""Web retrieval pieces that need no socket: URL lists, the automatic retriever choice,
passage ranking, and the run's shared limits."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from langgraph.runtime import Runtime

from grounded_research.cli import with_urls
from grounded_research.configuration import Context
from grounded_research.errors import ConfigurationError, InputError
from grounded_research.gathering import gather
from grounded_research.resources import RunContext, RunResources, resources_of
from grounded_research.retrieval.base import SearchHit, SourceProblem
from grounded_research.retrieval.passages import rank_passages
from grounded_research.retrieval.session import DeadlineReached, RunSession, SearchTimedOut
from grounded_research.retrieval.urls import read_url_list
from grounded_research.retrieval.web import WebPage
from grounded_research.state import SubQuestion
from tests.conftest import write


def test_url_list_skips_comments_blanks_and_repeats(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "urls.txt",
        "# sources\n\nhttps://a.example/x  # the first\n  https://b.example/y\n"
        "https://a.example/x\n#https://c.example/\n",
    )
    assert read_url_list(path) == ["https://a.example/x", "https://b.example/y"]
    with pytest.raises(InputError, match="no URLs"):
        read_url_list(write(tmp_path, "empty.txt", "# nothing\n\n"))
    with pytest.raises(InputError, match="cannot read"):
        read_url_list(tmp_path / "missing.txt")


def test_auto_picks_retrievers_from_what_the_run_was_given(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("TAVILY_API_KEY", raising=False)
    assert Context().retriever_names == ["local"]
    assert Context(corpus="docs").retriever_names == ["local"]
    assert Context(urls=["https://a.example/"]).retriever_names == ["urls"]
    assert Context(corpus="docs", urls=["https://a.example/"]).retriever_names == ["local", "urls"]
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-x")
    assert Context().retriever_names == ["tavily"]
    assert Context(corpus="docs").retriever_names == ["local"]
    assert Context(retrievers="local,tavily").retriever_names == ["local", "tavily"]
    assert with_urls("tavily", ["https://a.example/"]) == "tavily,urls"
    assert with_urls(None, ["https://a.example/"]) is None


async def test_web_retrievers_say_what_they_are_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TAVILY_API_KEY", raising=False)
    with pytest.raises(ConfigurationError, match="TAVILY_API_KEY"):
        RunResources(Context(retrievers="tavily")).retrievers()
    with pytest.raises(ConfigurationError, match="--urls"):
        RunResources(Context(retrievers="urls")).retrievers()
    with pytest.raises(ConfigurationError, match="tavily_topic"):
        Context(tavily_topic="sports")


def page(url: str, text: str, title: str = "") -> WebPage:
    return WebPage(url=url, status="fetched", location=url, title=title, sha256=url, text=text)


def test_passages_are_ranked_verbatim_spans() -> None:
    text = (
        "# Cells\n\nThe weather in Lund was mild in February.\n\n"
        "Series production of the Aurora A1 cell starts in 2027, the company said.\n"
    )
    pages = [
        page("https://a.example/", text, "News"),
        page("https://b.example/", "Nothing relevant here at all."),
        WebPage(url="https://c.example/", status="failed", error="HTTP 500"),
    ]
    hits = rank_passages(pages, "When does Aurora A1 series production start?", 3, 60)
    assert hits and hits[0].location == "https://a.example/"
    assert "2027" in hits[0].text
    for hit in hits:
        assert text[hit.start : hit.end] == hit.text and hit.origin == "web"
    assert rank_passages(pages, "the of and", 3, 60) == []


async def test_the_search_limit_holds_across_callers() -> None:
    in_flight = peak = 0

    async def call() -> int:
        nonlocal in_flight, peak
        in_flight += 1
        peak = max(peak, in_flight)
        await asyncio.sleep(0.05)
        in_flight -= 1
        return 1

    session = RunSession(Context(search_concurrency=2))
    assert sum(await asyncio.gather(*(session.search(call) for _ in range(6)))) == 6
    assert peak == 2


async def test_search_timeout_and_run_deadline() -> None:
    session = RunSession(Context(search_timeout=0.05))
    started = time.perf_counter()
    with pytest.raises(SearchTimedOut, match=r"no answer within 0\.05 s"):
        await session.search(lambda: asyncio.sleep(5))
    assert time.perf_counter() - started < 1
    late = RunSession(Context(run_deadline=0.01))
    await asyncio.sleep(0.02)
    with pytest.raises(DeadlineReached):
        await late.search(lambda: asyncio.sleep(0))
    page, fetched = await late.page("https://a.example/")
    assert page.status == "failed" and "deadline" in page.error and fetched


async def test_a_run_shares_one_session_until_a_fresh_start() -> None:
    context = Context()
    run = RunContext.start(context)
    first = resources_of(Runtime(context=run)).session
    assert resources_of(Runtime(context=run)).session is first
    assert RunContext.start(Context()).resources.session is not first
    assert RunContext.start(context).resources.session is not first


class Fetching:
    """A retriever that fetched two pages and found one passage."""

    name = "fake-web"
    fetches = 2

    async def search(self, query: str, k: int) -> list[SearchHit]:
        return [
            SearchHit(
                "https://a.example/",
                "A",
                "abc",
                0,
                4,
                "text",
                1.0,
                "web",
                None,
                "2026-01-01T00:00:00+00:00",
                "cut at 10 bytes (the byte cap)",
            )
        ]

    def problems(self) -> list[SourceProblem]:
        return [
            SourceProblem("https://b.example/", "blocked", "10.0.0.1 is a private address", "web")
        ]


async def test_fetches_fetch_time_and_problems_reach_the_state() -> None:
    question = SubQuestion(id="q0", text="a", queries=["a"])
    gathered = await gather([Fetching()], question, ["a"], 3, 0)
    update = gathered.update()
    assert update["usage"].fetches == 2  # type: ignore[attr-defined]
    sources = {s.location: s for s in gathered.sources.values()}
    fetched = sources["https://a.example/"]
    assert fetched.retrieved_at == "2026-01-01T00:00:00+00:00" and fetched.origin == "web"
    assert fetched.error.startswith("cut at")
    assert sources["https://b.example/"].status == "blocked"
