"""Write the report from the selected evidence only, every statement a cited quote.

The body (`body`) answers each sub-question; then come the sections the report always
writes itself, in the order of `sections.SECTIONS`: disagreeing sources side by side
under Conflicts, what stays open under Unresolved, Reprints, Further sources (listed by
title only) and the numbered References. With no evidence at all there is no report:
the result says so, and lists what stays open.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from grounded_research.gaps.kinds import CONFLICT_KINDS
from grounded_research.models import ModelFailure, NodeModel
from grounded_research.report.body import body_by_model, extractive_body, sides_latest_first
from grounded_research.report.citations import Citations, cite, displayed, escaped
from grounded_research.report.sections import LABELS, Language, heading, language
from grounded_research.report.unresolved import unresolved_lines
from grounded_research.state import Gap, Reference, Source, State

MAX_UNUSABLE_LISTED = 10  # sources that could not be used, named one by one


def no_sources_report(state: State) -> str:
    lang = language(state.question)
    report = f"# {state.question}\n\n{LABELS[lang]['no_sources']}\n"
    return report + unresolved_section(state, state.unresolved, lang)


async def write(
    state: State, llm: NodeModel | None, text_of: Callable[[str], str] | None = None
) -> tuple[str, list[Reference], list[str]]:
    """The report, its references and the warnings of writing it: the model's body
    when there is a model and it cites the evidence, the extractive body otherwise
    (`text_of` reads a source's snapshot, for the headings each quote lies under)."""
    lang = language(state.question)
    written: tuple[str, Citations] | None = None
    warnings: list[str] = []
    if llm is not None:
        try:
            body, number, warnings = await body_by_model(llm, state)
            written = (body, number)
        except ModelFailure as failure:
            warnings = llm.fell_back(failure, "wrote the extractive report instead")
    body, number = written or extractive_body(state, LABELS[lang], text_of)

    parts = [f"# {state.question}\n", body]
    parts.append(conflicts_section(state, number, lang))
    parts.append(unresolved_section(state, state.unresolved, lang))
    parts.append(reprints_section(state, lang))
    references = make_references(state, number)
    parts.append(further_sources_section(state, references))
    parts.append(references_section(references, lang))
    return "\n".join(p for p in parts if p).rstrip() + "\n", references, warnings


def conflicts_section(state: State, number: Citations, lang: Language) -> str:
    """Each disagreement of the last gap check: a small table of its values, each with
    its source and date (the most recent first, and marked when it alone is), then each
    side quoted."""
    labels = LABELS[lang]
    conflicts = [g for g in state.open_gaps() if g.kind in CONFLICT_KINDS]
    if not conflicts:
        return ""
    blocks = []
    for gap in conflicts:
        dated = [
            (when, side, number(side.evidence_id), source)
            for when, side, _, source in sides_latest_first(state, gap)
        ]
        latest = dated[0][0] if sum(1 for d in dated if d[0] == dated[0][0]) == 1 else ""
        rows = [
            f"| {_cell(side.value)} | {cite([n])} {_cell(source.location)} | "
            + _cell(when.replace("-00", "") or "—")
            + (f" ({labels['latest']})" if when and when == latest else "")
            + " |"
            for when, side, n, source in dated
        ]
        quotes = "\n".join(f"- “{displayed(side.sentence)}” {cite([n])}" for _, side, n, _ in dated)
        table = "\n".join([labels["conflict_columns"], "| --- | --- | --- |", *rows])
        blocks.append(f"### {escaped(gap.subject)}\n\n{table}\n\n{quotes}\n")
    return f"{heading('conflicts', lang)}\n\n" + "\n".join(blocks)


def _cell(text: str) -> str:
    """Text in a cell of a Markdown table: on one line, its pipes escaped."""
    return escaped(" ".join(text.split())).replace("|", "\\|")


def unresolved_section(state: State, gaps: list[Gap], lang: Language) -> str:
    """What stays open, in plain words (`unresolved`): missing evidence per
    sub-question, the disagreements, then what the run could not read or search and the
    limits the run used up."""
    lines = [f"- {line}" for line in unresolved_lines(state, gaps, lang)]
    lines += [f"- {line}" for line in not_searched_or_read(state, lang)]
    if not lines:
        return ""
    return f"{heading('unresolved', lang)}\n\n" + "\n".join(lines) + "\n"


def not_searched_or_read(state: State, lang: Language) -> list[str]:
    """Why an answer may be missing other than that no source holds it: sources that
    could not be used (a page that timed out, a file that could not be read), searches
    that failed, and the budgets that stopped the run. The evidence table has them all."""
    labels = LABELS[lang]
    unusable = [s for s in state.sources.values() if s.status in ("failed", "blocked")]
    lines = [
        labels["not_used"].format(
            status=source.status, location=source.location, why=" ".join(source.error.split())
        )
        for source in unusable[:MAX_UNUSABLE_LISTED]
    ]
    if len(unusable) > MAX_UNUSABLE_LISTED:
        lines.append(labels["more_not_used"].format(count=len(unusable) - MAX_UNUSABLE_LISTED))
    usage = state.usage
    if usage.searches_failed:
        lines.append(
            labels["searches_failed"].format(failed=usage.searches_failed, calls=usage.search_calls)
        )
    if usage.limits_reached:
        used_up = [labels[f"limit_{limit}"] for limit in usage.limits_reached]
        lines.append(labels["limits"].format(limits="; ".join(used_up)))
    return lines


def reprints_section(state: State, lang: Language) -> str:
    """Sources counted as copies of another, each with the one it copies."""
    reprint_of = LABELS[lang]["reprint_of"]
    sources = state.sources
    lines = [
        f"- {sources[copy].location} {reprint_of} {sources[original].location}"
        for copy, original in state.selection.reprints.items()
        if copy in sources and original in sources
    ]
    return f"{heading('reprints', lang)}\n\n" + "\n".join(sorted(lines)) + "\n" if lines else ""


def further_sources_section(state: State, references: Iterable[Reference] = ()) -> str:
    """What the selection listed by title and location only (the token budget was
    tight), so a reader knows where else to look; a source the report cites is left out."""
    cited = {reference.source_id for reference in references}
    sources = [s for s in listed_sources(state) if s.id not in cited]
    if not sources:
        return ""
    lang = language(state.question)
    lines = [f"- {listed_line(source)}" for source in sources]
    note = LABELS[lang]["further_sources_note"]
    return f"{heading('further_sources', lang)}\n\n{note}\n\n" + "\n".join(lines) + "\n"


def listed_sources(state: State) -> list[Source]:
    """Sources of the listed evidence, each once, in selection order."""
    seen: dict[str, Source] = {}
    for ids in state.further_sources.values():
        for evidence_id in ids:
            source = state.sources.get(state.record(evidence_id).source_id)
            if source is not None:
                seen.setdefault(source.id, source)
    return list(seen.values())


def listed_line(source: Source) -> str:
    """Title and location, as the writer's context shows a listed source."""
    title = " ".join(source.title.split()) or source.location
    where = source.location if source.location != title else ""
    return f"{title} — {where} ({source.origin})" if where else f"{title} ({source.origin})"


def make_references(state: State, number: Citations) -> list[Reference]:
    """The cited evidence in citation order, each with its source and span."""
    references = []
    for evidence_id, n in sorted(number.numbers.items(), key=lambda item: item[1]):
        record = state.record(evidence_id)
        source = state.sources[record.source_id]
        references.append(
            Reference(
                number=n,
                evidence_id=evidence_id,
                source_id=source.id,
                location=source.location,
                title=source.title,
                origin=source.origin,
                start=record.start,
                end=record.end,
            )
        )
    return references


def references_section(references: list[Reference], lang: Language) -> str:
    """One entry per cited document, under its number, with the spans the report
    quotes from it listed under it."""
    by_number: dict[int, list[Reference]] = {}
    for reference in references:
        by_number.setdefault(reference.number, []).append(reference)
    entries = []
    for n, spans in sorted(by_number.items()):
        first = spans[0]
        lines = [f"[{n}] {first.location} — {first.title} ({first.origin})"]
        lines += [f"- chars {r.start}–{r.end}" for r in sorted(spans, key=lambda r: r.start)]
        entries.append("\n".join(lines))
    return f"{heading('references', lang)}\n\n" + "\n\n".join(entries) + "\n"
