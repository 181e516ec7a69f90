"""The CLI end to end, as a user runs it: a real process on the example corpus."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from grounded_research.retrieval.snapshots import SnapshotStore
from tests.conftest import EXAMPLE_CORPUS, write

EXAMPLE_QUESTION = (
    "When will Aurora Cellworks' Aurora A1 solid-state cells reach series production, "
    "and what energy density do they achieve?"
)
CLI = [str(Path(sys.executable).with_name("grounded-research"))]


def run(*args: str, cache_dir: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, *args, "--cache-dir", cache_dir, "--data-dir", cache_dir],
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture(scope="module")
def example_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict, str]:
    folder = tmp_path_factory.mktemp("example")
    cache_dir = str(folder / "cache")
    done = run(
        EXAMPLE_QUESTION,
        "--corpus",
        str(EXAMPLE_CORPUS),
        "--out",
        str(folder / "report.md"),
        "--evidence",
        str(folder / "evidence.json"),
        cache_dir=cache_dir,
    )
    assert done.returncode == 0, done.stderr
    report = (folder / "report.md").read_text(encoding="utf-8")
    table = json.loads((folder / "evidence.json").read_text(encoding="utf-8"))
    return report, table, cache_dir


def test_every_citation_resolves_to_verbatim_evidence(example_run: tuple[str, dict, str]) -> None:
    report, table, cache_dir = example_run
    cited = {int(n) for n in re.findall(r"\[(\d+)\]", report)}
    references = {r["number"]: r for r in table["references"]}
    assert cited and cited <= set(references)
    evidence = {e["id"]: e for e in table["evidence"]}
    sources = {s["id"]: s for s in table["sources"]}
    store = SnapshotStore.in_cache(cache_dir)
    for number in cited:
        record = evidence[references[number]["evidence_id"]]
        source = sources[record["source_id"]]
        snapshot = store.get(source["sha256"])
        assert snapshot[record["start"] : record["end"]] == record["text"]
        if source["location"].endswith((".md", ".txt")):  # the file's own text, unchanged
            own = (EXAMPLE_CORPUS / source["location"]).read_text(encoding="utf-8")
            assert own[record["start"] : record["end"]] == record["text"]
    assert all(c["verdict"] == "supported" for c in table["claims"])


def test_conflict_reprint_and_stale_plan_are_reported(example_run: tuple[str, dict, str]) -> None:
    report, table, _ = example_run
    conflicts = report.split("## Conflicts", 1)[1].split("## Unresolved", 1)[0]
    assert "450 Wh/kg" in conflicts and "390 Wh/kg" in conflicts
    assert "2025" in conflicts and "2027" in conflicts  # the stale plan against the outcome
    duplicates = {s["location"]: s for s in table["sources"] if s["status"] == "duplicate"}
    assert "syndicated/evwire-aurora-pilot-line.md" in duplicates
    assert "## Unresolved" in report and "## References" in report


def test_evidence_table_holds_the_documented_keys(example_run: tuple[str, dict, str]) -> None:
    _, table, _ = example_run
    for key in (
        "question",
        "sub_questions",
        "sources",
        "evidence",
        "gaps",
        "unresolved",
        "claims",
        "usage",
    ):
        assert key in table
    for key in ("id", "location", "title", "status", "sha256", "origin"):
        assert key in table["sources"][0]
    for key in (
        "id",
        "source_id",
        "sub_question_id",
        "text",
        "start",
        "end",
        "score",
        "strategy",
        "round",
    ):
        assert key in table["evidence"][0]


def test_chinese_question_gets_a_chinese_report(tmp_path: Path) -> None:
    done = run(
        "青岚新能源合肥基地一期产能是多少？",
        "--corpus",
        str(EXAMPLE_CORPUS),
        "-q",
        cache_dir=str(tmp_path),
    )
    assert done.returncode == 0, done.stderr
    assert "## 参考来源" in done.stdout
    assert "zh/qinglan-hefei-base.md" in done.stdout


def test_empty_folder_exits_2_with_one_line(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    done = run(
        "What is the capital of Mars?",
        "--corpus",
        str(tmp_path / "empty"),
        "-q",
        cache_dir=str(tmp_path / "cache"),
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1
    assert "no sources" in done.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["  ", "--corpus", str(EXAMPLE_CORPUS)], "question is empty"),
        (["q", "--corpus", "/no/such/folder"], "corpus not found"),
        (["q", "--corpus", str(EXAMPLE_CORPUS / "aurora-delay-2026.md")], "folder or a .jsonl"),
        (["q", "--corpus", str(EXAMPLE_CORPUS), "--max-rounds", "-1"], "max_rounds"),
        (["q", "--corpus", str(EXAMPLE_CORPUS), "--model", "nosuch:x"], "unknown model provider"),
        (["q", "--corpus", str(EXAMPLE_CORPUS), "--model", "gpt-4"], "unknown model"),
    ],
)
def test_bad_input_is_one_clear_line(tmp_path: Path, args: list[str], message: str) -> None:
    done = run(*args, cache_dir=str(tmp_path))
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0]
    assert "Traceback" not in done.stderr


def test_unreadable_file_is_a_failed_source_and_the_run_goes_on(tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    write(root, "good.md", "# Norvik\n\nNorvik Cells is based in Oslo, Norway.\n")
    (root / "broken.pdf").write_bytes(b"%PDF-1.4 garbage")
    evidence = tmp_path / "evidence.json"
    done = run(
        "Where is Norvik Cells based?",
        "--corpus",
        str(root),
        "--evidence",
        str(evidence),
        "-q",
        cache_dir=str(tmp_path / "cache"),
    )
    assert done.returncode == 0, done.stderr
    sources = json.loads(evidence.read_text(encoding="utf-8"))["sources"]
    [broken] = [s for s in sources if s["location"] == "broken.pdf"]
    assert broken["status"] == "failed" and broken["error"]
    assert "Oslo" in done.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["q", "--corpus", str(EXAMPLE_CORPUS), "--bogus"], "No such option: --bogus"),
        (["q", "--corpus", str(EXAMPLE_CORPUS), "--max-rounds", "x"], "'--max-rounds'"),
        (["q", "--corpus", str(EXAMPLE_CORPUS), "--checkpointer", "sqllite"], "checkpointer"),
        (
            ["--corpus", str(EXAMPLE_CORPUS), "--thread", "nosuch", "-q", "--data-dir", "{data}"],
            "no such thread: nosuch",
        ),
        (["q", "--corpus", str(EXAMPLE_CORPUS), "--out", "/no/such/dir/r.md"], "--out: folder"),
        (["eval", "--bogus"], "No such option: --bogus"),
        (["eval"], "Missing argument"),
    ],
)
def test_usage_errors_exit_64_not_2_in_one_line(
    tmp_path: Path, args: list[str], message: str
) -> None:
    """2 is "no sources found"; bad input of any kind is 64, as the README says."""
    here = tmp_path / "here"
    here.mkdir()
    args = [arg.replace("{data}", str(tmp_path / "data")) for arg in args]
    done = subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=120, cwd=here)
    assert done.returncode == 64, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0]
    assert list(here.iterdir()) == []  # no 'sqllite' file, nothing written


def test_odd_file_names_are_one_line_each_in_the_references(tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    root.mkdir()
    text = "# Norvik\n\nNorvik Cells is based in Oslo, Norway.\n"
    (root / "norvik\nnotes\x1b[31m.md").write_text(text, encoding="utf-8")
    latin1_name = os.fsdecode(b"caf\xe9.md")  # not UTF-8: Python holds it with a surrogate
    (root / latin1_name).write_text(text.replace("Oslo", "Oslo, at Fornebu"), encoding="utf-8")
    out, evidence = tmp_path / "report.md", tmp_path / "evidence.json"
    done = run(
        "Where is Norvik Cells based?",
        "--corpus",
        str(root),
        "--out",
        str(out),
        "--evidence",
        str(evidence),
        "-q",
        cache_dir=str(tmp_path / "cache"),
    )
    assert done.returncode == 0, done.stderr
    references = out.read_text(encoding="utf-8").split("## References", 1)[1].strip()
    for entry in references.split("\n\n"):  # one document each: its line, then its spans
        head, *spans = entry.splitlines()
        assert head.startswith("[") and spans
        assert all(re.fullmatch(r"- chars \d+–\d+", span) for span in spans)
    assert "norvik\\nnotes\\x1b[31m.md" in references and "caf\\udce9.md" in references
    table = json.loads(evidence.read_text(encoding="utf-8"))
    store = SnapshotStore.in_cache(str(tmp_path / "cache"))
    sources = {s["id"]: s for s in table["sources"]}
    for record in table["evidence"]:
        snapshot = store.get(sources[record["source_id"]]["sha256"])
        assert snapshot[record["start"] : record["end"]] == record["text"]


def test_a_jsonl_corpus_with_a_repeated_id_keeps_every_quote_verbatim(tmp_path: Path) -> None:
    corpus = tmp_path / "notes.jsonl"
    lines = [
        {"id": "norvik", "text": "Norvik Cells is based in Oslo, Norway."},
        {"id": "norvik", "text": "Norvik Cells moved its base to Bergen."},
        {"id": ["norvik"], "text": "Norvik Cells is based in Trondheim."},
    ]
    corpus.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    evidence = tmp_path / "evidence.json"
    done = run(
        "Where is Norvik Cells based?",
        "--corpus",
        str(corpus),
        "--evidence",
        str(evidence),
        "-q",
        cache_dir=str(tmp_path / "cache"),
    )
    assert done.returncode == 0, done.stderr
    assert "Oslo" in done.stdout and "Bergen" not in done.stdout and "['norvik']" not in done.stdout
    table = json.loads(evidence.read_text(encoding="utf-8"))
    failed = {s["location"]: s["error"] for s in table["sources"] if s["status"] == "failed"}
    assert failed == {
        "notes.jsonl:2": "duplicate id 'norvik' (line 1 has it)",
        "notes.jsonl:3": "'id' must be a string, not an array",
    }
    store = SnapshotStore.in_cache(str(tmp_path / "cache"))
    sources = {s["id"]: s for s in table["sources"]}
    for record in table["evidence"]:
        snapshot = store.get(sources[record["source_id"]]["sha256"])
        assert snapshot[record["start"] : record["end"]] == record["text"]
