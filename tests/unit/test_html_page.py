"""The HTML report (`report/page.py`): pages' text stays text, every citation opens an
element of the page, and the snapshot the page carries holds each cited span at its
offsets. Run on a real (extractive) run over pages written to attack the page."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from grounded_research.api import ResearchResult
from grounded_research.configuration import Context
from grounded_research.graph import graph
from grounded_research.report import page
from grounded_research.report.citations import citations_in
from grounded_research.report.page import render_markdown, render_page, split_report
from grounded_research.retrieval.snapshots import SnapshotStore
from grounded_research.state import InputState, Reference
from tests.conftest import write

QUESTION = "What energy density does the Norvik N2 cell reach?"
ATTACKS = (
    "<script>alert('page')</script> </script><img src=x onerror=alert(1)> "
    '<a href="javascript:alert(2)">x</a> [the spec](javascript:alert(3)) [3] \u2028 &amp;'
)
PAGES = {
    # a character outside the BMP before the quoted span: offsets count code points
    "a.md": f"# N2 launch 🔋\n\nThe Norvik N2 cell stores 250 Wh/kg, Norvik Cells says. {ATTACKS}",
    "b.md": "# N2 review\n\nIn our tests the Norvik N2 cell reached 248 Wh/kg at the cell level.\n",
    "c.html": (
        "<html><head><title>N2 &lt;script&gt;alert(4)&lt;/script&gt; tracker</title></head>"
        "<body><article><h1>Tracker</h1><p>The Norvik N2 cell reaches 251 Wh/kg, says "
        "the tracker &lt;/script&gt;&lt;script&gt;alert(5)&lt;/script&gt;.</p></article>"
        "</body></html>"
    ),
}


class Elements(HTMLParser):
    """Every start tag with its attributes, and the text of each script element."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[str] = []
        self.styles: list[str] = []
        self._in: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in = tag if tag in ("script", "style") else None
        if tag == "script":
            self.scripts.append("")
        if tag == "style":
            self.styles.append("")

    def handle_endtag(self, tag: str) -> None:
        self._in = None

    def handle_data(self, data: str) -> None:
        if self._in == "script":
            self.scripts[-1] += data
        elif self._in == "style":
            self.styles[-1] += data

    def ids(self) -> set[str]:
        return {a["id"] for _, a in self.tags if a.get("id")}


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[ResearchResult, str, Path]:
    tmp = tmp_path_factory.mktemp("html")
    for name, text in PAGES.items():
        write(tmp / "corpus", name, text)
    cache = tmp / "cache"
    context = Context(
        corpus=str(tmp / "corpus"), cache_dir=str(cache), max_rounds=0, embeddings="none"
    )
    values = asyncio.run(graph.ainvoke(InputState(question=QUESTION), context=context))
    result = ResearchResult.from_state(values)
    return result, result.to_html(str(cache)), cache


def test_pages_text_is_text_in_the_page(run: tuple[ResearchResult, str, Path]) -> None:
    result, html, _ = run
    assert any("alert" in e.text for e in result.evidence.values())  # the attacks were quoted
    parsed = Elements()
    parsed.feed(html)
    tags = [tag for tag, _ in parsed.tags]
    assert tags.count("script") == 2 and "img" not in tags and "iframe" not in tags
    assert not [a for _, a in parsed.tags for name in a if name.startswith("on")]
    links = [a["href"] or "" for tag, a in parsed.tags if tag == "a"]
    assert all(link.startswith(("#", "http://", "https://")) for link in links), links
    data = next(s for (t, a), s in zip(script_tags(parsed), parsed.scripts, strict=True) if a)
    assert "<" not in data and "\u2028" not in data
    assert "alert(1)" in json.dumps(json.loads(data))  # kept, as data


def script_tags(parsed: Elements) -> list[tuple[str, bool]]:
    return [(t, a.get("type") == "application/json") for t, a in parsed.tags if t == "script"]


def test_only_the_pages_own_script_and_style_may_run(run: tuple[ResearchResult, str, Path]) -> None:
    _, html, _ = run
    parsed = Elements()
    parsed.feed(html)
    policy = next(a["content"] or "" for t, a in parsed.tags if a.get("http-equiv"))
    code = next(
        s
        for (_, is_data), s in zip(script_tags(parsed), parsed.scripts, strict=True)
        if not is_data
    )
    assert f"script-src '{sha256(code)}'" in policy
    assert f"style-src '{sha256(parsed.styles[0])}'" in policy
    assert "default-src 'none'" in policy and "http" not in policy


def sha256(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()


def test_every_citation_opens_an_element_of_the_page(
    run: tuple[ResearchResult, str, Path],
) -> None:
    result, html, _ = run
    parsed = Elements()
    parsed.feed(html)
    cited = [a["href"] for t, a in parsed.tags if t == "a" and a.get("class") == "cite"]
    body, _ = split_report(result.report, "en")
    assert len(cited) >= len(citations_in(body)) > 0
    assert {href[1:] for href in cited if href} <= parsed.ids()
    assert {f"ref-{ref.number}" for ref in result.references} <= parsed.ids()


def test_the_page_carries_each_cited_span_at_its_offsets(
    run: tuple[ResearchResult, str, Path],
) -> None:
    result, html, cache = run
    store = SnapshotStore.in_cache(cache)
    data = re.search(r'<script type="application/json" id="snapshots">(.*?)</script>', html)
    assert data is not None
    snapshots = json.loads(data[1])
    assert any(ord(c) > 0xFFFF for s in snapshots.values() for _, t in s["windows"] for c in t)
    for ref in result.references:
        source = result.sources[ref.source_id]
        [(start, text)] = snapshots[ref.source_id]["windows"]
        assert start == 0 and text == store.get(source.sha256)
        assert text[ref.start : ref.end] == result.evidence[ref.evidence_id].text


def test_a_long_snapshot_is_carried_as_windows_around_its_spans(
    run: tuple[ResearchResult, str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    result, _, cache = run
    store = SnapshotStore.in_cache(cache)
    monkeypatch.setattr(page, "WHOLE_SNAPSHOT_CHARS", 10)
    monkeypatch.setattr(page, "WINDOW_CHARS", 5)
    embedded = page.embedded_snapshots(result, result.sources, result.evidence, store.get)
    for ref in result.references:
        windows = embedded[ref.source_id]["windows"]
        holding = [(s, t) for s, t in windows if s <= ref.start and ref.end <= s + len(t)]
        [(start, text)] = holding
        assert text[ref.start - start : ref.end - start] == result.evidence[ref.evidence_id].text
        assert len(text) <= ref.end - ref.start + 10 or len(windows) == 1


def test_an_escaped_marker_is_text_and_an_unknown_one_is_marked() -> None:
    refs = [
        Reference(
            number=1,
            evidence_id="e",
            source_id="s",
            location="l",
            title="t",
            origin="local",
            start=0,
            end=1,
        )
    ]
    shown = render_markdown("- “a \\[1\\] b `[1]` <b>x</b>” [1][2]", refs)
    assert shown.count('class="cite"') == 1 and 'class="cite missing"' in shown
    assert "<b>" not in shown and "&lt;b&gt;" in shown


def test_a_snapshot_that_cannot_be_read_is_said_so(run: tuple[ResearchResult, str, Path]) -> None:
    result, _, _ = run

    def missing(sha256: str) -> str:
        raise FileNotFoundError(sha256)

    html = render_page(result, missing)
    assert 'class="snapshot-link"' not in html
    documents = {ref.source_id for ref in result.references}
    assert html.count("The snapshot of this source is not available.") == len(documents)


def test_a_run_that_stopped_early_still_has_a_page() -> None:
    """`serve` shows every thread, one stopped before its report too."""
    stopped = ResearchResult.from_state({"question": "Q <b>?</b>", "status": "pending"})
    html = render_page(stopped)
    assert "<title>Q &lt;b&gt;?&lt;/b&gt;</title>" in html and 'id="references"' not in html
