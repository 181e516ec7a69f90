"""The report as one self-contained HTML page (`--html`, `grounded-research serve`).

The page is rendered from the run's records, never from a second writer: the report's
own Markdown gives the body and the sections written in words (Unresolved, Reprints,
Further sources), and the records give what the Markdown can only summarise: each
`[n]` opens its verbatim snippet with source, location, heading path, fetch and
publication dates and the verifier's verdicts; conflicts stand side by side; the
sources are a table that can be filtered; a small chart counts sources and evidence per
round and per sub-question.

Self-contained: the page loads nothing (its Content-Security-Policy allows no fetch of
any kind, and only its own script and style, by hash). The snapshots of the cited
sources are embedded as JSON, whole up to `WHOLE_SNAPSHOT_CHARS` characters, else as
windows of `WINDOW_CHARS` around each cited span, so the snapshot view highlights
`snapshot[start:end]` itself (offsets in code points, as Python counts them).

Everything taken from a source is text to the page: escaped in HTML, `<`/`>`/`&`
escaped in the embedded JSON, the report's Markdown rendered with raw HTML off, and
only http(s) links made clickable.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html import escape
from importlib import resources
from typing import Any
from urllib.parse import quote

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict

from grounded_research.gaps.kinds import CONFLICT_KINDS
from grounded_research.report.citations import CITATION
from grounded_research.report.sections import SECTIONS, Language, language
from grounded_research.state import Claim, Evidence, OutputState, Reference, Source

WHOLE_SNAPSHOT_CHARS = 200_000  # a longer snapshot is embedded as windows around its spans
WINDOW_CHARS = 2_000  # characters kept on each side of a cited span in a window
TextOf = Callable[[str], str]  # a snapshot's text by its sha256


def render_page(result: OutputState, text_of: TextOf | None = None, back_link: str = "") -> str:
    """The page for a run. `result` is the reported view (`ResearchResult`: sources with
    their reprint verdicts, evidence with the records selection made); `text_of` reads a
    snapshot (without it, or when one cannot be read, the page says the snapshot is not
    available); `back_link` adds a link to a list of runs (`serve`)."""
    sources = result.reported_sources()
    evidence = result.reported_evidence()
    lang = language(result.question)
    body, sections = split_report(result.report, lang)
    snapshots = embedded_snapshots(result, sources, evidence, text_of)
    script, style = _asset("page.js"), _asset("page.css")
    parts = [
        f'<header><p class="kind">Research report · {escape(result.status)}</p>',
        f'<p><a href="{escape(back_link)}">All runs</a></p>' if back_link else "",
        _summary(result, sources, evidence),
        "</header>",
        '<main id="report">',
        f'<article class="body">{render_markdown(body, result.references)}</article>',
        _conflicts(result, sources, evidence),
        _section("unresolved", "Unresolved", sections, result.references),
        _section("reprints", "Reprints", sections, result.references),
        _section("further_sources", "Further sources", sections, result.references),
        _references(result, sources, evidence, snapshots),
        _sources_table(result, sources, evidence),
        _charts(result, evidence),
        "</main>",
        _viewer(),
        f'<script type="application/json" id="snapshots">{_json_in_html(snapshots)}</script>',
    ]
    return html_document(
        result.question,
        "".join(parts),
        style=style,
        lang="zh" if lang == "zh" else "en",
        script=script,
        policy=content_policy(script, style),
    )


def html_document(
    title: str, body: str, *, style: str, lang: str = "en", script: str = "", policy: str = ""
) -> str:
    """A whole HTML page: the report's, or another page of a server (which sends its
    policy as a header instead of a meta tag)."""
    meta_policy = (
        f'<meta http-equiv="Content-Security-Policy" content="{policy}">' if policy else ""
    )
    return (
        "<!DOCTYPE html>\n"
        f'<html lang="{lang}"><head><meta charset="utf-8">{meta_policy}'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{style}</style></head>"
        f"<body>{body}{f'<script>{script}</script>' if script else ''}</body></html>\n"
    )


def content_policy(script: str, style: str) -> str:
    """Nothing may load, and only the page's own script and style run (by their hash)."""
    return (
        "default-src 'none'; img-src data:; base-uri 'none'; form-action 'none'; "
        f"script-src '{_sha256(script)}'; style-src '{_sha256(style)}'"
    )


def page_policy() -> str:
    """The policy of a page made by `render_page`, for a server to send as a header."""
    return content_policy(_asset("page.js"), page_style())


def page_style() -> str:
    """The page's style sheet (other pages of a server may share it, and its policy)."""
    return _asset("page.css")


def split_report(report: str, lang: Language) -> tuple[str, dict[str, str]]:
    """The report's body (up to its first own section) and the Markdown of each of its
    own sections, by key, as the writer wrote them."""
    keys = {f"## {s.headings[lang]}": s.key for s in SECTIONS}
    body: list[str] = []
    sections: dict[str, list[str]] = {}
    current = body
    for line in report.splitlines():
        key = keys.get(line.strip())
        if key is not None:
            current = sections.setdefault(key, [])
        else:
            current.append(line)
    return "\n".join(body), {key: "\n".join(lines) for key, lines in sections.items()}


def render_markdown(text: str, references: list[Reference]) -> str:
    """Markdown with raw HTML off and each `[n]` a link that opens its reference; a
    marker the page escaped (`\\[3\\]`) or put in a code span stays text."""
    numbers = {ref.number for ref in references}
    parser = MarkdownIt("commonmark", {"html": False})
    parser.inline.ruler.before("link", "citation", _citation_rule)

    def render_citation(
        renderer: RendererHTML, tokens: list[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        return "".join(_citation_link(n, n in numbers) for n in tokens[idx].meta["numbers"])

    parser.add_render_rule("citation", render_citation)
    rendered: str = parser.render(text)
    return rendered


def _citation_rule(state: StateInline, silent: bool) -> bool:
    match = CITATION.match(state.src, state.pos)
    if match is None:
        return False
    if not silent:
        token = state.push("citation", "", 0)
        token.meta = {"numbers": [int(n) for n in re.split(r"\s*[,;]\s*", match[1])]}
    state.pos = match.end()
    return True


def _citation_link(number: int, exists: bool) -> str:
    if not exists:
        return f'<span class="cite missing" title="no such reference">[{number}]</span>'
    return (
        f'<a class="cite" href="#ref-{number}" data-ref="{number}" '
        f'aria-label="citation {number}">[{number}]</a>'
    )


@dataclass(frozen=True)
class Window:
    start: int
    text: str


def embedded_snapshots(
    result: OutputState,
    sources: dict[str, Source],
    evidence: dict[str, Evidence],
    text_of: TextOf | None,
) -> dict[str, dict[str, Any]]:
    """For each cited source whose snapshot can be read: its length and the windows of
    it the page carries (the whole text when short enough)."""
    spans: dict[str, list[tuple[int, int]]] = {}
    for ref in result.references:
        spans.setdefault(ref.source_id, []).append((ref.start, ref.end))
    embedded: dict[str, dict[str, Any]] = {}
    for source_id, cited in spans.items():
        source = sources.get(source_id)
        if text_of is None or source is None or not source.sha256:
            continue
        try:
            text = text_of(source.sha256)
        except (OSError, ValueError):
            continue
        windows = (
            [Window(0, text)]
            if len(text) <= WHOLE_SNAPSHOT_CHARS
            else _windows(text, cited, WINDOW_CHARS)
        )
        embedded[source_id] = {
            "location": source.location,
            "length": len(text),
            "windows": [[w.start, w.text] for w in windows],
        }
    return embedded


def _windows(text: str, spans: list[tuple[int, int]], margin: int) -> list[Window]:
    """Pieces of `text` around the spans, overlapping pieces merged."""
    merged: list[list[int]] = []
    for start, end in sorted(spans):
        lo, hi = max(0, start - margin), min(len(text), end + margin)
        if merged and lo <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    return [Window(lo, text[lo:hi]) for lo, hi in merged]


def _summary(result: OutputState, sources: dict[str, Source], evidence: dict[str, Evidence]) -> str:
    statuses = Counter(s.status for s in sources.values())
    verdicts = Counter(c.verdict for c in result.claims)
    items = [
        ("Sources", ", ".join(f"{n} {s}" for s, n in sorted(statuses.items())) or "0"),
        ("Evidence", f"{len(evidence)} passages, {len(result.references)} cited"),
        ("Claims", ", ".join(f"{n} {v}" for v, n in sorted(verdicts.items())) or "0"),
        ("Re-search rounds", str(result.usage.rounds)),
    ]
    return (
        '<dl class="summary">'
        + "".join(f"<div><dt>{escape(k)}</dt><dd>{escape(v)}</dd></div>" for k, v in items)
        + "</dl>"
    )


def _section(key: str, title: str, sections: dict[str, str], refs: list[Reference]) -> str:
    text = sections.get(key, "").strip()
    if not text:
        return ""
    return (
        f'<section id="{key}" aria-labelledby="{key}-title">'
        f'<h2 id="{key}-title">{escape(title)}</h2>{render_markdown(text, refs)}</section>'
    )


def _conflicts(
    result: OutputState, sources: dict[str, Source], evidence: dict[str, Evidence]
) -> str:
    """The disagreements of the last gap check (as the report's Conflicts section has
    them), each side a card: value, date, source, quote and its citation."""
    if not result.gaps:
        return ""
    last = max(gap.round for gap in result.gaps)
    conflicts = [g for g in result.gaps if g.round == last and g.kind in CONFLICT_KINDS]
    if not conflicts:
        return ""
    number_of = {ref.evidence_id: ref.number for ref in result.references}
    blocks = []
    for gap in conflicts:
        cards = []
        for side in gap.sides:
            record = evidence.get(side.evidence_id)
            source = sources.get(record.source_id) if record else None
            number = number_of.get(side.evidence_id)
            cite = _citation_link(number, True) if number is not None else ""
            cards.append(
                '<div class="side">'
                f'<p class="value">{escape(side.value)}</p>'
                f'<p class="when">{escape(source.published or "undated") if source else ""}</p>'
                f"<blockquote>{escape(side.sentence)}</blockquote>"
                f'<p class="from">{escape(_source_name(source)) if source else ""} {cite}</p>'
                "</div>"
            )
        blocks.append(
            f'<div class="conflict"><h3>{escape(gap.subject or gap.detail)}</h3>'
            f'<div class="sides">{"".join(cards)}</div></div>'
        )
    return (
        '<section id="conflicts" aria-labelledby="conflicts-title">'
        f'<h2 id="conflicts-title">Conflicts</h2>{"".join(blocks)}</section>'
    )


def _references(
    result: OutputState,
    sources: dict[str, Source],
    evidence: dict[str, Evidence],
    snapshots: dict[str, dict[str, Any]],
) -> str:
    """Every cited document under its number, with what is known of it and each span
    the report quotes from it (its snippet, location, headings and a link to it in the
    snapshot): the element a `[n]` opens (and where its link leads without scripts)."""
    by_number: dict[int, list[Reference]] = {}
    for ref in result.references:
        by_number.setdefault(ref.number, []).append(ref)
    items = []
    for number, refs in sorted(by_number.items()):
        first = refs[0]
        source = sources.get(first.source_id)
        about = [
            ("Source", first.location),
            ("Origin", first.origin),
            ("Fetched", source.retrieved_at if source and source.retrieved_at else "—"),
            ("Published", source.published if source and source.published else "—"),
            ("Verifier", _verdicts(number, result.claims)),
        ]
        spans = "".join(
            _cited_span(ref, evidence.get(ref.evidence_id), ref.source_id in snapshots)
            for ref in sorted(refs, key=lambda r: r.start)
        )
        missing = (
            ""
            if first.source_id in snapshots
            else '<p class="note">The snapshot of this source is not available.</p>'
        )
        items.append(
            f'<li id="ref-{number}" class="ref" data-ref="{number}">'
            f'<p class="ref-head"><span class="num">[{number}]</span> '
            f"<cite>{escape(first.title or first.location)}</cite></p>"
            + _meta(about)
            + f"{missing}{spans}</li>"
        )
    if not items:
        return ""
    return (
        '<section id="references" aria-labelledby="references-title">'
        f'<h2 id="references-title">References</h2><ol class="refs">{"".join(items)}</ol>'
        "</section>"
    )


def _cited_span(ref: Reference, record: Evidence | None, in_snapshot: bool) -> str:
    """One span the report quotes from a document: its passage verbatim, where it lies,
    and a link to it highlighted in the snapshot."""
    meta = [
        ("Location", f"chars {ref.start}–{ref.end}"),
        ("Headings", " › ".join(record.headings) if record and record.headings else "—"),
    ]
    link = ""
    if in_snapshot:
        target = f"snapshot={quote(ref.source_id)}&start={ref.start}&end={ref.end}"
        link = (
            f'<a class="snapshot-link" href="#{escape(target)}">Show in the snapshot '
            f"(chars {ref.start}–{ref.end})</a>"
        )
    return (
        f'<div class="span" data-evidence="{escape(ref.evidence_id)}">'
        f'<blockquote class="snippet">{escape(record.text if record else "")}</blockquote>'
        f"{_meta(meta)}{link}</div>"
    )


def _meta(items: list[tuple[str, str]]) -> str:
    return (
        '<dl class="meta">'
        + "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in items)
        + "</dl>"
    )


def _verdicts(number: int, claims: list[Claim]) -> str:
    citing = [c for c in claims if number in c.citations]
    if not citing:
        return "not checked (no claim read back cites it)"
    counted = Counter((c.verdict, c.note) for c in citing)
    return "; ".join(
        f"{verdict}{f' ({note})' if note else ''}" + (f" × {n}" if n > 1 else "")
        for (verdict, note), n in counted.items()
    )


def _source_name(source: Source) -> str:
    return f"{source.title} ({source.location})" if source.title else source.location


def _sources_table(
    result: OutputState, sources: dict[str, Source], evidence: dict[str, Evidence]
) -> str:
    """Every source, with what became of it, filterable by text, status and origin."""
    reprints = result.selections[-1].reprints if result.selections else {}
    copies = Counter(s.duplicate_of for s in sources.values() if s.duplicate_of)
    passages = Counter(e.source_id for e in evidence.values())
    cited = Counter(ref.source_id for ref in result.references)
    rows = []
    for source in sources.values():
        original = sources.get(source.duplicate_of or "")
        copy_of = ""
        if source.duplicate_of:
            kind = "reprint of" if source.id in reprints else "duplicate of"
            copy_of = f"{kind} {original.location if original else source.duplicate_of}"
        name = escape(source.title or source.location)
        if source.location.startswith(("http://", "https://")):
            where = (
                f'<a href="{escape(source.location)}" rel="noopener noreferrer">'
                f"{escape(source.location)}</a>"
            )
        else:
            where = escape(source.location)
        error = f'<br><span class="error">{escape(source.error)}</span>' if source.error else ""
        rows.append(
            f'<tr data-status="{escape(source.status)}" data-origin="{escape(source.origin)}">'
            f'<td>{name}<br><span class="loc">{where}</span></td>'
            f"<td>{escape(source.status)}{error}</td><td>{escape(source.origin)}</td>"
            f"<td>{escape(source.published or '')}</td><td>{escape(source.retrieved_at)}</td>"
            f"<td>{escape(copy_of)}</td><td>{copies.get(source.id, 0)}</td>"
            f"<td>{passages.get(source.id, 0)}</td><td>{cited.get(source.id, 0)}</td></tr>"
        )
    statuses = sorted({s.status for s in sources.values()})
    origins = sorted({s.origin for s in sources.values()})
    return (
        '<section id="sources" aria-labelledby="sources-title">'
        '<h2 id="sources-title">Sources</h2><form class="filters" role="search">'
        '<label>Filter <input type="search" id="source-filter"></label>'
        f"{_select('status-filter', 'Status', statuses)}"
        f"{_select('origin-filter', 'Origin', origins)}"
        f'<output id="source-count" aria-live="polite">{len(rows)} of {len(rows)} shown</output>'
        '</form><div class="scroll"><table id="sources-table"><thead><tr>'
        '<th scope="col">Source</th><th scope="col">Status</th><th scope="col">Origin</th>'
        '<th scope="col">Published</th><th scope="col">Fetched</th>'
        '<th scope="col">Copy of</th><th scope="col">Copies</th>'
        '<th scope="col">Passages</th><th scope="col">Cited</th></tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div></section>"
    )


def _select(element_id: str, label: str, values: Sequence[str]) -> str:
    options = "".join(f'<option value="{escape(v)}">{escape(v)}</option>' for v in values)
    return (
        f'<label>{escape(label)} <select id="{element_id}"><option value="">all</option>'
        f"{options}</select></label>"
    )


def _charts(result: OutputState, evidence: dict[str, Evidence]) -> str:
    """Sources and passages found per round and per sub-question: bars, and the same
    figures as a table."""
    by_round: dict[str, list[Evidence]] = {}
    for record in sorted(evidence.values(), key=lambda e: e.round):
        by_round.setdefault(f"round {record.round}", []).append(record)
    texts = {sq.id: sq.text for sq in result.sub_questions}
    by_question: dict[str, list[Evidence]] = {sq.id: [] for sq in result.sub_questions}
    for record in evidence.values():
        by_question.setdefault(record.sub_question_id, []).append(record)
    rows_round = [(label, records) for label, records in by_round.items()]
    rows_question = [
        (f"{qid}: {texts.get(qid, '')}", records) for qid, records in by_question.items()
    ]
    return (
        '<section id="charts" aria-labelledby="charts-title">'
        '<h2 id="charts-title">What the run found</h2>'
        f"{_bar_chart('chart-rounds', 'Per round', rows_round)}"
        f"{_bar_chart('chart-questions', 'Per sub-question', rows_question)}</section>"
    )


def _bar_chart(chart_id: str, title: str, rows: list[tuple[str, list[Evidence]]]) -> str:
    figures = [(label, len({e.source_id for e in rs}), len(rs)) for label, rs in rows]
    most = max([n for _, s, p in figures for n in (s, p)] or [1]) or 1
    label_width, bar_width, bar_height = 260, 300, 12
    height = len(figures) * (2 * bar_height + 12) + 10
    bars = []
    for i, (label, n_sources, n_passages) in enumerate(figures):
        y = 5 + i * (2 * bar_height + 12)
        shown = label if len(label) <= 40 else label[:39] + "…"
        bars.append(
            f'<text x="0" y="{y + bar_height + 4}" class="label">{escape(shown)}</text>'
            + "".join(
                f'<rect x="{label_width}" y="{y + k * bar_height}" height="{bar_height - 2}" '
                f'width="{max(1, round(bar_width * n / most))}" class="{kind}">'
                f"<title>{escape(label)}: {n} {kind}</title></rect>"
                f'<text x="{label_width + round(bar_width * n / most) + 4}" '
                f'y="{y + k * bar_height + bar_height - 3}" class="count">{n}</text>'
                for k, (kind, n) in enumerate((("sources", n_sources), ("passages", n_passages)))
            )
        )
    table_rows = "".join(
        f'<tr><th scope="row">{escape(label)}</th><td>{s}</td><td>{p}</td></tr>'
        for label, s, p in figures
    )
    return (
        f'<figure id="{chart_id}"><figcaption>{escape(title)}: sources '
        '<span class="key sources">■</span> and passages <span class="key passages">■</span>'
        f'</figcaption><svg role="img" aria-labelledby="{chart_id}-title" '
        f'width="{label_width + bar_width + 40}" height="{height}" '
        f'viewBox="0 0 {label_width + bar_width + 40} {height}">'
        f'<title id="{chart_id}-title">{escape(title)}: sources and passages found</title>'
        f"{''.join(bars)}</svg>"
        f'<table class="figures"><thead><tr><th scope="col">{escape(title)}</th>'
        '<th scope="col">Sources</th><th scope="col">Passages</th></tr></thead>'
        f"<tbody>{table_rows}</tbody></table></figure>"
    )


def _viewer() -> str:
    return (
        '<dialog id="viewer" aria-labelledby="viewer-title">'
        '<div class="viewer-bar"><h2 id="viewer-title">Citation</h2>'
        '<button type="button" id="viewer-close">Close</button></div>'
        '<div id="viewer-body"></div></dialog>'
    )


def _json_in_html(value: Any) -> str:
    """JSON that no page text can end its script element with (`</script>`) or make
    markup of."""
    text = json.dumps(value, ensure_ascii=False)
    for char, code in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        text = text.replace(char, code)
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def _asset(name: str) -> str:
    return resources.files("grounded_research.report").joinpath("assets", name).read_text("utf-8")


def _sha256(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode()
