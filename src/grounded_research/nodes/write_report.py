"""Write the report from the selected evidence only, every statement a cited quote.

Extractive mode quotes the evidence sentences that best answer each sub-question,
puts disagreeing sources side by side under Conflicts, and lists what stays open
under Unresolved. With no evidence at all there is no report: the result says so.

With a model, the model writes the body from the same selected evidence, which it
receives quoted with short ids (E1, E2, …); the ids it cites become the numbered
references, and a cited id that does not exist is removed and reported as a warning. The
Conflicts, Unresolved, Reprints and References sections stay deterministic. A model that
fails, or cites nothing, gets the extractive body instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from langgraph.runtime import Runtime

from grounded_research.citations import cite, normalize, note
from grounded_research.configuration import Context, get_context
from grounded_research.facts import named_terms, quantities, years
from grounded_research.further_sources import further_sources_section
from grounded_research.models import ModelFailure, NodeModel, node_model
from grounded_research.nodes.planner import facets_of
from grounded_research.prompts import Found, Section, language_of, writer_messages
from grounded_research.selection.chunking import sentences
from grounded_research.selection.reprints import date_key
from grounded_research.selection.tokenize import has_cjk, tokenize
from grounded_research.state import (
    WHOLE_QUESTION_ID,
    Evidence,
    Gap,
    Reference,
    State,
    SubQuestion,
    Usage,
)

SENTENCES_PER_SUB_QUESTION = 6
MIN_RELEVANCE = 0.2
_ASKS_FOR_NUMBER = re.compile(
    r"\b(?:when|how (?:much|many|long|far)|what year)\b|多少|何时|哪一年", re.I
)
_LINE_MARKER = re.compile(r"^(?:[-*+•]\s+|\d{1,3}[.)]\s+|>\s*|#{1,6}\s+)")
_CITATION_GROUP = re.compile(r"\s?[\[【]([^\[\]【】\n]{1,120})[\]】](?!\()")
_CITATION_TOKEN = re.compile(r"(?:E\d+|ev-[0-9a-f]{6,}|\d+)", re.IGNORECASE)
_OWN_SECTIONS = re.compile(
    r"^#{1,6}\s*(?:conflicts?|unresolved(?: questions)?|open questions|references|sources|"
    r"reprints|冲突|未解决(?:的问题)?|参考(?:来源|文献)?|来源|转载)\s*:?\s*$",
    re.IGNORECASE | re.MULTILINE,
)

LABELS = {
    "en": {
        "findings": "Findings",
        "no_direct": "No passage answers this directly; see Unresolved.",
        "conflicts": "Conflicts",
        "vs": "vs",
        "latest": "most recent source",
        "unresolved": "Unresolved",
        "references": "References",
        "reprints": "Reprints",
        "reprint_of": "reprints",
        "no_sources": "No sources found. The searched sources hold nothing that matches "
        "this question, so there is no report: nothing here is invented.",
    },
    "zh": {
        "findings": "结论",
        "no_direct": "没有段落直接回答这一点；见“未解决”。",
        "conflicts": "冲突",
        "vs": "对比",
        "latest": "最新来源",
        "unresolved": "未解决",
        "references": "参考来源",
        "reprints": "转载",
        "reprint_of": "转载自",
        "no_sources": "未找到任何来源。检索到的资料中没有与此问题相关的内容，"
        "因此不生成报告，也不编造任何内容。",
    },
}


@dataclass
class Citations:
    """Evidence ids numbered in the order the report first cites them."""

    numbers: dict[str, int] = field(default_factory=dict)

    def __call__(self, evidence_id: str) -> int:
        return self.numbers.setdefault(evidence_id, len(self.numbers) + 1)


async def write_report(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    context = get_context(runtime)
    labels = LABELS["zh" if has_cjk(state.question) else "en"]
    selected = [i for ids in state.context.values() for i in ids]
    if not selected:
        report = f"# {state.question}\n\n{labels['no_sources']}\n"
        report += unresolved_section(state, state.unresolved, labels)
        return {
            "status": "no_sources",
            "report": report,
            "references": [],
        }

    llm = node_model(context, "writer", node="write_report")
    written: tuple[str, Citations] | None = None
    warnings: list[str] = []
    if llm is not None:
        try:
            body, number, warnings = await body_by_model(llm, state)
            written = (body, number)
        except ModelFailure as failure:
            warnings = llm.fell_back(failure, "wrote the extractive report instead")
    body, number = written or extractive_body(state, labels)

    parts = [f"# {state.question}\n", body]
    parts.append(conflicts_section(state, number, labels))
    parts.append(unresolved_section(state, state.unresolved, labels))
    parts.append(reprints_section(state, labels))
    references = make_references(state, number)
    parts.append(further_sources_section(state, references))
    parts.append(references_section(references, labels))
    return {
        "status": "ok",
        "report": "\n".join(p for p in parts if p).rstrip() + "\n",
        "references": references,
        "usage": llm.usage() if llm else Usage(),
        "warnings": warnings,
    }


async def body_by_model(llm: NodeModel, state: State) -> tuple[str, Citations, list[str]]:
    """The model's body with its evidence ids turned into numbered citations."""
    aliases: dict[str, str] = {}
    sections: list[Section] = []
    for sub_question in state.sub_questions:
        shown = []
        for record in state.selected_for(sub_question.id):
            if record.id not in aliases.values():
                aliases[f"E{len(aliases) + 1}"] = record.id
                shown.append(_found(state, record, f"E{len(aliases)}"))
        sections.append(Section(heading=sub_question.text, evidence=shown))
    alias_of = {evidence_id: alias for alias, evidence_id in aliases.items()}
    conflicts = [
        f"{gap.subject}: "
        + " vs ".join(f"{side.value} [{alias_of[side.evidence_id]}]" for side in gap.sides)
        for gap in state.open_gaps()
        if gap.kind in ("conflict", "status_conflict")
        and all(side.evidence_id in alias_of for side in gap.sides)
    ]
    unresolved = [
        gap.detail for gap in state.unresolved if gap.kind not in ("conflict", "status_conflict")
    ]
    language = language_of(state.question, chinese=has_cjk(state.question))
    text = await llm.text(
        writer_messages(state.question, language, sections, conflicts, unresolved)
    )
    number = Citations()
    body, problems = cite_evidence(own_body(text), aliases, number)
    if not number.numbers:
        raise ModelFailure("the report it wrote cites no evidence")
    return body, number, [f"write_report: {problem}" for problem in problems]


def own_body(text: str) -> str:
    """The model's text without a title of its own or sections the report adds itself."""
    lines = text.strip().splitlines()
    while lines and (not lines[0].strip() or re.match(r"^#\s", lines[0])):
        lines.pop(0)
    body = "\n".join(lines)
    cut = _OWN_SECTIONS.search(body)
    return (body[: cut.start()] if cut else body).strip() + "\n"


def cite_evidence(text: str, aliases: dict[str, str], number: Citations) -> tuple[str, list[str]]:
    """Replace `[E3]` (or a real evidence id) with `[n]`; ids that name no evidence the
    writer was given are removed, each with a problem saying so."""
    known = set(aliases.values())
    problems: list[str] = []

    def replace(match: re.Match[str]) -> str:
        tokens = [t for t in re.split(r"[\s,;，；、]+", match.group(1)) if t]
        if not tokens or not all(_CITATION_TOKEN.fullmatch(t) for t in tokens):
            return match.group(0)  # brackets that are not a citation
        numbers: list[int] = []
        for token in tokens:
            evidence_id = aliases.get(token.upper()) or (token if token in known else None)
            if evidence_id is None:
                problems.append(f"removed citation [{token}]: no such evidence was given")
            elif number(evidence_id) not in numbers:
                numbers.append(number(evidence_id))
        return " " + cite(numbers) if numbers else ""

    cited = _CITATION_GROUP.sub(replace, text)
    cited = re.sub(r"\(\s*((?:\[\d+\]\s*)+)\)", lambda m: m.group(1).strip(), cited)
    cited = re.sub(r"[ \t]+([.,;:!?。，；：])", r"\1", cited)
    return cited, problems


def extractive_body(state: State, labels: dict[str, str]) -> tuple[str, Citations]:
    """One section per sub-question quoting the evidence sentences that answer it best."""
    number = Citations()
    parts: list[str] = []
    quoted: set[str] = set()
    titles = {source.id: source.title for source in state.sources.values()}
    for sub_question in state.sub_questions:
        records = state.selected_for(sub_question.id)
        heading = labels["findings"] if sub_question.id == WHOLE_QUESTION_ID else sub_question.text
        lines = [
            f"- “{_flat(sentence)}” {cite([number(record.id)])}"
            for record, sentence in best_sentences(sub_question, records, titles, quoted)
        ]
        if sub_question.id != WHOLE_QUESTION_ID or lines:
            parts.append(
                f"## {heading}\n\n" + ("\n".join(lines) or note(labels["no_direct"])) + "\n"
            )
    return "\n".join(parts), number


def _found(state: State, record: Evidence, alias: str) -> Found:
    source = state.sources.get(record.source_id)
    return Found(
        id=alias,
        title=source.title if source else "",
        location=source.location if source else "",
        text=record.text,
        published=(source.published or "") if source else "",
    )


def best_sentences(
    sub_question: SubQuestion,
    records: list[Evidence],
    titles: dict[str, str],
    quoted: set[str],
) -> list[tuple[Evidence, str]]:
    """The evidence sentences that share most terms with the sub-question; numbers and
    years count extra when it asks when or how much. When the question, or the follow-up
    query that found the passage, names something, a sentence must be about it (it, or
    its source's title, names it too): the second hop of a question is about a name the
    first hop found, not one the question gave. Each sentence is quoted once."""
    wanted = set(tokenize(" ".join(sub_question.facets or facets_of(sub_question.text))))
    wants_number = bool(_ASKS_FOR_NUMBER.search(sub_question.text))
    names = named_terms(" ".join([sub_question.text, *sub_question.queries]))
    scored: list[tuple[float, int, Evidence, str]] = []
    for order, record in enumerate(records):
        title_names = named_terms(titles.get(record.source_id, ""))
        about = names | named_terms(record.query)
        for start, end in sentences(record.text):
            sentence = _LINE_MARKER.sub("", record.text[start:end]).strip()
            if len(sentence) < 25 or set(sentence) <= set("|-: ") or normalize(sentence) in quoted:
                continue
            if about and not about & (named_terms(sentence) | title_names):
                continue
            terms = set(tokenize(sentence))
            relevance = len(terms & wanted) / max(1, len(wanted))
            if wants_number and (quantities(sentence) or years(sentence)):
                relevance += 0.15
            if relevance >= MIN_RELEVANCE:
                scored.append((relevance + 0.2 * record.score, order, record, sentence))
    chosen: list[tuple[Evidence, str]] = []
    for _, _, record, sentence in sorted(scored, key=lambda s: (-s[0], s[1])):
        if normalize(sentence) in quoted:
            continue
        quoted.add(normalize(sentence))
        chosen.append((record, sentence))
        if len(chosen) == SENTENCES_PER_SUB_QUESTION:
            break
    return chosen


def conflicts_section(state: State, number: Citations, labels: dict[str, str]) -> str:
    conflicts = [g for g in state.open_gaps() if g.kind in ("conflict", "status_conflict")]
    if not conflicts:
        return ""
    blocks = []
    for gap in conflicts:
        dated = []
        for side in gap.sides:
            record = state.record(side.evidence_id)
            when = date_key(state.sources[record.source_id].published)
            dated.append((when, side, number(side.evidence_id)))
        by_value: dict[str, list[tuple[str, int]]] = {}
        for when, side, n in dated:
            by_value.setdefault(side.value, []).append((when, n))
        summary = f" {labels['vs']} ".join(
            f"{value} {cite([n for _, n in cited])}"
            + (
                f" ({max(w for w, _ in cited).replace('-00', '')})"
                if any(w for w, _ in cited)
                else ""
            )
            for value, cited in by_value.items()
        )
        latest = max(dated, key=lambda d: d[0])
        if latest[0] and sum(1 for d in dated if d[0] == latest[0]) == 1:
            summary += f"; {labels['latest']}: {cite([latest[2]])}"
        quotes = "\n".join(
            f"- “{_flat(_LINE_MARKER.sub('', side.sentence))}” {cite([n])}" for _, side, n in dated
        )
        blocks.append(f"### {gap.subject}: {summary}\n\n{quotes}\n")
    return f"## {labels['conflicts']}\n\n" + "\n".join(blocks)


def unresolved_section(state: State, gaps: list[Gap], labels: dict[str, str]) -> str:
    if not gaps:
        return ""
    texts = {sq.id: sq.text for sq in state.sub_questions}
    lines = [
        f"- {texts.get(gap.sub_question_id, state.question)}: {gap.detail}"
        for gap in gaps
        if gap.kind not in ("conflict", "status_conflict")
    ]
    lines += [f"- {gap.detail}" for gap in gaps if gap.kind in ("conflict", "status_conflict")]
    return f"## {labels['unresolved']}\n\n" + "\n".join(lines) + "\n"


def reprints_section(state: State, labels: dict[str, str]) -> str:
    sources = state.sources
    lines = [
        f"- {sources[copy].location} {labels['reprint_of']} {sources[original].location}"
        for copy, original in state.selection.reprints.items()
        if copy in sources and original in sources
    ]
    return f"## {labels['reprints']}\n\n" + "\n".join(sorted(lines)) + "\n" if lines else ""


def make_references(state: State, number: Citations) -> list[Reference]:
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


def references_section(references: list[Reference], labels: dict[str, str]) -> str:
    lines = [
        f"[{r.number}] {r.location} — {r.title} ({r.origin}, chars {r.start}–{r.end})"
        for r in references
    ]
    return f"## {labels['references']}\n\n" + "\n".join(lines) + "\n"


def _flat(text: str) -> str:
    return " ".join(text.split())
