"""A run's resources (limits, deadline, page budget, corpus, embedder) are made once
per invocation of the graph and shared by all its parallel branches, whether the
caller passed a `Context`, a plain dict or no context at all."""

from __future__ import annotations

import asyncio
from dataclasses import asdict
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from langgraph.runtime import Runtime

from grounded_research import resources
from grounded_research.configuration import Context
from grounded_research.graph import graph
from grounded_research.resources import RunContext, resources_of
from grounded_research.retrieval import session as session_module
from grounded_research.retrieval.tavily import TavilyRetriever
from grounded_research.retrieval.web import WebFetcher, WebPage
from grounded_research.state import InputState
from tests.conftest import EXAMPLE_CORPUS

QUESTION = "Where is the Halvard Estra built, and what energy density does the Aurora A1 reach?"
PAGES_PER_SEARCH = 25


class FakeWeb:
    """Tavily answers each query with pages of its own (no content, so they are fetched);
    every page is 'downloaded' without a socket and counted."""

    def __init__(self) -> None:
        self.fetched: list[str] = []
        self.queries: list[str] = []

    async def ask(self, retriever: TavilyRetriever, query: str) -> dict[str, Any]:
        self.queries.append(query)
        slug = "-".join(query.lower().split())[:40]
        return {
            "results": [
                {"url": f"https://news.example/{slug}/{n}", "title": f"{query} {n}"}
                for n in range(PAGES_PER_SEARCH)
            ]
        }

    async def fetch(self, fetcher: WebFetcher, url: str, timeout: float | None = None) -> WebPage:
        self.fetched.append(url)
        await asyncio.sleep(0)
        text = f"# {url}\n\nThe Halvard Estra is built in Ostrava. Page {url} says so.\n"
        return WebPage(
            url=url,
            status="fetched",
            location=url,
            title=url,
            content_type="text/html",
            sha256=fetcher.snapshots.put(text),
            text=text,
            downloaded=True,
        )


@pytest.fixture
def web(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> FakeWeb:
    """Only what an operator sets: a Tavily key and the cache folder, both by environment."""
    fake = FakeWeb()
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-test")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))

    async def ask(retriever: TavilyRetriever, query: str) -> dict[str, Any]:
        return await fake.ask(retriever, query)

    async def fetch(fetcher: WebFetcher, url: str, timeout: float | None = None) -> WebPage:
        return await fake.fetch(fetcher, url, timeout)

    monkeypatch.setattr(TavilyRetriever, "_ask", ask)
    monkeypatch.setattr(WebFetcher, "fetch", fetch)
    return fake


@pytest.fixture
def sessions(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every RunSession (limits, deadline, pages) made, in order."""
    made: list[object] = []
    original = session_module.RunSession.__init__

    def counted(self: object, *args: Any, **kwargs: Any) -> None:
        made.append(self)
        original(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(session_module.RunSession, "__init__", counted)
    return made


def run(context: Any) -> dict[str, Any]:
    question = InputState(question=QUESTION)
    result: dict[str, Any] = asyncio.run(graph.ainvoke(question, context=context))
    return result


def test_a_run_without_context_keeps_one_page_budget_across_branches(
    web: FakeWeb, sessions: list[object]
) -> None:
    result = run(None)
    branches = {sq.id for sq in result["sub_questions"]}
    assert len(branches) >= 3, "the question is split, so research runs in parallel branches"
    assert len(set(web.queries)) >= 3
    assert PAGES_PER_SEARCH * len(set(web.queries)) > Context().max_pages
    assert len(web.fetched) == len(set(web.fetched)) == Context().max_pages
    assert len(sessions) == 1
    assert any("limit of 60 pages" in s.error for s in result["sources"].values())


@pytest.mark.parametrize(
    "given",
    [None, {"max_pages": 7, "embeddings": "none"}, Context(max_pages=7, embeddings="none")],
    ids=["none", "dict", "context"],
)
def test_every_invocation_has_one_set_of_resources(
    web: FakeWeb, sessions: list[object], given: Any
) -> None:
    run(given)
    assert len(sessions) == 1
    limit = 60 if given is None else 7
    assert len(web.fetched) == limit
    run(given)  # the same context object again: a new run, new limits
    assert len(sessions) == 2
    assert len(web.fetched) == 2 * limit


def test_a_run_without_context_keeps_one_deadline_across_branches(
    web: FakeWeb, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The run's clock (seen by the session alone) moves 50 s per page fetched, so the
    initial search uses up the default 900 s deadline: no branch may search after it."""
    clock = [0.0]
    fetch = web.fetch

    async def slow_fetch(fetcher: WebFetcher, url: str, timeout: float | None = None) -> WebPage:
        clock[0] += 50.0
        return await fetch(fetcher, url, timeout)

    monkeypatch.setattr(web, "fetch", slow_fetch)
    monkeypatch.setattr(session_module, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    result = run(None)
    assert len(result["sub_questions"]) >= 3
    assert web.queries == [QUESTION]  # the branches' searches were refused
    assert len(web.fetched) == 900 // 50  # a fetch starts only while time is left
    assert any("deadline" in warning for warning in result["warnings"])


def test_the_corpus_is_opened_and_the_embedder_built_once_per_run(
    monkeypatch: pytest.MonkeyPatch, cache_dir: str
) -> None:
    opened: list[str] = []
    built: list[str] = []
    open_corpus, build_embedder = resources.open_corpus, resources.build_embedder

    def opening(root: str, *args: Any, **kwargs: Any) -> Any:
        opened.append(root)
        return open_corpus(root, *args, **kwargs)

    def building(spec: str, base_url: str = "") -> Any:
        built.append(spec)
        return build_embedder(spec, base_url)

    monkeypatch.setattr(resources, "open_corpus", opening)
    monkeypatch.setattr(resources, "build_embedder", building)
    context = {"corpus": str(EXAMPLE_CORPUS), "cache_dir": cache_dir, "max_rounds": 1}
    result = run(context)
    assert len(result["sub_questions"]) >= 3 and result["status"] == "ok"
    assert opened == [str(EXAMPLE_CORPUS)] and built == ["local"]


def test_a_run_context_is_the_callers_values_with_the_runs_resources() -> None:
    given = Context(max_pages=3, urls=["https://a.example/"])
    run_context = RunContext.start(given)
    assert asdict(run_context) == asdict(given) and run_context is not given
    assert run_context.resources.session.max_pages == 3
    assert RunContext.start(run_context).resources is not run_context.resources
    assert resources_of(Runtime(context=run_context)) is run_context.resources
    # a node called outside the graph, with a runtime of its own: resources of its own
    alone = resources_of(Runtime(context=given))
    assert alone is not resources_of(Runtime(context=given)) and alone.session.max_pages == 3
    assert resources_of(None).session.max_pages == Context().max_pages
