from __future__ import annotations

from grounded_research.state import (
    Evidence,
    Gap,
    Selection,
    Source,
    State,
    SubQuestion,
    Usage,
    merge_evidence,
    merge_gaps,
    merge_sources,
    merge_sub_questions,
    union,
)


def source(id: str, status: str = "fetched", sha: str = "a", **extra: object) -> Source:
    return Source(id=id, location=f"{id}.md", status=status, sha256=sha, **extra)  # type: ignore[arg-type]


def evidence(id: str, round: int = 0, source_id: str = "s1") -> Evidence:
    return Evidence(
        id=id,
        source_id=source_id,
        sub_question_id="q0",
        text="t",
        start=0,
        end=1,
        score=1.0,
        round=round,
    )


def test_parallel_branches_finding_the_same_source_keep_one_record() -> None:
    from_branch_a = {"s1": source("s1"), "s2": source("s2")}
    from_branch_b = {"s1": source("s1"), "s3": source("s3")}
    merged = merge_sources(merge_sources({}, from_branch_a), from_branch_b)
    assert sorted(merged) == ["s1", "s2", "s3"]


def test_refetch_does_not_undo_a_duplicate_verdict_but_new_content_does() -> None:
    known = {"s0": source("s0"), "s1": source("s1")}
    marked = Selection(reprints={"s1": "s0"})  # the verdict is the selection's own
    state = State(question="q", sources=merge_sources(known, {"s1": source("s1")}))
    state.selections = [marked]
    assert state.reported_sources()["s1"].status == "duplicate"
    assert state.reported_sources()["s1"].duplicate_of == "s0"
    changed = merge_sources(known, {"s1": source("s1", sha="b")})
    assert changed["s1"].status == "fetched" and changed["s1"].sha256 == "b"


def test_evidence_first_found_wins_so_round_is_kept() -> None:
    merged = merge_evidence({"e1": evidence("e1", round=0)}, {"e1": evidence("e1", round=2)})
    assert merged["e1"].round == 0
    assert set(merge_evidence(merged, {"e2": evidence("e2")})) == {"e1", "e2"}


def test_gaps_accumulate_and_replace_by_id() -> None:
    first = Gap(id="g1", sub_question_id="q0", kind="facet", detail="a", round=0)
    second = Gap(id="g2", sub_question_id="q1", kind="facet", detail="b", round=0)
    again = first.model_copy(update={"detail": "changed"})
    merged = merge_gaps(merge_gaps([first], [second]), [again])
    assert [g.id for g in merged] == ["g1", "g2"]
    assert merged[0].detail == "changed"


def test_sub_questions_keep_order_and_newer_wins() -> None:
    merged = merge_sub_questions(
        [SubQuestion(id="q0", text="a"), SubQuestion(id="q1", text="b")],
        [SubQuestion(id="q1", text="B"), SubQuestion(id="q2", text="c")],
    )
    assert [(s.id, s.text) for s in merged] == [("q0", "a"), ("q1", "B"), ("q2", "c")]


def test_union_and_usage_addition() -> None:
    assert union(["a", "b"], ["b", "c", "c"]) == ["a", "b", "c"]
    total = Usage(search_calls=2, seconds={"research": 1.0}) + Usage(
        search_calls=3, seconds={"research": 0.5, "planner": 0.1}
    )
    assert total.search_calls == 5
    assert total.seconds == {"research": 1.5, "planner": 0.1}


def test_independent_sources_count_a_reprint_as_its_original() -> None:
    state = State(
        question="q",
        sources={"s1": source("s1"), "s2": source("s2"), "s3": source("s3")},
        selections=[Selection(reprints={"s2": "s1"})],
        evidence={
            "e1": evidence("e1", source_id="s1"),
            "e2": evidence("e2", source_id="s2"),
            "e3": evidence("e3", source_id="s3"),
        },
    )
    assert state.independent_sources(["e1", "e2"]) == {"s1"}
    assert state.independent_sources(["e1", "e2", "e3"]) == {"s1", "s3"}


def test_the_evidence_table_joins_each_selection_to_what_gathering_found() -> None:
    found = evidence("e1", round=0)
    cut = found.model_copy(update={"id": "k1", "tier": "key_sentences", "chunk_start": 0})
    state = State(
        question="q",
        evidence={"e1": found, "e2": evidence("e2", round=1)},
        selections=[
            Selection(round=0, records={"e1": found.model_copy(update={"strategy": "hybrid"})}),
            Selection(round=1, records={"k1": cut}),
        ],
    )
    reported = state.reported_evidence()
    assert list(reported) == ["e1", "e2", "k1"]  # as first found or made
    assert reported["e1"].strategy == "hybrid" and state.evidence["e1"].strategy == "bm25"
    state.last_found = {"e1": 1, "e2": 1}  # found again after the selection that used it
    assert state.record("e1").strategy == "bm25"


def test_a_fresh_start_resets_every_channel() -> None:
    from dataclasses import fields

    from langgraph.types import Overwrite

    update = State.fresh(warnings=["new"])
    assert set(update) == {f.name for f in fields(State)} - {"question"}
    assert update["warnings"].value == ["new"] and isinstance(update["gaps"], Overwrite)
    assert update["status"] == "pending" and update["follow_ups"] == []


def test_a_new_turn_keeps_the_shelves_of_the_corpus_its_sources_came_from() -> None:
    """What the corpus documents (its folders and collections) stays known to a turn
    answered from the thread's memory, which searches nothing, as its sources do; the
    gaps of the last turn do not."""
    update = State.next_turn(question="and the energy density?")

    assert "shelves" not in update and "sources" not in update
    assert "gaps" in update
