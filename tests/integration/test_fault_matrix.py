"""The fault matrix: whole runs against local servers that fail the way real ones do.

Every run must finish: the fault is recorded on its source or in `usage` (and the
warnings), the report's Unresolved section says what could not be searched or read, and
no citation points at anything but a saved snapshot's text. Each case's outcome, in one
line, is checked against (or, with RELIABILITY_UPDATE=1, written to) docs/reliability.md
(`tests/reliability.py`).
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from grounded_research.api import ResearchResult, aresearch
from grounded_research.retrieval.snapshots import SnapshotStore
from tests.integration.openai_server import Answer, Faulty, openai_compatible_server
from tests.reliability import observed, plain
from tests.servers import RESET, Reply, Request, Server, html, serve, slow, tavily_route

pytestmark = pytest.mark.integration

QUESTION = "What energy density does the Aurora A1 cell reach?"
GOOD = html(
    "<h1>Aurora A1 energy density</h1><p>The Aurora A1 cell from Aurora Cellworks reaches "
    "an energy density of 450 Wh/kg in tests run in Lund during 2025.</p>",
    "Aurora A1 energy density",
)
SECOND = html(
    "<h1>Aurora A1 review</h1><p>Independent tests confirm the Aurora A1 energy density of "
    "450 Wh/kg, measured on twenty cells.</p>",
    "Aurora A1 review",
)
# What the report says about what it could not search or read (`report/write.py`).
SAYS_MISSING = re.compile(
    r"^- (Could not be used|\d+ of \d+ search calls|The run used up).*$", re.MULTILINE
)


async def run(tmp_path: Path, **options: Any) -> ResearchResult:
    settings: dict[str, Any] = {
        "checkpointer": "none",
        "cache_dir": str(tmp_path / "cache"),
        "selection_strategy": "keyword",
        "embeddings": "none",
        "page_cache_days": 0,
        "allow_private_network": True,
    }
    started = time.monotonic()
    result = await aresearch(QUESTION, **(settings | options))
    assert time.monotonic() - started < 30  # finished, and never hung
    assert result.status in ("ok", "no_sources")
    assert_quotes_are_snapshots(result, tmp_path / "cache")
    return result


def assert_quotes_are_snapshots(result: ResearchResult, cache_dir: Path) -> None:
    """Every reference is a fetched source's saved text, word for word."""
    store = SnapshotStore.in_cache(str(cache_dir))
    cited = {int(n) for n in re.findall(r"\[(\d+)\]", result.report)}
    assert cited <= {r.number for r in result.references}
    for reference in result.references:
        source = result.sources[reference.source_id]
        assert source.status == "fetched"
        record = result.evidence[reference.evidence_id]
        assert store.get(source.sha256)[record.start : record.end] == record.text


def outcome(result: ResearchResult, *folders: str | Path) -> str:
    """What a run left, in one line: its status, what became of its sources, the usage
    that records the fault, and what the report says is missing."""
    counts = Counter(s.status for s in result.sources.values())
    sources = ", ".join(f"{n} {status}" for status, n in sorted(counts.items())) or "none"
    errors = sorted({s.error for s in result.sources.values() if s.error})
    usage = result.usage
    recorded = [f"search_calls {usage.search_calls}"]
    if usage.searches_failed:
        recorded.append(f"searches_failed {usage.searches_failed}")
    if usage.fetches:
        recorded.append(f"fetches {usage.fetches}")
    if usage.rounds:
        recorded.append(f"rounds {usage.rounds}")
    if usage.limits_reached:
        recorded.append(f"limits_reached {', '.join(usage.limits_reached)}")
    fallbacks = {node: used.fallbacks for node, used in usage.llm.items() if used.fallbacks}
    if fallbacks:
        recorded.append("fell back to extractive: " + ", ".join(sorted(fallbacks)))
    missing = [m.group(0)[2:] for m in SAYS_MISSING.finditer(result.report)] or ["nothing"]
    parts = [
        f"status {result.status}",
        f"sources: {sources}" + (f" ({'; '.join(errors)})" if errors else ""),
        "usage: " + ", ".join(recorded),
        "report names: " + "; ".join(line.rstrip(".") for line in missing),
    ]
    return plain(". ".join(parts), *folders)


# -- the search API ------------------------------------------------------------------


def answer_json(status: int, body: bytes, **headers: str) -> Reply:
    return status, {"Content-Type": "application/json", **headers}, body


def found(query: dict[str, Any]) -> list[dict[str, Any]]:
    return []


RATE_LIMITED = answer_json(429, b'{"detail": {"error": "rate limit"}}', **{"Retry-After": "1"})


class LimitedOnce:
    """The first request is rate limited, the next ones answered."""

    def __init__(self) -> None:
        self.requests = 0

    def __call__(self, request: Request) -> Reply:
        self.requests += 1
        return RATE_LIMITED if self.requests == 1 else tavily_route(found)(request)


SEARCH_FAULTS = {
    "search.timeout": tavily_route(found, delay=5.0),
    "search.429": lambda r: RATE_LIMITED,
    "search.429_once": LimitedOnce(),
    "search.500": lambda r: answer_json(500, b'{"detail": {"error": "internal error"}}'),
    "search.malformed": lambda r: answer_json(200, b'{"query": "x", "results": [{"url": '),
    "search.empty": tavily_route(found),
}


@pytest.mark.parametrize("case", sorted(SEARCH_FAULTS))
async def test_search_api_faults(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The search API is the only retriever besides one good page: the run answers from
    the page and says the searches failed."""
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-test")
    with serve({"/search": SEARCH_FAULTS[case], "/good": lambda r: GOOD}) as server:
        result = await run(
            tmp_path,
            retrievers="tavily,urls",
            urls=[server.url("/good")],
            tavily_base_url=server.url("").rstrip("/"),
            search_timeout=1.0 if case == "search.timeout" else 4.0,  # room for a retry
            max_rounds=0,
        )
        tries = server.hits("/search")
    assert result.status == "ok"
    if case == "search.429_once":
        assert tries == 2 and not result.usage.searches_failed  # waited 1 s, asked again
    elif case != "search.empty":
        assert result.usage.searches_failed == 1  # the API's; the page list's went well
        assert any("tavily search failed" in w for w in result.warnings)
        assert "search calls failed" in result.report
    observed(case, outcome(result, tmp_path) + f". Requests to the API: {tries}")


# -- fetching pages ------------------------------------------------------------------

TEN_MB = 10 * 1024 * 1024
BIG_PAGE = ("<p>Aurora A1 cells reach 450 Wh/kg. " + "x" * 60 + "</p>\n") * (TEN_MB // 100)


def reset(request: Request) -> Reply:
    return RESET, {}, b""


FETCH_FAULTS = {
    "fetch.timeout": slow(5.0, SECOND),
    "fetch.reset": reset,
    "fetch.truncated": lambda r: (
        200,
        {"Content-Type": "text/html", "Content-Length": str(len(SECOND[2]) + 5000)},
        SECOND[2],
    ),
    "fetch.content_type": lambda r: (
        200,
        {"Content-Type": "application/octet-stream"},
        b"\x00\x01Aurora",
    ),
    "fetch.10mb": lambda r: (
        200,
        {"Content-Type": "text/plain; charset=utf-8"},
        BIG_PAGE.encode()[:TEN_MB],
    ),
    "fetch.encoding": lambda r: (
        200,
        {"Content-Type": "text/html; charset=utf-8"},
        SECOND[2].replace(b"twenty", b"tw\xff\xfenty"),
    ),
}


@pytest.mark.parametrize("case", sorted(FETCH_FAULTS))
async def test_page_fetch_faults(case: str, tmp_path: Path) -> None:
    with serve({"/good": lambda r: GOOD, "/fault": FETCH_FAULTS[case]}) as server:
        result = await run(
            tmp_path,
            retrievers="urls",
            urls=[server.url("/good"), server.url("/fault")],
            fetch_timeout=1.0,
            fetch_retries=0,
            max_page_bytes=1_000_000,
            max_rounds=0,
        )
    assert result.status == "ok"
    fault = next(s for s in result.sources.values() if s.location.endswith("/fault"))
    assert fault.error  # failed with why, or fetched with what was wrong with it
    if fault.status != "fetched":
        assert f"Could not be used ({fault.status})" in result.report
    observed(case, outcome(result, tmp_path))


# -- the model -----------------------------------------------------------------------

NOT_JSON = Answer("Sure! I would be glad to help with that research.")
MODEL_FAULTS = {
    "model.timeout": Faulty(fault=Answer("", stall=3.0)),
    "model.refusal": Faulty(fault=Answer("", refusal="I'm sorry, I can't help with that.")),
    "model.empty": Faulty(fault=Answer("")),
    "model.invalid_json.planner": Faulty(fault=NOT_JSON, steps=("planner",)),
    "model.invalid_json.gaps": Faulty(fault=NOT_JSON, steps=("gaps",)),
    "model.invalid_json.verifier": Faulty(fault=NOT_JSON, steps=("verifier",)),
}


@pytest.fixture
def pages() -> Iterator[Server]:
    with serve({"/good": lambda r: GOOD, "/second": lambda r: SECOND}) as server:
        yield server


@pytest.mark.parametrize("case", sorted(MODEL_FAULTS))
async def test_model_faults(case: str, tmp_path: Path, pages: Server) -> None:
    """Each model step that fails falls back to extractive, and the run says so."""
    script = MODEL_FAULTS[case]
    with openai_compatible_server(script) as (url, script):
        result = await run(
            tmp_path,
            retrievers="urls",
            urls=[pages.url("/good"), pages.url("/second")],
            model="openai:local-model",
            base_url=url,
            model_timeout=1.0,
            model_retries=0,
            max_rounds=1,
        )
    assert result.status == "ok"
    fell_back = [node for node, used in result.usage.llm.items() if used.fallbacks]
    assert fell_back and result.warnings
    asked = ", ".join(f"{step} {n}" for step, n in sorted(script.seen.items()))
    observed(case, outcome(result, tmp_path) + f". Model requests: {asked}")


# -- budgets -------------------------------------------------------------------------


async def test_max_rounds_ends_the_loop_and_says_so(tmp_path: Path, pages: Server) -> None:
    result = await run(tmp_path, retrievers="urls", urls=[pages.url("/good")], max_rounds=0)
    assert result.usage.rounds == 0 and "max_rounds" in result.usage.limits_reached
    assert result.unresolved
    observed("budget.max_rounds", outcome(result, tmp_path))


async def test_max_searches_is_never_exceeded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-test")

    def results(query: dict[str, Any]) -> list[dict[str, Any]]:
        return [{"url": "https://news.example/a", "title": "A", "raw_content": RAW, "score": 1}]

    with serve({"/search": tavily_route(results)}) as server:
        result = await run(
            tmp_path,
            retrievers="tavily",
            tavily_base_url=server.url("").rstrip("/"),
            max_searches=2,
            max_rounds=2,
        )
        asked = server.hits("/search")
    assert asked == result.usage.search_calls == 2
    assert "max_searches" in result.usage.limits_reached
    observed("budget.max_searches", outcome(result, tmp_path) + f". Requests to the API: {asked}")


RAW = (
    "# Aurora A1\n\nThe Aurora A1 cell reaches an energy density of 450 Wh/kg, Aurora "
    "Cellworks said in 2025."
)


async def test_max_pages_is_never_exceeded(tmp_path: Path, pages: Server) -> None:
    urls = [pages.url("/good"), pages.url("/second"), pages.url("/good?again")]
    result = await run(tmp_path, retrievers="urls", urls=urls, max_pages=1, max_rounds=0)
    assert result.usage.fetches == 1 and len(pages.requests) == 1
    assert "max_pages" in result.usage.limits_reached
    observed("budget.max_pages", outcome(result, tmp_path))


async def test_the_deadline_cuts_a_slow_search_and_the_run_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pages: Server
) -> None:
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-test")
    with serve({"/search": tavily_route(found, delay=5.0)}) as server:
        started = time.monotonic()
        result = await run(
            tmp_path,
            retrievers="tavily,urls",
            urls=[pages.url("/good")],
            tavily_base_url=server.url("").rstrip("/"),
            run_deadline=1.0,
            max_rounds=2,
        )
        seconds = time.monotonic() - started
    assert seconds < 4  # one deadline, plus writing the report
    assert "run_deadline" in result.usage.limits_reached
    observed("budget.run_deadline", outcome(result, tmp_path))


async def test_the_token_budget_lists_what_does_not_fit(tmp_path: Path, pages: Server) -> None:
    urls = [pages.url("/good"), pages.url("/second")]
    result = await run(tmp_path, retrievers="urls", urls=urls, token_budget=20, max_rounds=0)
    assert "token_budget" in result.usage.limits_reached
    given = [r for r in result.evidence.values() if r.strategy != "bm25"]  # the writer's
    assert any(r.tier != "full" for r in given)
    observed("budget.token_budget", outcome(result, tmp_path))
