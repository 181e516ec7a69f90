"""Node: check this round's evidence for gaps and decide the loop once: the follow-up
research it asks for (the router only sends it), or, when nothing is left to search, the
open gaps as the report's unresolved list. The rules live in `gaps/`."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from langgraph.runtime import Runtime

from grounded_research.configuration import Context, get_context
from grounded_research.gaps.check import find_gaps, next_research, still_open
from grounded_research.models import node_model
from grounded_research.progress import reports
from grounded_research.retrieval.snapshots import SnapshotStore
from grounded_research.state import Gap, State, Usage


def summary(update: dict[str, Any]) -> str:
    final = " (final: unresolved)" if "unresolved" in update else ""
    return f"{len(update.get('gaps', []))} gaps{final}"


def gaps_found(node: str, update: dict[str, Any]) -> list[dict[str, Any]]:
    gaps = [
        {"sub_question_id": g.sub_question_id, "kind": g.kind, "detail": g.detail}
        for g in update.get("gaps", [])
    ]
    return [{"event": "gaps_found", "gaps": gaps, "final": "unresolved" in update}]


@reports(summary, gaps_found)
async def check_gaps(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    context = get_context(runtime)
    llm = node_model(context, "gaps", node="check_gaps")
    snapshots = SnapshotStore.in_cache(context.cache_dir)
    gaps = await find_gaps(state, context, llm, snapshots.get)

    follow_ups = next_research(state.sub_questions, gaps, state.searched, state.round, context)
    if state.turn.from_memory:  # the thread's evidence answers it: no search this turn
        follow_ups = []
    loop = Usage(rounds=1) if follow_ups else Usage()
    if not follow_ups and rounds_ran_out(state, gaps, context):
        loop = Usage(limits_reached=["max_rounds"])
    update: dict[str, Any] = {
        "gaps": gaps,
        "follow_ups": follow_ups,
        "usage": (llm.usage() if llm else Usage()) + loop,
        "warnings": llm.warnings if llm else [],
    }
    if not follow_ups:
        update["unresolved"] = still_open(state, gaps)
    return update


def rounds_ran_out(state: State, gaps: list[Gap], context: Context) -> bool:
    """Whether the gaps still asked for research that no round was left for: the loop
    ended on `max_rounds`, not because nothing was left to search."""
    if state.round < context.max_rounds:
        return False
    one_more = replace(Context(), max_rounds=state.round + 1)  # only the round limit differs
    return bool(next_research(state.sub_questions, gaps, state.searched, state.round, one_more))
