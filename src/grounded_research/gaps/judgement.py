"""A model's view of each sub-question's gaps.

The model judges each sub-question against its evidence: covered, or a gap with why and
follow-up queries aimed at exactly what is missing. A model's "covered" closes only the
rules' lexical facet gaps and their "unanswered" (whether the evidence answers is the
model's call when there is one, the rule its fallback), and only when the rules see
evidence: it never closes a gap on its own. A model that fails leaves the rules' gaps as they are.
"""

from __future__ import annotations

import asyncio

from grounded_research.configuration import Context
from grounded_research.gaps.rules import new_gap
from grounded_research.models import ModelFailure, NodeModel
from grounded_research.prompts import Found, GapJudgement, gap_messages
from grounded_research.state import Gap, State, SubQuestion, searched_key

EVIDENCE_SHOWN_TO_MODEL = 6


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
    """ "covered" drops the lexical facet gaps and the rule's "unanswered" when there is
    evidence (the model judges on the same evidence; the rule is its fallback); "gap" adds a gap
    with the model's reason and its follow-up queries (the rules' when it gave none)."""
    if judgement.status == "covered":
        judged_by_rule = ("facet", "unanswered")
        return [g for g in rules if g.kind not in judged_by_rule] if has_evidence else rules
    done = set(state.searched)
    queries = [
        query
        for query in dict.fromkeys(" ".join(q.split()) for q in judgement.follow_up_queries)
        if query and searched_key(sub_question.id, query) not in done
    ][: context.follow_up_queries]
    if not queries:
        queries = [q for gap in rules for q in gap.follow_up_queries][: context.follow_up_queries]
    why = " ".join(judgement.why.split()) or "the evidence does not fully answer it"
    return [*rules, new_gap(state, sub_question, "judged", why, queries or [sub_question.text])]
