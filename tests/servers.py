"""Real HTTP servers on 127.0.0.1 for the web tests and the fan-out benchmark.

Each runs in a daemon thread on a port the OS picks, answers only what its routes
say, and is stopped (with any slow handler woken) when its `with` block ends.
"""

from __future__ import annotations

import json
import socket
import struct
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

Reply = tuple[int, dict[str, str], bytes]
Route = Callable[["Request"], Reply]
RESET = 0  # a reply with this status resets the connection instead of answering


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    stopping: threading.Event
    at: float = field(default_factory=time.monotonic)  # when it arrived


@dataclass
class Server:
    host: str
    port: int
    routes: dict[str, Route]
    stopping: threading.Event = field(default_factory=threading.Event)
    requests: list[Request] = field(default_factory=list)

    def url(self, path: str = "/") -> str:
        return f"http://{self.host}:{self.port}{path}"

    def hits(self, path: str) -> int:
        return sum(1 for r in self.requests if r.path == path)


def html(body: str, title: str = "", status: int = 200) -> Reply:
    page = f"<html><head><title>{title}</title></head><body>{body}</body></html>"
    return status, {"Content-Type": "text/html; charset=utf-8"}, page.encode()


@contextmanager
def serve(routes: dict[str, Route]) -> Iterator[Server]:
    """Serve `routes` (path -> reply) on 127.0.0.1 until the block ends."""
    server_state = Server("127.0.0.1", 0, routes)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            return

        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            request = Request(
                self.command,
                self.path,
                {k.lower(): v for k, v in self.headers.items()},
                self.rfile.read(length) if length else b"",
                server_state.stopping,
            )
            server_state.requests.append(request)
            route = server_state.routes.get(self.path.split("?", 1)[0])
            status, headers, body = route(request) if route else (404, {}, b"not found")
            if status == RESET:  # closed with an RST: the client sees "connection reset"
                linger = struct.pack("ii", 1, 0)
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, linger)
                self.close_connection = True
                return
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            if "Content-Length" not in headers:
                self.send_header("Content-Length", str(len(body)))
            elif int(headers["Content-Length"]) > len(body):  # a body cut short: then EOF
                self.close_connection = True
            self.end_headers()
            with suppress(BrokenPipeError, ConnectionResetError):
                self.wfile.write(body)

        do_GET = _answer
        do_POST = _answer

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    httpd.handle_error = lambda request, client_address: None  # type: ignore[method-assign]
    server_state.port = httpd.server_address[1]
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05})
    thread.daemon = True
    thread.start()
    try:
        yield server_state
    finally:
        server_state.stopping.set()
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


def slow(seconds: float, reply: Reply) -> Route:
    """A route that answers after `seconds` (or as soon as the server stops)."""

    def route(request: Request) -> Reply:
        request.stopping.wait(seconds)
        return reply

    return route


def tavily_route(
    results: Callable[[dict[str, Any]], list[dict[str, Any]]],
    api_key: str = "tvly-test",
    delay: float = 0.0,
) -> Route:
    """POST /search as Tavily's API answers it: bearer key, JSON body, JSON results."""

    def route(request: Request) -> Reply:
        started = time.perf_counter()
        if request.headers.get("authorization") != f"Bearer {api_key}":
            body = {"detail": {"error": "Unauthorized: missing or invalid API key."}}
            return 401, {"Content-Type": "application/json"}, json.dumps(body).encode()
        query = json.loads(request.body)
        if delay:
            request.stopping.wait(delay)
        answer = {
            "query": query["query"],
            "follow_up_questions": None,
            "answer": None,
            "images": [],
            "results": results(query)[: int(query.get("max_results", 5))],
            "response_time": round(time.perf_counter() - started, 2),
            "request_id": str(uuid.uuid4()),
        }
        return 200, {"Content-Type": "application/json"}, json.dumps(answer).encode()

    return route


def searxng_route(
    results: Callable[[str], list[dict[str, Any]]], formats: tuple[str, ...] = ("html", "json")
) -> Route:
    """GET /search?q=…&format=json as SearXNG answers it: 403 for a format its settings do
    not enable, else its JSON (results with url, title, content, engine, score, …)."""

    def route(request: Request) -> Reply:
        query = parse_qs(urlsplit(request.path).query)
        asked = query.get("format", ["html"])[0]
        if asked not in formats:
            return 403, {"Content-Type": "text/html"}, b"<h1>403 Forbidden</h1>"
        q = query.get("q", [""])[0]
        found = [
            {
                "template": "default.html",
                "engine": "duckduckgo",
                "engines": ["duckduckgo"],
                "positions": [i + 1],
                "score": 1.0 / (i + 1),
                "category": "general",
                "publishedDate": None,
                "content": "",
                **result,
            }
            for i, result in enumerate(results(q))
        ]
        answer = {
            "query": q,
            "number_of_results": 0,
            "results": found,
            "answers": [],
            "corrections": [],
            "infoboxes": [],
            "suggestions": [],
            "unresponsive_engines": [],
        }
        return 200, {"Content-Type": "application/json"}, json.dumps(answer).encode()

    return route
