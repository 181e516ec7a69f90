"""Choose what the writer may ever say (`selection/select.py`), once per round, after
the research branches: the state keeps each selection as a record of its own. On a
follow-up the thread's memory takes its share of the token budget first."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

from langgraph.runtime import Runtime

from grounded_research.configuration import Context, get_context
from grounded_research.progress import reports
from grounded_research.resources import resources_of
from grounded_research.selection.select import select
from grounded_research.state import State, Usage


def summary(update: dict[str, Any]) -> str:
    return f"{sum(s.passages() for s in update.get('selections', []))} passages selected"


@reports(summary)
async def select_context(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    context = get_context(runtime)
    if state.turn.memory_tokens:  # the memory's briefing and the evidence share the budget
        evidence_budget = max(1, context.evidence_budget - state.turn.memory_tokens)
        context = replace(context, token_budget=evidence_budget)
    run = resources_of(runtime)
    selected = await asyncio.to_thread(select, state, context, run)  # reads snapshots, embeds
    # cut to key sentences or listed by title: the evidence did not fit the budget
    cut = any(record.tier != "full" for record in selected.selection.records.values())
    return {
        "selections": [selected.selection],
        "warnings": [w for w in selected.warnings if w not in state.warnings],
        "usage": Usage(
            embedded_texts=selected.embedded,
            limits_reached=["token_budget"] if cut else [],
        ),
    }
