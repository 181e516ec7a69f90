"""The MCP server's rules for its callers, in process (no socket): which corpus a call
may read, and how its limits meet the operator's."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client
from mcp.server.mcpserver.exceptions import ToolError

from grounded_research.errors import InputError
from grounded_research.mcp_server import ResearchTools, build_server, with_folders
from grounded_research.policy import ServerPolicy
from tests.conftest import EXAMPLE_CORPUS, write


@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, Path]:
    """A corpus folder with a sub-folder, and beside it a folder the server was not given,
    reachable from the corpus by a symlink."""
    corpus, outside = tmp_path / "docs", tmp_path / "private"
    write(corpus, "team/notes.md", "# Notes\n\nThe A1 ships in 2027.\n")
    write(outside, "secret.md", "# Secret\n\nThe A1 ships in 2031.\n")
    (corpus / "link").symlink_to(outside)
    return corpus, outside


def test_a_call_reads_a_server_folder_by_name_or_a_path_inside_it(
    folders: tuple[Path, Path],
) -> None:
    corpus, _ = folders
    tools = ResearchTools(with_folders(ServerPolicy.strictest(), [corpus]))
    assert tools.admit({"corpus": "docs"})[0].corpus == str(corpus.resolve())
    inside = str(corpus / "team")
    assert tools.admit({"corpus": inside})[0].corpus == str((corpus / "team").resolve())
    assert tools.admit({})[0].corpus == str(corpus.resolve())  # the first folder is the default


@pytest.mark.parametrize(
    "asked",
    ["{outside}", "{corpus}/link", "{corpus}/../private", "private", "/etc", "team"],
    ids=["outside", "symlink-out", "dot-dot", "unknown-name", "system", "relative"],
)
def test_a_call_cannot_read_outside_the_server_folders(
    folders: tuple[Path, Path], asked: str
) -> None:
    corpus, outside = folders
    tools = ResearchTools(with_folders(ServerPolicy.strictest(), [corpus]))
    with pytest.raises(ToolError, match=r"outside the folders|neither one of"):
        tools.admit({"corpus": asked.format(corpus=corpus, outside=outside)})


def test_limits_above_the_ceiling_are_lowered_and_said_so() -> None:
    policy = with_folders(ServerPolicy.strictest(), [EXAMPLE_CORPUS])
    context, notes = ResearchTools(policy).admit(
        {"max_pages": 1000, "run_deadline": 0.0, "max_rounds": 1, "token_budget": 99_999}
    )
    assert (context.max_pages, context.run_deadline) == (60, 900.0)
    assert (context.max_rounds, context.token_budget) == (1, 4000)
    assert notes == [
        "max_pages 1000 lowered to the server's ceiling of 60",
        "run_deadline 0 lowered to the server's ceiling of 900",
        "token_budget 99999 lowered to the server's ceiling of 4000",
    ]


def test_operator_only_knobs_stay_the_operator_s() -> None:
    tools = ResearchTools(with_folders(ServerPolicy.strictest(), [EXAMPLE_CORPUS]))
    with pytest.raises(ToolError, match="allow_private_network is set by the server's operator"):
        tools.admit({"allow_private_network": True})


def test_two_folders_of_one_name_are_refused(tmp_path: Path) -> None:
    (tmp_path / "a" / "docs").mkdir(parents=True)
    (tmp_path / "b" / "docs").mkdir(parents=True)
    with pytest.raises(InputError, match="two corpus folders are named 'docs'"):
        with_folders(ServerPolicy.strictest(), [tmp_path / "a" / "docs", tmp_path / "b" / "docs"])


async def test_a_refused_call_is_a_tool_error_the_client_reads(folders: tuple[Path, Path]) -> None:
    corpus, outside = folders
    server = build_server(with_folders(ServerPolicy.strictest(), [corpus]))
    async with Client(server) as client:
        refused = await client.call_tool("research", {"question": "When?", "corpus": str(outside)})
        empty = await client.call_tool("research", {"question": "  "})
    assert refused.is_error and "outside the folders this server may read" in str(refused.content)
    assert empty.is_error and "the question is empty" in str(empty.content)
