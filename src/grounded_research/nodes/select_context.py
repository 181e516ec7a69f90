"""Choose what the writer may ever say (`selection/select.py`), once per round, after
the research branches."""

from __future__ import annotations

import asyncio
from typing import Any

from langgraph.runtime import Runtime

from grounded_research.configuration import Context, get_context
from grounded_research.progress import summarized
from grounded_research.selection.select import select
from grounded_research.state import State, Usage


def summary(update: dict[str, Any]) -> str:
    return f"{sum(len(ids) for ids in update.get('context', {}).values())} passages selected"


@summarized(summary)
async def select_context(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    context = get_context(runtime)
    selection = await asyncio.to_thread(select, state, context)  # reads snapshots, embeds
    changed = {i: s for i, s in selection.sources.items() if state.sources.get(i) != s}
    fresh = {
        i: e
        for i, e in selection.evidence.items()
        if i not in state.evidence
        or (state.evidence[i].strategy, state.evidence[i].tier) != (e.strategy, e.tier)
    }
    return {
        "sources": changed,
        "evidence": fresh,
        "context": selection.context,
        "further_sources": selection.further_sources,
        "warnings": [w for w in selection.warnings if w not in state.warnings],
        "usage": Usage(embedded_texts=selection.embedded),
    }
