"""Start a turn of the thread: reset what is the turn's own, keep the thread's research.

The question is read for the user's constraints and corrections (`memory/constraints.py`);
measured against the memory, a question on another topic starts a fresh memory, or takes
up the memory of an earlier topic it returns to (`memory/topics.py`). The memory's
evidence about the question is recalled, and when it answers the question (and each of
its parts) by the gap check's test, the turn makes no search at all.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from langgraph.runtime import Runtime

from grounded_research.configuration import Context, get_context
from grounded_research.errors import InputError
from grounded_research.memory.briefing import brief
from grounded_research.memory.constraints import turn_question, with_constraints
from grounded_research.memory.recall import answered, recall
from grounded_research.memory.topics import topic_of
from grounded_research.models import check_models
from grounded_research.nodes.planner import planned_by_rules
from grounded_research.progress import reports
from grounded_research.state import WHOLE_QUESTION_ID, State, SubQuestion, Turn


def summary(update: dict[str, Any]) -> str:
    turn: Turn = update["turns"][-1]
    how = "answered from memory" if turn.from_memory else "researching"
    drift = (
        ", back to an earlier topic" if turn.resumed else ", another topic" if turn.drifted else ""
    )
    return f"turn {turn.number}: {how}{drift}"


@reports(summary)
async def start_turn(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    context = get_context(runtime)
    check_models(context)
    number = state.turn.number + 1
    asked = turn_question(state.question, state.turn if state.turns else None, number)
    if not asked.text.strip():
        raise InputError("the question is empty")

    topic = topic_of(asked.text, state.memory, state.earlier_memories, context.drift_threshold)
    constraints = with_constraints(topic.memory, asked.constraints)
    replaced = asked.replaced + [
        f"“{c.text}” replaces “{c.replaces}” (turn {c.replaces_turn})"
        for c in constraints
        if c.turn == number and c.replaces
    ]
    memory = topic.memory.model_copy(
        update={
            "constraints": constraints,
            "turns": [*topic.memory.turns, number],
            "questions": [*topic.memory.questions, asked.text],
        }
    )

    view = replace(state, memory=memory)
    whole = SubQuestion(id=WHOLE_QUESTION_ID, text=asked.text, queries=[asked.text])
    parts = planned_by_rules(asked.text, context)
    recalled = {sq.id: recall(view, sq, context.results_per_query) for sq in [whole, *parts]}
    from_memory = all(answered(view, sq, recalled[sq.id]) for sq in [whole, *parts])
    sub_questions = [whole]
    if from_memory:  # answered: the plan is the question's parts, none of them searched
        sub_questions += [sq.model_copy(update={"queries": []}) for sq in parts]
    share = int(context.evidence_budget * context.memory_share)
    briefing = brief(view, memory, asked.text, share, number)
    turn = Turn(
        number=number,
        question=state.question,
        asked=asked.text,
        topic=memory.topic,
        overlap=None if topic.overlap is None else round(topic.overlap, 3),
        drifted=topic.drifted,
        resumed=topic.resumed,
        from_memory=from_memory,
        constraints=[c.text for c in asked.constraints],
        replaced=replaced,
        memory_tokens=briefing.tokens,
        pointers=briefing.pointers,
    )
    kept = {} if topic.earlier is None else {"earlier_memories": topic.earlier}
    return State.next_turn(
        **kept,
        sub_questions=sub_questions,
        recalled={sq.id: [e.id for e in recalled[sq.id]] for sq in sub_questions},
        briefing=briefing.lines,
        earlier_evidence=list(state.evidence),
        memory=memory,
        turns=[turn],
    )
