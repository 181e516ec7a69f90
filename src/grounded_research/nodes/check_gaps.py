"""Node: check this round's evidence for gaps; when nothing is left to search, the open
gaps become the report's unresolved list. The rules live in `gaps/`."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from grounded_research.configuration import Context, get_context
from grounded_research.gaps.check import find_gaps, next_research, still_open
from grounded_research.models import node_model
from grounded_research.state import State, Usage


async def check_gaps(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    context = get_context(runtime)
    llm = node_model(context, "gaps", node="check_gaps")
    gaps = await find_gaps(state, context, llm)

    update: dict[str, Any] = {
        "gaps": gaps,
        "usage": llm.usage() if llm else Usage(),
        "warnings": llm.warnings if llm else [],
    }
    if not next_research(state.sub_questions, gaps, state.searched, state.round, context):
        update["unresolved"] = still_open(state, gaps)
    return update
