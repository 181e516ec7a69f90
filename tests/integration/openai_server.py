"""A scripted OpenAI-compatible chat server on 127.0.0.1, standard library only.

It speaks the real wire format that `langchain-openai` sends and reads: POST
/v1/chat/completions with `tools`/`tool_choice` or a `response_format` JSON schema,
answered as one JSON body or, with `stream: true`, as server-sent `chat.completion.chunk`
events ending with `data: [DONE]`, with `usage` either way. What it answers depends on
which step asks (recognised from the system prompt), and it misbehaves the way real
local models do: reasoning in `<think>` tags, JSON cut off at the length limit, prose
instead of JSON, and one request that stalls past the client's timeout.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

STEPS = {
    "You plan research": "planner",
    "You check research coverage": "gaps",
    "You write a research report": "writer",
    "You check citations": "verifier",
}
_EVIDENCE = re.compile(r'<evidence id="(E\d+)"[^>]*>\n(.*?)\n</evidence>', re.DOTALL)
_CLAIM = re.compile(r'<claim id="(c\d+)">')


@dataclass
class Answer:
    text: str
    finish_reason: str = "stop"
    stall: float = 0.0
    refusal: str = ""  # sent as the message's `refusal`, with no content


def step_of(body: dict[str, Any]) -> str:
    """Which step of the graph a request comes from, by its system prompt."""
    messages = body.get("messages", [])
    system = next((m["content"] for m in messages if m.get("role") == "system"), "")
    return next((name for marker, name in STEPS.items() if marker in str(system)), "other")


@dataclass
class Script:
    """What each step answers; counts requests per step to misbehave once each."""

    stall_seconds: float = 6.0
    seen: dict[str, int] = field(default_factory=dict)
    requests: list[dict[str, Any]] = field(default_factory=list)
    authorizations: list[str] = field(default_factory=list)  # each request's header
    lock: threading.Lock = field(default_factory=threading.Lock)

    def answer(self, body: dict[str, Any]) -> Answer:
        messages = body.get("messages", [])
        step = step_of(body)
        user = "\n".join(str(m.get("content", "")) for m in messages if m.get("role") == "user")
        with self.lock:
            self.requests.append(body)
            count = self.seen[step] = self.seen.get(step, 0) + 1
        repairing = "could not be used" in user
        if step == "planner":
            return Answer("<think>The question has two parts.</think>\n" + json.dumps(PLAN))
        if step == "gaps":
            if count == 1:  # cut off at the length limit: repairable
                return Answer(json.dumps(GAP)[:-12], finish_reason="length")
            if count == 2 and not repairing:  # prose, no JSON: asked again with the error
                return Answer("Sure! The evidence covers it well, I think.")
            return Answer(json.dumps(COVERED))
        if step == "writer":
            return Answer("<think>Only what the evidence says.</think>\n" + report_from(user))
        if step == "verifier":
            verdicts = [
                {"claim_id": claim_id, "verdict": "supported", "reason": "stated in evidence"}
                for claim_id in _CLAIM.findall(user)
            ]
            stall = self.stall_seconds if count == 1 else 0.0
            return Answer(json.dumps({"verdicts": verdicts}), stall=stall)
        return Answer("")


@dataclass
class Faulty(Script):
    """Every step answered well at the first try, except `steps` (every step when
    empty), which answer `fault` each time they ask."""

    fault: Answer = field(default_factory=lambda: Answer(""))
    steps: tuple[str, ...] = ()

    def answer(self, body: dict[str, Any]) -> Answer:
        step = step_of(body)
        with self.lock:
            self.requests.append(body)
            self.seen[step] = self.seen.get(step, 0) + 1
        if not self.steps or step in self.steps:
            return self.fault
        user = "\n".join(
            str(m.get("content", "")) for m in body.get("messages", []) if m.get("role") == "user"
        )
        if step == "planner":
            return Answer(json.dumps(PLAN))
        if step == "gaps":
            return Answer(json.dumps(COVERED))
        if step == "writer":
            return Answer(report_from(user))
        verdicts = [
            {"claim_id": claim_id, "verdict": "supported", "reason": "stated in evidence"}
            for claim_id in _CLAIM.findall(user)
        ]
        return Answer(json.dumps({"verdicts": verdicts}))


PLAN = {
    "sub_questions": [
        {
            "question": "When will Aurora A1 cells reach series production?",
            "queries": ["Aurora A1 series production"],
            "facets": ["series production"],
        },
        {
            "question": "What energy density do Aurora A1 cells achieve?",
            "queries": ["Aurora A1 energy density Wh/kg"],
            "facets": ["energy density"],
        },
    ]
}
GAP = {
    "status": "gap",
    "why": "only one independent source gives the energy density",
    "follow_up_queries": ["Aurora A1 independent test Wh/kg", "Aurora A1 measured energy density"],
}
COVERED = {"status": "covered", "why": "answered by the evidence", "follow_up_queries": []}


def report_from(prompt: str) -> str:
    """A short report quoting the first sentence of each evidence passage with its id, and
    one citation of an id that was never given."""
    lines = []
    for evidence_id, text in _EVIDENCE.findall(prompt)[:6]:
        sentence = re.split(r"(?<=[.!?])\s", " ".join(text.split()))[0].strip()
        sentence = sentence.replace("&quot;", '"').lstrip("#-* ")
        if len(sentence) > 20:  # reworded a little, as a model would: the verifier is asked
            lines.append(
                f"- According to one source, {sentence[0].lower()}{sentence[1:]} [{evidence_id}]"
            )
    lines.append("- The cells are also said to charge in ten minutes [E999].")
    return "## Findings\n\n" + "\n".join(lines) + "\n"


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self.send_error(404)
            return
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        self.server.script.authorizations.append(self.headers.get("Authorization", ""))
        answer = self.server.script.answer(body)
        if answer.stall:
            time.sleep(answer.stall)
        try:
            if body.get("stream"):
                self._stream(body, answer)
            else:
                self._send_json(completion(body, answer))
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up waiting: that is the point of a stall

    def _send_json(self, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _stream(self, body: dict[str, Any], answer: Answer) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        for chunk in chunks(body, answer):
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            self.wfile.flush()
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    script: Script


def _tool_name(body: dict[str, Any]) -> str | None:
    if not body.get("tools"):
        return None
    choice = body.get("tool_choice")
    if isinstance(choice, dict):
        return str(choice["function"]["name"])
    return str(body["tools"][0]["function"]["name"])


def _usage(body: dict[str, Any], answer: Answer) -> dict[str, int]:
    prompt = sum(len(str(m.get("content", ""))) for m in body.get("messages", [])) // 4 + 1
    completion_tokens = len(answer.text) // 4 + 1
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt + completion_tokens,
    }


def completion(body: dict[str, Any], answer: Answer) -> dict[str, Any]:
    tool = _tool_name(body)
    message: dict[str, Any] = {"role": "assistant", "content": answer.text}
    finish = answer.finish_reason
    if answer.refusal:
        message = {"role": "assistant", "content": None, "refusal": answer.refusal}
    elif tool is not None:
        message = {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": tool, "arguments": answer.text},
                }
            ],
        }
        finish = "tool_calls" if finish == "stop" else finish
    return {
        "id": "chatcmpl-local",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "local"),
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
        "usage": _usage(body, answer),
    }


def chunks(body: dict[str, Any], answer: Answer) -> Iterator[dict[str, Any]]:
    tool = _tool_name(body)
    base = {
        "id": "chatcmpl-local",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": body.get("model", "local"),
    }

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}
        return {**base, "choices": [choice]}

    yield chunk({"role": "assistant", "content": ""})
    pieces = re.findall(r"\S+\s*|\s+", answer.text)
    finish = answer.finish_reason
    if answer.refusal:
        for piece in re.findall(r"\S+\s*|\s+", answer.refusal):
            yield chunk({"refusal": piece})
    elif tool is None:
        for piece in pieces:
            yield chunk({"content": piece})
    else:
        yield chunk(
            {
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": tool, "arguments": ""},
                    }
                ]
            }
        )
        for piece in pieces:
            yield chunk({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]})
        finish = "tool_calls" if finish == "stop" else finish
    yield chunk({}, finish)
    if (body.get("stream_options") or {}).get("include_usage"):
        yield {**base, "choices": [], "usage": _usage(body, answer)}


@contextmanager
def openai_compatible_server(script: Script | None = None) -> Iterator[tuple[str, Script]]:
    """(base URL ending in /v1, its script) for as long as the block runs."""
    server = _Server(("127.0.0.1", 0), _Handler)
    server.script = script or Script()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", server.script
    finally:
        server.shutdown()
        server.server_close()
