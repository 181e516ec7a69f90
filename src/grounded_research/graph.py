"""The research graph, whole: start the thread's turn, plan, research in parallel, select,
check for gaps and re-search only those, then write, verify and remember."""

from __future__ import annotations

from typing import Literal

from langgraph.graph import END, START
from langgraph.types import Send

from grounded_research.configuration import Context
from grounded_research.nodes.approve_plan import approve_plan
from grounded_research.nodes.check_gaps import check_gaps
from grounded_research.nodes.initial_search import initial_search
from grounded_research.nodes.planner import planner
from grounded_research.nodes.remember import remember
from grounded_research.nodes.research import research
from grounded_research.nodes.select_context import select_context
from grounded_research.nodes.start_turn import start_turn
from grounded_research.nodes.verify_citations import verify_citations
from grounded_research.nodes.write_report import write_report
from grounded_research.progress import step
from grounded_research.resources import RunGraph
from grounded_research.state import InputState, OutputState, ResearchTask, State, searched_key


def search_or_recall(state: State) -> Literal["initial_search", "select_context"]:
    """A turn the thread's evidence already answers makes no search."""
    return "select_context" if state.turn.from_memory else "initial_search"


def research_each_sub_question(state: State) -> list[Send] | Literal["select_context"]:
    """Sub-questions whose queries the initial search already ran need no branch."""
    done = set(state.searched)
    sends = [
        Send("research", ResearchTask(sub_question=sq, queries=queries, round=0))
        for sq in state.sub_questions
        if (queries := [q for q in sq.queries if searched_key(sq.id, q) not in done])
    ]
    return sends or "select_context"


def research_gaps_or_write(state: State) -> list[Send] | Literal["write_report"]:
    """What the gap check decided: research its follow-ups, or write."""
    return [Send("research", task) for task in state.follow_ups] or "write_report"


# Every invocation of what it compiles to gets a run of its own (`resources.py`).
builder = RunGraph(
    State, input_schema=InputState, output_schema=OutputState, context_schema=Context
)
builder.add_node(step(start_turn))
builder.add_node(step(initial_search))
builder.add_node(step(planner))
builder.add_node(step(approve_plan))
builder.add_node(step(research), input_schema=ResearchTask)  # type: ignore[call-overload]
builder.add_node(step(select_context))
builder.add_node(step(check_gaps))
builder.add_node(step(write_report))
builder.add_node(step(verify_citations))
builder.add_node(step(remember))

builder.add_edge(START, "start_turn")
builder.add_conditional_edges("start_turn", search_or_recall, ["initial_search", "select_context"])
builder.add_edge("initial_search", "planner")
builder.add_edge("planner", "approve_plan")
builder.add_conditional_edges(
    "approve_plan", research_each_sub_question, ["research", "select_context"]
)
builder.add_edge("research", "select_context")
builder.add_edge("select_context", "check_gaps")
builder.add_conditional_edges("check_gaps", research_gaps_or_write, ["research", "write_report"])
builder.add_edge("write_report", "verify_citations")
builder.add_edge("verify_citations", "remember")
builder.add_edge("remember", END)

graph = builder.compile(name="researcher")
