from __future__ import annotations

from grounded_research.report.citations import (
    UNSUPPORTED_FLAG,
    citation_valid,
    displayed,
    judge,
    split_claims,
)
from grounded_research.state import Evidence

REPORT = f"""# Question

## Findings

- “The Aurora A1 cell reaches 450 Wh/kg.” [1]
- “He said "yes" to the plan.” [2]
- “A claim the verifier flagged.” [3] {UNSUPPORTED_FLAG} (unsupported)
- “A quote of two sentences. It is one claim.” [2]
- Two sentences here. The second one cites [1][2]

## Unresolved

- Nothing here is a claim [9]

## References

[1] a.md — A
"""


def evidence(text: str) -> Evidence:
    return Evidence(
        id="e", source_id="s", sub_question_id="q0", text=text, start=0, end=len(text), score=1.0
    )


def test_claims_keep_inner_quotes_and_their_citations() -> None:
    claims = split_claims(REPORT)
    assert [c.text for c in claims] == [
        "The Aurora A1 cell reaches 450 Wh/kg.",
        'He said "yes" to the plan.',
        "A claim the verifier flagged.",
        "A quote of two sentences. It is one claim.",
        "Two sentences here.",
        "The second one cites",
    ]
    assert [c.citations for c in claims] == [[1], [2], [3], [2], [], [1, 2]]


def test_verbatim_is_supported_numbers_alone_partial_else_unsupported() -> None:
    source = evidence("Tests show the Aurora A1 cell reaches 450 Wh/kg at the cell level.")
    assert judge("the Aurora A1 cell reaches 450 Wh/kg", [source])[0] == "supported"
    assert judge("Aurora A1 delivers 450 Wh/kg", [source])[0] == "partial"
    assert judge("Aurora A1 delivers 390 Wh/kg", [source])[0] == "unsupported"
    assert judge("anything", [])[0] == "unsupported"


def test_citation_validity_needs_every_number_and_name() -> None:
    source = evidence("Shirley Temple served as Chief of Protocol of the United States in 1976.")
    assert citation_valid("Temple was Chief of Protocol in 1976", source)
    assert not citation_valid("Temple was Chief of Protocol in 1977", source)
    assert not citation_valid("Grace Kelly was Chief of Protocol", source)


def test_notes_about_the_report_are_not_claims() -> None:
    from grounded_research.report.citations import note

    line = note("No passage answers this directly.")
    report = f"# Q\n\n## Part\n\n{line}\n- “A claim about the world.” [1]\n"
    assert [c.text for c in split_claims(report)] == ["A claim about the world."]


def test_a_cited_quote_is_a_claim_however_short_a_fragment_of_prose_is_not() -> None:
    # the answer may be a heading's line or a bare default: the report states it, so it
    # is checked and counted as any claim; a short piece of prose is no statement
    report = (
        "# Q\n\n## Answer\n\n- “`readarray` ¶” [1]\n- “**Default:** `2`.” [2]\n\n"
        "## Findings\n\nSee [1].\n- “Too short” \n"
    )
    claims = split_claims(report)
    assert [(c.text, c.citations) for c in claims] == [("readarray ¶", [1]), ("Default: 2.", [2])]


def test_a_quote_with_code_marks_is_verbatim_once_read_off_the_report() -> None:
    """A quoted sentence with no number or name (as often in Chinese) keeps its code and
    bold marks in the evidence; the claim read off the report has lost them."""
    source = evidence("由于这是一个常规优先级的软件，我们将优先级改为 `optional`。")
    quote = "由于这是一个常规优先级的软件，我们将优先级改为 `optional`。"
    report = f"# Q\n\n## 结论\n\n- “{quote}” [1]\n"
    (claim,) = split_claims(report)

    assert judge(claim.text, [source]).verdict == "supported"
    assert citation_valid(claim.text, source)


def test_a_name_next_to_a_code_span_is_read_as_the_claim_reads_it() -> None:
    """Read off the report without its code marks, "`foo`3.0" becomes "foo3.0", whose
    name "foo3" the evidence holds once read without them too."""
    quote = "如果软件包 `foo`3.0 (native) 或 3.0 (quilt)"
    (claim,) = split_claims(f"# Q\n\n## 结论\n\n- “{quote}” [1]\n")

    assert citation_valid(claim.text, evidence(quote))
    assert not citation_valid(claim.text, evidence("如果软件包 `bar`3.0 (native)"))


def test_a_table_row_with_an_escaped_pipe_in_code_verifies() -> None:
    """A row's cell `$unit\\|$job` keeps its escape inside the code span on the page;
    the claim read off the report has lost the code marks, so the escape must be read
    the same way on both sides."""
    row = '| 显示" `$unit\\|$job`"的属性 | " `systemctl show $unit\\|$job`" |'
    source = evidence(f"| 检查 | `systemctl status $unit` |\n{row}")
    (claim,) = split_claims(f"# Q\n\n## 结论\n\n- “{displayed(row)}” [1]\n")

    assert judge(claim.text, [source]).verdict == "supported"


def test_a_quote_shown_as_read_still_verifies_against_its_markdown_evidence() -> None:
    """A quote is shown without the page's list markers and escapes; the verifier and the
    evaluation read the evidence the same way: a hard-wrapped list item is one line (no
    "; " where it wraps) and `SQLITE\\_MAX` is SQLITE_MAX on both sides."""
    source = evidence(
        "Prepended to sys.path:\n\n- `python -m module` command line: prepend the current "
        "working\ndirectory.\n- `python script.py` command line: prepend the script's "
        "directory.\n\nThe maximum is SQLITE\\_MAX\\_VARIABLE\\_NUMBER, which defaults to 999."
    )
    for sentence in (
        "`python -m module` command line: prepend the current working\ndirectory.",
        "The maximum is SQLITE\\_MAX\\_VARIABLE\\_NUMBER, which defaults to 999.",
    ):
        (claim,) = split_claims(f"# Q\n\n## Findings\n\n- “{displayed(sentence)}” [1]\n")
        assert judge(claim.text, [source]).verdict == "supported"
        assert citation_valid(claim.text, source)
    # a sentence break cuts a table row: the piece is read as its cells, like the row
    tip = evidence(
        "|  | Tip |\n|---|---|\n|  | Use screen to keep your jobs running. It saves fees. | \n"
    )
    for sentence in (
        "|  | Use screen to keep your jobs running.",
        "Tip | \n|---|---|\n|  | Use screen to keep your jobs running.",
    ):
        (claim,) = split_claims(f"# Q\n\n## Findings\n\n- “{displayed(sentence)}” [1]\n")
        assert "|" not in claim.text
        assert judge(claim.text, [tip]).verdict == "supported"


def test_a_hard_wrapped_line_opening_with_a_code_number_is_not_a_list_item() -> None:
    """PostgreSQL's pages wrap prose anywhere: a line may open with "`10`.", which is no
    list marker on the page; read without its code marks it looks like item 10, and the
    verifier had dropped the "10." the quote shows."""
    text = (
        "Specifies the maximum number of concurrent connections. The default is\n"
        "        `10`.  The value `0` means\n        replication is disabled."
    )
    (claim,) = split_claims(f"# Q\n\n## Findings\n\n- “{displayed(text)}” [1]\n")

    assert judge(claim.text, [evidence(text)]).verdict == "supported"
    assert citation_valid(claim.text, evidence(text))


def test_a_line_ending_in_a_backslash_keeps_it_when_lines_are_joined() -> None:
    """A shell line continued with "\\" is quoted as written; the items after it are
    joined with "; ", which must not turn the backslash into an escape of ";"."""
    text = "# includes those files.\n#d-i preseed/include_command \\\n#      string if [ -f x ]"
    quote = "#d-i preseed/include_command \\"
    (claim,) = split_claims(f"# Q\n\n## Findings\n\n- “{displayed(quote)}” [1]\n")

    assert judge(claim.text, [evidence(text)]).verdict == "supported"
