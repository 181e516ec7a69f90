"""Fan-out benchmark: do parallel research branches really search in parallel?

    python benchmarks/fanout.py                 # 8 sub-questions, 1 s per search
    python benchmarks/fanout.py --branches 16 --delay 0.5

A local server speaking Tavily's wire format answers every search after `--delay`
seconds. A graph fans out one `research` branch per sub-question with LangGraph's
`Send`, exactly as the research graph does, each branch searching with the real
`tavily` retriever. It runs twice: with the default search limit (all branches at
once) and with `search_concurrency=1` (one search at a time, the serial baseline),
and prints both wall times, the most searches the server saw at once, and the ratio.
Nothing leaves 127.0.0.1. It exits 0 whatever the figures: a benchmark, not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from langgraph.graph import END, START, StateGraph  # noqa: E402
from langgraph.types import Send  # noqa: E402

from grounded_research.configuration import Context  # noqa: E402
from grounded_research.nodes.research import research  # noqa: E402
from grounded_research.state import InputState, ResearchTask, State, SubQuestion  # noqa: E402
from tests.servers import Request, Server, serve, tavily_route  # noqa: E402

KEY = "tvly-benchmark"


class InFlight:
    """Counts the searches the server is answering at the same moment."""

    def __init__(self) -> None:
        self.now = 0
        self.peak = 0
        self.lock = threading.Lock()

    def wrap(self, route: Any) -> Any:
        def counted(request: Request) -> Any:
            with self.lock:
                self.now += 1
                self.peak = max(self.peak, self.now)
            try:
                return route(request)
            finally:
                with self.lock:
                    self.now -= 1

        return counted


def results(query: dict[str, Any]) -> list[dict[str, Any]]:
    text = f"# {query['query']}\n\nA page about {query['query']}, found by the search server."
    slug = abs(hash(query["query"]))
    return [{"url": f"https://pages.example/{slug}", "title": query["query"], "content": text,
             "score": 0.9, "raw_content": text}]  # fmt: skip


def fan_out_graph() -> Any:
    def branches(state: State) -> list[Send]:
        return [
            Send("research", ResearchTask(sub_question=sq, queries=sq.queries))
            for sq in state.sub_questions
        ]

    def plan(state: State) -> dict[str, Any]:
        return {"sub_questions": SUB_QUESTIONS}

    builder = StateGraph(State, input_schema=InputState, context_schema=Context)
    builder.add_node("plan", plan)
    builder.add_node("research", research, input_schema=ResearchTask)  # type: ignore[call-overload]
    builder.add_edge(START, "plan")
    builder.add_conditional_edges("plan", branches, ["research"])
    builder.add_edge("research", END)
    return builder.compile()


SUB_QUESTIONS: list[SubQuestion] = []


async def one_run(server: Server, cache_dir: str, concurrency: int) -> tuple[float, int, int]:
    context = Context(
        retrievers="tavily",
        tavily_base_url=server.url("").rstrip("/"),
        cache_dir=cache_dir,
        search_concurrency=concurrency,
        search_timeout=120.0,
    )
    started = time.perf_counter()
    values = await fan_out_graph().ainvoke(InputState(question="fan-out"), context=context)
    wall = time.perf_counter() - started
    found = sum(1 for source in values["sources"].values() if source.status == "fetched")
    for warning in values["warnings"]:
        print(f"  warning: {warning}")
    return wall, int(values["usage"].search_calls), found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--branches", type=int, default=8)
    parser.add_argument("--delay", type=float, default=1.0, help="seconds per search answer")
    args = parser.parse_args()
    os.environ["TAVILY_API_KEY"] = KEY
    SUB_QUESTIONS[:] = [
        SubQuestion(id=f"q{i}", text=f"topic {i}", queries=[f"solid-state topic {i}"])
        for i in range(1, args.branches + 1)
    ]
    print(
        f"fan-out: {args.branches} sub-questions, one search each; "
        f"the search server answers after {args.delay:g} s"
    )
    figures: dict[int, float] = {}
    for concurrency in (Context().search_concurrency, 1):
        counter = InFlight()
        route = counter.wrap(tavily_route(results, api_key=KEY, delay=args.delay))
        with serve({"/search": route}) as server, tempfile.TemporaryDirectory() as cache:
            wall, calls, found = asyncio.run(one_run(server, cache, concurrency))
        figures[concurrency] = wall
        print(
            f"  search_concurrency={concurrency:<3} wall {wall:6.2f} s  "
            f"{calls} searches, {found} pages, at most {counter.peak} at once on the server"
        )
    parallel, serial = figures[Context().search_concurrency], figures[1]
    print(f"  ideal: {args.delay:g} s parallel, {args.branches * args.delay:g} s serial")
    print(f"ratio serial / parallel: {serial / parallel:.1f}x")


if __name__ == "__main__":
    main()
