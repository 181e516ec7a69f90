"""Let a person accept, edit or drop the planned sub-questions before any research.

Only with `approve_plan` on: the run stops with `interrupt()` showing the plan, and
resumes with `Command(resume=...)` carrying either `{"action": "accept"}` or
`{"sub_questions": [{"id", "text", "queries"?}, ...]}` (those left out are dropped).
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime
from langgraph.types import Overwrite, interrupt

from grounded_research.configuration import Context, get_context
from grounded_research.errors import InputError
from grounded_research.progress import reports
from grounded_research.state import State, SubQuestion
from grounded_research.text.facets import facets_of


def summary(update: dict[str, Any]) -> str:
    edited = update.get("sub_questions")
    return f"{len(edited)} sub-questions" if edited else "plan accepted"


@reports(summary)
async def approve_plan(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    if not get_context(runtime).approve_plan:
        return {}
    decision = interrupt(
        {
            "question": state.question,
            "sub_questions": [sq.model_dump() for sq in state.sub_questions],
            "resume_with": '{"action": "accept"} or {"sub_questions": [{"id", "text"}]}',
        }
    )
    return {"sub_questions": Overwrite(approved_plan(state.sub_questions, decision))}


def approved_plan(planned: list[SubQuestion], decision: Any) -> list[SubQuestion]:
    """The plan as the person left it; the whole question (q0) always stays."""
    if not isinstance(decision, dict) or decision.get("action") == "accept":
        return planned
    edited = decision.get("sub_questions")
    if not isinstance(edited, list):
        raise InputError("plan approval: resume with an action or a list of sub_questions")
    by_id = {sq.id: sq for sq in planned}
    kept: list[SubQuestion] = [planned[0]]
    for number, item in enumerate(edited, start=1):
        text = str(item.get("text", "")).strip() if isinstance(item, dict) else str(item)
        if not text:
            continue
        known = by_id.get(str(item.get("id"))) if isinstance(item, dict) else None
        if known is not None and known.id == planned[0].id:
            continue
        if known is not None and known.text == text:
            kept.append(known)
            continue
        queries = item.get("queries") if isinstance(item, dict) else None
        kept.append(
            SubQuestion(
                id=known.id if known else f"q{len(planned) + number}",
                text=text,
                queries=[str(q) for q in queries] if queries else [text],
                facets=facets_of(text),
            )
        )
    return kept
