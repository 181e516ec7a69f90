"""Split the question into the parts a report must answer; keep the whole question too.

Extractive mode: a question joined by "and", ";" or several question marks becomes one
sub-question per part; a part that leans on the others ("what do they cost") borrows
the names from the rest of the question so its queries can stand alone.

On a thread's follow-up, the plan searches only what is new: a part the thread's
evidence already answers is not searched, nor a query it already ran (`only_what_is_new`).

With a model: the model splits the question, seeing the initial search results (titles
and snippets, quoted as data) so that its queries use the names the sources use. The
whole question stays sub-question q0 either way.
"""

from __future__ import annotations

import re
from typing import Any

from langgraph.runtime import Runtime

from grounded_research.configuration import Context, get_context
from grounded_research.memory.recall import answered, recall
from grounded_research.models import ModelFailure, NodeModel, node_model
from grounded_research.progress import reports
from grounded_research.prompts import Found, Plan, planner_messages
from grounded_research.state import State, SubQuestion, Usage
from grounded_research.text.answers import asks
from grounded_research.text.facets import facets_of
from grounded_research.text.facts import named_terms
from grounded_research.text.tokenize import content_words

PLANNER_RESULTS = 8
SNIPPET_CHARS = 400
QUERIES_PER_SUB_QUESTION = 3

_PART_BREAK = re.compile(
    r"\s*(?:[?？;；]+|,?\s+(?:and|as well as|but)\s+(?=(?:what|which|who|when|where|why|how|"
    r"does|do|did|is|are|was|were|can|will)\b)|(?:，|、)?(?:以及|并且|而且|和)(?=[^，。]{4,}))\s*",
    re.IGNORECASE,
)


def summary(update: dict[str, Any]) -> str:
    return "; ".join(sq.text for sq in update.get("sub_questions", []))


@reports(summary)
async def planner(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    context = get_context(runtime)
    whole = state.sub_questions[0]
    whole = whole.model_copy(update={"facets": facets_of(whole.text)})

    llm = node_model(context, "planner", node="planner")
    warnings: list[str] = []
    planned: list[SubQuestion] | None = None
    if llm is not None:
        try:
            planned = await planned_by_model(llm, state, context)
        except ModelFailure as failure:
            warnings = llm.fell_back(failure, "planned by rules instead")
    if planned is None:
        planned = planned_by_rules(whole.text, context)

    sub_questions, recalled = only_what_is_new(state, planned, context)
    usage = llm.usage() if llm else Usage()
    return {
        "sub_questions": [whole, *sub_questions],
        "recalled": recalled,
        "usage": usage,
        "warnings": warnings,
    }


def only_what_is_new(
    state: State, planned: list[SubQuestion], context: Context
) -> tuple[list[SubQuestion], dict[str, list[str]]]:
    """The plan searching only what the thread does not know yet: a sub-question that
    its memory's evidence answers (the gap check's test) is not searched, and no query
    the memory already ran is run again; the recalled evidence joins the turn's."""
    done = {" ".join(q.lower().split()) for q in state.memory.queries}
    kept: list[SubQuestion] = []
    recalled: dict[str, list[str]] = {}
    for sub_question in planned:
        known = recall(state, sub_question, context.results_per_query)
        recalled[sub_question.id] = [e.id for e in known]
        queries = [q for q in sub_question.queries if " ".join(q.lower().split()) not in done]
        if answered(state, sub_question, known):
            queries = []
        kept.append(sub_question.model_copy(update={"queries": queries}))
    return kept, recalled


async def planned_by_model(llm: NodeModel, state: State, context: Context) -> list[SubQuestion]:
    """The model's sub-questions, numbered q1…; repeats of the question or of one another
    are dropped, and a sub-question without queries is searched as written. An empty plan
    for a question the rules can split is a failure: the rules' parts are better."""
    plan = await llm.structured(
        planner_messages(
            state.sub_questions[0].text,
            initial_results(state),
            context.max_sub_questions,
            state.briefing,
        ),
        Plan,
    )
    seen = {" ".join(state.sub_questions[0].text.lower().split())}
    sub_questions: list[SubQuestion] = []
    for planned in plan.sub_questions:
        text = " ".join(planned.question.split())
        if not text or text.lower() in seen:
            continue
        seen.add(text.lower())
        queries = list(dict.fromkeys(" ".join(q.split()) for q in planned.queries if q.strip()))
        facets = [" ".join(f.split()) for f in planned.facets if f.strip()]
        sub_questions.append(
            SubQuestion(
                id=f"q{len(sub_questions) + 1}",
                text=text,
                queries=queries[:QUERIES_PER_SUB_QUESTION] or [text],
                facets=facets or facets_of(text),
            )
        )
        if len(sub_questions) == context.max_sub_questions:
            break
    if not sub_questions and question_parts(state.sub_questions[0].text):
        raise ModelFailure("it planned no sub-questions for a question with several parts")
    return sub_questions


def initial_results(state: State) -> list[Found]:
    """The best passages the question found as asked, as the planner is shown them."""
    whole = state.sub_questions[0].id
    found = sorted(
        (e for filed, e in state.turn_candidates() if filed == whole), key=lambda e: -e.score
    )
    results: list[Found] = []
    for record in found[:PLANNER_RESULTS]:
        source = state.sources.get(record.source_id)
        results.append(
            Found(
                id=record.id,
                title=source.title if source else "",
                location=source.location if source else "",
                text=" ".join(record.text.split())[:SNIPPET_CHARS],
            )
        )
    return results


def planned_by_rules(question: str, context: Context) -> list[SubQuestion]:
    """One sub-question per part of a compound question."""
    question_names = named_terms(question)
    sub_questions: list[SubQuestion] = []
    for number, part in enumerate(question_parts(question), start=1):
        if number > context.max_sub_questions:
            break
        query = part
        missing_names = [n for n in question_names if n not in part.lower()]
        if missing_names and not named_terms(part):
            query = f"{part} {' '.join(sorted(missing_names))}"
        sub_questions.append(
            SubQuestion(id=f"q{number}", text=part, queries=[query], facets=facets_of(part))
        )
    return sub_questions


def question_parts(question: str) -> list[str]:
    """The parts of a compound question; none when it asks one thing. A part after the
    first asks something of its own, or it only qualifies what comes before ("When did
    CMake 3.25 come out? I need the exact date.")."""
    parts = [p.strip(" ,，。.") for p in _PART_BREAK.split(question)]
    parts = [p for p in parts if len(content_words(p)) >= 2]
    parts = parts[:1] + [p for p in parts[1:] if asks(p)]
    return parts if len(parts) > 1 else []
