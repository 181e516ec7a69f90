"""`grounded-research serve` without its socket: the runs it lists and the pages it gives
are read from the checkpointer a run wrote; bad options are one line before it listens."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from typer.testing import CliRunner

from grounded_research import cli
from grounded_research.api import aresearch
from grounded_research.viewer import PastRun, Runs, index_page
from tests.conftest import EXAMPLE_CORPUS

QUESTION = "What energy density does the Aurora A1 reach?"
runner = CliRunner()


def test_the_runs_of_the_checkpointer_are_listed_with_their_pages(tmp_path: Path) -> None:
    data, cache = str(tmp_path / "data"), str(tmp_path / "cache")
    for thread in ("first", "second"):
        asyncio.run(
            aresearch(
                QUESTION,
                thread_id=thread,
                data_dir=data,
                corpus=str(EXAMPLE_CORPUS),
                cache_dir=cache,
                max_rounds=0,
                embeddings="none",
            )
        )
    runs = Runs("sqlite", data, cache)
    listed = asyncio.run(runs.list())
    assert [(r.thread_id, r.question, r.status) for r in listed] == [
        ("second", QUESTION, "ok"),
        ("first", QUESTION, "ok"),
    ]
    page = asyncio.run(runs.page("first"))
    assert page is not None and 'id="ref-1"' in page and 'href="/"' in page
    assert 'class="snapshot-link"' in page  # the snapshots were found in the cache
    assert asyncio.run(runs.page("nosuch")) is None
    assert asyncio.run(Runs("sqlite", str(tmp_path / "empty"), cache).list()) == []


def test_the_list_shows_questions_as_text() -> None:
    hostile = PastRun("a/b?<x>", "<script>alert(1)</script>", "ok", "2026-01-01")
    page = index_page([hostile])
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert 'href="/runs/a%2Fb%3F%3Cx%3E"' in page
    assert "No runs yet" in index_page([])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--checkpointer", "memory"], "error: --checkpointer memory keeps no runs to serve"),
        (["--checkpointer", "sqllite"], "error: unknown checkpointer 'sqllite'"),
        (["--port", "70000"], "error: Invalid value for '--port'"),
    ],
)
def test_bad_options_are_one_line_before_listening(
    tmp_path: Path, args: list[str], message: str
) -> None:
    done = runner.invoke(cli.serve_app, [*args, "--data-dir", str(tmp_path / "data")])
    assert done.exit_code == 64 and done.stdout == ""
    assert done.stderr.startswith(message) and len(done.stderr.splitlines()) == 1, done.stderr
