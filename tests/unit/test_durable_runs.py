"""Threads: plan approval stops and resumes (follow-up questions on a thread:
`test_research_memory.py`)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from langgraph.types import Command

from grounded_research import aresearch, open_session
from grounded_research.configuration import Context
from grounded_research.errors import InputError
from grounded_research.state import InputState
from tests.conftest import EXAMPLE_CORPUS


def test_plan_approval_interrupts_and_resumes_with_an_edited_plan(tmp_path: Path) -> None:
    context = Context(corpus=str(EXAMPLE_CORPUS), cache_dir=str(tmp_path), approve_plan=True)
    question = "Where is the Halvard Estra built, and what energy density does the Aurora A1 reach?"

    async def run() -> None:
        async with open_session("plan", "memory") as session:
            async for _ in session.stream(question, context):
                pass
            [request] = await session.interrupts()
            planned = request["sub_questions"]
            assert len(planned) == 3 and planned[0]["id"] == "q0"
            assert await session.unfinished()

            kept = [{"id": planned[1]["id"], "text": "Which plant builds the Halvard Estra?"}]
            async for _ in session.stream(None, context, resume={"sub_questions": kept}):
                pass
            result = await session.result()
            assert result.status == "ok"
            assert [sq.text for sq in result.sub_questions] == [
                question,
                "Which plant builds the Halvard Estra?",
            ]
            assert not await session.interrupts()

    asyncio.run(run())


def test_without_a_person_the_api_says_the_plan_waits(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="awaits approval"):
        asyncio.run(
            aresearch(
                "Where is the Halvard Estra built?",
                checkpointer="memory",
                corpus=str(EXAMPLE_CORPUS),
                cache_dir=str(tmp_path),
                approve_plan=True,
            )
        )


def test_resume_with_command_on_the_plain_graph(tmp_path: Path) -> None:
    from langgraph.checkpoint.memory import InMemorySaver

    from grounded_research.graph import builder

    graph = builder.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "c"}}
    context = Context(corpus=str(EXAMPLE_CORPUS), cache_dir=str(tmp_path), approve_plan=True)

    async def run() -> None:
        first = await graph.ainvoke(
            InputState(question="Where is the Halvard Estra built?"), config, context=context
        )
        assert "__interrupt__" in first
        done = await graph.ainvoke(Command(resume={"action": "accept"}), config, context=context)
        assert done["status"] == "ok"

    asyncio.run(run())
