"""`grounded-research mcp`: the research agent as a tool of an assistant or an editor, over
the Model Context Protocol (the official `mcp` SDK), on stdio or streamable HTTP.

Its tools: `research` runs the graph and returns the report (text), the evidence table
and the unresolved gaps (structured content), with a progress notification for every
step it finishes; `evidence` and `source` read back one evidence record, or one source
with its snapshot, of a run this server made. A call the client cancels stops its run:
the SDK cancels the call's task, and the graph's searches and fetches with it.

Its callers are not its operator: every call passes the operator's `ServerPolicy`
(`policy.py`), as the LangGraph server's runs do. A caller's corpus is one of the
folders the server was started with, by its name or by a path that lies in one of them
(symlinks resolved), never anything else; the SSRF guard and every other operator-only
knob keep the operator's value; a limit asked above its ceiling is lowered to it, and
the result says so.
"""

from __future__ import annotations

import json
import socket
import sys
import uuid
from collections import OrderedDict
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated, Any

from mcp.server.mcpserver import Context as ToolContext
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent
from pydantic import Field

from grounded_research.api import ResearchResult
from grounded_research.configuration import Context
from grounded_research.errors import GroundedResearchError, InputError
from grounded_research.policy import ServerPolicy
from grounded_research.retrieval.snapshots import SnapshotStore
from grounded_research.state import InputState

KEPT_RUNS = 32
"""Finished runs whose records the `evidence` and `source` tools can read (oldest go)."""
MOST_SNAPSHOT_CHARACTERS = 100_000
"""The most of a snapshot one `source` call returns; ask again from `end` for more."""
INSTRUCTIONS = (
    "Researches a question in the server's document folders (and given web pages) and "
    "returns a report whose every statement quotes a saved source, with its evidence table. "
    "Read one evidence record or source snapshot of a run with `evidence` and `source`."
)


def with_folders(policy: ServerPolicy, folders: list[Path]) -> ServerPolicy:
    """The operator's policy with the folders given on the command line as corpora,
    each named by its last path component; the first is the default corpus when the
    policy has none."""
    corpora = dict(policy.corpora)
    for folder in folders:
        resolved = folder.expanduser().resolve()
        if not resolved.exists():
            raise InputError(f"corpus not found: {folder}")
        name = resolved.name or str(resolved)
        if corpora.get(name, str(resolved)) != str(resolved):
            raise InputError(f"two corpus folders are named {name!r}: rename one")
        corpora[name] = str(resolved)
    settings = policy.settings
    if folders and not settings.corpus:
        settings = replace(settings, corpus=corpora[folders[0].expanduser().resolve().name])
    return replace(policy, corpora=corpora, settings=settings)


@dataclass
class Runs:
    """The finished runs of this server, newest last, at most `KEPT_RUNS`."""

    kept: OrderedDict[str, tuple[ResearchResult, str]]

    def add(self, result: ResearchResult, cache_dir: str) -> str:
        run_id = uuid.uuid4().hex[:12]
        self.kept[run_id] = (result, cache_dir)
        while len(self.kept) > KEPT_RUNS:
            self.kept.popitem(last=False)
        return run_id

    def get(self, run_id: str) -> tuple[ResearchResult, str]:
        if run_id not in self.kept:
            raise ToolError(f"no run {run_id!r} on this server (it keeps the last {KEPT_RUNS})")
        return self.kept[run_id]


class ResearchTools:
    """The tools' work, on the operator's policy and the runs made so far."""

    def __init__(self, policy: ServerPolicy) -> None:
        self.policy = policy
        self.runs = Runs(OrderedDict())

    def policy_for(self, corpus: str) -> ServerPolicy:
        """The policy a call runs under: the server's, with a caller's path into one of
        its folders registered under that path. Anything else is refused here."""
        if not corpus or corpus in self.policy.corpora:
            return self.policy
        folders = sorted(set(self.policy.corpora.values()))
        path = Path(corpus)
        if not path.is_absolute():
            names = ", ".join(sorted(self.policy.corpora)) or "none"
            raise ToolError(
                f"corpus {corpus!r} is neither one of this server's corpora ({names}) nor an "
                "absolute path inside one of them"
            )
        resolved = path.resolve()
        if not any(resolved.is_relative_to(folder) for folder in folders):
            raise ToolError(
                f"corpus {corpus!r} is outside the folders this server may read: "
                + (", ".join(folders) or "none were given")
            )
        if not resolved.exists():
            raise ToolError(f"corpus not found: {corpus}")
        return replace(self.policy, corpora={**self.policy.corpora, corpus: str(resolved)})

    def admit(self, options: dict[str, Any]) -> tuple[Context, list[str]]:
        """The run's `Context` under the policy, and notes on the limits lowered."""
        from grounded_research.cli_options import check_corpus
        from grounded_research.models import check_models

        policy = self.policy_for(options.get("corpus") or "")
        given = {k: v for k, v in options.items() if v is not None and v != ""}
        asked, notes = policy.clamp(given)
        try:
            context = policy.admit(asked)
            if "local" in context.retriever_names and not context.corpus:
                raise InputError("no corpus: this server was started without one; give urls")
            check_models(context)
            check_corpus(context)
        except GroundedResearchError as error:
            raise ToolError(str(error)) from None
        return context, notes

    async def research(
        self, question: str, options: dict[str, Any], ctx: ToolContext[Any, Any]
    ) -> CallToolResult:
        if not question.strip():
            raise ToolError("the question is empty")
        context, notes = self.admit(options)
        from grounded_research.graph import graph

        values: dict[str, Any] = {}
        steps = 0
        async for mode, chunk in graph.astream(
            InputState(question=question), context=context, stream_mode=["custom", "values"]
        ):
            if mode == "values":
                values = chunk
            elif chunk.get("event") == "node_finished":
                steps += 1
                await ctx.report_progress(steps, None, f"{chunk['node']}: {chunk['summary']}")
        result = ResearchResult.from_state(values)
        run_id = self.runs.add(result, context.cache_dir)
        table = result.evidence_table()
        report = result.report or f"no sources found for {question!r}: no report written"
        return CallToolResult(
            content=[TextContent(type="text", text=report)],
            structured_content={
                "run_id": run_id,
                "status": result.status,
                "unresolved": table["unresolved"],
                "evidence_table": table,
                "limits_lowered": notes,
            },
        )

    def evidence(self, run_id: str, evidence_id: str) -> CallToolResult:
        result, _ = self.runs.get(run_id)
        record = result.evidence.get(evidence_id)
        if record is None:
            raise ToolError(f"run {run_id} has no evidence {evidence_id!r}")
        source = result.sources.get(record.source_id)
        return as_result(
            {"evidence": record.model_dump(), "source": source.model_dump() if source else None}
        )

    def source(self, run_id: str, source_id: str, start: int, end: int | None) -> CallToolResult:
        result, cache_dir = self.runs.get(run_id)
        source = result.sources.get(source_id)
        if source is None:
            raise ToolError(f"run {run_id} has no source {source_id!r}")
        if not source.sha256:
            raise ToolError(f"source {source_id} has no snapshot ({source.status})")
        try:
            snapshot = SnapshotStore.in_cache(cache_dir).get(source.sha256)
        except (OSError, ValueError) as error:
            raise ToolError(f"the snapshot of {source_id} cannot be read: {error}") from None
        start = max(0, start)
        stop = len(snapshot) if end is None else min(max(start, end), len(snapshot))
        stop = min(stop, start + MOST_SNAPSHOT_CHARACTERS)
        return as_result(
            {
                "source": source.model_dump(),
                "start": start,
                "end": stop,
                "length": len(snapshot),
                "text": snapshot[start:stop],
            }
        )


def as_result(payload: dict[str, Any]) -> CallToolResult:
    """A tool result carrying `payload` both as structured content and as JSON text (for
    clients that read only text)."""
    text = json.dumps(payload, ensure_ascii=False, indent=1)
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=payload)


def build_server(policy: ServerPolicy) -> MCPServer:
    """The MCP server with its three tools on `policy`."""
    tools = ResearchTools(policy)
    server: MCPServer = MCPServer("grounded-research", instructions=INSTRUCTIONS, log_level="ERROR")
    corpora = ", ".join(sorted(policy.corpora)) or "none"

    @server.tool(
        description="Research a question; the report's every statement cites a verbatim "
        f"passage of a saved source. Corpora on this server: {corpora}."
    )
    async def research(
        question: str,
        ctx: ToolContext[Any, Any],
        corpus: Annotated[
            str,
            Field(description="A corpus name, or an absolute path inside one; '' = default."),
        ] = "",
        urls: Annotated[list[str] | None, Field(description="Web pages to research.")] = None,
        max_rounds: Annotated[int | None, Field(description="Re-search rounds for gaps.")] = None,
        max_sub_questions: Annotated[int | None, Field(description="Sub-questions.")] = None,
        token_budget: Annotated[int | None, Field(description="Evidence tokens.")] = None,
        max_pages: Annotated[int | None, Field(description="Web pages the run may use.")] = None,
        run_deadline: Annotated[
            float | None, Field(description="Seconds before no new search starts.")
        ] = None,
    ) -> CallToolResult:
        options = {
            "corpus": corpus,
            "urls": urls,
            "max_rounds": max_rounds,
            "max_sub_questions": max_sub_questions,
            "token_budget": token_budget,
            "max_pages": max_pages,
            "run_deadline": run_deadline,
        }
        return await tools.research(question, options, ctx)

    @server.tool(description="One evidence record of a run, with its source.")
    def evidence(run_id: str, evidence_id: str) -> CallToolResult:
        return tools.evidence(run_id, evidence_id)

    @server.tool(
        description="One source of a run with its snapshot's text (characters start to end, "
        f"at most {MOST_SNAPSHOT_CHARACTERS} a call); evidence spans index this text."
    )
    def source(
        run_id: str, source_id: str, start: int = 0, end: int | None = None
    ) -> CallToolResult:
        return tools.source(run_id, source_id, start, end)

    return server


def listening_socket(host: str, port: int) -> socket.socket:
    """A socket bound before the server starts, so that a port taken is one clear error and
    port 0 gets a free one that the start line names."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    sock.listen(128)
    sock.setblocking(False)
    return sock


async def serve_http(server: MCPServer, sock: socket.socket, host: str) -> None:
    """Streamable HTTP at /mcp on `sock` until the process is stopped."""
    import uvicorn

    app = server.streamable_http_app(host=host)
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    bound_port = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    print(f"serving MCP on http://{shown}:{bound_port}/mcp (Ctrl-C stops)", file=sys.stderr)
    sys.stderr.flush()
    await uvicorn.Server(config).serve(sockets=[sock])
