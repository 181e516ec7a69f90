"""`--retriever mcp`: a tool of a real MCP server (tests/integration/mcp_doc_server.py,
started over stdio) as a source, end to end through the CLI and the API."""

from __future__ import annotations

import json
import re
import shlex
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from grounded_research.api import aresearch
from grounded_research.retrieval.snapshots import SnapshotStore
from tests.integration.test_cli import run

pytestmark = pytest.mark.integration
TOOL_SERVER = f"{shlex.quote(sys.executable)} {Path(__file__).with_name('mcp_doc_server.py')}"
QUESTION = "When will the Aurora A1 cell reach series production, and what density?"


def research(tmp_path: Path, *args: str) -> tuple[int, str, str, dict[str, Any]]:
    evidence, report = tmp_path / "evidence.json", tmp_path / "report.md"
    done = run(
        QUESTION,
        *args,
        "--evidence",
        str(evidence),
        "--out",
        str(report),
        cache_dir=str(tmp_path / "cache"),
    )
    table = json.loads(evidence.read_text(encoding="utf-8")) if evidence.exists() else {}
    text = report.read_text(encoding="utf-8") if report.exists() else ""
    return done.returncode, done.stderr, text, table


def test_a_tool_s_documents_are_sources_whose_citations_resolve(tmp_path: Path) -> None:
    status, stderr, report, table = research(
        tmp_path,
        "--retriever",
        "mcp",
        "--mcp-server",
        TOOL_SERVER,
        "--mcp-tool",
        "search",
        "--allow-mcp-server-start",
        "--max-rounds",
        "0",
    )
    assert status == 0, stderr
    sources = {s["id"]: s for s in table["sources"]}
    assert {s["location"] for s in sources.values()} >= {
        "wiki/aurora-a1-schedule",
        "tickets/QA-1042",
    }
    assert {s["origin"] for s in sources.values()} == {"mcp"}
    evidence = {e["id"]: e for e in table["evidence"]}
    store = SnapshotStore.in_cache(tmp_path / "cache")
    cited = {int(n) for n in re.findall(r"\[(\d+)\]", report)}
    references = {r["number"]: r for r in table["references"]}
    assert cited and cited <= set(references)
    for number in cited:
        record = evidence[references[number]["evidence_id"]]
        snapshot = store.get(sources[record["source_id"]]["sha256"])
        assert snapshot[record["start"] : record["end"]] == record["text"]
    assert "2027" in report and "(mcp)\n- chars" in report


def test_plain_text_answers_are_documents_too(tmp_path: Path) -> None:
    status, stderr, report, table = research(
        tmp_path,
        "--retriever",
        "mcp",
        "--mcp-server",
        TOOL_SERVER,
        "--mcp-tool",
        "search_text",
        "--allow-mcp-server-start",
        "--max-rounds",
        "0",
    )
    assert status == 0, stderr
    assert all(s["location"].startswith("mcp:search_text/") for s in table["sources"])
    assert "2027" in report


def test_without_consent_no_process_is_started(tmp_path: Path) -> None:
    marker = tmp_path / "started"
    status, stderr, _, table = research(
        tmp_path,
        "--retriever",
        "mcp",
        "--mcp-server",
        f"touch {marker}",
        "--mcp-tool",
        "search",
    )
    assert status == 64 and table == {}
    assert stderr.strip().splitlines() == [
        f"error: starting the MCP server 'touch {marker}' needs --allow-mcp-server-start "
        "(it runs as a process with your rights)"
    ]
    assert not marker.exists()


def test_a_failing_tool_is_a_failed_source(tmp_path: Path) -> None:
    status, stderr, _, table = research(
        tmp_path,
        "--retriever",
        "mcp",
        "--mcp-server",
        TOOL_SERVER,
        "--mcp-tool",
        "broken",
        "--allow-mcp-server-start",
        "--max-rounds",
        "0",
    )
    assert status == 2, stderr  # nothing found: no report
    (failed, *_) = table["sources"]
    assert failed["status"] == "failed" and failed["origin"] == "mcp"
    assert failed["location"].startswith("mcp:broken?query=")
    assert "the index is offline" in failed["error"]


async def test_a_tool_that_does_not_answer_in_time_is_a_failed_source(tmp_path: Path) -> None:
    started = time.monotonic()
    result = await aresearch(
        QUESTION,
        checkpointer="none",
        retrievers="mcp",
        mcp_server=TOOL_SERVER,
        mcp_tool="slow",
        allow_mcp_server_start=True,
        search_timeout=3.0,
        max_rounds=0,
        max_sub_questions=1,
        cache_dir=str(tmp_path / "cache"),
    )
    assert time.monotonic() - started < 45
    assert result.status == "no_sources"
    failed = [s for s in result.sources.values() if s.status == "failed"]
    assert failed and all("no answer within 3 s" in s.error for s in failed)
    assert any("mcp search failed" in w for w in result.warnings)
