"""One branch per sub-question: search every retriever with the branch's queries and
return the passages found as candidate evidence, each with its source."""

from __future__ import annotations

import asyncio
from typing import Any

from langgraph.runtime import Runtime

from grounded_research.configuration import Context, get_context
from grounded_research.gathering import gather, sources_fetched, summary
from grounded_research.progress import reports
from grounded_research.resources import resources_of
from grounded_research.state import ResearchTask


@reports(summary, sources_fetched)
async def research(task: ResearchTask, runtime: Runtime[Context]) -> dict[str, Any]:
    context = get_context(runtime)
    retrievers = await asyncio.to_thread(resources_of(runtime).retrievers)
    gathered = await gather(
        retrievers, task.sub_question, task.queries, context.results_per_query, task.round
    )
    update = gathered.update()
    update["round"] = task.round
    return update
