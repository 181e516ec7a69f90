"""Checkpoints in a real PostgreSQL server (started by .ci/run, or here when it is not)."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from grounded_research import aresearch, open_session
from tests.conftest import EXAMPLE_CORPUS, ROOT

pytest.importorskip("langgraph.checkpoint.postgres")
SCRIPT = ROOT / "scripts" / "postgres.sh"


@pytest.fixture(scope="module")
def postgres_url() -> Iterator[str]:
    if os.environ.get("GR_TEST_POSTGRES_URL"):
        yield os.environ["GR_TEST_POSTGRES_URL"]
        return
    if os.geteuid() != 0 and not shutil.which("initdb"):
        pytest.skip("no PostgreSQL server to start here (set GR_TEST_POSTGRES_URL)")
    folder = tempfile.mkdtemp(prefix="gr-pg-")  # outside pytest's root-only folders
    url = subprocess.run(
        ["bash", str(SCRIPT), "start", folder], capture_output=True, text=True, check=True
    ).stdout.strip()
    yield url
    subprocess.run(["bash", str(SCRIPT), "stop", folder], check=False)
    shutil.rmtree(folder, ignore_errors=True)


def test_run_checkpointed_in_postgres_reads_back_in_a_new_connection(
    postgres_url: str, tmp_path: Path
) -> None:
    options = {"corpus": str(EXAMPLE_CORPUS), "cache_dir": str(tmp_path)}
    question = "Where does Halvard Automotive build the Halvard Estra?"

    async def run() -> None:
        result = await aresearch(
            question, thread_id="pg-thread", checkpointer=postgres_url, **options
        )
        assert result.status == "ok" and "Ostrava" in result.report

        async with open_session("pg-thread", postgres_url) as session:  # a new connection
            assert not await session.unfinished()
            stored = await session.result()
            assert stored.report == result.report
            assert set(stored.evidence) == set(result.evidence)
            history = [s async for s in session.graph.aget_state_history(session.config)]
            assert len(history) >= 6

    asyncio.run(run())
