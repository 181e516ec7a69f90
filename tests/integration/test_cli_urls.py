"""`grounded-research Q --urls FILE` as a user runs it, against a page on 127.0.0.1."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import EXAMPLE_CORPUS
from tests.integration.test_cli import run
from tests.integration.test_web_fetch import ARTICLE
from tests.servers import Server, serve

QUESTION = "When will the Aurora A1 solid-state cell reach series production?"


@pytest.fixture(scope="module")
def site() -> Iterator[Server]:
    with serve({"/page": lambda r: (200, {"Content-Type": "text/html"}, ARTICLE.encode())}) as s:
        yield s


def url_file(folder: Path, *urls: str) -> str:
    path = folder / "urls.txt"
    path.write_text("# pages to research\n\n" + "\n".join(urls) + "\n", encoding="utf-8")
    return str(path)


def test_a_loopback_url_is_blocked_and_the_run_has_no_sources(site: Server, tmp_path: Path) -> None:
    evidence = tmp_path / "evidence.json"
    done = run(
        QUESTION,
        "--urls",
        url_file(tmp_path, site.url("/page")),
        "--evidence",
        str(evidence),
        cache_dir=str(tmp_path / "cache"),
    )
    assert done.returncode == 2, done.stderr
    assert "no sources found" in done.stderr and done.stdout == ""
    table = json.loads(evidence.read_text(encoding="utf-8"))
    assert table["status"] == "no_sources" and table["evidence"] == []
    (source,) = table["sources"]
    assert source["location"] == site.url("/page")
    assert source["status"] == "blocked" and source["origin"] == "web"
    assert "127.0.0.1 is a loopback address" in source["error"]
    assert site.hits("/page") == 0


def test_with_the_option_the_page_is_fetched_and_cited(site: Server, tmp_path: Path) -> None:
    evidence = tmp_path / "evidence.json"
    done = run(
        QUESTION,
        "--urls",
        url_file(tmp_path, site.url("/page")),
        "--allow-private-network",
        "--evidence",
        str(evidence),
        cache_dir=str(tmp_path / "cache"),
    )
    assert done.returncode == 0, done.stderr
    assert "slipped to 2027" in done.stdout
    assert f"] {site.url('/page')} — Aurora A1 slips to 2027 (web)\n- chars " in done.stdout
    table = json.loads(evidence.read_text(encoding="utf-8"))
    (source,) = table["sources"]
    assert source["status"] == "fetched" and source["published"].startswith("2026-02-03")
    assert table["usage"]["fetches"] == 1


def test_hybrid_corpus_and_urls_label_each_source(site: Server, tmp_path: Path) -> None:
    evidence = tmp_path / "evidence.json"
    done = run(
        "When will Aurora Cellworks' Aurora A1 solid-state cells reach series production?",
        "--corpus",
        str(EXAMPLE_CORPUS),
        "--urls",
        url_file(tmp_path, site.url("/page"), "http://169.254.169.254/latest/meta-data/"),
        "--allow-private-network",
        "--max-rounds",
        "1",
        "--evidence",
        str(evidence),
        cache_dir=str(tmp_path / "cache"),
    )
    assert done.returncode == 0, done.stderr
    table = json.loads(evidence.read_text(encoding="utf-8"))
    by_origin: dict[str, set[str]] = {}
    for source in table["sources"]:
        by_origin.setdefault(source["origin"], set()).add(source["location"])
    assert site.url("/page") in by_origin["web"]
    assert all(not loc.startswith("http") for loc in by_origin["local"])
    statuses = {s["location"]: (s["status"], s["error"]) for s in table["sources"]}
    status, error = statuses["http://169.254.169.254/latest/meta-data/"]
    assert status == "blocked" and "metadata" in error  # even with the option
    references = done.stdout.split("## References", 1)[1]
    assert "(local)\n- chars " in references


def test_an_unreadable_url_file_is_bad_input(tmp_path: Path) -> None:
    done = run(QUESTION, "--urls", str(tmp_path / "missing.txt"), cache_dir=str(tmp_path))
    assert done.returncode == 64
    assert done.stderr.startswith("error: cannot read the URL list")
    assert len(done.stderr.strip().splitlines()) == 1
