"""`research(question, **options)`: the graph as one call, for scripts and notebooks."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import dataclass, fields
from typing import Any, cast

from langchain_core.language_models import BaseChatModel
from langgraph.types import Command

from grounded_research.checkpointing import default_data_dir, open_checkpointer
from grounded_research.configuration import Context, default_cache_dir
from grounded_research.errors import InputError
from grounded_research.models import use_chat_model
from grounded_research.state import Evidence, InputState, OutputState, Source


@dataclass(kw_only=True)
class ResearchResult(OutputState):
    """What a run leaves: the graph's output state, with ways to read it. Its `sources`
    and `evidence` are as reported: with selection's verdicts on them (reprints,
    strategy, tier) and the records selection made."""

    @classmethod
    def from_state(cls, values: dict[str, Any]) -> ResearchResult:
        names = set(cls.__dataclass_fields__)
        state = OutputState(**{k: v for k, v in values.items() if k in names})
        return cls(
            **{f.name: getattr(state, f.name) for f in fields(state)}
            | {"sources": state.reported_sources(), "evidence": state.reported_evidence()}
        )

    def reported_sources(self) -> dict[str, Source]:
        return self.sources

    def reported_evidence(self) -> dict[str, Evidence]:
        return self.evidence

    def evidence_table(self) -> dict[str, Any]:
        """What `evidence.json` holds: every record needed to audit the report."""
        return {
            "question": self.question,
            "status": self.status,
            "sub_questions": [sq.model_dump() for sq in self.sub_questions],
            "sources": [s.model_dump() for s in self.sources.values()],
            "evidence": [e.model_dump() for e in self.evidence.values()],
            "context": self.context,
            "further_sources": self.further_sources,
            "references": [r.model_dump() for r in self.references],
            "gaps": [g.model_dump() for g in self.gaps],
            "unresolved": [g.model_dump() for g in self.unresolved],
            "claims": [c.model_dump() for c in self.claims],
            "usage": self.usage.model_dump(),
            "warnings": list(self.warnings),
            "turns": [t.model_dump() for t in self.turns],
            "memory": self.memory.model_dump(),
        }

    def to_json(self) -> str:
        return json.dumps(self.evidence_table(), ensure_ascii=False, indent=2)

    def to_html(self, cache_dir: str | None = None, back_link: str = "") -> str:
        """The report as one self-contained HTML page (what `--html` writes), with the
        snapshots of the cited sources read from `cache_dir` (the default cache when
        None) embedded for the snapshot view."""
        from grounded_research.report.page import render_page
        from grounded_research.retrieval.snapshots import SnapshotStore

        store = SnapshotStore.in_cache(cache_dir or default_cache_dir())
        return render_page(self, store.get, back_link)


@dataclass
class Session:
    """One thread of the graph with its checkpointer: start a question, resume a killed
    or interrupted run, read the state back."""

    graph: Any
    thread_id: str

    @property
    def config(self) -> dict[str, Any]:
        return {"configurable": {"thread_id": self.thread_id}}

    async def exists(self) -> bool:
        """Whether the thread has any checkpoint (a run was started on it)."""
        if self.graph.checkpointer is None:
            return False
        return await self.graph.checkpointer.aget_tuple(self.config) is not None

    async def unfinished(self) -> bool:
        """Whether the thread holds a run that stopped before its end."""
        if self.graph.checkpointer is None:
            return False
        snapshot = await self.graph.aget_state(self.config)
        return bool(snapshot.next)

    async def interrupts(self) -> list[Any]:
        if self.graph.checkpointer is None:
            return []
        snapshot = await self.graph.aget_state(self.config)
        return [i.value for task in snapshot.tasks for i in task.interrupts]

    def stream(
        self, question: str | None, context: Context, resume: Any = None
    ) -> AsyncIterator[Any]:
        """Stream `updates`, `custom` and `values`; `question=None` resumes the thread."""
        if resume is not None:
            payload: Any = Command(resume=resume)
        elif question is None:
            payload = None
        else:
            payload = InputState(question=question)
        return cast(
            AsyncIterator[Any],
            self.graph.astream(
                payload,
                self.config,
                context=context,
                stream_mode=["updates", "custom", "values"],
            ),
        )

    async def values(self) -> dict[str, Any]:
        """The thread's whole state (nothing without a checkpointer)."""
        if self.graph.checkpointer is None:
            return {}
        return dict((await self.graph.aget_state(self.config)).values)

    async def result(self, values: dict[str, Any] | None = None) -> ResearchResult:
        return ResearchResult.from_state(values or await self.values())


@asynccontextmanager
async def open_session(
    thread_id: str | None = None, checkpointer: str = "sqlite", data_dir: str | None = None
) -> AsyncIterator[Session]:
    from grounded_research.graph import builder

    async with open_checkpointer(checkpointer, data_dir or default_data_dir()) as saver:
        graph = builder.compile(checkpointer=saver, name="researcher")
        yield Session(graph=graph, thread_id=thread_id or uuid.uuid4().hex)


async def aresearch(
    question: str,
    *,
    thread_id: str | None = None,
    checkpointer: str = "sqlite",
    data_dir: str | None = None,
    chat_model: BaseChatModel | None = None,
    **options: Any,
) -> ResearchResult:
    """Run the graph on a thread (a new one unless `thread_id` is given); a thread whose
    run stopped part-way is resumed instead of started again. `checkpointer`: "sqlite"
    (in `data_dir`), a .sqlite path, "postgresql://…", "memory" or "none". `chat_model`:
    a LangChain chat model object every step uses instead of `model`."""
    if chat_model is not None:
        with use_chat_model(chat_model):
            return await aresearch(
                question,
                thread_id=thread_id,
                checkpointer=checkpointer,
                data_dir=data_dir,
                **options,
            )
    context = Context.from_mapping(options)
    async with open_session(thread_id, checkpointer, data_dir) as session:
        resume = thread_id is not None and await session.unfinished()
        values: dict[str, Any] = {}
        async for mode, chunk in session.stream(None if resume else question, context):
            if mode == "values":
                values = chunk
        if await session.interrupts():
            raise InputError(
                "the plan awaits approval: resume the thread with the CLI or with "
                "Command(resume=...) on the graph"
            )
        return await session.result(values or None)


def research(question: str, **options: Any) -> ResearchResult:
    """Run the whole graph; options are `Context` fields (corpus=..., max_rounds=...) and
    `thread_id`, `checkpointer`, `data_dir`. Works inside a running event loop (Jupyter)
    too, by running the graph on a thread of its own."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(aresearch(question, **options))
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, aresearch(question, **options)).result()


__all__ = ["ResearchResult", "Session", "aresearch", "open_session", "research"]
