"""Node: read the report back claim by claim and check each against the evidence it
cites; `report/verify.py` holds how."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from grounded_research.configuration import Context, get_context
from grounded_research.models import node_model
from grounded_research.progress import reports
from grounded_research.report.verify import verify
from grounded_research.state import State, Usage


def summary(update: dict[str, Any]) -> str:
    claims = update.get("claims", [])
    supported = sum(1 for c in claims if c.verdict == "supported")
    return f"{supported}/{len(claims)} claims supported by their citations"


@reports(summary)
async def verify_citations(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    if state.status == "no_sources":
        return {"claims": []}
    llm = node_model(get_context(runtime), "verifier", node="verify_citations")
    claims, report = await verify(state, llm)
    return {
        "claims": claims,
        "report": report,
        "usage": llm.usage() if llm else Usage(),
        "warnings": llm.warnings if llm else [],
    }
