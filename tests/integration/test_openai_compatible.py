"""The whole graph through `langchain-openai` over HTTP, against a local
OpenAI-compatible server that misbehaves like real local models: `<think>` tags, JSON cut
off at the length limit, prose instead of JSON, a request that stalls past the timeout,
and a citation of evidence that does not exist."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from grounded_research.api import ResearchResult
from grounded_research.configuration import Context
from grounded_research.graph import graph
from grounded_research.retrieval.snapshots import SnapshotStore
from grounded_research.state import Evidence, InputState, Reference, Source
from tests.conftest import EXAMPLE_CORPUS
from tests.integration.openai_server import Script, openai_compatible_server

pytestmark = pytest.mark.integration

QUESTION = (
    "When will Aurora Cellworks' Aurora A1 solid-state cells reach series production, "
    "and what energy density do they achieve?"
)
CLI = str(Path(sys.executable).with_name("grounded-research"))
MODEL_NODES = ("planner", "check_gaps", "write_report", "verify_citations")


def assert_citations_resolve(
    report: str,
    references: list[Reference],
    evidence: dict[str, Evidence],
    sources: dict[str, Source],
    cache_dir: str,
) -> None:
    """Every [n] in the report is a reference to evidence that is the snapshot's slice."""
    cited = {int(n) for n in re.findall(r"\[(\d+)\]", report)}
    by_number = {r.number: r for r in references}
    assert cited and cited <= set(by_number)
    store = SnapshotStore.in_cache(cache_dir)
    for number in cited:
        record = evidence[by_number[number].evidence_id]
        snapshot = store.get(sources[record.source_id].sha256)
        assert snapshot[record.start : record.end] == record.text


async def test_graph_streams_over_http_and_survives_bad_output(cache_dir: str) -> None:
    with openai_compatible_server(Script(stall_seconds=5.0)) as (url, script):
        context = Context(
            corpus=str(EXAMPLE_CORPUS),
            cache_dir=cache_dir,
            model="openai:local-model",
            base_url=url,
            model_timeout=2.0,
        )
        streamed: list[str] = []
        values: dict[str, Any] = {}
        async for mode, chunk in graph.astream(
            InputState(question=QUESTION), context=context, stream_mode=["messages", "values"]
        ):
            if mode == "messages":
                message, metadata = chunk
                if metadata.get("langgraph_node") == "write_report":
                    streamed.append(str(message.content))
            else:
                values = chunk

    assert "According to one source" in "".join(streamed)  # the writer's tokens, as they came
    requests = script.requests
    assert all(r.get("stream") for r in requests)
    assert any((r.get("response_format") or {}).get("type") == "json_schema" for r in requests)

    report = values["report"]
    assert "<think>" not in report and "E999" not in report
    assert any("E999" in w for w in values["warnings"])  # removed, and said so
    texts = [sq.text for sq in values["sub_questions"]]
    assert texts[0] == QUESTION and "What energy density do Aurora A1 cells achieve?" in texts
    usage = values["usage"]
    for node in MODEL_NODES:
        assert usage.llm[node].calls > 0 and usage.llm[node].tokens_in > 0, node
        assert usage.llm[node].fallbacks == 0, values["warnings"]
    assert usage.llm["check_gaps"].retries >= 1  # prose instead of JSON: asked again
    assert usage.llm["verify_citations"].retries >= 1  # the stalled request
    assert usage.llm_calls == sum(u.calls for u in usage.llm.values())
    verdicts = {c.note for c in values["claims"] if c.verdict == "supported"}
    assert "model: stated in evidence" in verdicts
    result = ResearchResult.from_state(values)  # evidence with the records selection made
    assert_citations_resolve(
        report, values["references"], result.evidence, result.sources, cache_dir
    )


def test_cli_over_http_with_tool_calls(tmp_path: Path) -> None:
    cache_dir = str(tmp_path / "cache")
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    with openai_compatible_server(Script(stall_seconds=5.0)) as (url, script):
        done = subprocess.run(
            [
                CLI,
                QUESTION,
                "--corpus",
                str(EXAMPLE_CORPUS),
                "--model",
                "openai:any",
                "--base-url",
                url,
                "--structured-output",
                "function_calling",
                "--model-timeout",
                "2",
                "--out",
                str(tmp_path / "report.md"),
                "--evidence",
                str(tmp_path / "evidence.json"),
                "--cache-dir",
                cache_dir,
                "--data-dir",
                cache_dir,
            ],
            capture_output=True,
            text=True,
            timeout=240,
            env=env,
        )
    assert done.returncode == 0, done.stderr
    assert "model: openai:any" in done.stderr and "LLM calls" in done.stderr
    assert any(r.get("tools") and r.get("tool_choice") for r in script.requests)
    report = (tmp_path / "report.md").read_text(encoding="utf-8")
    table = json.loads((tmp_path / "evidence.json").read_text(encoding="utf-8"))
    assert "<think>" not in report and "E999" not in report
    assert set(MODEL_NODES) <= set(table["usage"]["llm"])
    assert table["usage"]["llm_calls"] > 0 and table["usage"]["tokens_out"] > 0
    assert_citations_resolve(
        report,
        [Reference(**r) for r in table["references"]],
        {e["id"]: Evidence(**e) for e in table["evidence"]},
        {s["id"]: Source(**s) for s in table["sources"]},
        cache_dir,
    )


def test_cli_refuses_a_model_without_its_key_before_any_work(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    done = subprocess.run(
        [CLI, QUESTION, "--corpus", str(EXAMPLE_CORPUS), "--model", "openai:gpt-4.1-mini"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**env, "XDG_CACHE_HOME": str(tmp_path)},
    )
    assert done.returncode == 64
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "OPENAI_API_KEY" in lines[0]
    assert not (tmp_path / "grounded-research").exists()  # nothing was indexed
