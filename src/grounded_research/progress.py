"""Progress events for every step: `node_started`, `node_finished` (with a summary),
`sources_fetched` and `gaps_found`, sent on LangGraph's `custom` stream so that Studio,
the SDK and the CLI all show the same thing."""

from __future__ import annotations

import functools
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar, cast

from langgraph.runtime import Runtime
from langgraph.types import Overwrite

from grounded_research.state import Usage

NodeT = TypeVar("NodeT", bound=Callable[..., Awaitable[dict[str, Any]]])
Summary = Callable[[dict[str, Any]], str]


def summarized(summary: Summary) -> Callable[[NodeT], NodeT]:
    """Give a node its own one-line summary of its update, for `node_finished`; a node
    without one is summarised by `summarize`."""

    def declare(node: NodeT) -> NodeT:
        vars(node)["summary"] = summary
        return node

    return declare


def step(node: NodeT) -> NodeT:
    """Wrap a node so it reports when it starts and finishes and what it found."""
    name = node.__name__
    own: Summary | None = getattr(node, "summary", None)

    @functools.wraps(node)
    async def run(state: Any, runtime: Runtime[Any]) -> dict[str, Any]:
        write = runtime.stream_writer
        write({"event": "node_started", "node": name})
        started = time.perf_counter()
        update = await node(state, runtime)
        seconds = round(time.perf_counter() - started, 4)
        update = with_seconds(update or {}, name, seconds)
        values = plain(update)
        write(
            {
                "event": "node_finished",
                "node": name,
                "seconds": seconds,
                "summary": own(values) if own else summarize(name, values),
            }
        )
        if "sources" in values and name in ("initial_search", "research"):
            sources = list(values["sources"].values())
            write(
                {
                    "event": "sources_fetched",
                    "node": name,
                    "fetched": sum(1 for s in sources if s.status == "fetched"),
                    "unusable": sum(1 for s in sources if s.status in ("failed", "blocked")),
                    "locations": [s.location for s in sources][:50],
                }
            )
        if name == "check_gaps":
            write(
                {
                    "event": "gaps_found",
                    "gaps": [
                        {"sub_question_id": g.sub_question_id, "kind": g.kind, "detail": g.detail}
                        for g in values.get("gaps", [])
                    ],
                    "final": "unresolved" in values,
                }
            )
        return update

    return cast(NodeT, run)


def with_seconds(update: dict[str, Any], node: str, seconds: float) -> dict[str, Any]:
    """The node's wall time added to the usage it reports: timed here, once for all."""
    spent = Usage(seconds={node: seconds})
    usage = update.get("usage")
    if isinstance(usage, Overwrite):
        return {**update, "usage": Overwrite(usage.value + spent)}
    return {**update, "usage": usage + spent if usage is not None else spent}


def plain(update: dict[str, Any]) -> dict[str, Any]:
    """The update's values with LangGraph's `Overwrite` wrappers taken off."""
    return {k: v.value if isinstance(v, Overwrite) else v for k, v in update.items()}


def summarize(node: str, update: dict[str, Any]) -> str:
    """One line on what a step did, for people watching a run."""
    if node in ("initial_search", "research"):
        sources = update.get("sources", {}).values()
        unusable = sum(1 for s in sources if s.status in ("failed", "blocked"))
        text = f"{len(update.get('evidence', {}))} passages from {len(sources) - unusable} sources"
        return text + (f", {unusable} unusable" if unusable else "")
    if node == "planner":
        return "; ".join(sq.text for sq in update.get("sub_questions", []))
    if node == "approve_plan":
        edited = update.get("sub_questions")
        return f"{len(edited)} sub-questions" if edited else "plan accepted"
    if node == "check_gaps":
        final = " (final: unresolved)" if "unresolved" in update else ""
        return f"{len(update.get('gaps', []))} gaps{final}"
    if node == "write_report":
        return f"{update.get('status', '')}: {len(update.get('references', []))} references"
    if node == "verify_citations":
        claims = update.get("claims", [])
        supported = sum(1 for c in claims if c.verdict == "supported")
        return f"{supported}/{len(claims)} claims supported by their citations"
    return "done"
