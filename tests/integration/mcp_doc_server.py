"""A small MCP tool server for the `mcp` retriever's tests: a few documents about the
Aurora A1, served by tools that answer the ways tools do (structured documents, plain
text, an error, no answer in time). Run on stdio: `python mcp_doc_server.py`, or on
streamable HTTP: `python mcp_doc_server.py http PORT`."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

DOCUMENTS = [
    {
        "id": "wiki/aurora-a1-schedule",
        "title": "Aurora A1 schedule (internal wiki)",
        "text": "# Aurora A1 schedule\n\nSeries production of the Aurora A1 solid-state cell "
        "moved to 2027 after the pilot line missed its yield target.\n\nThe cell reaches "
        "450 Wh/kg in the company's own tests.",
    },
    {
        "id": "tickets/QA-1042",
        "title": "QA-1042: independent density test",
        "text": "An independent laboratory measured 390 Wh/kg on Aurora A1 cells from the "
        "pilot line in Lund.",
    },
    {
        "id": "wiki/cafeteria",
        "title": "Cafeteria menu",
        "text": "Soup of the day: lentils.",
    },
]

server: MCPServer = MCPServer("aurora-docs", log_level="ERROR")


def matching(query: str) -> list[dict[str, Any]]:
    words = {w.lower().strip("?,.") for w in query.split() if len(w) > 3}
    return [d for d in DOCUMENTS if words & set(d["text"].lower().replace(".", " ").split())]


@server.tool(description="Search the team's documents.")
def search(query: str) -> dict[str, Any]:
    return {"documents": matching(query)}


@server.tool(description="The best document's text only.")
def search_text(query: str) -> str:
    found = matching(query)
    return found[0]["text"] if found else ""


@server.tool(description="Always fails.")
def broken(query: str) -> str:
    raise ToolError("the index is offline")


@server.tool(description="Answers after a minute.")
async def slow(query: str) -> str:
    await asyncio.sleep(60)
    return ""


if __name__ == "__main__":
    if sys.argv[1:2] == ["http"]:
        server.run("streamable-http", port=int(sys.argv[2]))
    else:
        server.run("stdio")
