"""The `mcp` retriever: a tool of an MCP server (internal search, a wiki, a ticket system)
as a source, with no retriever written for it. Each query calls the tool once; each
document in its answer is snapshotted and its passages ranked for the query like a web
page's, so evidence is a verbatim span of a saved text, with the same ledger.

The server is data, never code: `mcp_server` is a URL (streamable HTTP) or a command line
split into a program and its arguments (`shlex`, no shell), started only with the
operator's consent (`allow_mcp_server_start`), with the MCP SDK's minimal environment
(PATH, HOME and the like: none of the operator's keys). All these knobs are operator-only:
no caller of a served graph can name a server or consent to starting one. A server is
connected to once per query, within the run's search limits, timeout and deadline; a
call that fails, errs or times out becomes a `failed` source naming the tool and query.

What a tool may answer: structured content with a list of documents (under `documents`,
`results` or `result`) or one document; or content blocks, each a document: text (JSON
holding documents, else the text itself), an embedded text resource (its URI is the
location) or a link to an http(s) page (fetched by the guarded fetcher). A document is a
mapping with its text under `text`, `content` or `page_content`, its location under
`url`, `uri`, `id` or `source`, and its title under `title` or `name`; one with a URL and
no text is fetched.
"""

from __future__ import annotations

import asyncio
import json
import shlex
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from grounded_research.configuration import Context
from grounded_research.retrieval.base import SearchHit, SourceProblem
from grounded_research.retrieval.passages import rank_passages
from grounded_research.retrieval.session import RunSession, SearchNotStarted
from grounded_research.retrieval.snapshots import sha256_text
from grounded_research.retrieval.web import WebPage

if TYPE_CHECKING:
    from mcp.types import CallToolResult

TEXT_KEYS = ("text", "content", "page_content")
LOCATION_KEYS = ("url", "uri", "id", "source")
TITLE_KEYS = ("title", "name")
LIST_KEYS = ("documents", "results", "result")


@dataclass(frozen=True)
class ToolDocument:
    """One document a tool returned: its text, or a web page to fetch (`text` empty)."""

    location: str
    title: str
    text: str


def _first(record: dict[str, Any], keys: Iterable[str]) -> str:
    for key in keys:
        value = record.get(key)
        if isinstance(value, str | int) and not isinstance(value, bool) and str(value).strip():
            return str(value).strip()
    return ""


def _is_web(location: str) -> bool:
    return urlsplit(location).scheme in ("http", "https")


def _from_mapping(record: Any) -> ToolDocument | None:
    if not isinstance(record, dict):
        return None
    text, location = _first(record, TEXT_KEYS), _first(record, LOCATION_KEYS)
    if not text and not _is_web(location):
        return None
    return ToolDocument(location, _first(record, TITLE_KEYS), text)


def _from_json(value: Any) -> list[ToolDocument] | None:
    """Documents in a JSON value: a list of them, one, or a mapping holding a list."""
    if isinstance(value, dict):
        for key in LIST_KEYS:
            if isinstance(value.get(key), list):
                return [d for d in map(_from_mapping, value[key]) if d is not None]
        one = _from_mapping(value)
        return [one] if one is not None else None
    if isinstance(value, list):
        return [d for d in map(_from_mapping, value) if d is not None]
    return None


def tool_documents(result: CallToolResult) -> list[ToolDocument]:
    """The documents in a tool's answer (see the module's docstring for the shapes)."""
    if result.structured_content:
        found = _from_json(result.structured_content)
        if found is not None:
            return found
    documents: list[ToolDocument] = []
    for block in result.content:
        kind = getattr(block, "type", "")
        if kind == "text":
            text = str(getattr(block, "text", ""))
            try:
                parsed = _from_json(json.loads(text))
            except ValueError:
                parsed = None
            if parsed is not None:
                documents += parsed
            elif text.strip():
                documents.append(ToolDocument("", "", text))
        elif kind == "resource":
            resource = getattr(block, "resource", None)
            embedded = getattr(resource, "text", None)
            if isinstance(embedded, str) and embedded.strip():
                documents.append(ToolDocument(str(getattr(resource, "uri", "")), "", embedded))
        elif kind == "resource_link":
            uri = str(getattr(block, "uri", ""))
            if _is_web(uri):
                documents.append(ToolDocument(uri, str(getattr(block, "name", "") or ""), ""))
    return documents


def server_target(context: Context) -> Any:
    """What the MCP client connects to: the URL, or the command as a program and its
    arguments (split like a shell line, never given to a shell)."""
    from mcp import StdioServerParameters

    if context.mcp_server_is_url:
        return context.mcp_server.strip()
    program, *arguments = shlex.split(context.mcp_server)
    return StdioServerParameters(command=program, args=arguments)


class McpToolRetriever:
    name = "mcp"

    def __init__(self, context: Context, session: RunSession) -> None:
        self.context = context
        self.session = session
        self.tool = context.mcp_tool
        self.fetches = 0
        self._problems: dict[str, SourceProblem] = {}

    async def search(self, query: str, k: int) -> list[SearchHit]:
        where = f"mcp:{self.tool}?query={query}"
        try:
            result = await self.session.search(lambda: self._call(query))
        except SearchNotStarted:
            raise  # a budget of the run, not a failure of the tool
        except Exception as error:
            problem = f"{type(error).__name__}: {error}".rstrip(": ")
            self._problems[where] = SourceProblem(where, "failed", problem, "mcp")
            raise
        if result.is_error:
            said = " ".join(str(getattr(b, "text", "")) for b in result.content).strip()
            refusal = f"the tool answered with an error: {said[:500] or 'no message'}"
            self._problems[where] = SourceProblem(where, "failed", refusal, "mcp")
            return []
        documents = tool_documents(result)
        pages = await asyncio.gather(*(self._page(document) for document in documents))
        for page in pages:
            if page.status != "fetched":
                self._problems[page.location or page.url] = SourceProblem(
                    page.location or page.url, page.status, page.error, "mcp"
                )
        return rank_passages(pages, query, k, self.context.chunk_size, origin="mcp")

    def problems(self) -> list[SourceProblem]:
        return list(self._problems.values())

    async def _call(self, query: str) -> CallToolResult:
        from mcp import Client

        async with Client(server_target(self.context)) as client:
            return await client.call_tool(self.tool, {self.context.mcp_query_argument: query})

    async def _page(self, document: ToolDocument) -> WebPage:
        if not document.text:  # a link: the page is fetched, guarded, once per run
            page, fetched_here = await self.session.result_page(document.location, document.title)
            if fetched_here and page.downloaded:
                self.fetches += 1
            return page
        text = document.text[: self.context.max_page_bytes]
        digest = sha256_text(text)
        location = document.location or f"mcp:{self.tool}/{digest[:12]}"
        page = WebPage(
            url=location,
            status="fetched",
            location=location,
            title=document.title or location,
            content_type="text/plain",
            sha256=self.session.fetcher.snapshots.put(text),
            fetched_at=datetime.now(UTC).isoformat(timespec="seconds"),
            cut_at=self.context.max_page_bytes if len(document.text) > len(text) else None,
            text=text,
        )
        return self.session.remember(page)
