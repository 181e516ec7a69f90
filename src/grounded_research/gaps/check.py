"""The gap check: what is still missing or contradictory, per sub-question, and what to
search next.

The rules (`rules`) run on every sub-question's selected evidence; with a model, the
model judges each sub-question too (`judgement`); sources that disagree become conflict
gaps. Each gap carries follow-up queries aimed at exactly what is missing. When no round
or no new query is left, the open gaps become `unresolved`: those the report lists.
"""

from __future__ import annotations

from collections.abc import Callable

from grounded_research.configuration import Context
from grounded_research.gaps.headings import HeadingsAt
from grounded_research.gaps.judgement import judged_by_model
from grounded_research.gaps.rules import (
    DETAILS,
    as_sources_write_it,
    conflict_gaps,
    coverage_gaps,
    framed,
    names_any,
    new_gap,
    scene_only_names,
    searched_names,
    uncovered,
)
from grounded_research.models import NodeModel
from grounded_research.state import (
    WHOLE_QUESTION_ID,
    Gap,
    ResearchTask,
    State,
    SubQuestion,
    searched_key,
)
from grounded_research.text.facts import named_terms


async def find_gaps(
    state: State,
    context: Context,
    llm: NodeModel | None,
    text_of: Callable[[str], str] | None = None,
) -> list[Gap]:
    """This round's gaps: the rules' per sub-question, each adjusted by the model's
    judgement when there is a model, then the sources that disagree. `text_of` reads a
    source's snapshot, for the headings each sentence lies under."""
    headings_at = HeadingsAt(state.sources, text_of)  # one read of each snapshot for all
    per_sub_question = {
        sq.id: coverage_gaps(state, sq, state.selected_for(sq.id), context, headings_at)
        for sq in state.sub_questions
    }
    per_sub_question = whole_answered_by_parts(state, per_sub_question)
    if llm is not None:
        per_sub_question = await judged_by_model(llm, state, per_sub_question, context)
    gaps = [gap for found in per_sub_question.values() for gap in found]
    gaps.extend(conflict_gaps(state))
    return gaps


def whole_answered_by_parts(state: State, gaps: dict[str, list[Gap]]) -> dict[str, list[Gap]]:
    """A question the plan split into parts ("when … and what …") is answered part by
    part: it is unanswered only when none of its parts is answered, each part's own
    verdict standing under it."""
    parts = [sq.id for sq in state.sub_questions if sq.id != WHOLE_QUESTION_ID]
    if not parts or WHOLE_QUESTION_ID not in gaps:
        return gaps
    whole = [g for g in gaps[WHOLE_QUESTION_ID] if g.kind != "unanswered"]
    unanswered = [g for part in parts for g in gaps.get(part, []) if g.kind == "unanswered"]
    if len({g.sub_question_id for g in unanswered}) == len(parts):
        sub_question = next(sq for sq in state.sub_questions if sq.id == WHOLE_QUESTION_ID)
        detail = "; ".join(dict.fromkeys(g.detail for g in unanswered))
        queries = [q for g in unanswered for q in g.follow_up_queries]
        whole.append(new_gap(state, sub_question, "unanswered", detail, queries))
    return {**gaps, WHOLE_QUESTION_ID: whole}


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


def still_open(state: State, gaps: list[Gap]) -> list[Gap]:
    """What the report lists as unresolved. The loop re-searches a term the best three
    passages miss; the report says "No source found mentions" it only when no passage
    found about the asked subject (one naming it, or naming what the follow-up query
    named), selected or not, says it, in its words or in its frame: a passage under
    "Release 15.9" mentions 15.9 to the reader who sees the heading above the quote."""
    open_gaps: list[Gap] = []
    for gap in gaps:
        if gap.kind == "facet":
            as_asked = next(sq for sq in state.sub_questions if sq.id == gap.sub_question_id)
            selected = state.selected_for(as_asked.id)
            found = list({e.id: e for e in [*selected, *state.found_for(as_asked.id)]}.values())
            sub_question = as_sources_write_it(as_asked, found)
            places = [source.place for source in state.sources.values()]
            scene = scene_only_names(sub_question, found, places, state.shelves)
            names = named_terms(sub_question.text) - scene
            searched = searched_names(found)
            about = [
                framed(state, e)
                for e in found
                if not names or names_any(state, e, (names | searched[e.query]) - scene)
            ]
            missing = uncovered(sub_question, about)
            if not missing:
                continue
            detail = DETAILS["facet"].format(terms=", ".join(missing))
            gap = gap.model_copy(update={"detail": detail})
        open_gaps.append(gap)
    return open_gaps
