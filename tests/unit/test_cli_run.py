"""The main command's checks before a run: the checkpointer, the thread, the output files.
In process, with the extractive model: no sockets, a run takes a second or two."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from typer.testing import CliRunner

from grounded_research import cli
from grounded_research.checkpointing import checkpointer_kind, open_checkpointer
from grounded_research.errors import ConfigurationError
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
