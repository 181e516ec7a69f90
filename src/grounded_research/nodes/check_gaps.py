"""What is still missing or contradictory, per sub-question, and what to search next.

Rules, no model: a sub-question with no evidence; with fewer independent sources than
required; whose terms the best passages do not cover (the usual sign of a second hop:
the passage that names the bridge entity does not hold the answer); and sources that
disagree. Each gap carries follow-up queries aimed at exactly what is missing; when no
round or no new query is left, the open gaps become `unresolved`.

With a model, the rules still run, and the model judges each sub-question against its
evidence too: covered, or a gap with why and follow-up queries aimed at exactly what is
missing. A model's "covered" closes only the rules' lexical facet gaps, and only when the
rules see evidence: it never closes a gap on its own.
"""

from __future__ import annotations

import asyncio
import hashlib
from typing import Any

from langgraph.runtime import Runtime

from grounded_research.configuration import Context, get_context
from grounded_research.conflicts import Statement, find_disagreements, statements
from grounded_research.facts import name_phrases, named_terms, names_as_written, quantities
from grounded_research.models import ModelFailure, NodeModel, node_model
from grounded_research.nodes.planner import facets_of
from grounded_research.prompts import Found, GapJudgement, gap_messages
from grounded_research.selection.chunking import sentences
from grounded_research.selection.tokenize import tokenize
from grounded_research.state import (
    ConflictSide,
    Evidence,
    Gap,
    ResearchTask,
    State,
    SubQuestion,
    Usage,
    searched_key,
)

TOP_PASSAGES_FOR_FACETS = 3
SUPPORTING_SCORE = 0.3
FIGURE_GAPS_PER_SUB_QUESTION = 2
EVIDENCE_SHOWN_TO_MODEL = 6


async def check_gaps(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    context = get_context(runtime)
    llm = node_model(context, "gaps", node="check_gaps")
    per_sub_question = {
        sq.id: coverage_gaps(state, sq, state.selected_for(sq.id), context)
        for sq in state.sub_questions
    }
    if llm is not None:
        per_sub_question = await judged_by_model(llm, state, per_sub_question, context)
    gaps = [gap for found in per_sub_question.values() for gap in found]
    gaps.extend(conflict_gaps(state))

    follow_ups = next_research(state.sub_questions, gaps, state.searched, state.round, context)
    update: dict[str, Any] = {
        "gaps": gaps,
        "follow_ups": follow_ups,
        "usage": llm.usage() if llm else Usage(),
        "warnings": llm.warnings if llm else [],
    }
    if not follow_ups:
        update["unresolved"] = still_open(state, gaps)
    return update


def still_open(state: State, gaps: list[Gap]) -> list[Gap]:
    """What the report lists as unresolved. The loop re-searches a term the best three
    passages miss; the report calls it open only when no selected passage about the
    asked subject (one naming it, or naming what the follow-up query named) covers it."""
    open_gaps: list[Gap] = []
    for gap in gaps:
        if gap.kind == "facet":
            sub_question = next(sq for sq in state.sub_questions if sq.id == gap.sub_question_id)
            names = named_terms(sub_question.text)
            about = [
                e.text
                for e in state.selected_for(sub_question.id)
                if not names or (names | named_terms(e.query)) & named_terms(e.text)
            ]
            missing = uncovered(sub_question, about)
            if not missing:
                continue
            gap = gap.model_copy(update={"detail": "not covered: " + ", ".join(missing)})
        open_gaps.append(gap)
    return open_gaps


def uncovered(sub_question: SubQuestion, texts: list[str]) -> list[str]:
    """The sub-question's facets that none of these texts mentions."""
    covered = set(tokenize(" ".join(texts)))
    facets = sub_question.facets or facets_of(sub_question.text)
    return [f for f in facets if not set(tokenize(f)) <= covered]


def next_research(
    sub_questions: list[SubQuestion],
    gaps: list[Gap],
    searched: list[str],
    round_number: int,
    context: Context,
) -> list[ResearchTask]:
    """One task per sub-question with open gaps and follow-up queries not yet run."""
    if round_number >= context.max_rounds:
        return []
    done = set(searched)
    tasks: list[ResearchTask] = []
    for sub_question in sub_questions:
        queries: list[str] = []
        for gap in gaps:
            if gap.sub_question_id != sub_question.id or gap.round != round_number:
                continue
            for query in gap.follow_up_queries:
                if searched_key(sub_question.id, query) not in done and query not in queries:
                    queries.append(query)
        if queries:
            tasks.append(
                ResearchTask(sub_question=sub_question, queries=queries, round=round_number + 1)
            )
    return tasks


async def judged_by_model(
    llm: NodeModel, state: State, rules: dict[str, list[Gap]], context: Context
) -> dict[str, list[Gap]]:
    """The rules' gaps per sub-question, each adjusted by the model's judgement."""
    judged = await asyncio.gather(
        *(judge_sub_question(llm, state, sq, rules[sq.id], context) for sq in state.sub_questions)
    )
    return {sq.id: gaps for sq, gaps in zip(state.sub_questions, judged, strict=True)}


async def judge_sub_question(
    llm: NodeModel, state: State, sub_question: SubQuestion, rules: list[Gap], context: Context
) -> list[Gap]:
    selected = sorted(state.selected_for(sub_question.id), key=lambda e: -e.score)
    shown = [
        Found(
            id=f"E{n}",
            title=state.sources[e.source_id].title if e.source_id in state.sources else "",
            location=state.sources[e.source_id].location if e.source_id in state.sources else "",
            text=e.text,
        )
        for n, e in enumerate(selected[:EVIDENCE_SHOWN_TO_MODEL], start=1)
    ]
    messages = gap_messages(
        state.question,
        sub_question.text,
        shown,
        [f"{gap.kind}: {gap.detail}" for gap in rules],
        context.follow_up_queries,
    )
    try:
        judgement = await llm.structured(messages, GapJudgement)
    except ModelFailure as failure:
        llm.fell_back(failure, f"gaps of {sub_question.id} checked by rules only")
        return rules
    return with_judgement(state, sub_question, rules, judgement, bool(selected), context)


def with_judgement(
    state: State,
    sub_question: SubQuestion,
    rules: list[Gap],
    judgement: GapJudgement,
    has_evidence: bool,
    context: Context,
) -> list[Gap]:
    """ "covered" drops the lexical facet gaps when there is evidence; "gap" adds a gap
    with the model's reason and its follow-up queries (the rules' when it gave none)."""
    if judgement.status == "covered":
        return [g for g in rules if g.kind != "facet"] if has_evidence else rules
    done = set(state.searched)
    queries = [
        query
        for query in dict.fromkeys(" ".join(q.split()) for q in judgement.follow_up_queries)
        if query and searched_key(sub_question.id, query) not in done
    ][: context.follow_up_queries]
    if not queries:
        queries = [q for gap in rules for q in gap.follow_up_queries][: context.follow_up_queries]
    why = " ".join(judgement.why.split()) or "the evidence does not fully answer it"
    return [*rules, _gap(state, sub_question, "judged", why, queries or [sub_question.text])]


def coverage_gaps(
    state: State, sub_question: SubQuestion, selected: list[Evidence], context: Context
) -> list[Gap]:
    ranked = sorted(selected, key=lambda e: -e.score)
    facets = sub_question.facets or facets_of(sub_question.text)
    if not ranked:
        keywords = " ".join(facets)
        return [
            _gap(
                state,
                sub_question,
                "no_evidence",
                "no evidence found",
                [q for q in (keywords, *facets[:2]) if q][: context.follow_up_queries],
            )
        ]
    gaps: list[Gap] = []
    missing = uncovered(sub_question, [e.text for e in ranked[:TOP_PASSAGES_FOR_FACETS]])
    supporting = [e.id for e in ranked if e.score >= SUPPORTING_SCORE]
    independent = state.independent_sources(supporting)
    follow_ups = bridge_queries(sub_question, ranked, missing or facets, context.follow_up_queries)
    if missing:
        gaps.append(
            _gap(state, sub_question, "facet", "not covered: " + ", ".join(missing), follow_ups)
        )
    if len(independent) < context.min_independent_sources:
        detail = (
            f"{len(independent)} independent source(s), {context.min_independent_sources} required"
        )
        gaps.append(_gap(state, sub_question, "few_sources", detail, follow_ups))
    gaps.extend(uncorroborated_figures(state, sub_question, ranked, context))
    return gaps


def uncorroborated_figures(
    state: State, sub_question: SubQuestion, ranked: list[Evidence], context: Context
) -> list[Gap]:
    """A figure about the asked subject that only one independent source in the whole
    context gives: search for the subject with the figure's unit, where a second source
    (agreeing or not) is most likely to be phrased differently from the question."""
    names = named_terms(" ".join([sub_question.text, *sub_question.queries]))
    if not names or context.min_independent_sources < 2:
        return []
    in_context = state.selected_evidence()
    gaps: list[Gap] = []
    for unit, subject in figures_about(names, ranked)[:FIGURE_GAPS_PER_SUB_QUESTION]:
        giving = [
            e.id
            for e in in_context
            if any(q.unit == unit for q in quantities(e.text)) and names & named_terms(e.text)
        ]
        found = len(state.independent_sources(giving))
        if found < context.min_independent_sources:
            gaps.append(
                _gap(
                    state,
                    sub_question,
                    "uncorroborated",
                    f"{subject} ({unit}): given by {found} independent source(s)",
                    [f"{subject} {unit}"],
                )
            )
    return gaps


def figures_about(names: set[str], ranked: list[Evidence]) -> list[tuple[str, str]]:
    """(unit, subject as written) of figures in sentences naming the subject, best
    passages first, each unit once."""
    figures: dict[str, str] = {}
    for record in ranked:
        for start, end in sentences(record.text):
            sentence = record.text[start:end]
            shared = names & named_terms(sentence)
            for quantity in quantities(sentence) if shared else []:
                figures.setdefault(quantity.unit, names_as_written(shared, sentence))
    return list(figures.items())


def bridge_queries(
    sub_question: SubQuestion, ranked: list[Evidence], focus: list[str], most: int
) -> list[str]:
    """Queries that pair what is still missing with names the best passages introduced:
    the second hop usually starts from an entity the first hop found."""
    asked = sub_question.text.lower()
    names: list[str] = []
    for record in ranked[:TOP_PASSAGES_FOR_FACETS]:
        for name in name_phrases(record.text):
            if name.lower() not in asked and name not in names:
                names.append(name)
    focus_text = " ".join(focus[:6])
    queries = [f"{name} {focus_text}".strip() for name in names[:most]]
    return queries or [focus_text]


def conflict_gaps(state: State) -> list[Gap]:
    selected: list[tuple[str, str, str]] = []
    for ids in state.context.values():
        for evidence_id in ids:
            record = state.record(evidence_id)
            independent = next(iter(state.independent_sources([evidence_id])), record.source_id)
            selected.append((evidence_id, independent, record.text))
    by_id = {sq.id: sq for sq in state.sub_questions}
    gaps: list[Gap] = []
    for disagreement in find_disagreements(statements(selected)):
        first: Statement = disagreement.sides[0][0]
        sub_question = by_id[state.record(first.evidence_id).sub_question_id]
        values = " vs ".join(value for _, value in disagreement.sides)
        gap = _gap(
            state,
            sub_question,
            "conflict" if disagreement.kind == "conflict" else "status_conflict",
            f"sources disagree on {disagreement.subject}: {values}",
            [f"{disagreement.names} {disagreement.detail}", f"{disagreement.names} latest"],
        )
        gap.subject = disagreement.subject
        gap.sides = [
            ConflictSide(evidence_id=s.evidence_id, value=value, sentence=s.sentence)
            for s, value in disagreement.sides
        ]
        gaps.append(gap)
    return gaps


def _gap(
    state: State, sub_question: SubQuestion, kind: str, detail: str, queries: list[str]
) -> Gap:
    digest = hashlib.sha1(f"{sub_question.id}|{kind}|{detail}".encode()).hexdigest()[:8]
    return Gap(
        id=f"{sub_question.id}:{kind}:{digest}:r{state.round}",
        sub_question_id=sub_question.id,
        kind=kind,  # type: ignore[arg-type]
        detail=detail,
        follow_up_queries=queries,
        round=state.round,
    )
