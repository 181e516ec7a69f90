"""Follow-up questions on a thread: the thread keeps its research (sources, evidence and
their ids), a structured memory checked against the evidence, the user's corrections,
and starts a fresh memory when the topic changes. In process, extractive, no sockets."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from grounded_research import cli, open_session
from grounded_research.api import ResearchResult, Session
from grounded_research.configuration import Context
from grounded_research.memory.briefing import brief, fact_line
from grounded_research.memory.constraints import corrected_question, read_turn, with_constraints
from grounded_research.memory.facts import checked, still_exact
from grounded_research.memory.recall import overlap
from grounded_research.models import use_chat_model
from grounded_research.selection.budget import count_tokens
from grounded_research.state import Constraint, Fact, Memory, Source, State
from tests.conftest import EXAMPLE_CORPUS

ENERGY = "What energy density does the Aurora A1 cell reach?"
TURN_1 = f"{ENERGY} Only use sources published after 2025."
TURN_2 = "Correction: only use sources published after 2023, not after 2025."
TURN_3 = "What capacity retention did the Aurora A1 cell show after 800 cycles?"


async def ask(session: Session, question: str, context: Context) -> ResearchResult:
    async for _ in session.stream(question, context):
        pass
    return await session.result()


def answer_section(report: str) -> str:
    return report.split("## Answer", 1)[1].split("\n## ", 1)[0]


def test_a_correction_then_a_number_found_only_in_the_first_turn(tmp_path: Path) -> None:
    context = Context(corpus=str(EXAMPLE_CORPUS), cache_dir=str(tmp_path))

    async def run() -> None:
        async with open_session("thread", str(tmp_path / "runs.sqlite")) as session:
            first = await ask(session, TURN_1, context)
            second = await ask(session, TURN_2, context)
            third = await ask(session, TURN_3, context)
            state = await session.values()

        found_first = {i for i, e in first.evidence.items() if "88%" in e.text}
        assert first.usage.search_calls > 0 and found_first
        assert "390 Wh/kg" in first.report and "450 Wh/kg" not in first.report  # after 2025

        # the correction replaces the date window: the 2024 press release counts again
        assert "450 Wh/kg" in second.report
        assert "replaces “Only use sources published after 2025.” (turn 1)" in second.report
        assert second.turns[-1].asked == ENERGY  # a bare correction re-asks the question

        # the number is answered from turn 1's evidence, by its original id, unsearched
        assert third.usage.search_calls == 0 and third.turns[-1].from_memory
        answer = answer_section(third.report)
        assert "88%" in answer
        cited = {r.number: r.evidence_id for r in third.references}
        answer_ids = {cited[int(n)] for n in re.findall(r"\[(\d+)\]", answer)}
        assert answer_ids and answer_ids <= found_first
        # earlier turns' citations still name the records they named
        for reference in first.references:
            assert (
                third.evidence[reference.evidence_id].text
                == first.evidence[reference.evidence_id].text
            )
        assert [t["number"] if isinstance(t, dict) else t.number for t in state["turns"]] == [
            1,
            2,
            3,
        ]

    asyncio.run(run())


def test_the_plan_searches_only_the_part_the_thread_does_not_know(tmp_path: Path) -> None:
    context = Context(corpus=str(EXAMPLE_CORPUS), cache_dir=str(tmp_path), max_rounds=0)
    known = "What capacity retention did the Aurora A1 cell show after 800 cycles"
    new = "where does Halvard Automotive build the Halvard Estra"

    async def run() -> None:
        async with open_session("parts", "memory") as session:
            first = await ask(session, ENERGY, context)
            second = await ask(session, f"{known}, and {new}?", context)
            state = await session.values()
        plan = {sq.text: sq for sq in second.sub_questions}
        assert plan[known].queries == [] and plan[new].queries == [new]
        searched = [key.split("\t") for key in state["searched"]]
        assert [query for sq_id, query in searched if sq_id == plan[known].id] == []
        assert [query for sq_id, query in searched if sq_id == plan[new].id] == [new.lower()]
        recalled = set(state["recalled"][plan[known].id])
        assert recalled and recalled <= set(first.evidence)

    asyncio.run(run())


def test_evidence_recalled_for_two_parts_stands_under_both(tmp_path: Path) -> None:
    """A passage two searches found is selected once and counts for both sub-questions;
    so does a passage the thread recalled for two parts of a follow-up."""
    context = Context(corpus=str(EXAMPLE_CORPUS), cache_dir=str(tmp_path), max_rounds=0)
    question = "Where is the Aurora Cellworks pilot line and what is its annual capacity?"

    async def run() -> None:
        async with open_session("both", "memory") as session:
            await ask(session, ENERGY, context)
            second = await ask(session, question, context)
        assert second.turns[-1].from_memory and second.usage.search_calls == 0
        assert not [g for g in second.unresolved if g.kind == "no_evidence"]
        assert "No passage answers this directly" not in second.report
        selected = [i for ids in second.context.values() for i in ids]
        assert len(selected) == len(set(selected))  # each record selected once

    asyncio.run(run())


def test_the_planner_model_is_shown_what_the_thread_knows(tmp_path: Path) -> None:
    from tests.unit.test_model_nodes import answering

    plan = '{"sub_questions": [{"question": "Where is the Halvard Estra built?"}]}'
    planner = answering(plan)
    context = Context(corpus=str(EXAMPLE_CORPUS), cache_dir=str(tmp_path), max_rounds=0)

    async def run() -> None:
        async with open_session("model", "memory") as session:
            await ask(session, ENERGY, context)
            await ask(session, "Where does Halvard Automotive build the Aurora A1 cells?", context)

    with use_chat_model({"planner": planner}):
        asyncio.run(run())
    first, second = ("\n".join(str(m.content) for m in asked) for asked in planner.asked)
    assert "earlier research established" not in first
    known = second.split("What this thread's earlier research established", 1)[1]
    assert "390 Wh/kg" in known and "(turn 1)" in known


def test_another_topic_starts_a_fresh_memory_and_a_return_takes_up_the_old(
    tmp_path: Path,
) -> None:
    context = Context(corpus=str(EXAMPLE_CORPUS), cache_dir=str(tmp_path))

    async def run() -> None:
        async with open_session("drift", "memory") as session:
            first = await ask(session, "Where is the Halvard Estra built?", context)
            second = await ask(session, ENERGY, context)
            state = await session.values()
            back = await ask(
                session, "Where does Halvard Automotive build the Halvard Estra?", context
            )
        async with open_session("alone", "memory") as session:
            alone = await ask(session, ENERGY, context)

        turn = second.turns[-1]
        assert turn.drifted and turn.overlap is not None and turn.overlap < context.drift_threshold
        assert "Another topic" in second.report
        assert second.memory.topic == first.memory.topic + 1 and second.memory.turns == [2]
        assert all("Estra" not in q for q in second.memory.questions)
        [kept] = state["earlier_memories"]
        assert kept.questions == ["Where is the Halvard Estra built?"] and kept.facts
        # researched as if alone, the first turn's records still on the thread
        assert second.usage.search_calls == alone.usage.search_calls
        assert [sq.text for sq in second.sub_questions] == [sq.text for sq in alone.sub_questions]
        assert set(first.evidence) <= set(second.evidence)
        # back to the first topic: its memory is taken up again and answers without search
        assert back.turns[-1].resumed and back.memory.topic == first.memory.topic
        assert back.memory.turns == [1, 3] and back.usage.search_calls == 0
        assert "Back to an earlier topic of this thread (turn 1)" in back.report

    asyncio.run(run())


def test_a_follow_up_on_the_topic_is_not_drift() -> None:
    memory = Memory(questions=[ENERGY], facts=[Fact(claim="x", evidence_ids=["e"], turn=1)])
    assert overlap(TURN_3, memory) >= Context().drift_threshold
    assert overlap("Where does Kessel Recycling run its plant?", memory) < Context().drift_threshold


EVIDENCE = (
    "In our tests, the Aurora A1 cell delivers 390 Wh/kg at the cell level. "
    "No cells were delivered to Meridian Motors before 2026."
)


def test_the_verbatim_check_rebuilds_an_altered_fact_from_its_evidence() -> None:
    def text_of(evidence_id: str) -> str:
        return EVIDENCE

    exact = "In our tests, the Aurora A1 cell delivers 390 Wh/kg at the cell level."
    kept = Fact(claim=exact, evidence_ids=["e1"], turn=1)
    assert checked(kept, text_of) is kept

    for altered in (
        "In our tests, the Aurora A1 cell delivers 930 Wh/kg at the cell level.",  # number
        "In our tests, the Aurora A1 cell delivers 390 Wh/L at the cell level.",  # unit
        "Cells were delivered to Meridian Motors before 2026.",  # negation lost
        "No cells were delivered to Meridian Motors.",  # condition lost
        "No cells were delivered to Meridian Motors before 2027.",  # date
    ):
        fact = Fact(claim=altered, evidence_ids=["e1"], turn=1)
        assert not still_exact(fact, text_of), altered
        rebuilt = checked(fact, text_of)
        assert rebuilt.rebuilt and rebuilt.claim in EVIDENCE and still_exact(rebuilt, text_of)


def test_a_fact_altered_in_the_thread_is_rebuilt_by_the_next_turn(tmp_path: Path) -> None:
    context = Context(corpus=str(EXAMPLE_CORPUS), cache_dir=str(tmp_path))

    async def run() -> None:
        async with open_session("altered", "memory") as session:
            await ask(session, ENERGY, context)
            memory: Memory = (await session.values())["memory"]
            index, fact = next((i, f) for i, f in enumerate(memory.facts) if "390" in f.claim)
            facts = list(memory.facts)
            facts[index] = fact.model_copy(update={"claim": fact.claim.replace("390", "450")})
            await session.graph.aupdate_state(
                session.config, {"memory": memory.model_copy(update={"facts": facts})}
            )
            after = await ask(session, TURN_3, context)
        again = after.memory.facts[index]
        assert again.rebuilt and "390" in again.claim and "450" not in again.claim
        assert all(
            still_exact(f, lambda i: after.evidence[i].text)
            for f in after.memory.facts
            if all(i in after.evidence for i in f.evidence_ids)
        )

    asyncio.run(run())


def test_constraints_and_corrections_are_read_from_the_question() -> None:
    read = read_turn(TURN_1, 1)
    assert read.question == ENERGY
    [window] = read.constraints
    assert (window.kind, window.value) == ("after", "2025")

    corrected = read_turn(TURN_2, 2)
    assert corrected.question == ""
    [after_2023] = corrected.constraints
    assert (after_2023.kind, after_2023.value) == ("after", "2023")  # not the negated 2025
    memory = Memory(constraints=[window])
    [only] = with_constraints(memory, corrected.constraints)
    assert only.value == "2023" and only.replaces == window.text and only.replaces_turn == 1

    [blogs] = read_turn("Ignore vendor blogs. What does the N2 cost?", 3).constraints
    assert blogs.kind == "exclude" and blogs.value == "vendor blogs"
    assert with_constraints(Memory(constraints=[only]), [blogs]) == [only, blogs]

    meant = read_turn("I meant the 2026 model", 4).meant
    assert meant is not None
    assert corrected_question("What does the 2025 model cost?", meant) == (
        "What does the 2026 model cost?",
        "2025 model",
    )


def test_a_constraint_admits_sources_by_date_and_name() -> None:
    def source(published: str | None, title: str = "t") -> Source:
        return Source(id="s", location="x.md", title=title, status="fetched", published=published)

    after = Constraint(text="only after 2025", kind="after", value="2025", turn=1)
    assert after.admits(source("2026-01-20")) and after.admits(source("March 2026"))
    assert not after.admits(source("2025-06-30")) and not after.admits(source(None))
    vendor = Constraint(text="ignore vendor blogs", kind="exclude", value="vendor blog", turn=1)
    assert not vendor.admits(source("2024", "A vendor blog post"))
    assert vendor.admits(source("2024", "An independent test"))


def test_the_briefing_shrinks_the_least_relevant_old_facts_to_pointers() -> None:
    def fact(claim: str, turn: int) -> Fact:
        return Fact(claim=claim, evidence_ids=[f"ev-{turn}-{len(claim)}"], turn=turn)

    old = [
        fact("Kessel Recycling runs a plant in Antwerp with a long list of details.", 1),
        fact("The Aurora A1 cell reaches 450 Wh/kg at the cell level.", 1),
        fact("Pellam Energy sodium-ion cells cost USD 62 per kWh in September.", 2),
    ]
    recent = [fact("Aurora Cellworks delayed series production of the A1 to 2027.", 4)]
    constraint = Constraint(text="only after 2023", kind="after", value="2023", turn=1)
    memory = Memory(facts=[*old, *recent], constraints=[constraint])
    state = State(question="q")

    roomy = brief(state, memory, ENERGY, 10_000, turn=5)
    kessel = old[0].evidence_ids[0]
    assert roomy.pointers == 1  # shares no term with the question: a pointer, however roomy
    assert any(kessel in line and "Kessel" not in line for line in roomy.lines)
    kept = ["- constraint (turn 1): only after 2023", fact_line(recent[0]), fact_line(old[1])]
    tight = brief(state, memory, ENERGY, sum(count_tokens(line) for line in kept) + 5, turn=5)
    assert tight.pointers == 2 and tight.tokens < roomy.tokens
    assert tight.lines[0] == kept[0]  # constraints are never dropped
    facts = tight.lines[1:]
    assert facts[0] == kept[2] and facts[-1] == kept[1]  # the most relevant at the edges
    pointers = {f"- [{f.evidence_ids[0]}] earlier evidence (turn {f.turn})" for f in old[::2]}
    assert set(facts[1:-1]) == pointers  # the least relevant in the middle, as pointers


def test_the_cli_thread_builds_on_its_research(tmp_path: Path) -> None:
    runner = CliRunner()
    common = ["--corpus", str(EXAMPLE_CORPUS), "--cache-dir", str(tmp_path / "cache")]
    common += ["--data-dir", str(tmp_path / "data"), "--thread", "cli", "-q"]
    tables: list[dict[str, Any]] = []
    for number, question in enumerate([ENERGY, TURN_3]):
        table = tmp_path / f"turn{number}.json"
        done = runner.invoke(cli.app, [question, *common, "--evidence", str(table)])
        assert done.exit_code == 0, done.stderr
        tables.append(json.loads(table.read_text()))
    first, second = tables
    assert first["usage"]["search_calls"] > 0 and second["usage"]["search_calls"] == 0
    # what the first turn found, and the records its selection made that its report
    # cited, stay; a record selection made and nothing cited is that turn's view alone
    found = {e["id"] for e in first["evidence"] if e["chunk_start"] is None}
    cited = {r["evidence_id"] for r in first["references"]}
    assert found | cited <= {e["id"] for e in second["evidence"]}
