"""Search the question as asked: its results feed the planner and are evidence too."""

from __future__ import annotations

import asyncio
from typing import Any

from langgraph.runtime import Runtime

from grounded_research.configuration import Context, get_context
from grounded_research.errors import InputError
from grounded_research.gathering import gather, sources_fetched, summary
from grounded_research.models import check_models
from grounded_research.progress import reports
from grounded_research.resources import resources_of
from grounded_research.state import WHOLE_QUESTION_ID, State, SubQuestion


@reports(summary, sources_fetched)
async def initial_search(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    question = " ".join(state.question.split())
    if not question:
        raise InputError("the question is empty")
    context = get_context(runtime)
    check_models(context)
    retrievers = await asyncio.to_thread(resources_of(runtime).retrievers)

    whole = SubQuestion(id=WHOLE_QUESTION_ID, text=question, queries=[question])
    gathered = await gather(retrievers, whole, [question], context.results_per_query, 0)
    return fresh_start(gathered.update(), whole)


def fresh_start(update: dict[str, Any], whole: SubQuestion) -> dict[str, Any]:
    """A new question on a thread that already answered one starts from a clean slate:
    every channel is overwritten instead of merged, with what this search gathered."""
    return State.fresh(**update, sub_questions=[whole])
