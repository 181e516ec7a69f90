"""`grounded-research mcp` driven by the MCP client SDK as an assistant drives it: the
server a real process, over stdio and over streamable HTTP."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from mcp.types import CallToolResult

from tests.conftest import EXAMPLE_CORPUS, ROOT
from tests.integration.test_cli import CLI, EXAMPLE_QUESTION, run
from tests.integration.test_web_fetch import ARTICLE
from tests.servers import Server, serve

pytestmark = pytest.mark.integration


def environment(cache: Path) -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": str(ROOT / "src"),
        "XDG_CACHE_HOME": str(cache),
        "GROUNDED_RESEARCH_SERVER_CONFIG": "",
    }


def stdio_server(cache: Path, *args: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=CLI[0],
        args=["mcp", "--corpus", str(EXAMPLE_CORPUS), *args],
        env=environment(cache),
    )


@contextmanager
def http_server(cache: Path, *args: str) -> Iterator[str]:
    """`grounded-research mcp --transport http --port 0`: its URL, from its start line."""
    log = cache / "server.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("w") as stderr:
        process = subprocess.Popen(
            [*CLI, "mcp", "--transport", "http", "--port", "0", *args],
            env=environment(cache),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
    try:
        deadline = time.monotonic() + 60
        while not (found := re.search(r"serving MCP on (http://\S+/mcp)", log.read_text())):
            assert process.poll() is None, log.read_text()
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.05)
        yield found.group(1)
    finally:
        process.terminate()
        process.wait(timeout=10)


def policy_file(folder: Path, settings: str) -> str:
    path = folder / "policy.toml"
    path.write_text(f"[settings]\n{settings}\n", encoding="utf-8")
    return str(path)


def comparable(table: dict[str, Any]) -> dict[str, Any]:
    """The evidence table without what differs between two runs of the same question
    (seconds, fetch times)."""
    kept = {k: v for k, v in table.items() if k not in ("usage",)}
    kept["sources"] = [
        {k: v for k, v in source.items() if k != "retrieved_at"} for source in table["sources"]
    ]
    return kept


def text_of(result: CallToolResult) -> str:
    return " ".join(getattr(block, "text", "") for block in result.content)


async def test_over_stdio_research_returns_the_cli_evidence_table_and_progress(
    tmp_path: Path,
) -> None:
    progress: list[tuple[float, str | None]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, message))

    async with Client(stdio_server(tmp_path / "cache")) as client:
        tools = {tool.name for tool in (await client.list_tools()).tools}
        assert tools == {"research", "evidence", "source"}
        result = await client.call_tool(
            "research", {"question": EXAMPLE_QUESTION}, progress_callback=on_progress
        )
        assert not result.is_error, text_of(result)
        found = result.structured_content
        assert found is not None and found["status"] == "ok"
        report = text_of(result)
        assert "## References" in report and "450 Wh/kg" in report
        assert found["unresolved"] == found["evidence_table"]["unresolved"]

        # every cited passage reads back, record and snapshot span, through the tools
        table = found["evidence_table"]
        evidence = {e["id"]: e for e in table["evidence"]}
        for reference in table["references"]:
            record = evidence[reference["evidence_id"]]
            read = await client.call_tool(
                "evidence", {"run_id": found["run_id"], "evidence_id": record["id"]}
            )
            assert read.structured_content is not None
            assert read.structured_content["evidence"]["text"] == record["text"]
            span = await client.call_tool(
                "source",
                {
                    "run_id": found["run_id"],
                    "source_id": record["source_id"],
                    "start": record["start"],
                    "end": record["end"],
                },
            )
            assert span.structured_content is not None
            assert span.structured_content["text"] == record["text"]
        missing = await client.call_tool("evidence", {"run_id": "nope", "evidence_id": "x"})
        assert missing.is_error and "no run 'nope'" in text_of(missing)

    steps = [message.split(":")[0] for _, message in progress if message]
    assert steps[0] == "start_turn" and steps[-1] == "remember"
    assert "write_report" in steps
    assert [done for done, _ in progress] == sorted({done for done, _ in progress})

    # the CLI, on the same question and corpus, writes the same evidence table
    evidence_file = tmp_path / "evidence.json"
    done = run(
        EXAMPLE_QUESTION,
        "--corpus",
        str(EXAMPLE_CORPUS),
        "--evidence",
        str(evidence_file),
        "--out",
        str(tmp_path / "report.md"),
        cache_dir=str(tmp_path / "cli-cache"),
    )
    assert done.returncode == 0, done.stderr
    from_cli = json.loads(evidence_file.read_text(encoding="utf-8"))
    assert comparable(table) == comparable(from_cli)


@pytest.fixture(scope="module")
def site() -> Iterator[Server]:
    with serve({"/page": lambda r: (200, {"Content-Type": "text/html"}, ARTICLE.encode())}) as s:
        yield s


async def test_over_http_a_caller_cannot_leave_the_corpus_nor_reach_a_private_address(
    tmp_path: Path, site: Server
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# Secret\n\nThe A1 ships in 2031.\n", encoding="utf-8")
    link = tmp_path / "corpus" / "link"
    link.parent.mkdir()
    link.symlink_to(outside)
    with http_server(tmp_path / "cache", "--corpus", str(link.parent)) as url:
        async with Client(url) as client:
            for corpus in (str(outside), str(link), f"{link.parent}/../outside", "outside"):
                refused = await client.call_tool(
                    "research", {"question": "When does the A1 ship?", "corpus": corpus}
                )
                assert refused.is_error, corpus
                assert "outside the folders" in text_of(refused) or "neither one of" in text_of(
                    refused
                )
            blocked = await client.call_tool(
                "research",
                {"question": "When does the A1 ship?", "urls": [site.url("/page")]},
            )
    assert not blocked.is_error, text_of(blocked)
    assert blocked.structured_content is not None
    sources = blocked.structured_content["evidence_table"]["sources"]
    web = [s for s in sources if s["origin"] == "web"]
    assert [s["status"] for s in web] == ["blocked"]
    assert "loopback" in web[0]["error"]
    assert site.hits("/page") == 0
    evidence = blocked.structured_content["evidence_table"]["evidence"]
    assert not any("2031" in record["text"] for record in evidence)


@contextmanager
def trickling_page() -> Iterator[tuple[str, threading.Event, threading.Event]]:
    """A page that sends one byte every 0.1 s for a minute: its URL, an event set when it
    is asked for, and one set when the client hangs up before the end."""
    asked, hung_up, stopping = threading.Event(), threading.Event(), threading.Event()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            return

        def do_GET(self) -> None:
            asked.set()
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", "600")
            self.end_headers()
            try:
                for _ in range(600):
                    if stopping.wait(0.1):
                        return
                    self.wfile.write(b"a")
                    self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                hung_up.set()

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/slow", asked, hung_up
    finally:
        stopping.set()
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


async def test_cancelling_a_call_stops_its_run(tmp_path: Path) -> None:
    policy = policy_file(
        tmp_path, "allow_private_network = true\nfetch_timeout = 120.0\nrun_deadline = 300.0"
    )
    with trickling_page() as (url, asked, hung_up):
        async with Client(stdio_server(tmp_path / "cache", "--config", policy)) as client:
            call = asyncio.create_task(
                client.call_tool("research", {"question": "When does the A1 ship?", "urls": [url]})
            )
            assert await asyncio.to_thread(asked.wait, 60), "the page was never asked for"
            started = time.monotonic()
            call.cancel()
            with suppress(asyncio.CancelledError):
                await call
            assert await asyncio.to_thread(hung_up.wait, 10), "the run went on fetching"
            assert time.monotonic() - started < 10
            # the server goes on serving
            assert {t.name for t in (await client.list_tools()).tools} >= {"research"}


def test_a_bad_transport_or_missing_corpus_is_one_line_and_exit_64(tmp_path: Path) -> None:
    for args, message in (
        (["--transport", "carrier-pigeon"], "--transport must be stdio or http"),
        (["--corpus", str(tmp_path / "none")], "corpus not found"),
    ):
        done = subprocess.run(
            [*CLI, "mcp", *args],
            env=environment(tmp_path / "cache"),
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )
        assert done.returncode == 64, done.stderr
        assert done.stderr.startswith("error: ") and message in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1
