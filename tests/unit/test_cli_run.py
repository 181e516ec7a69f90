"""What the commands check before a run (the checkpointer, the thread, the output files)
and how they write their outputs. In process, with the extractive model: no sockets, a
run takes a second or two."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from grounded_research import cli, cli_outputs
from grounded_research.checkpointing import checkpointer_kind, open_checkpointer
from grounded_research.errors import ConfigurationError
from grounded_research.evaluation import cli as eval_cli
from tests.conftest import EXAMPLE_CORPUS

runner = CliRunner()
QUESTION = "What energy density does the Aurora A1 reach?"


def run(tmp_path: Path, *args: str) -> tuple[int, str, str]:
    common = ["--corpus", str(EXAMPLE_CORPUS), "--cache-dir", str(tmp_path / "cache")]
    done = runner.invoke(cli.app, [*args, *common, "--data-dir", str(tmp_path / "data")])
    return done.exit_code, done.stdout, done.stderr


@pytest.mark.parametrize(
    ("spec", "kind"),
    [
        ("sqlite", "sqlite"),
        ("", "sqlite"),
        ("memory", "memory"),
        ("none", "none"),
        ("postgresql://u@db/x", "postgres"),
        ("postgres://u@db/x", "postgres"),
        ("runs/checkpoints.sqlite", "sqlite file"),
        ("~/runs.sqlite3", "sqlite file"),
        ("runs.db", "sqlite file"),
    ],
)
def test_the_checkpointer_values_the_readme_names(spec: str, kind: str) -> None:
    assert checkpointer_kind(spec) == kind


@pytest.mark.parametrize("spec", ["sqllite", "redis://host/0", "postgresql", "runs.json", "."])
def test_an_unknown_checkpointer_is_refused_and_creates_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spec: str
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigurationError, match="unknown checkpointer"):
        checkpointer_kind(spec)

    async def opened() -> None:
        async with open_checkpointer(spec, str(tmp_path / "data")):
            pass

    with pytest.raises(ConfigurationError):
        asyncio.run(opened())
    code, stdout, stderr = run(tmp_path, QUESTION, "--checkpointer", spec)
    assert code == 64 and stdout == ""
    assert stderr.startswith("error: unknown checkpointer") and len(stderr.splitlines()) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # no file 'sqllite', no cache


def test_an_unknown_thread_without_a_question_is_no_such_thread(tmp_path: Path) -> None:
    code, stdout, stderr = run(tmp_path, "--thread", "nosuch", "-q")
    assert code == 64 and stdout == ""
    assert stderr == "error: no such thread: nosuch\n"


def test_a_finished_thread_without_a_question_asks_for_one(tmp_path: Path) -> None:
    code, _, stderr = run(tmp_path, QUESTION, "--thread", "t1", "-q")
    assert code == 0, stderr
    code, stdout, stderr = run(tmp_path, "--thread", "t1", "-q")
    assert code == 64 and stdout == ""
    assert stderr == "error: thread t1 has finished its run: give a question to ask another\n"


@pytest.mark.parametrize(
    ("outputs", "message"),
    [
        (["--out", "missing/report.md"], "error: --out: folder not found: "),
        (["--evidence", "missing/evidence.json"], "error: --evidence: folder not found: "),
        (["--out", "/proc/report.md"], "error: --out: cannot write in /proc"),
        (["--out", "."], "error: --out: . is a folder"),
        (["--out", "r.md", "--evidence", "r.md"], "error: --out and --evidence are one file: "),
        (["--out", "r.md", "--evidence", "./sub/../r.md"], "error: --out and --evidence are "),
        (["--out", "link.md", "--evidence", "r.md"], "error: --out and --evidence are one"),
        (["--html", "missing/report.html"], "error: --html: folder not found: "),
        (["--html", "."], "error: --html: . is a folder"),
        (["--html", "r.md", "--out", "r.md"], "error: --out and --html are one file: "),
        (["--evidence", "e.json", "--html", "e.json"], "error: --evidence and --html are one"),
    ],
)
def test_outputs_are_checked_before_any_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, outputs: list[str], message: str
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    (tmp_path / "link.md").symlink_to(tmp_path / "r.md")
    code, stdout, stderr = run(tmp_path, QUESTION, *outputs)
    assert code == 64 and stdout == ""
    assert stderr.startswith(message) and len(stderr.splitlines()) == 1, stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.md", "sub"]  # no run, no cache


def test_json_with_out_writes_the_report_there_and_the_table_on_stdout(tmp_path: Path) -> None:
    out = tmp_path / "r.md"
    code, stdout, stderr = run(tmp_path, QUESTION, "--json", "--out", str(out))
    assert code == 0, stderr
    assert json.loads(stdout)["question"] == QUESTION
    assert "## References" in out.read_text(encoding="utf-8")
    assert "│ report " in stderr  # the summary names it, and now it is there


def test_html_writes_the_page_whole_and_names_it_in_the_summary(tmp_path: Path) -> None:
    page = tmp_path / "pages" / "report.html"
    page.parent.mkdir()
    code, stdout, stderr = run(tmp_path, QUESTION, "--html", str(page))
    assert code == 0, stderr
    assert "## References" in stdout  # the report still goes to stdout
    html = page.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and 'id="ref-1"' in html
    assert os.listdir(page.parent) == ["report.html"]
    assert "│ HTML report " in stderr


def test_an_output_through_a_symlink_writes_the_links_target(tmp_path: Path) -> None:
    (tmp_path / "reports").mkdir()
    link = tmp_path / "latest.md"
    link.symlink_to(tmp_path / "reports" / "r.md")
    code, _, stderr = run(tmp_path, QUESTION, "--out", str(link), "-q")
    assert code == 0, stderr
    assert link.is_symlink() and "## References" in link.read_text(encoding="utf-8")
    assert os.listdir(tmp_path / "reports") == ["r.md"]  # written whole: no part left


def test_a_late_write_failure_keeps_the_report_and_says_where(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The folder of --out was fine at the start and refuses the file at the end."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "out").mkdir()
    out, evidence = tmp_path / "out" / "report.md", tmp_path / "evidence.json"
    real_write = cli_outputs.write_atomic

    def refusing(target: Path, data: bytes | str) -> None:
        if target.parent == out.parent:
            raise PermissionError(13, "Permission denied", str(target))
        real_write(target, data)

    monkeypatch.setattr(cli_outputs, "write_atomic", refusing)
    code, stdout, stderr = run(tmp_path, QUESTION, "--out", str(out), "--evidence", str(evidence))
    assert code == 1 and stdout == ""
    [line] = [line for line in stderr.splitlines() if line.startswith("error:")]
    kept = sorted(tmp_path.glob("report-*.md"))
    assert len(kept) == 1 and "## References" in kept[0].read_text(encoding="utf-8")
    assert line == (
        f"error: cannot write --out {out} (Permission denied): written to {kept[0]} instead"
    )
    assert json.loads(evidence.read_text(encoding="utf-8"))["question"] == QUESTION
    assert not out.exists()


def test_with_nowhere_to_write_the_report_goes_to_stdout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full_disk(target: Path, data: bytes | str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(cli_outputs, "write_atomic", full_disk)
    code, stdout, stderr = run(tmp_path, QUESTION, "--out", "r.md", "-q")
    assert code == 1 and "## References" in stdout
    assert stderr == (
        "error: cannot write --out r.md (No space left on device), nor a copy in the "
        "working or temporary folder: the report is on stdout\n"
    )


def run_eval(tmp_path: Path, *args: str) -> tuple[int, str, str]:
    dataset = tmp_path / "set.jsonl"
    dataset.write_text(json.dumps({"id": "a", "question": QUESTION}) + "\n", encoding="utf-8")
    common = ["--corpus", str(EXAMPLE_CORPUS), "--cache-dir", str(tmp_path / "cache"), "-q"]
    done = runner.invoke(eval_cli.app, [str(dataset), *common, *args])
    return done.exit_code, done.stdout, done.stderr


@pytest.mark.parametrize(
    ("out", "message"),
    [
        ("/proc/results.json", "error: --out: cannot write in /proc: "),
        ("set.jsonl", "error: --out and DATASET are one file: set.jsonl"),
        ("missing/results.json", "error: --out: folder not found: "),
    ],
)
def test_eval_checks_out_before_any_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, out: str, message: str
) -> None:
    monkeypatch.chdir(tmp_path)
    code, stdout, stderr = run_eval(tmp_path, "--out", out)
    assert code == 64 and stdout == ""
    assert stderr.startswith(message) and len(stderr.splitlines()) == 1, stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["set.jsonl"]


def test_eval_results_that_cannot_be_written_at_the_end_are_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "out").mkdir()
    out = tmp_path / "out" / "results.json"
    real_write = cli_outputs.write_atomic

    def refusing(target: Path, data: bytes | str) -> None:
        if target.parent == out.parent:
            raise OSError(30, "Read-only file system", str(target))
        real_write(target, data)

    monkeypatch.setattr(cli_outputs, "write_atomic", refusing)
    code, _, stderr = run_eval(tmp_path, "--out", str(out))
    assert code == 1
    [kept] = tmp_path.glob("results-*.json")
    assert json.loads(kept.read_text(encoding="utf-8"))["questions"][0]["id"] == "a"
    assert stderr.strip().splitlines()[-1] == (
        f"error: cannot write --out {out} (Read-only file system): written to {kept} instead"
    )
