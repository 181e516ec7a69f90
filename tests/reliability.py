"""docs/reliability.md: every fault and bad input the tests try, with what they observed.

The tests write that file, nobody else. Each case below is tried by one test (the fault
matrix in tests/integration/test_fault_matrix.py, the storage faults and the property
tests under tests/unit), which describes what it saw in one line and hands it to
`observed`. Normally the line must equal the committed row, so a changed outcome fails
the test that saw it; with RELIABILITY_UPDATE=1 the row is written instead:

    RELIABILITY_UPDATE=1 pytest tests/unit/test_bad_input.py tests/unit/test_storage_faults.py \\
        tests/integration/test_fault_matrix.py

`tests/unit/test_reliability_doc.py` fails when a case has no row or the file is not
what `render` makes of its rows (a hand edit).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

DOC = Path(__file__).resolve().parents[1] / "docs" / "reliability.md"
UPDATE = "RELIABILITY_UPDATE"
NOT_OBSERVED = "(not observed yet)"


@dataclass(frozen=True)
class Case:
    key: str
    fault: str
    test: str


GROUPS: dict[str, list[Case]] = {}


def _case(group: str, key: str, fault: str, test: str) -> None:
    GROUPS.setdefault(group, []).append(Case(key, fault, test))


MATRIX = "tests/integration/test_fault_matrix.py"
STORAGE = "tests/unit/test_storage_faults.py"
INPUT = "tests/unit/test_bad_input.py"
CORPUS = "tests/unit/test_corpus_sources.py"

for key, fault in [
    ("search.timeout", "answers after `search_timeout`"),
    ("search.429", "429 with `Retry-After: 1` to every request"),
    ("search.429_once", "429 with `Retry-After: 1` once, then results"),
    ("search.500", "500"),
    ("search.malformed", "200 with malformed JSON"),
    ("search.empty", "200 with no results"),
]:
    _case("Search API (Tavily wire format)", key, fault, MATRIX)
for key, fault in [
    ("fetch.timeout", "answers after `fetch_timeout`"),
    ("fetch.reset", "connection reset before an answer"),
    ("fetch.truncated", "body shorter than its Content-Length"),
    ("fetch.content_type", "`application/octet-stream`"),
    ("fetch.10mb", "a 10 MB text page (`max_page_bytes` 1 MB)"),
    ("fetch.encoding", "declared UTF-8, holds invalid bytes"),
]:
    _case("Page fetch (`urls` retriever)", key, fault, MATRIX)
for key, fault in [
    ("model.timeout", "every request stalls past `model_timeout`"),
    ("model.refusal", "every answer a refusal"),
    ("model.empty", "every answer empty"),
    ("model.invalid_json.planner", "the planner's answer is not JSON"),
    ("model.invalid_json.gaps", "the gap check's answer is not JSON"),
    ("model.invalid_json.verifier", "the verifier's answer is not JSON"),
]:
    _case("Model (OpenAI-compatible server)", key, fault, MATRIX)
for key, fault in [
    ("storage.snapshots_readonly", "snapshot folder not writable"),
    ("storage.index_disk_full", "disk full while the index is written"),
    ("storage.file_vanishes", "a corpus file removed after indexing"),
    ("storage.file_and_snapshot_vanish", "a corpus file and its snapshot removed after indexing"),
]:
    _case("Storage and corpus files", key, fault, STORAGE)
_case("Storage and corpus files", "corpus.decode_note", "a cp1252 file in the corpus", CORPUS)
_case("Storage and corpus files", "corpus.id_clash", "one .jsonl id in two files", CORPUS)
for key, fault in [
    ("budget.max_rounds", "gaps left when `max_rounds` is 0"),
    ("budget.max_searches", "`max_searches` 2"),
    ("budget.max_pages", "`max_pages` 1 of 3 URLs"),
    ("budget.run_deadline", "`run_deadline` 1 s, the search API answers in 5 s"),
    ("budget.token_budget", "`token_budget` 20"),
]:
    _case("Budgets", key, fault, MATRIX)
for key, fault in [
    ("input.question", "any question text (hypothesis)"),
    ("input.configuration", "any value for any knob (hypothesis)"),
    ("input.dataset", "any dataset file (hypothesis)"),
    ("input.jsonl", "any JSONL corpus file (hypothesis)"),
]:
    _case("Bad input", key, fault, INPUT)

CASES = {case.key: case for cases in GROUPS.values() for case in cases}


def recorded(text: str | None = None) -> dict[str, str]:
    """The outcome each case's row holds."""
    if text is None:
        text = DOC.read_text(encoding="utf-8") if DOC.exists() else ""
    outcomes: dict[str, str] = {}
    for line in text.splitlines():
        cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        if len(cells) == 4 and cells[0].startswith("`") and cells[0].strip("`") in CASES:
            outcomes[cells[0].strip("`")] = cells[2]
    return outcomes


def render(outcomes: dict[str, str]) -> str:
    lines = [
        "# Reliability: faults and bad input",
        "",
        "Every fault and bad input the tests try, with the outcome they observed. Generated "
        "by the tests (`tests/reliability.py`), not written by hand: a test fails when what "
        "it sees differs from its row here. After a deliberate change, regenerate with",
        "",
        "```",
        f"{UPDATE}=1 pytest tests/unit/test_bad_input.py tests/unit/test_storage_faults.py \\",
        f"    {CORPUS} {MATRIX}",
        "```",
        "",
        "Every run below finishes: `status` is the run's, `sources` counts what became of "
        "each source, `usage` is what the evidence table records, and `report` says what "
        "the report's Unresolved section names. Ports and folders are written as HOST "
        "and TMP.",
    ]
    for group, cases in GROUPS.items():
        lines += ["", f"## {group}", "", "| Case | Fault | Observed outcome | Test |"]
        lines.append("| --- | --- | --- | --- |")
        for case in cases:
            outcome = outcomes.get(case.key, NOT_OBSERVED).replace("|", "\\|")
            lines.append(f"| `{case.key}` | {case.fault} | {outcome} | `{case.test}` |")
    return "\n".join(lines) + "\n"


def observed(key: str, outcome: str) -> None:
    """Check `outcome` against the committed row of case `key`, or write it there."""
    assert key in CASES, f"{key} is not a case of tests/reliability.py"
    outcome = " ".join(outcome.split())
    outcomes = recorded()
    if os.environ.get(UPDATE):
        outcomes[key] = outcome
        DOC.write_text(render(outcomes), encoding="utf-8")
        return
    assert outcomes.get(key) == outcome, (
        f"docs/reliability.md is out of date for {key}: observed {outcome!r}; "
        f"if that is intended, regenerate it with {UPDATE}=1"
    )


def plain(text: str, *folders: str | Path) -> str:
    """`text` without what changes from run to run: loopback ports and temporary
    folders."""
    text = re.sub(r"127\.0\.0\.1:\d+", "HOST", text)
    for folder in folders:
        text = text.replace(str(folder), "TMP")
    return " ".join(text.split())
