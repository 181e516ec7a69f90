"""The graph on a real `langgraph dev` server, driven with langgraph-sdk."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import fields
from typing import Any, cast

import pytest
from pydantic import TypeAdapter

from grounded_research.api import ResearchResult
from grounded_research.state import OutputState
from tests.conftest import EXAMPLE_CORPUS
from tests.integration.langgraph_dev import LANGGRAPH, langgraph_dev, toml_string
from tests.servers import Reply, Request, Route, Server, html, serve, slow, tavily_route

langgraph_sdk = pytest.importorskip("langgraph_sdk")
TAVILY_KEY = "tvly-test"
pytestmark = pytest.mark.skipif(not LANGGRAPH.exists(), reason="langgraph-cli not installed")


@pytest.fixture(scope="module")
def web() -> Iterator[Server]:
    """Tavily's API and the web, on a local server the operator's policy names."""
    with web_with_search(article) as server:
        yield server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, web: Server) -> Iterator[str]:
    """`langgraph dev` for an operator who registered the example corpus and lets runs
    search with Tavily (its key in the server's environment) and fetch pages on the
    intranet (the local stand-ins of Tavily and the web are on 127.0.0.1)."""
    folder = tmp_path_factory.mktemp("server")
    policy = f"""
        [corpora]
        solid-state = {toml_string(EXAMPLE_CORPUS)}
        [settings]
        cache_dir = {toml_string(folder / "cache")}
        tavily_base_url = {toml_string(web.url("").rstrip("/"))}
        allow_private_network = true
    """
    with langgraph_dev(folder, policy, {"TAVILY_API_KEY": TAVILY_KEY}) as url:
        yield url


def reported(values: dict[str, Any]) -> ResearchResult:
    """The run as the API reports it, from the JSON state the server returns: its evidence
    is the joined view, with the records selection made (a passage grown by its neighbour,
    cut to key sentences) that the report may cite."""
    names = {f.name for f in fields(OutputState)}
    typed = TypeAdapter(OutputState).validate_python(
        {k: v for k, v in values.items() if k in names}
    )
    return ResearchResult.from_state({name: getattr(typed, name) for name in names})


def test_stream_a_run_read_state_and_history_then_ask_again(server: str) -> None:
    client = langgraph_sdk.get_sync_client(url=server)
    thread = client.threads.create()
    configurable = {"corpus": "solid-state"}  # a name the operator registered

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


def test_a_thread_builds_on_its_research_over_the_server(server: str) -> None:
    """The done-when thread of issue 16 through the SDK: a constraint, its correction,
    then a number that only the first turn's evidence states."""
    client = langgraph_sdk.get_sync_client(url=server)
    thread = client.threads.create()["thread_id"]
    configurable = {"corpus": "solid-state"}
    turns = [
        "What energy density does the Aurora A1 cell reach? Only use sources published after 2025.",
        "Correction: only use sources published after 2023, not after 2025.",
        "What capacity retention did the Aurora A1 cell show after 800 cycles?",
    ]
    states = []
    for question in turns:
        client.runs.wait(
            thread,
            "researcher",
            input={"question": question},
            config={"configurable": configurable},
        )
        states.append(client.threads.get_state(thread)["values"])
    first, second, third = states
    assert "450 Wh/kg" not in first["report"] and "450 Wh/kg" in second["report"]
    assert "replaces “Only use sources published after 2025.” (turn 1)" in second["report"]
    assert third["usage"]["search_calls"] == 0 and third["turns"][-1]["from_memory"]
    found_first = {e["id"] for e in first["evidence"].values() if "88%" in e["text"]}
    answer = third["report"].split("## Answer", 1)[1].split("\n## ", 1)[0]
    numbers = {r["number"]: r["evidence_id"] for r in third["references"]}
    cited = {numbers[int(n)] for n in re.findall(r"\[(\d+)\]", answer)}
    assert "88%" in answer and cited and cited <= found_first
    assert set(first["evidence"]) <= set(third["evidence"])  # earlier ids still there


def test_plan_approval_over_the_server(server: str) -> None:
    client = langgraph_sdk.get_sync_client(url=server)
    thread = client.threads.create()
    configurable = {"corpus": "solid-state", "approve_plan": True}
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
# The caller sends neither `context` nor `config`: its choices are set on an assistant,
# the operator's (Tavily's URL, the intranet, the cache) in the server's policy and
# TAVILY_API_KEY in its environment. The server hands the graph that assistant's context
# as a dict; `RunGraph` makes one RunContext of it for the run, shared by the initial
# search and the `research` branches.

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


def caller_assistant(client: Any, web: Server, page: Route, **limits: object) -> str:
    """What a caller sets once, on an assistant (POST /assistants): its runs then pass no
    context at all. The web answers every page with `page` from now on."""
    cast(AnyPage, web.routes).page = page
    web.requests.clear()
    context = {
        "retrievers": "tavily",
        "tavily_max_results": PAGES_PER_SEARCH,
        "page_cache_days": 0,  # every test fetches its pages itself
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


def test_max_pages_holds_across_parallel_branches_without_context(server: str, web: Server) -> None:
    client = langgraph_sdk.get_sync_client(url=server)
    assistant_id = caller_assistant(client, web, article, max_pages=5)
    result = run_without_context(client, assistant_id)
    searches = web.hits("/search")
    fetched = {r.path for r in page_requests(web)}
    assert len(result["sub_questions"]) >= 3  # the initial search and two branches
    assert searches >= 3 and searches * PAGES_PER_SEARCH > 5
    assert len(fetched) == 5
    assert any("limit of 5 pages" in s["error"] for s in result["sources"].values())


def test_the_deadline_holds_across_parallel_branches_without_context(
    server: str, web: Server
) -> None:
    """Pages that never answer keep the initial search busy until the run's deadline:
    the branches start after it, so none of them may search."""
    client = langgraph_sdk.get_sync_client(url=server)
    deadline = 5.0
    assistant_id = caller_assistant(client, web, slow(60, html("late")), run_deadline=deadline)
    result = run_without_context(client, assistant_id)
    started = [r.at for r in web.requests]
    searches = web.hits("/search")
    assert len(result["sub_questions"]) >= 3
    assert searches == 1  # the initial search's; the branches were refused
    assert max(started) - min(started) < deadline
    assert any("deadline has passed" in w for w in result["warnings"])
