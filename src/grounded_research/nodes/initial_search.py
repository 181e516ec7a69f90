"""Search the question as asked: its results feed the planner and are evidence too."""

from __future__ import annotations

import asyncio
from typing import Any

from langgraph.runtime import Runtime

from grounded_research.configuration import Context, get_context
from grounded_research.gathering import gather, sources_fetched, summary
from grounded_research.progress import reports
from grounded_research.resources import resources_of
from grounded_research.state import State


@reports(summary, sources_fetched)
async def initial_search(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    context = get_context(runtime)
    retrievers = await asyncio.to_thread(resources_of(runtime).retrievers)
    whole = state.sub_questions[0]  # the question as the turn asks it (`start_turn`)
    gathered = await gather(retrievers, whole, whole.queries, context.results_per_query, 0)
    return gathered.update()
