"""Node: update the thread's research memory from this turn's evidence and claims.

Facts come from the claims the verifier found supported, with the evidence they cite;
open conflicts from the disagreements left unresolved; open questions from what the turn
could not answer, until a later turn's evidence answers them (the gap check's test);
every fact, old and new, is checked against its evidence (never against an earlier
summary) and rebuilt from it when a number, unit, date, negation or condition drifted.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from grounded_research.configuration import Context
from grounded_research.gaps.kinds import ABSTAINING_KINDS, CONFLICT_KINDS
from grounded_research.memory.facts import checked, facts_of, merged
from grounded_research.memory.recall import answered
from grounded_research.progress import reports
from grounded_research.state import (
    WHOLE_QUESTION_ID,
    Evidence,
    Memory,
    OpenConflict,
    OpenQuestion,
    State,
    SubQuestion,
    union,
)


def summary(update: dict[str, Any]) -> str:
    memory: Memory = update["memory"]
    rebuilt = sum(1 for fact in memory.facts if fact.rebuilt)
    return f"{len(memory.facts)} facts ({rebuilt} rebuilt), {len(memory.unresolved)} open"


@reports(summary)
async def remember(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    memory, number = state.memory, state.turn.number
    found = state.found_this_turn()

    def text_of(evidence_id: str) -> str:
        try:
            return state.record(evidence_id).text
        except KeyError:
            return ""

    facts = merged(memory.facts, facts_of(state.claims, number))
    conflicts = {c.subject: c for c in memory.conflicts}
    conflicts.update(
        (
            gap.subject,
            OpenConflict(
                subject=gap.subject,
                values=[side.value for side in gap.sides],
                evidence_ids=[side.evidence_id for side in gap.sides],
                turn=number,
            ),
        )
        for gap in state.unresolved
        if gap.kind in CONFLICT_KINDS
    )
    texts = {sq.id: sq.text for sq in state.sub_questions}
    selected = state.selected_evidence()
    still_open = [
        q
        for q in memory.unresolved
        if not answered(state, SubQuestion(id=WHOLE_QUESTION_ID, text=q.question), selected)
    ]
    still_open += [
        OpenQuestion(
            question=texts.get(g.sub_question_id, state.question), detail=g.detail, turn=number
        )
        for g in state.unresolved
        if g.kind in ABSTAINING_KINDS
    ]
    updated = memory.model_copy(
        update={
            "facts": [checked(fact, text_of) for fact in facts],
            "conflicts": list(conflicts.values()),
            "unresolved": still_open,
            "queries": union(memory.queries, [key.split("\t", 1)[-1] for key in state.searched]),
            "sources": union(memory.sources, [e.source_id for e in found]),
            "found": union(memory.found, [e.id for e in found]),
        }
    )
    cited: dict[str, Evidence] = {
        r.evidence_id: state.record(r.evidence_id)
        for r in state.references
        if r.evidence_id not in state.evidence
    }
    return {"memory": updated, "cited": cited}
