"""The searxng retriever against a local server speaking SearXNG's JSON API, through the
CLI: its result pages pass the SSRF guard and the run's fetcher like any web page."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import EXAMPLE_CORPUS
from tests.integration.test_cli import run
from tests.integration.test_web_fetch import ARTICLE
from tests.servers import Server, searxng_route, serve

pytestmark = pytest.mark.integration
QUESTION = "When will the Aurora A1 solid-state cell reach series production?"


@pytest.fixture
def searxng() -> Iterator[Server]:
    """SearXNG and the pages it finds on one local server (its results point back at it)."""
    state: dict[str, Server] = {}

    def results(query: str) -> list[dict[str, Any]]:
        site = state["server"]
        return [
            {"url": site.url("/article"), "title": "Aurora A1 slips to 2027"},
            {"url": site.url("/article"), "title": "the same page again"},
            {"url": "ftp://files.example/a1.txt", "title": "not a web page"},
            {"url": site.url("/missing"), "title": "gone"},
        ]

    article = (200, {"Content-Type": "text/html"}, ARTICLE.encode())
    with serve({"/search": searxng_route(results), "/article": lambda r: article}) as server:
        state["server"] = server
        yield server


def research(tmp_path: Path, *args: str) -> tuple[int, str, dict[str, Any]]:
    evidence = tmp_path / "evidence.json"
    done = run(QUESTION, *args, "--evidence", str(evidence), cache_dir=str(tmp_path / "cache"))
    table = json.loads(evidence.read_text(encoding="utf-8")) if evidence.exists() else {}
    return done.returncode, done.stderr, table


def test_searxng_results_are_fetched_and_cited(searxng: Server, tmp_path: Path) -> None:
    status, stderr, table = research(
        tmp_path,
        "--retriever",
        "searxng",
        "--searxng-url",
        searxng.url(""),
        "--allow-private-network",
        "--max-rounds",
        "0",
    )
    assert status == 0, stderr
    searches = [r for r in searxng.requests if r.path.startswith("/search")]
    assert searches and all("format=json" in r.path for r in searches)
    by_location = {s["location"]: s for s in table["sources"]}
    assert by_location[searxng.url("/article")]["status"] == "fetched"
    assert by_location[searxng.url("/missing")]["status"] == "failed"
    assert "HTTP 404" in by_location[searxng.url("/missing")]["error"]
    assert searxng.hits("/article") == 1  # once per run, however many queries found it
    cited = {r["location"] for r in table["references"]}
    assert cited == {searxng.url("/article")}


def test_without_the_switch_loopback_results_are_blocked(searxng: Server, tmp_path: Path) -> None:
    status, stderr, table = research(
        tmp_path, "--retriever", "searxng", "--searxng-url", searxng.url("")
    )
    assert status == 2, stderr  # SearXNG answered, but every page it found is private
    assert any(r.path.startswith("/search?") for r in searxng.requests)
    assert searxng.hits("/article") == 0
    assert {s["status"] for s in table["sources"]} == {"blocked"}


def test_hybrid_with_the_local_corpus(searxng: Server, tmp_path: Path) -> None:
    status, stderr, table = research(
        tmp_path,
        "--retriever",
        "local,searxng",
        "--corpus",
        str(EXAMPLE_CORPUS),
        "--searxng-url",
        searxng.url(""),
        "--allow-private-network",
    )
    assert status == 0, stderr
    assert {s["origin"] for s in table["sources"] if s["status"] == "fetched"} == {"local", "web"}


def test_json_not_enabled_is_a_warning_naming_the_setting(tmp_path: Path) -> None:
    with serve({"/search": searxng_route(lambda q: [], formats=("html",))}) as html_only:
        status, stderr, table = research(
            tmp_path, "--retriever", "searxng", "--searxng-url", html_only.url("")
        )
    assert status == 2, stderr
    assert any("add json to search.formats" in w for w in table["warnings"])


def test_searxng_without_its_url_is_one_line_and_exit_64(tmp_path: Path) -> None:
    status, stderr, _ = research(tmp_path, "--retriever", "searxng")
    assert status == 64
    assert stderr.strip() == "error: the searxng retriever needs --searxng-url URL"
