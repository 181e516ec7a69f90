"""The Markdown report as a reader reads it: quotes shown as their page reads (a table
row as its cells, no list markers, no escapes Markdown did not need) while the verifier
still finds them word for word in their evidence; one reference per document; what
stays open in plain words; conflicts as a small table. And the README's description of
the example report, checked against a real run of its first command."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from grounded_research import cli
from grounded_research.gaps.rules import UNANSWERED
from grounded_research.report.citations import (
    Citations,
    citation_valid,
    displayed,
    judge,
    split_claims,
)
from grounded_research.report.sections import LABELS
from grounded_research.report.unresolved import in_plain_words, reason_in_words
from grounded_research.report.verify import rule_verdicts
from grounded_research.state import ConflictSide, Evidence, Gap
from tests.conftest import EXAMPLE_CORPUS, ROOT, passage

TABLE = (
    "## Results\n\n"
    "| Measurement | Result |\n"
    "| --- | --- |\n"
    "| Gravimetric energy density | 390 Wh/kg |\n"
    "| Cell mass | 0.55 kg |\n"
)


def evidence(text: str, record_id: str = "e", source_id: str = "s") -> Evidence:
    return passage(text, record_id, source_id, "q0")


def quoted(sentence: str, number: int = 1) -> str:
    """A report holding one quote line, as the writer writes it."""
    return f"# Q\n\n## Findings\n\n- “{displayed(sentence)}” [{number}]\n\n## References\n"


# Quotes shown as read -------------------------------------------------------------------


def test_a_table_row_is_quoted_as_its_cells_and_still_verifies() -> None:
    row = "| Gravimetric energy density | 390 Wh/kg |"
    record = evidence(TABLE)
    report = quoted(row)
    assert "“Gravimetric energy density: 390 Wh/kg” [1]" in report and "|" not in report

    (claim,) = rule_verdicts(report, {1: [record]})
    assert (claim.verdict, claim.verbatim) == ("supported", True)
    assert citation_valid(claim.text, record)
    assert record.text == TABLE  # the evidence keeps its page's text


def test_a_tampered_table_row_quote_fails_the_verifier() -> None:
    record = evidence(TABLE)
    for tampered in (
        "“Gravimetric energy density: 450 Wh/kg”",
        "“Volumetric energy density: 390 Wh/kg”",
        "“Cell mass: 390 Wh/kg”",
    ):
        report = f"# Q\n\n## Findings\n\n- {tampered} [1]\n"
        (claim,) = rule_verdicts(report, {1: [record]})
        assert claim.verdict != "supported", tampered
        assert not claim.verbatim


def test_escapes_and_list_markers_are_not_quoted_raw() -> None:
    assert displayed(r"Use asyncio.to\_thread() for blocking calls\.") == (
        "Use asyncio.to_thread() for blocking calls."
    )
    # what would become markup stays escaped; a code span keeps what it holds
    assert displayed(r"\*args and `a\_b` and \_private") == r"\*args and `a\_b` and \_private"
    assert displayed("The options are:\n- fast\n- safe\n") == "The options are: fast; safe"
    assert displayed("| --- | :-: |") == ""
    assert displayed("A [3] <b>") == r"A \[3\] \<b>"  # still no citation, no tag


def test_an_unescaped_quote_is_verbatim_in_its_escaped_evidence() -> None:
    record = evidence(r"Call asyncio.to\_thread() to run blocking code in a thread\.")
    (claim,) = split_claims(quoted(record.text))
    assert "\\" not in claim.text
    assert judge(claim.text, [record]).verbatim
    (other,) = split_claims(quoted("Call asyncio.to_process() to run blocking code"))
    assert not judge(other.text, [record]).verbatim


# One reference per document ------------------------------------------------------------


def test_a_number_cites_a_document_and_each_of_its_spans() -> None:
    sources = {"e1": "s1", "e2": "s2", "e3": "s1"}
    number = Citations(source_of=sources.__getitem__)
    assert [number("e1"), number("e2"), number("e3"), number("e1")] == [1, 2, 1, 1]
    assert number.numbers == {"e1": 1, "e2": 2, "e3": 1}

    # a claim citing the document is checked against every span of it the report quotes
    spans = [evidence("The pilot line opens in May.", "e1"), evidence(TABLE, "e3")]
    (claim,) = rule_verdicts(quoted("| Cell mass | 0.55 kg |"), {1: spans})
    assert claim.verdict == "supported" and claim.evidence_ids == ["e1", "e3"]


# Conflicts and what stays open -----------------------------------------------------------


def test_a_conflict_table_is_not_read_as_claims_but_a_body_table_is() -> None:
    report = (
        "# Q\n\n## Findings\n\n| A1 | 999 Wh/kg [1] |\n\n## Conflicts\n\n### A1 (wh/kg)\n\n"
        "| value | source | date |\n| --- | --- | --- |\n| 450 Wh/kg | [1] a.md | 2024 |\n\n"
        "- “The A1 reaches 450 Wh/kg.” [1]\n\n## Unresolved\n"
    )
    first, second = split_claims(report)
    assert "999 Wh/kg" in first.text and first.citations == [1]
    assert second.text == "The A1 reaches 450 Wh/kg."


def gap(kind: str, detail: str, sub_question_id: str = "q0", **more: object) -> Gap:
    return Gap(id="g", sub_question_id=sub_question_id, kind=kind, detail=detail, **more)  # type: ignore[arg-type]


def test_open_gaps_read_in_plain_words() -> None:
    part = "what energy density do they achieve"
    said = {
        "uncorroborated": in_plain_words(
            gap("uncorroborated", "A1 (cycles): given by 1 independent source(s)", "q2"), part, "en"
        ),
        "facet": in_plain_words(gap("facet", "not covered: differ"), "Q?", "en"),
        "facet_part": in_plain_words(gap("facet", "not covered: pouch", "q2"), part, "en"),
        "few": in_plain_words(gap("few_sources", "1 independent source(s), 2 required"), "Q", "en"),
        "none": in_plain_words(gap("no_evidence", "no evidence found", "q2"), part, "en"),
        "unanswered": in_plain_words(gap("unanswered", "no passage names PostgreSQL 17"), "", "en"),
        "conflict": in_plain_words(
            gap(
                "conflict",
                "sources disagree on A1 (wh/kg): 450 Wh/kg vs 390 Wh/kg",
                subject="A1 (wh/kg)",
                sides=[
                    ConflictSide(evidence_id="a", value="450 Wh/kg", sentence="x"),
                    ConflictSide(evidence_id="b", value="390 Wh/kg", sentence="y"),
                ],
            ),
            "Q",
            "en",
        ),
    }
    assert said == {
        "uncorroborated": "Only one source gives a figure in cycles for A1; no second source "
        "confirms it.",
        "facet": "No source found mentions “differ”.",
        "facet_part": f"On “{part}”: no source found mentions “pouch”.",
        "few": "Only 1 independent source answers this question; 2 are wanted.",
        "none": f"No source found speaks to “{part}”.",
        "unanswered": "No passage names PostgreSQL 17.",
        "conflict": "Sources disagree on A1 (wh/kg): 450 Wh/kg or 390 Wh/kg (see Conflicts).",
    }


def test_why_a_chinese_question_is_not_answered_reads_in_chinese() -> None:
    """The gap check's reasons are worded in the report's language, the kind of answer
    too; a reason it has no words for (a model's judgement) stays as it is."""
    said = [
        in_plain_words(gap("unanswered", detail), "", "zh")
        for detail in (
            "no passage names ms-dos",
            "no passage mentions 2024",
            "no passage about it gives a date",
            "the model found no answer",
        )
    ]
    assert said == [
        "没有段落提到 ms-dos。",
        "没有段落提到 2024。",
        "相关段落都没有给出日期。",
        "The model found no answer.",
    ]
    assert reason_in_words("no passage about it gives an answer", LABELS["zh"]) == (
        "相关段落都没有给出答案"
    )
    assert set(UNANSWERED) == {key[4:] for key in LABELS["zh"] if key.startswith("why_")}
    assert set(UNANSWERED) == {key[4:] for key in LABELS["en"] if key.startswith("why_")}


# The README's example, run ---------------------------------------------------------------

README = (ROOT / "README.md").read_text(encoding="utf-8")
runner = CliRunner()


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict[str, object]]:
    """The README's first command, run in process: its question on the example corpus,
    extractive, offline."""
    command = re.search(r'grounded-research "([^"]+)" --corpus examples/solid-state', README)
    assert command is not None, "the README's first command names the example corpus"
    tmp = tmp_path_factory.mktemp("example")
    out, table = tmp / "report.md", tmp / "evidence.json"
    done = runner.invoke(
        cli.app,
        [command[1], "--corpus", str(EXAMPLE_CORPUS), "--out", str(out), "--evidence",
         str(table), "--cache-dir", str(tmp / "cache"), "--data-dir", str(tmp / "data"), "-q"],
    )  # fmt: skip
    assert done.exit_code == 0, done.stderr
    return out.read_text(encoding="utf-8"), json.loads(table.read_text(encoding="utf-8"))


def section(report: str, name: str) -> str:
    return report.split(f"## {name}\n", 1)[1].split("\n## ", 1)[0]


def test_a_limit_the_run_used_up_is_said_in_plain_words(tmp_path: Path) -> None:
    """With no round left to search again for what is missing, the report says so in
    words a reader follows, with the knob's name for whoever runs it."""
    out = tmp_path / "report.md"
    done = runner.invoke(
        cli.app,
        ["What energy density does the Aurora A1 cell reach?", "--corpus",
         str(EXAMPLE_CORPUS), "--out", str(out), "--max-rounds", "0", "--cache-dir",
         str(tmp_path / "cache"), "--data-dir", str(tmp_path / "data"), "-q"],
    )  # fmt: skip
    assert done.exit_code == 0, done.stderr
    unresolved = section(out.read_text(encoding="utf-8"), "Unresolved")
    assert "The run used up its rounds of searching again for what is missing (max_rounds)" in (
        unresolved
    )
    assert "short: max_rounds" not in unresolved


def test_the_readme_quotes_what_the_example_report_says(
    example: tuple[str, dict[str, object]],
) -> None:
    report, _ = example
    paragraph = next(p for p in README.split("\n\n") if p.startswith("The report answers"))
    quotes = [" ".join(q.split()) for q in re.findall(r'"([^"]+)"', paragraph)]
    assert len(quotes) >= 3
    flat = " ".join(report.split())
    for quote in quotes:
        assert quote in flat, quote
    for name in re.findall(r"\*([A-Z][\w ]*)\*", paragraph):
        assert f"\n## {name}\n" in report, name


def test_an_answer_the_sources_disagree_on_gives_each_side_latest_first(
    example: tuple[str, dict[str, object]],
) -> None:
    """The answer line quoted the 2024 plan for 2025 while a 2026 article says 2027:
    the answer says the sources disagree and quotes each side, the most recent first."""
    report, _ = example
    answer = section(report, "Answer")
    quotes = re.findall(r"^- “(.*)” \[\d+\]$", answer, re.MULTILINE)

    assert "The sources disagree; the most recent first (see Conflicts)." in answer
    assert quotes[0].endswith("to 2027") and quotes[1].endswith("in 2025.")


def test_the_example_report_reads_cleanly(example: tuple[str, dict[str, object]]) -> None:
    report, table = example
    references = table["references"]
    assert isinstance(references, list)
    numbers = {r["number"]: r["source_id"] for r in references}
    documents = {r["source_id"] for r in references}
    listed = re.findall(r"^\[(\d+)\] ", section(report, "References"), re.MULTILINE)
    assert len(listed) == len(numbers) == len(documents) > 1  # one reference per document
    assert len(references) > len(documents)  # with several spans under some

    quotes = re.findall(r"^- “(.*)” \[\d+\]$", report, re.MULTILINE)
    assert quotes and not [q for q in quotes if "|" in q or "\\_" in q or q.startswith("- ")]
    claims = table["claims"]
    assert isinstance(claims, list) and {c["verdict"] for c in claims} == {"supported"}

    unresolved = section(report, "Unresolved")
    question = report.splitlines()[0].removeprefix("# ")
    assert unresolved.strip() and question not in unresolved
    for internal in ("independent source(s)", "not covered:", " vs ", "short: max_rounds"):
        assert internal not in unresolved

    conflicts = section(report, "Conflicts")
    assert "| value | source | date |" in conflicts
    assert re.search(
        r"^\| 450 Wh/kg \| \[\d+\] press/aurora-pilot-line\.md \| 2024", conflicts, re.M
    )
