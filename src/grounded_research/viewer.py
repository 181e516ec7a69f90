"""`grounded-research serve`: the HTML report of past runs, read from the checkpointer.

`/` lists the threads the checkpointer holds (newest first), `/runs/<thread id>` is that
run's page, the one `--html` writes. The stdlib's HTTP server is enough for one reader
on one machine, and it binds to 127.0.0.1 unless told otherwise: the pages hold whatever
the runs read. Each request opens the checkpointer and closes it again, so runs made
while the server is up appear on the next load; its pages load nothing from elsewhere
(the same Content-Security-Policy as a written page, sent as a header too).
"""

from __future__ import annotations

import asyncio
import sys
from dataclasses import dataclass
from html import escape
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from grounded_research.api import ResearchResult, open_session
from grounded_research.checkpointing import open_checkpointer
from grounded_research.report.page import html_document, page_policy, page_style


@dataclass(frozen=True)
class PastRun:
    thread_id: str
    question: str
    status: str
    updated: str  # the time of the thread's latest checkpoint (ISO 8601)


@dataclass(frozen=True)
class Runs:
    """Where the runs are: what `--checkpointer`, `--data-dir` and `--cache-dir` say."""

    checkpointer: str
    data_dir: str
    cache_dir: str

    async def list(self) -> list[PastRun]:
        """Every thread with its latest state, newest first."""
        latest: dict[str, PastRun] = {}
        async with open_checkpointer(self.checkpointer, self.data_dir) as saver:
            if saver is None:
                return []
            async for item in saver.alist(None, filter={"source": "loop"}):
                configurable = item.config["configurable"]
                thread = str(configurable["thread_id"])
                if configurable.get("checkpoint_ns") or thread in latest:
                    continue
                values = item.checkpoint["channel_values"]
                latest[thread] = PastRun(
                    thread,
                    str(values.get("question", "")),
                    str(values.get("status", "pending")),
                    str(item.checkpoint["ts"]),
                )
        return sorted(latest.values(), key=lambda run: run.updated, reverse=True)

    async def page(self, thread_id: str) -> str | None:
        """The run's page, or None when the thread holds no run."""
        async with open_session(thread_id, self.checkpointer, self.data_dir) as session:
            values = await session.values()
        if not values.get("question"):
            return None
        return ResearchResult.from_state(values).to_html(self.cache_dir, back_link="/")


def index_page(runs: list[PastRun]) -> str:
    rows = "".join(
        f'<tr><td><a href="/runs/{quote(run.thread_id, safe="")}">{escape(run.question)}</a>'
        f"</td><td>{escape(run.status)}</td><td>{escape(run.updated)}</td>"
        f"<td><code>{escape(run.thread_id)}</code></td></tr>"
        for run in runs
    )
    listing = (
        '<table id="runs"><thead><tr><th scope="col">Question</th><th scope="col">Status</th>'
        '<th scope="col">Last step</th><th scope="col">Thread</th></tr></thead>'
        f"<tbody>{rows}</tbody></table>"
        if runs
        else "<p>No runs yet: run <code>grounded-research QUESTION --corpus DIR</code>.</p>"
    )
    return _page("Past runs", f"<h1>Past runs</h1>{listing}")


def _page(title: str, content: str) -> str:
    return html_document(title, f"<main>{content}</main>", style=page_style())


class Handler(BaseHTTPRequestHandler):
    """GET `/` and `/runs/<thread id>`; anything else is 404."""

    runs: Runs  # set on the subclass `serve` makes

    def do_GET(self) -> None:
        path = urlsplit(self.path).path
        try:
            if path == "/":
                self._send(HTTPStatus.OK, index_page(asyncio.run(self.runs.list())))
                return
            if path.startswith("/runs/") and len(path) > len("/runs/"):
                page = asyncio.run(self.runs.page(unquote(path[len("/runs/") :])))
                if page is not None:
                    self._send(HTTPStatus.OK, page)
                    return
        except Exception as error:  # one line on stderr, a page that says so
            print(f"error: {self.path}: {type(error).__name__}: {error}", file=sys.stderr)
            self._send(HTTPStatus.INTERNAL_SERVER_ERROR, _page("Error", "<h1>Error</h1>"))
            return
        self._send(HTTPStatus.NOT_FOUND, _page("Not found", "<h1>No such run</h1>"))

    def _send(self, status: HTTPStatus, html: str) -> None:
        body = html.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Content-Security-Policy", page_policy())
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: a request is not worth a line."""


def make_server(runs: Runs, host: str, port: int) -> ThreadingHTTPServer:
    """The server, bound (port 0: any free port; `server_address` says which)."""
    handler = type("RunsHandler", (Handler,), {"runs": runs})
    return ThreadingHTTPServer((host, port), handler)
