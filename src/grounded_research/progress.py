"""Progress events for every step: `node_started`, `node_finished` (with a summary) and
the events a node adds (`sources_fetched`, `gaps_found`), sent on LangGraph's `custom`
stream so that Studio, the SDK and the CLI all show the same thing.

Each node says what it reports with `@reports(summary, events)` beside its own code;
`step` times it and sends the events."""

from __future__ import annotations

import functools
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from langgraph.runtime import Runtime
from langgraph.types import Overwrite

from grounded_research.state import Usage

NodeT = TypeVar("NodeT", bound=Callable[..., Awaitable[dict[str, Any]]])
Summary = Callable[[dict[str, Any]], str]
Events = Callable[[str, dict[str, Any]], list[dict[str, Any]]]


def done(update: dict[str, Any]) -> str:
    return "done"


def no_events(node: str, update: dict[str, Any]) -> list[dict[str, Any]]:
    return []


@dataclass(frozen=True)
class Reporting:
    """What a node tells people watching, read off the update it returned (its values
    without `Overwrite` wrappers)."""

    summary: Summary = done
    events: Events = no_events


_REPORTING = "__reporting__"


def reports(summary: Summary, events: Events = no_events) -> Callable[[NodeT], NodeT]:
    """Declare a node's one-line summary and its further events, for `step` to send."""

    def declare(node: NodeT) -> NodeT:
        setattr(node, _REPORTING, Reporting(summary, events))
        return node

    return declare


def step(node: NodeT) -> NodeT:
    """Wrap a node so it reports when it starts and finishes and what it found."""
    name = node.__name__
    reporting = cast(Reporting, getattr(node, _REPORTING, Reporting()))

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
                "summary": reporting.summary(values),
            }
        )
        for event in reporting.events(name, values):
            write(event)
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
