"""What one run of the graph holds, and how each of its nodes reaches it.

A run is one invocation of the compiled graph: a question, or the resume of a thread
that stopped. It holds the limits on searches and fetches in flight, its deadline, its
page budget and the pages it already has (`RunSession`), the local corpus opened and
refreshed once, and the embedder selection ranks with. Every parallel `Send` branch of
the run shares them; none of them outlives the run or sits in a module global.

How a node gets to them. LangGraph 1.x builds one `Runtime` per invocation (in
`Pregel.stream`/`astream`) and hands each task of that invocation a copy of it
(`Runtime.override`); the copies share `runtime.context`, the object given as
`invoke(..., context=...)` (a dict is first turned into the `context_schema` dataclass,
once per invocation). So the runtime context is the one per-run object every node,
branch and router sees, but only when there is one: with no context at all
`runtime.context` is None in every task, and nothing else that is per invocation and
shared by the tasks is ours to use (`execution_info.run_id` is None unless the caller
sets one; `control` is LangGraph's). The LangGraph server (langgraph-api 0.16) always
passes one, the request's context, else its `configurable`, else `{}`; Python callers
often pass none. A caller's `Context` is not per run either: the CLI resumes a thread
with the `Context` it started it with, and a script may run many questions with one.
Resources kept by the identity of such objects (as `id(context)` once did) are split
between the branches of a run without context, and shared by concurrent runs given
one object.

Hence `RunGraph`: the `StateGraph` the research graph is built with. The `stream` and
`astream` of what it compiles to (which `invoke`, `ainvoke`, `astream_events`, the CLI,
`api.research` and the LangGraph server all go through) turn whatever context the
caller gave, a `Context`, a dict of its fields or nothing, into a new `RunContext` for
this invocation: a `Context` with the same values that also holds this run's
`RunResources`. Nodes read knobs with `get_context(runtime)` as before and reach
resources with `resources_of(runtime)`. It is also the one place a served graph
(`server.py`, compiled with a `policy`) hands the caller's values to the operator's
`ServerPolicy`, which refuses the run or gives the `Context` it may have, before the run
holds anything.

So: the branches of a run share one set; a resumed thread (after a kill or a plan
approval) is a new invocation with new resources, whose deadline and page budget
start again (pages fetched before come back from the page cache on disk);
concurrent runs never share. A node called outside this graph (a test handing it a
`Runtime` of its own) gets resources of its own.

Not run state, and so still shared by the process on purpose: the index of an opened
corpus (`retrieval/local.py`), vector files and the loaded embedding model
(`selection/`), caches of files and models that any run may use; and the chat models of
`models.use_chat_model`, the caller's choice for runs started in its scope (see
`models.py`). Chat models named in `Context` hold no run state and are started by the
node that calls them.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Iterator, Mapping
from dataclasses import fields
from pathlib import Path
from typing import Any

from langgraph.graph import StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime

from grounded_research.configuration import Context
from grounded_research.errors import CorpusError
from grounded_research.policy import ServerPolicy
from grounded_research.retrieval.base import Retriever
from grounded_research.retrieval.dense import DenseRetrieval
from grounded_research.retrieval.local import LocalCorpus, open_corpus
from grounded_research.retrieval.registry import build_retrievers
from grounded_research.retrieval.session import RunSession
from grounded_research.selection.embeddings import Embedder, EmbedderUnavailable, build_embedder
from grounded_research.selection.vectors import dense_retrieval


class RunResources:
    """One run's resources: made when the run starts, the corpus and the embedder on
    first use. Thread-safe: nodes open the corpus and embed in worker threads."""

    def __init__(self, context: Context) -> None:
        self.context = context
        self.session = RunSession(context)  # the deadline counts from here
        self._corpus_lock = threading.Lock()
        self._embedder_lock = threading.Lock()
        self._corpus: LocalCorpus | None = None
        self._embedder: Embedder | EmbedderUnavailable | None = None
        self._embedder_built = False

    def corpus(self) -> LocalCorpus:
        """The local corpus, opened and brought up to date with its files once per run
        (with its chunks' vectors when the run retrieves densely)."""
        with self._corpus_lock:
            if self._corpus is None:
                context = self.context
                self._corpus = open_corpus(
                    context.corpus,
                    context.cache_dir,
                    context.chunk_size,
                    dense=self._dense_retrieval() if context.dense_retrieval else None,
                )
            return self._corpus

    def _dense_retrieval(self) -> DenseRetrieval:
        try:
            embedder = self.embedder()
        except EmbedderUnavailable as error:
            raise CorpusError(f"dense retrieval needs an embedder: {error}") from error
        if embedder is None:  # Context refuses it; a caller may have bypassed that
            raise CorpusError("dense retrieval needs an embedder, but embeddings is 'none'")
        return dense_retrieval(embedder)

    def corpus_index(self) -> Path:
        """The folder of the corpus's index (its passages' vectors are kept there too)."""
        return self.corpus().index_dir

    def close(self) -> None:
        """The run is over: nothing it started goes on."""
        self.session.close()

    def retrievers(self) -> list[Retriever]:
        """The configured retrievers on this run's corpus and limits. What a branch gets
        are views: only what it found out itself (pages it fetched, sources it could
        not use) is its own."""
        return build_retrievers(self.context, self.session, self.corpus)

    def embedder(self) -> Embedder | None:
        """The run's embedder (None when embeddings are off); raises
        `EmbedderUnavailable` when it cannot run, every time it is asked."""
        with self._embedder_lock:
            if not self._embedder_built:
                try:
                    self._embedder = build_embedder(
                        self.context.embeddings, self.context.embeddings_base_url
                    )
                except EmbedderUnavailable as error:
                    self._embedder = error
                self._embedder_built = True
            if isinstance(self._embedder, EmbedderUnavailable):
                raise self._embedder
            return self._embedder


class RunContext(Context):
    """The `Context` of one invocation of the graph, holding that run's resources.

    Not a dataclass of its own: its fields are `Context`'s, and `asdict`, `replace`
    and the JSON schema see only those."""

    resources: RunResources

    def __post_init__(self) -> None:
        super().__post_init__()
        self.resources = RunResources(self)

    @classmethod
    def start(
        cls, given: Context | Mapping[str, Any] | None, policy: ServerPolicy | None = None
    ) -> RunContext:
        """A new run with the caller's values: a `Context`, a dict of its fields, or
        None for the defaults; with a `policy`, only what it admits (on top of the
        operator's settings)."""
        if policy is not None:
            given = policy.admit(given)
        elif not isinstance(given, Context):
            given = Context.from_mapping(dict(given or {}))
        return cls(**{f.name: getattr(given, f.name) for f in fields(Context) if f.init})


def resources_of(runtime: Runtime[Context] | None) -> RunResources:
    """The resources of the run this node belongs to."""
    context = None if runtime is None else runtime.context
    if isinstance(context, RunContext):
        return context.resources
    return RunContext.start(context).resources  # a node called outside `RunGraph`


class CompiledRunGraph(CompiledStateGraph[Any, Context, Any, Any]):
    """A compiled graph that starts a new `RunContext` for every invocation, from what
    its `policy` admits when it serves others."""

    def __init__(self, *args: Any, policy: ServerPolicy | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.policy = policy  # an attribute: `Pregel.copy` (the server's) hands it on

    def stream(
        self, *args: Any, context: Context | Mapping[str, Any] | None = None, **kwargs: Any
    ) -> Iterator[Any]:
        return super().stream(*args, context=RunContext.start(context, self.policy), **kwargs)

    async def astream(
        self, *args: Any, context: Context | Mapping[str, Any] | None = None, **kwargs: Any
    ) -> AsyncIterator[Any]:
        """The run's chunks; when it ends, however it ends (a caller that cancels it, as an
        MCP client does), so does every fetch it started."""
        run = RunContext.start(context, self.policy)
        try:
            async for chunk in super().astream(*args, context=run, **kwargs):
                yield chunk
        finally:
            run.resources.close()


class RunGraph(StateGraph[Any, Context, Any, Any]):
    """A `StateGraph` whose compiled graphs give each invocation its own `RunContext`."""

    def compile(
        self, *args: Any, policy: ServerPolicy | None = None, **kwargs: Any
    ) -> CompiledRunGraph:
        """`policy`: the operator's, for a graph that serves others (`server.py`)."""
        compiled = super().compile(*args, **kwargs)
        # as `Pregel.copy` does it, into the subclass
        attributes = {k: v for k, v in vars(compiled).items() if k != "__orig_class__"}
        return CompiledRunGraph(**attributes, policy=policy)
