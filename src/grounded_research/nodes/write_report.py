"""Node: write the report from the selected evidence; `report/` holds how. On a thread's
follow-up, notes under the title say how the thread's research served it."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from grounded_research.configuration import Context, get_context
from grounded_research.memory.notes import with_thread_notes
from grounded_research.models import node_model
from grounded_research.progress import reports
from grounded_research.report.write import no_sources_report, write
from grounded_research.retrieval.snapshots import SnapshotStore
from grounded_research.state import State, Usage


def summary(update: dict[str, Any]) -> str:
    return f"{update.get('status', '')}: {len(update.get('references', []))} references"


@reports(summary)
async def write_report(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    if not any(state.context.values()):
        report = with_thread_notes(no_sources_report(state), state)
        return {"status": "no_sources", "report": report, "references": []}

    context = get_context(runtime)
    llm = node_model(context, "writer", node="write_report")
    snapshots = SnapshotStore.in_cache(context.cache_dir)
    report, references, warnings = await write(state, llm, snapshots.get)
    return {
        "status": "ok",
        "report": with_thread_notes(report, state),
        "references": references,
        "usage": llm.usage() if llm else Usage(),
        "warnings": warnings,
    }
