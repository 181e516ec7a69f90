"""The web fetcher against real servers on 127.0.0.1: pages, redirects, faults, caps.

127.0.0.1 is let through the guard only by the explicit option (`exempt` here, the
whole `allow_private_network` switch for the retrievers); everything else that is not
public stays refused, which is how a redirect to a private address is tested.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from grounded_research.configuration import Context
from grounded_research.retrieval.session import RunSession
from grounded_research.retrieval.snapshots import SnapshotStore
from grounded_research.retrieval.urls import UrlsRetriever
from grounded_research.retrieval.web import FetchLimits, WebFetcher
from tests.servers import Reply, Request, Server, html, serve, slow
from tests.unit.test_documents import minimal_pdf

ARTICLE = """<html lang="en"><head><title>Aurora A1 slips to 2027</title>
<meta name="author" content="Maria Lindqvist">
<meta property="article:published_time" content="2026-02-03T08:00:00Z">
</head><body><nav><a href="/">Home</a> | <a href="/news">News</a></nav>
<article><h1>Aurora A1 slips to 2027</h1>
<p>Aurora Cellworks said that series production of the Aurora A1 solid-state cell has
slipped to 2027, two years later than the company planned in 2023.</p>
<h2>Energy density</h2>
<p>The company still claims 450 Wh/kg for the cell; an independent laboratory measured
390 Wh/kg on cells from the same pilot line.</p>
<table><tr><th>Source</th><th>Wh/kg</th></tr><tr><td>Company</td><td>450</td></tr>
<tr><td>Laboratory</td><td>390</td></tr></table>
</article><footer>Copyright 2026 Example News.</footer></body></html>"""

EXEMPT = frozenset({"127.0.0.1"})


def limits(**overrides: object) -> FetchLimits:
    values: dict[str, object] = {"timeout": 3.0, "backoff": 0.05, "exempt": EXEMPT}
    return FetchLimits(**(values | overrides))  # type: ignore[arg-type]


def flaky(fail_times: int, status: int, headers: dict[str, str], then: Reply) -> object:
    calls = 0

    def route(request: Request) -> Reply:
        nonlocal calls
        calls += 1
        return (status, headers, b"busy") if calls <= fail_times else then

    return route


@pytest.fixture
def site() -> Iterator[Server]:
    huge = b"<html><body>" + b"<p>Solid-state cells are tested for cycle life.</p>\n" * 60_000
    routes = {
        "/article": lambda r: (200, {"Content-Type": "text/html; charset=utf-8"}, ARTICLE.encode()),
        "/start": lambda r: (302, {"Location": "/middle"}, b""),
        "/middle": lambda r: (301, {"Location": "/article"}, b""),
        "/loop": lambda r: (302, {"Location": "/loop"}, b""),
        "/to-private": lambda r: (302, {"Location": "http://10.0.0.1/admin"}, b""),
        "/to-metadata": lambda r: (
            307,
            {"Location": "http://169.254.169.254/latest/meta-data/iam/"},
            b"",
        ),
        "/to-localhost": lambda r: (302, {"Location": "http://localhost/"}, b""),
        "/slow": slow(10, html("<p>late</p>")),
        "/huge": lambda r: (200, {"Content-Type": "text/html"}, huge),
        "/huge.pdf": lambda r: (
            200,
            {"Content-Type": "application/pdf"},
            b"%PDF-1.4" + b"0" * 300_000,
        ),
        "/binary": lambda r: (
            200,
            {"Content-Type": "application/octet-stream"},
            bytes(range(256)) * 40,
        ),
        "/image": lambda r: (
            200,
            {"Content-Type": "image/png"},
            b"\x89PNG\r\n\x1a\n" + b"\x00" * 100,
        ),
        "/fake-text": lambda r: (200, {"Content-Type": "text/plain"}, b"\x00\x01\x02" * 100),
        "/report.pdf": lambda r: (
            200,
            {"Content-Type": "application/pdf"},
            minimal_pdf("Solid state cells ship in 2027"),
        ),
        "/notes.txt": lambda r: (
            200,
            {"Content-Type": "text/plain; charset=utf-8"},
            b"Notes on Aurora\n\nSeries production is planned for 2027.\n",
        ),
        "/missing": lambda r: (404, {"Content-Type": "text/html"}, b"<p>no such page</p>"),
        "/broken": lambda r: (500, {"Content-Type": "text/html"}, b"<p>server error</p>"),
        "/busy": flaky(1, 429, {"Retry-After": "1"}, html("<p>Finally here, after waiting.</p>")),
        "/unavailable": flaky(1, 503, {}, html("<p>Back again after a hiccup.</p>")),
    }
    with serve(routes) as server:  # type: ignore[arg-type]
        yield server


async def test_html_page_becomes_text_with_metadata_and_a_snapshot(
    site: Server, tmp_path: Path
) -> None:
    page = await WebFetcher(tmp_path, limits()).fetch(site.url("/article"))
    assert page.status == "fetched", page.error
    assert page.title == "Aurora A1 slips to 2027"
    assert page.author == "Maria Lindqvist"
    assert page.published and page.published.startswith("2026-02-03")
    assert page.fetched_at and page.location == site.url("/article")
    assert "slipped to 2027" in page.text and "| Laboratory | 390 |" in page.text
    assert "Home" not in page.text  # navigation is dropped
    assert SnapshotStore.in_cache(tmp_path).get(page.sha256) == page.text


async def test_redirect_chain_is_followed_and_recorded(site: Server, tmp_path: Path) -> None:
    page = await WebFetcher(tmp_path, limits()).fetch(site.url("/start"))
    assert page.status == "fetched"
    assert page.location == site.url("/article")
    assert page.redirects == (site.url("/start"), site.url("/middle"), site.url("/article"))
    looping = await WebFetcher(tmp_path, limits()).fetch(site.url("/loop"))
    assert looping.status == "failed" and "redirects" in looping.error


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("/to-private", "10.0.0.1 is a private address"),
        ("/to-metadata", "169.254.169.254 is a cloud metadata address"),
        ("/to-localhost", "localhost is a loopback name"),
    ],
)
async def test_redirect_to_a_private_address_is_blocked(
    site: Server, tmp_path: Path, path: str, reason: str
) -> None:
    page = await WebFetcher(tmp_path, limits()).fetch(site.url(path))
    assert page.status == "blocked"
    assert page.error.startswith("redirect to ") and reason in page.error


async def test_loopback_is_refused_without_the_explicit_option(
    site: Server, tmp_path: Path
) -> None:
    page = await WebFetcher(tmp_path, FetchLimits()).fetch(site.url("/article"))
    assert page.status == "blocked" and "loopback" in page.error
    assert site.hits("/article") == 0
    allowed = await WebFetcher(tmp_path, FetchLimits(allow_private=True)).fetch(
        site.url("/article")
    )
    assert allowed.status == "fetched"


async def test_slow_page_times_out_as_failed(site: Server, tmp_path: Path) -> None:
    started = time.perf_counter()
    page = await WebFetcher(tmp_path, limits(timeout=0.5)).fetch(site.url("/slow"))
    assert page.status == "failed" and "timed out after 0.5 s" in page.error
    assert time.perf_counter() - started < 3


async def test_huge_page_is_cut_at_the_byte_cap(site: Server, tmp_path: Path) -> None:
    page = await WebFetcher(tmp_path, limits(max_bytes=20_000)).fetch(site.url("/huge"))
    assert page.status == "fetched" and page.cut_at == 20_000
    assert 0 < len(page.text) < 20_000 and "cycle life" in page.text
    pdf = await WebFetcher(tmp_path, limits(max_bytes=20_000)).fetch(site.url("/huge.pdf"))
    assert pdf.status == "failed" and "over the byte cap" in pdf.error


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("/binary", "content type application/octet-stream is not fetched"),
        ("/image", "content type image/png is not fetched"),
        ("/fake-text", "binary content served as text"),
    ],
)
async def test_other_content_types_are_refused(
    site: Server, tmp_path: Path, path: str, reason: str
) -> None:
    page = await WebFetcher(tmp_path, limits()).fetch(site.url(path))
    assert page.status == "failed" and reason in page.error


async def test_pdf_and_plain_text_are_read(site: Server, tmp_path: Path) -> None:
    fetcher = WebFetcher(tmp_path, limits())
    pdf = await fetcher.fetch(site.url("/report.pdf"))
    assert pdf.status == "fetched" and "ship in 2027" in pdf.text
    text = await fetcher.fetch(site.url("/notes.txt"))
    assert text.status == "fetched" and text.text.startswith("Notes on Aurora")
    assert text.title == "Notes on Aurora"


async def test_404_fails_at_once_and_500_after_retries(site: Server, tmp_path: Path) -> None:
    fetcher = WebFetcher(tmp_path, limits(retries=2))
    missing = await fetcher.fetch(site.url("/missing"))
    assert missing.status == "failed" and missing.error == "HTTP 404 Not Found"
    assert site.hits("/missing") == 1
    broken = await fetcher.fetch(site.url("/broken"))
    assert broken.status == "failed"
    assert broken.error == "HTTP 500 Internal Server Error (after 3 attempts)"
    assert site.hits("/broken") == 3


async def test_429_honours_retry_after_and_5xx_is_retried(site: Server, tmp_path: Path) -> None:
    fetcher = WebFetcher(tmp_path, limits(timeout=5.0))
    started = time.perf_counter()
    page = await fetcher.fetch(site.url("/busy"))
    assert page.status == "fetched" and "Finally here" in page.text
    assert time.perf_counter() - started >= 0.95  # waited as told
    assert site.hits("/busy") == 2
    page = await fetcher.fetch(site.url("/unavailable"))
    assert page.status == "fetched" and site.hits("/unavailable") == 2


async def test_a_rerun_reads_the_cache_and_the_guard_still_applies(
    site: Server, tmp_path: Path
) -> None:
    first = await WebFetcher(tmp_path, limits()).fetch(site.url("/start"))
    again = await WebFetcher(tmp_path, limits()).fetch(site.url("/start"))
    assert again.status == "fetched" and not again.downloaded
    assert (again.sha256, again.location, again.fetched_at) == (
        first.sha256,
        first.location,
        first.fetched_at,
    )
    assert site.hits("/article") == 1
    refused = await WebFetcher(tmp_path, FetchLimits()).fetch(site.url("/start"))
    assert refused.status == "blocked"
    fresh = await WebFetcher(tmp_path, limits(cache_days=0)).fetch(site.url("/start"))
    assert fresh.downloaded and site.hits("/article") == 2


def run_context(tmp_path: Path, **overrides: object) -> Context:
    return Context.from_mapping(
        {"cache_dir": str(tmp_path / "cache"), "allow_private_network": True} | overrides
    )


async def test_one_slow_page_does_not_hold_up_the_others(site: Server, tmp_path: Path) -> None:
    context = run_context(
        tmp_path,
        urls=[site.url("/slow"), site.url("/article"), site.url("/missing")],
        fetch_timeout=1.0,
    )
    retriever = UrlsRetriever(context, RunSession(context))
    started = time.perf_counter()
    hits = await retriever.search("Aurora A1 series production 2027", 5)
    assert time.perf_counter() - started < 3
    assert hits and all(hit.location == site.url("/article") for hit in hits)
    store = SnapshotStore.in_cache(context.cache_dir)
    for hit in hits:
        assert hit.origin == "web" and store.get(hit.sha256)[hit.start : hit.end] == hit.text
    problems = {p.location: p for p in retriever.problems()}
    assert problems[site.url("/slow")].status == "failed"
    assert "timed out" in problems[site.url("/slow")].error
    assert problems[site.url("/missing")].error == "HTTP 404 Not Found"
    assert retriever.fetches == 3


async def test_fetch_limit_and_page_budget_are_shared_by_the_run(
    site: Server, tmp_path: Path
) -> None:
    context = run_context(
        tmp_path,
        urls=[site.url("/article"), site.url("/notes.txt"), site.url("/report.pdf")],
        max_pages=2,
        fetch_concurrency=1,
    )
    session = RunSession(context)
    first, second = UrlsRetriever(context, session), UrlsRetriever(context, session)
    await asyncio.gather(first.search("Aurora 2027", 3), second.search("Aurora 2027", 3))
    assert site.hits("/article") == 1 and site.hits("/notes.txt") == 1  # once per run
    assert site.hits("/report.pdf") == 0
    assert first.fetches + second.fetches == 2
    over = {p.location: p.error for p in first.problems()}
    assert "limit of 2 pages" in over[site.url("/report.pdf")]
