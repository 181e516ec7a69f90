"""The evaluation's metrics on hand-made results: each figure, stage by stage."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grounded_research.api import ResearchResult
from grounded_research.errors import InputError
from grounded_research.evaluation.dataset import (
    DatasetError,
    EvalQuestion,
    Fact,
    load_dataset,
    parse_question,
)
from grounded_research.evaluation.metrics import (
    QuestionMetrics,
    StageRecall,
    abstained,
    aggregate,
    answer_recall,
    any_found,
    check_citations,
    fact_recall,
    gold_source_recall,
    metric_values,
    parse_threshold,
    score,
    score_failure,
    shortfalls,
    stage_texts,
)
from grounded_research.report.citations import UNSUPPORTED_FLAG as FLAG
from grounded_research.state import Claim, Evidence, Gap, GapKind, Reference, Selection, Source


def source(name: str) -> Source:
    return Source(id=f"src-{name}", location=name, title=name.title(), status="fetched")


def evidence(id: str, source_name: str, text: str, sub_question_id: str = "q0") -> Evidence:
    return Evidence(
        id=id,
        source_id=f"src-{source_name}",
        sub_question_id=sub_question_id,
        text=text,
        start=0,
        end=len(text),
        score=1.0,
    )


def reference(number: int, record: Evidence) -> Reference:
    return Reference(
        number=number,
        evidence_id=record.id,
        source_id=record.source_id,
        location=record.source_id.removeprefix("src-"),
        title="",
        origin="local",
        start=record.start,
        end=record.end,
    )


def result(
    records: list[Evidence],
    selected: list[str],
    report: str = "",
    cited: list[Evidence] | None = None,
    **extra: object,
) -> ResearchResult:
    names = {r.source_id.removeprefix("src-") for r in records}
    return ResearchResult(
        question="q",
        status="ok",
        report=report,
        sources={f"src-{n}": source(n) for n in names},
        evidence={r.id: r for r in records},
        selections=[Selection(context={"q0": selected})],
        references=[reference(i, r) for i, r in enumerate(cited or [], start=1)],
        **extra,
    )


def question(**fields: object) -> EvalQuestion:
    return EvalQuestion.model_validate({"id": "x", "question": "q?", **fields})


# -- gold-source recall ----------------------------------------------------------------


def test_gold_recall_drops_stage_by_stage() -> None:
    a = evidence("e1", "a.md", "alpha")
    b = evidence("e2", "b.md", "beta")
    c = evidence("e3", "c.md", "gamma")
    run = result([a, b, c], selected=["e1", "e3"], cited=[a])
    recall = gold_source_recall(question(gold_sources=["a.md", "b.md"]), run)
    assert recall == StageRecall(retrieved=1.0, selected=0.5, report=0.5)


def test_a_gold_source_found_is_one_where_any_gold_source_is() -> None:
    """A documentation question's gold sources are alternatives: one page answers it."""
    a = evidence("e1", "a.md", "alpha")
    b = evidence("e2", "b.md", "beta")
    run = result([a, b], selected=["e1"], cited=[])
    asked = question(gold_sources=["a.md", "b.md", "c.md"])
    hit = score(asked, run, 1.0).gold_hit
    assert hit == StageRecall(retrieved=1.0, selected=1.0, report=0.0)
    assert any_found(None) is None
    summary = aggregate([score(asked, run, 1.0), score_failure(asked, seconds=1.0)])
    assert summary.gold_hit == StageRecall(retrieved=0.5, selected=0.5, report=0.0)
    assert metric_values(summary)["gold_hit.selected"] == 0.5


def test_gold_recall_is_undefined_without_gold_sources() -> None:
    run = result([evidence("e1", "a.md", "alpha")], selected=["e1"])
    assert gold_source_recall(question(), run) is None


def test_gold_recall_matches_locations_exactly_not_by_prefix() -> None:
    run = result([evidence("e1", "notes/a-2026", "alpha")], selected=["e1"])
    recall = gold_source_recall(question(gold_sources=["notes/a"]), run)
    assert recall is not None and recall.retrieved == 0.0


# -- answer and fact recall ------------------------------------------------------------


def test_answer_recall_is_case_and_whitespace_insensitive() -> None:
    run = result(
        [evidence("e1", "a", "She served as CHIEF of\n  Protocol.")],
        selected=["e1"],
        report="# q\n\n- “She served as chief of protocol in 1976.” [1]\n",
    )
    recall = answer_recall(question(answers=["Chief of Protocol"]), stage_texts(run))
    assert recall == StageRecall(retrieved=1.0, selected=1.0, report=1.0)


def test_answer_must_stand_as_a_whole_word() -> None:
    run = result([evidence("e1", "a", "Her eyes were blue.")], selected=["e1"])
    recall = answer_recall(question(answers=["yes"]), stage_texts(run))
    assert recall is not None and recall.retrieved == 0.0


def test_answer_next_to_cjk_text_still_counts() -> None:
    run = result([evidence("e1", "zh", "计划于2027年投产。")], selected=["e1"])
    recall = answer_recall(question(answers=["2027"]), stage_texts(run))
    assert recall is not None and recall.retrieved == 1.0


def test_answer_is_read_with_markdown_escapes_undone() -> None:
    """A page converted to Markdown stores "SSL\\_CTX\\_new"; the report shows "SSL_CTX_new"."""
    page = r"**SSL\_CTX\_set\_keylog\_callback()** sets the TLS key logging callback."
    run = result(
        [evidence("e1", "a", page)],
        selected=["e1"],
        report="# q\n\n- “SSL_CTX_set_keylog_callback() sets the TLS key logging callback.” [1]\n",
    )
    for answer in ("SSL_CTX_set_keylog_callback", r"SSL\_CTX\_set\_keylog\_callback"):
        recall = answer_recall(question(answers=[answer]), stage_texts(run))
        assert recall == StageRecall(retrieved=1.0, selected=1.0, report=1.0)


def test_answer_only_in_retrieved_evidence_is_lost_at_selection() -> None:
    run = result(
        [evidence("e1", "a", "The plant is in Ostrava."), evidence("e2", "b", "Unrelated.")],
        selected=["e2"],
    )
    recall = answer_recall(question(answers=["Ostrava"]), stage_texts(run))
    assert recall == StageRecall(retrieved=1.0, selected=0.0, report=0.0)


def test_report_title_and_references_do_not_count_as_answers() -> None:
    report = (
        "# Where is the Ostrava plant?\n\n- “The plant builds cars.” [1]\n\n"
        "## References\n\n[1] ostrava.txt — Ostrava plant\n"
    )
    run = result([evidence("e1", "a", "The plant builds cars.")], selected=["e1"], report=report)
    recall = answer_recall(question(answers=["Ostrava"]), stage_texts(run))
    assert recall is not None and recall.report == 0.0


def test_fact_recall_counts_facts_found_in_different_passages() -> None:
    facts = [
        Fact(id="f1", pattern=r"450\s*Wh/kg"),
        Fact(id="f2", pattern=r"390\s*wh/kg"),
        Fact(id="f3", pattern="slipped to 2027"),
    ]
    run = result(
        [
            evidence("e1", "a", "It reaches 450  Wh/kg."),
            evidence("e2", "b", "We measured 390 Wh/kg."),
            evidence("e3", "c", "Production slipped\nto 2027."),
        ],
        selected=["e1", "e2"],
        report="# q\n\n- “It reaches 450 Wh/kg.” [1]\n",
    )
    recall = fact_recall(question(facts=facts), stage_texts(run))
    assert recall is not None
    assert recall.retrieved == 1.0
    assert recall.selected == pytest.approx(2 / 3)
    assert recall.report == pytest.approx(1 / 3)


def test_a_fact_pattern_matches_the_text_as_stored_or_as_shown() -> None:
    """One pattern is written on the page's Markdown (a table's "|"), another as a reader
    reads the page (the name without Markdown's escapes); both are found."""
    page = "| Limit | Default |\n| --- | --- |\n| columns | 2000 |\n\n" + (
        r"The default setting for sqlite\_max\_column is 2000."
    )
    facts = [
        Fact(id="f1", pattern=r"columns \| 2000"),
        Fact(id="f2", pattern="default setting for sqlite_max_column is 2000"),
    ]
    run = result([evidence("e1", "a", page)], selected=["e1"])
    recall = fact_recall(question(facts=facts), stage_texts(run))
    assert recall is not None and recall.retrieved == 1.0 and recall.selected == 1.0


def test_a_fact_is_read_in_the_source_text_a_quote_shows() -> None:
    """The report shows a table row as its cells ("Maximum size of a field: 1 GB"); a
    fact pattern written on the page's text expects the row, and finds it in the span
    the quote is of."""
    row = "| Maximum size of a field | 1 GB |"
    record = evidence("e1", "limits", f"| Item | Limit |\n| --- | --- |\n{row}\n")
    run = result(
        [record],
        selected=["e1"],
        report="# q\n\n- “Maximum size of a field: 1 GB” [1]\n",
        cited=[record],
    )
    facts = [Fact(id="f1", pattern=r"size of a field \| 1 gb")]
    recall = fact_recall(question(facts=facts), stage_texts(run))
    assert recall is not None and recall.report == 1.0


# -- citations -------------------------------------------------------------------------


def test_citation_validity_counts_claim_evidence_pairs() -> None:
    right = evidence("e1", "a", "The Aurora A1 cell reaches 450 Wh/kg at the cell level.")
    wrong = evidence("e2", "b", "Voltmark Labs tested a cell.")
    report = (
        "# q\n\n"
        "- The Aurora A1 cell reaches 450 Wh/kg. [1][2]\n"
        "- Voltmark Labs measured 390 Wh/kg for the cell. [2]\n"
        "- Norvik ships the N2 cell this year. [7]\n"
    )
    check = check_citations(result([right, wrong], ["e1", "e2"], report, cited=[right, wrong]))
    assert (check.claims, check.citations, check.valid_citations, check.covered_claims) == (
        3,
        4,
        1,
        1,
    )


def test_verifier_flags_do_not_detach_citations() -> None:
    record = evidence("e1", "a", "Sales rose 12% in 2025.")
    report = f"# q\n\n- “Sales rose 12% in 2025.” [1] {FLAG} (unsupported)\n"
    check = check_citations(result([record], ["e1"], report, cited=[record]))
    assert (check.claims, check.valid_citations) == (1, 1)


def test_a_run_without_sources_has_no_claims_to_check() -> None:
    run = result([], [], "# q\n\nNo sources found. Nothing here is invented.\n")
    run.status = "no_sources"
    assert check_citations(run).claims == 0


def test_score_counts_the_verifiers_verdicts() -> None:
    claims = [
        Claim(id="c1", text="a", verdict="supported"),
        Claim(id="c2", text="b", verdict="supported"),
        Claim(id="c3", text="c", verdict="partial"),
    ]
    metrics = score(question(), result([], [], claims=claims), seconds=1.5)
    assert metrics.verdicts == {"supported": 2, "partial": 1}
    assert metrics.cost.seconds == 1.5


# -- unanswerable handling -------------------------------------------------------------


def gap(sub_question_id: str, kind: GapKind) -> Gap:
    return Gap(
        id=f"{sub_question_id}:{kind}", sub_question_id=sub_question_id, kind=kind, detail=""
    )


def test_open_whole_question_counts_as_declared_unanswered() -> None:
    assert abstained(result([], [], unresolved=[gap("q0", "unanswered")]))
    assert abstained(result([], [], unresolved=[gap("q0", "no_evidence")]))


def test_a_caveat_on_an_answer_is_not_an_abstention() -> None:
    """Too few sources or a term left uncovered qualify an answer the report gives."""
    caveats = [gap("q0", "few_sources"), gap("q0", "facet"), gap("q0", "uncorroborated")]
    assert not abstained(result([], [], unresolved=caveats))


def test_a_conflict_or_an_open_part_is_not_an_abstention() -> None:
    assert not abstained(result([], [], unresolved=[gap("q0", "conflict"), gap("q1", "facet")]))


def test_no_sources_is_an_abstention() -> None:
    run = result([], [])
    run.status = "no_sources"
    assert abstained(run)


# -- aggregation and thresholds --------------------------------------------------------


def test_failed_runs_count_zero_for_recall_and_nothing_for_cost() -> None:
    asked = question(answers=["x"], gold_sources=["a"])
    good = QuestionMetrics(
        gold_recall=StageRecall(retrieved=1.0, selected=1.0, report=1.0),
        answer_recall=StageRecall(retrieved=1.0, selected=0.0, report=0.0),
    )
    good.cost.seconds = 2.0
    summary = aggregate([good, score_failure(asked, seconds=30.0)])
    assert (summary.completed, summary.failed) == (1, 1)
    assert summary.gold_recall == StageRecall(retrieved=0.5, selected=0.5, report=0.5)
    assert summary.answer_recall == StageRecall(retrieved=0.5, selected=0.0, report=0.0)
    assert summary.cost.seconds == 2.0


def test_citations_are_pooled_over_questions() -> None:
    one = QuestionMetrics()
    one.citations.claims, one.citations.covered_claims = 1, 1
    one.citations.citations, one.citations.valid_citations = 1, 1
    many = QuestionMetrics()
    many.citations.claims, many.citations.covered_claims = 3, 0
    many.citations.citations, many.citations.valid_citations = 3, 0
    summary = aggregate([one, many])
    assert summary.citation_validity == 0.25
    assert summary.claim_coverage == 0.25


def test_unanswerable_handling_and_false_abstentions_are_separate() -> None:
    summary = aggregate(
        [
            QuestionMetrics(unanswerable=True, abstained=True),
            QuestionMetrics(unanswerable=True, abstained=False),
            QuestionMetrics(abstained=True),
            QuestionMetrics(),
            QuestionMetrics(),
            QuestionMetrics(),
        ]
    )
    assert summary.unanswerable_handled == 0.5
    assert summary.answerable_abstained == 0.25


def test_thresholds_report_what_fell_below() -> None:
    summary = aggregate(
        [QuestionMetrics(answer_recall=StageRecall(retrieved=1.0, selected=0.5, report=0.0))]
    )
    missed = shortfalls(
        summary,
        [
            parse_threshold("answer_recall.retrieved=0.9"),
            parse_threshold("answer_recall.selected=60%"),
            parse_threshold("gold_recall.report=0.1"),
        ],
    )
    assert [m.metric for m in missed] == ["answer_recall.selected", "gold_recall.report"]
    assert "not measured" in str(missed[1])
    assert metric_values(summary)["answer_recall.selected"] == 0.5


@pytest.mark.parametrize("text", ["recall=0.5", "answer_recall.report", "citation_validity=hi"])
def test_bad_thresholds_are_input_errors(text: str) -> None:
    with pytest.raises(InputError):
        parse_threshold(text)


# -- dataset ---------------------------------------------------------------------------


def test_hotpotqa_lines_become_gold_sources() -> None:
    line = {"id": "h1", "question": "Who?", "answers": ["Ann"], "gold_ids": ["p1", "p2"]}
    parsed = parse_question(line, "h:1")
    assert parsed.gold_sources == ["p1", "p2"]
    assert (parsed.facts, parsed.unanswerable, parsed.extra) == ([], False, {})


def test_extra_keys_are_kept_and_tags_read() -> None:
    line = {"id": "s1", "question": "What?", "tags": ["conflict", "main"], "level": 2}
    parsed = parse_question(line, "s:1")
    assert parsed.tags == ["conflict", "main"]
    assert parsed.extra["level"] == 2


def test_dataset_errors_name_the_line(tmp_path: Path) -> None:
    path = tmp_path / "set.jsonl"
    good = json.dumps({"id": "a", "question": "What?"})
    path.write_text(good + "\n\n{not json\n", encoding="utf-8")
    with pytest.raises(DatasetError, match=r"set\.jsonl:3: bad JSON"):
        load_dataset(path)
    assert [q.id for q in load_dataset(path, limit=1)] == ["a"]


def test_dataset_rejects_bad_patterns_duplicates_and_missing_files(tmp_path: Path) -> None:
    path = tmp_path / "set.jsonl"
    path.write_text(
        json.dumps({"id": "a", "question": "Q?", "facts": [{"id": "f", "pattern": "(x"}]}),
        encoding="utf-8",
    )
    with pytest.raises(DatasetError, match="not a valid regex"):
        load_dataset(path)
    line = json.dumps({"id": "a", "question": "Q?"})
    path.write_text(f"{line}\n{line}\n", encoding="utf-8")
    with pytest.raises(DatasetError, match="duplicate"):
        load_dataset(path)
    with pytest.raises(DatasetError, match="not found"):
        load_dataset(tmp_path / "missing.jsonl")


def test_sources_are_counted_per_stage_and_their_median_aggregated() -> None:
    a1 = evidence("e1", "a.md", "alpha")
    a2 = evidence("e2", "a.md", "alpha two")
    b = evidence("e3", "b.md", "beta")
    c = evidence("e4", "c.md", "gamma")
    few = score(question(), result([a1, a2, b], selected=["e1", "e2"], cited=[a1]), seconds=1)
    many = score(question(), result([a1, b, c], selected=["e1", "e3", "e4"], cited=[b]), seconds=1)
    assert few.sources == {"retrieved": 2, "selected": 1, "report": 1}
    assert aggregate([few, many]).median_sources == {
        "retrieved": 2.5,
        "selected": 2.0,
        "report": 1.0,
    }


def test_a_fact_is_read_with_the_heading_shown_above_its_quote() -> None:
    """A reference page names a setting once, in its heading: the report shows that
    heading above the quote, and the fact "shared_buffers ... 128 megabytes" is there;
    an answer still has to stand in a quote."""
    facts = [Fact(id="f1", pattern=r"shared\\?_buffers.{0,60}default is 128 megabytes")]
    report = (
        "# q\n\n## Findings\n\n_20.4.1. Memory › `shared_buffers` (`integer`)_\n"
        "- “The default is 128 megabytes.” [1]\n\n- “Unrelated words here.” [1]\n"
    )
    run = result(
        [evidence("e1", "a", "The default is 128 megabytes.")], selected=["e1"], report=report
    )
    texts = stage_texts(run)
    recall = fact_recall(question(facts=facts), texts)
    assert recall is not None and recall.report == 1.0
    assert texts.report_framed[1] == "Unrelated words here."  # a blank line ends the group
    answer = answer_recall(question(answers=["shared_buffers"]), texts)
    assert answer is not None and answer.report == 0.0
