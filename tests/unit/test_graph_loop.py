"""The gap loop: re-search only what has gaps, with the gaps' queries; stop at
max_rounds or when no new query is left."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from grounded_research.configuration import Context
from grounded_research.graph import graph
from grounded_research.state import InputState, ResearchTask
from tests.conftest import write

QUESTION = "Where is Norvik Cells based, and what does the Zorbit gizmo cost?"


@pytest.fixture
def corpus(tmp_path: Path) -> str:
    root = tmp_path / "corpus"
    write(root, "a.md", "# Norvik Cells\n\nNorvik Cells is based in Oslo and makes the N2 cell.\n")
    write(root, "b.txt", "Norvik Cells, the battery maker, is based in Oslo, Norway.\n")
    write(root, "c.md", "# Sodium\n\nSodium-ion cells are cheaper than lithium-ion cells.\n")
    return str(root)


def research_tasks(corpus: str, cache_dir: str, max_rounds: int) -> list[ResearchTask]:
    async def run() -> list[ResearchTask]:
        tasks: list[ResearchTask] = []
        context = Context(corpus=corpus, cache_dir=cache_dir, max_rounds=max_rounds)
        async for event in graph.astream(
            InputState(question=QUESTION), context=context, stream_mode="tasks"
        ):
            assert isinstance(event, dict)
            if event.get("name") == "research" and "input" in event:
                tasks.append(event["input"])
        return tasks

    return asyncio.run(run())


def test_second_round_only_for_sub_questions_with_gaps(corpus: str, cache_dir: str) -> None:
    tasks = research_tasks(corpus, cache_dir, max_rounds=2)
    first = {t.sub_question.text for t in tasks if t.round == 0}
    later = {t.sub_question.text for t in tasks if t.round >= 1}
    assert "Where is Norvik Cells based" in first
    assert "what does the Zorbit gizmo cost" in later
    assert "Where is Norvik Cells based" not in later
    searched_before = {(t.sub_question.id, q) for t in tasks if t.round == 0 for q in t.queries}
    for task in tasks:
        if task.round >= 1:  # follow-ups are new queries, never a repeat
            assert all((task.sub_question.id, q) not in searched_before for q in task.queries)


def test_no_re_search_with_max_rounds_zero(corpus: str, cache_dir: str) -> None:
    assert all(t.round == 0 for t in research_tasks(corpus, cache_dir, max_rounds=0))


def test_stops_at_max_rounds(corpus: str, cache_dir: str) -> None:
    assert max(t.round for t in research_tasks(corpus, cache_dir, max_rounds=1)) == 1


def test_stops_early_when_no_new_query_is_left(corpus: str, cache_dir: str) -> None:
    rounds = {t.round for t in research_tasks(corpus, cache_dir, max_rounds=6)}
    assert max(rounds) < 6


def test_open_gaps_end_up_unresolved_in_the_result(corpus: str, cache_dir: str) -> None:
    context = Context(corpus=corpus, cache_dir=cache_dir, max_rounds=1)
    result = asyncio.run(graph.ainvoke(InputState(question=QUESTION), context=context))
    unresolved = result["unresolved"]
    assert any("Zorbit" in sq.text for sq in result["sub_questions"])
    assert {g.sub_question_id for g in unresolved} >= {"q2"}
    assert "Unresolved" in result["report"]
