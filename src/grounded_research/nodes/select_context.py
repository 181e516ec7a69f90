"""Choose what the writer may ever say (`selection/select.py`), once per round, after
the research branches: the state keeps each selection as a record of its own."""

from __future__ import annotations

import asyncio
from typing import Any

from langgraph.runtime import Runtime

from grounded_research.configuration import Context, get_context
from grounded_research.progress import summarized
from grounded_research.selection.select import select
from grounded_research.state import State, Usage


def summary(update: dict[str, Any]) -> str:
    return f"{sum(s.passages() for s in update.get('selections', []))} passages selected"


@summarized(summary)
async def select_context(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    selected = await asyncio.to_thread(select, state, get_context(runtime))  # reads snapshots
    return {
        "selections": [selected.selection],
        "warnings": [w for w in selected.warnings if w not in state.warnings],
        "usage": Usage(embedded_texts=selected.embedded),
    }
