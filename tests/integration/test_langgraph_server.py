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
from contextlib import contextmanager
from dataclasses import fields
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import TypeAdapter

from grounded_research.api import ResearchResult
from grounded_research.state import OutputState
from tests.conftest import EXAMPLE_CORPUS, ROOT
from tests.servers import Reply, Request, Route, Server, html, serve, slow, tavily_route

langgraph_sdk = pytest.importorskip("langgraph_sdk")
TAVILY_KEY = "tvly-test"
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
        "TAVILY_API_KEY": TAVILY_KEY,  # the operator's key: runs may search with Tavily
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


def reported(values: dict[str, Any]) -> ResearchResult:
    """The run as the API reports it, from the JSON state the server returns: its evidence
    is the joined view, with the records selection made (a passage grown by its neighbour,
    cut to key sentences) that the report may cite."""
    names = {f.name for f in fields(OutputState)}
    typed = TypeAdapter(OutputState).validate_python(
        {k: v for k, v in values.items() if k in names}
    )
    return ResearchResult.from_state({name: getattr(typed, name) for name in names})


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
    assert cited and cited <= set(reported(state).evidence)

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


# -- a run's limits hold across its parallel branches, with no context passed -------
# The caller sends neither `context` nor `config`: what it cannot set, the operator has
# set on an assistant (and TAVILY_API_KEY in the server's environment). The server
# hands the graph that assistant's context as a dict; `RunGraph` makes one RunContext
# of it for the run, shared by the initial search and the `research` branches.

SPLIT_QUESTION = (
    "Where is the Halvard Estra built, and what energy density does the Aurora A1 reach?"
)
PAGES_PER_SEARCH = 4


class AnyPage(dict[str, Route]):
    """Routes, plus one page at every path under /page/."""

    def __init__(self, routes: dict[str, Route], page: Route) -> None:
        super().__init__(routes)
        self.page = page

    def get(self, path: str, default: Any = None) -> Any:
        return self.page if path.startswith("/page/") else super().get(path, default)


@contextmanager
def web_with_search(page: Route) -> Iterator[Server]:
    """Tavily's API and the web on one local server: every search finds pages of its
    own (without their text, so they are fetched), each answered by `page`."""
    holder: list[Server] = []

    def results(query: dict[str, Any]) -> list[dict[str, Any]]:
        slug = "-".join(str(query["query"]).lower().split())[:60]
        return [
            {"url": holder[0].url(f"/page/{slug}/{n}"), "title": f"{slug} {n}", "content": ""}
            for n in range(PAGES_PER_SEARCH)
        ]

    routes = AnyPage({"/search": tavily_route(results, api_key=TAVILY_KEY)}, page)
    with serve(routes) as server:
        holder.append(server)
        yield server


def operator_assistant(client: Any, web: Server, tmp_path: Path, **limits: object) -> str:
    """What the operator sets once, on an assistant (POST /assistants): the caller's
    runs then pass no context at all."""
    context = {
        "retrievers": "tavily",
        "tavily_base_url": web.url("").rstrip("/"),
        "tavily_max_results": PAGES_PER_SEARCH,
        "allow_private_network": True,  # the pages are on 127.0.0.1
        "cache_dir": str(tmp_path / "cache"),
        "embeddings": "none",
        "max_rounds": 0,
        **limits,
    }
    assistant = client.assistants.create("researcher", context=context)
    return str(assistant["assistant_id"])


def run_without_context(client: Any, assistant_id: str) -> dict[str, Any]:
    thread = client.threads.create()
    result = client.runs.wait(thread["thread_id"], assistant_id, input={"question": SPLIT_QUESTION})
    assert isinstance(result, dict) and "__error__" not in result, result
    return result


def page_requests(web: Server) -> list[Request]:
    return [r for r in web.requests if r.path.startswith("/page/")]


def article(request: Request) -> Reply:
    return html(f"<h1>{request.path}</h1><p>The Halvard Estra is built in Ostrava.</p>")


def test_max_pages_holds_across_parallel_branches_without_context(
    server: str, tmp_path: Path
) -> None:
    client = langgraph_sdk.get_sync_client(url=server)
    with web_with_search(article) as web:
        assistant_id = operator_assistant(client, web, tmp_path, max_pages=5)
        result = run_without_context(client, assistant_id)
        searches = web.hits("/search")
        fetched = {r.path for r in page_requests(web)}
    assert len(result["sub_questions"]) >= 3  # the initial search and two branches
    assert searches >= 3 and searches * PAGES_PER_SEARCH > 5
    assert len(fetched) == 5
    assert any("limit of 5 pages" in s["error"] for s in result["sources"].values())


def test_the_deadline_holds_across_parallel_branches_without_context(
    server: str, tmp_path: Path
) -> None:
    """Pages that never answer keep the initial search busy until the run's deadline:
    the branches start after it, so none of them may search."""
    client = langgraph_sdk.get_sync_client(url=server)
    deadline = 5.0
    with web_with_search(slow(60, html("late"))) as web:
        assistant_id = operator_assistant(client, web, tmp_path, run_deadline=deadline)
        result = run_without_context(client, assistant_id)
        started = [r.at for r in web.requests]
        searches = web.hits("/search")
    assert len(result["sub_questions"]) >= 3
    assert searches == 1  # the initial search's; the branches were refused
    assert max(started) - min(started) < deadline
    assert any("deadline has passed" in w for w in result["warnings"])
