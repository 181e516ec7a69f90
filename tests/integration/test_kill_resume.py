"""A run killed with SIGKILL in the middle of research resumes on its thread: completed
steps (and completed parallel branches) are not run again, and no evidence is lost."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

from tests.servers import Request, serve, tavily_route

QUESTION = "Where is Norvik Cells based, and what does the Zorbit gizmo cost?"
SLOW_QUERY = "what does the Zorbit gizmo cost"
PAGES = {
    "norvik": "Norvik Cells is based in Oslo, Norway, and makes the N2 solid-state cell.",
    "zorbit": "The Zorbit gizmo costs 40 euros in shops across Norway since March 2026.",
    "oslo": "Oslo is the capital of Norway; several battery makers are based there.",
}

RUN = textwrap.dedent(
    """
    import json, sys
    from grounded_research import research
    result = research(
        sys.argv[1], thread_id=sys.argv[2], checkpointer=sys.argv[3],
        retrievers="tavily", tavily_base_url=sys.argv[4], cache_dir=sys.argv[5],
        max_rounds=1,
    )
    print(json.dumps({"status": result.status, "evidence": sorted(result.evidence),
                      "search_calls": result.usage.search_calls}))
    """
)


def results(query: dict[str, Any]) -> list[dict[str, Any]]:
    text = query["query"].lower()
    return [
        {
            "title": name,
            # raw_content is given, so the page is never fetched (127.0.0.1:9 would refuse)
            "url": f"http://127.0.0.1:9/{name}",
            "content": content,
            "score": 0.9,
            "raw_content": content,
        }
        for name, content in PAGES.items()
        if any(word in content.lower() for word in text.split() if len(word) > 3)
    ]


def delayed(delay_slow: float) -> Any:
    fast = tavily_route(results)
    slow = tavily_route(results, delay=delay_slow)

    def route(request: Request) -> Any:
        query = json.loads(request.body)["query"]
        return (slow if query.startswith(SLOW_QUERY) else fast)(request)

    return route


def queries(server: Any) -> list[str]:
    return [json.loads(r.body)["query"] for r in server.requests if r.path == "/search"]


def start(args: list[str]) -> subprocess.Popen[str]:
    env = {**os.environ, "TAVILY_API_KEY": "tvly-test"}
    return subprocess.Popen(
        [sys.executable, "-c", RUN, *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def test_killed_run_resumes_without_repeating_work_or_losing_evidence(tmp_path: Path) -> None:
    checkpoints = str(tmp_path / "runs.sqlite")
    cache = str(tmp_path / "cache")

    with serve({"/search": delayed(delay_slow=120)}) as server:
        process = start([QUESTION, "killed", checkpoints, server.url(""), cache])
        deadline = time.monotonic() + 60
        while SLOW_QUERY not in [q[: len(SLOW_QUERY)] for q in queries(server)]:
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "the slow branch never started"
            time.sleep(0.05)
        time.sleep(1.5)  # the fast branches finish and their writes are checkpointed
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        before_kill = queries(server)
    assert QUESTION in before_kill and any(q.startswith("Where is Norvik") for q in before_kill)

    with serve({"/search": delayed(delay_slow=0)}) as server:
        resumed = start([QUESTION, "killed", checkpoints, server.url(""), cache])
        out, err = resumed.communicate(timeout=120)
        assert resumed.returncode == 0, err
        after_kill = queries(server)
        reference = start([QUESTION, "fresh", checkpoints, server.url(""), cache])
        fresh_out, fresh_err = reference.communicate(timeout=120)
        assert reference.returncode == 0, fresh_err

    finished, fresh = json.loads(out), json.loads(fresh_out)
    # completed work is not repeated: neither the initial search nor the fast branch
    assert QUESTION not in after_kill
    assert not any(q.startswith("Where is Norvik") and q in before_kill for q in after_kill)
    assert any(q.startswith(SLOW_QUERY) for q in after_kill)
    # and nothing is lost: the resumed run holds every record an uninterrupted run holds
    assert finished["status"] == fresh["status"] == "ok"
    assert finished["evidence"] == fresh["evidence"]
    assert finished["search_calls"] == fresh["search_calls"]
