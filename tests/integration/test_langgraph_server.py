"""The graph on a real `langgraph dev` server, driven with langgraph-sdk."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import EXAMPLE_CORPUS, ROOT

langgraph_sdk = pytest.importorskip("langgraph_sdk")
LANGGRAPH = Path(sys.executable).with_name("langgraph")
pytestmark = pytest.mark.skipif(not LANGGRAPH.exists(), reason="langgraph-cli not installed")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`langgraph dev` from a temporary copy: the server writes .langgraph_api/ where it runs."""
    folder = tmp_path_factory.mktemp("server")
    shutil.copy(ROOT / "langgraph.json", folder / "langgraph.json")
    shutil.copytree(ROOT / "src", folder / "src", ignore=shutil.ignore_patterns("__pycache__"))
    port = free_port()
    env = {
        **os.environ,
        "LANGGRAPH_CLI_NO_ANALYTICS": "1",
        "LANGGRAPH_NO_VERSION_CHECK": "true",
        "LANGSMITH_TRACING": "false",
    }
    log = (folder / "server.log").open("w")
    process = subprocess.Popen(
        [
            str(LANGGRAPH),
            "dev",
            "--no-reload",
            "--no-browser",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ],
        cwd=folder,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail((folder / "server.log").read_text())
        try:
            if httpx.get(f"{url}/ok", timeout=1).status_code == 200:
                break
        except httpx.HTTPError:
            time.sleep(0.5)
    else:
        process.kill()
        pytest.fail("langgraph dev did not start:\n" + (folder / "server.log").read_text())
    yield url
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
    log.close()


def test_stream_a_run_read_state_and_history_then_ask_again(server: str, tmp_path: Path) -> None:
    client = langgraph_sdk.get_sync_client(url=server)
    thread = client.threads.create()
    configurable = {"corpus": str(EXAMPLE_CORPUS), "cache_dir": str(tmp_path / "cache")}

    seen: dict[str, list[object]] = {"updates": [], "custom": []}
    for part in client.runs.stream(
        thread["thread_id"],
        "researcher",
        input={"question": "Where does Halvard Automotive build the Halvard Estra?"},
        config={"configurable": configurable},
        stream_mode=["updates", "custom"],
    ):
        assert part.event != "error", part.data
        seen.setdefault(part.event, []).append(part.data)

    nodes = {node for update in seen["updates"] for node in update}  # type: ignore[union-attr]
    assert {
        "initial_search",
        "planner",
        "select_context",
        "check_gaps",
        "write_report",
        "verify_citations",
    } <= nodes
    assert seen["custom"], "progress events are streamed"
    events = {event["event"] for event in seen["custom"]}  # type: ignore[index]
    assert {"node_started", "node_finished", "sources_fetched"} <= events

    state = client.threads.get_state(thread["thread_id"])["values"]
    assert state["status"] == "ok"
    assert "Ostrava" in state["report"]
    cited = {r["evidence_id"] for r in state["references"]}
    assert cited and cited <= set(state["evidence"])

    history = client.threads.get_history(thread["thread_id"], limit=100)
    assert len(history) >= 6

    second = client.runs.wait(
        thread["thread_id"],
        "researcher",
        input={"question": "Which company is Norvik Cells' partner?"},
        config={"configurable": configurable},
    )
    assert second["question"] == "Which company is Norvik Cells' partner?"  # type: ignore[index]
    assert "Halvard" in second["report"]  # type: ignore[index]
    after = client.threads.get_state(thread["thread_id"])["values"]
    assert after["question"].startswith("Which company")
    assert all("Estra" not in q["text"] for q in after["sub_questions"])  # a fresh start


def test_plan_approval_over_the_server(server: str, tmp_path: Path) -> None:
    client = langgraph_sdk.get_sync_client(url=server)
    thread = client.threads.create()
    configurable = {
        "corpus": str(EXAMPLE_CORPUS),
        "cache_dir": str(tmp_path / "cache"),
        "approve_plan": True,
    }
    question = "Where is the Halvard Estra built, and what energy density does the Aurora A1 reach?"
    client.runs.wait(
        thread["thread_id"],
        "researcher",
        input={"question": question},
        config={"configurable": configurable},
    )
    waiting = client.threads.get_state(thread["thread_id"])
    [interrupt] = [i for task in waiting["tasks"] for i in task["interrupts"]]
    planned = interrupt["value"]["sub_questions"]
    assert [sq["id"] for sq in planned][:1] == ["q0"] and len(planned) == 3
    assert waiting["values"]["status"] == "pending"

    kept = [{"id": planned[1]["id"], "text": "Which plant builds the Halvard Estra?"}]
    done = client.runs.wait(
        thread["thread_id"],
        "researcher",
        command={"resume": {"sub_questions": kept}},
        config={"configurable": configurable},
    )
    assert done["status"] == "ok"  # type: ignore[index]
    texts = [sq["text"] for sq in done["sub_questions"]]  # type: ignore[index]
    assert texts == [question, "Which plant builds the Halvard Estra?"]
