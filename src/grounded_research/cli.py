"""`grounded-research QUESTION --corpus DIR`: progress on stderr, the report on stdout
(or `--out`), the evidence table in `--evidence`.

Exit codes: 0 report written, 2 no sources found, 64 bad input (usage errors too), 1
anything else (and then whatever was gathered is still written to `--evidence`), among
which an output that could not be written where asked at the end (it is then in a file
that an `error:` line names: `cli_outputs`).

`--help` and a usage error import nothing of the graph: the modules that a run needs
(the graph, LangChain, the retrievers) are imported in `run`, once the options are read.
"""

from __future__ import annotations

import asyncio
import json
import sys
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, cast

import typer
from rich.console import Console

from grounded_research.cli_options import (
    UsageErrorIsBadInput,
    check_corpus,
    with_knobs,
)
from grounded_research.cli_outputs import Saved, check_outputs, save
from grounded_research.configuration import Context
from grounded_research.errors import GroundedResearchError, InputError

if TYPE_CHECKING:
    from grounded_research.api import ResearchResult

EXIT_NO_SOURCES = 2
stderr = Console(stderr=True, highlight=False, soft_wrap=True)

app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)


@app.command(
    cls=UsageErrorIsBadInput,
    help="Research QUESTION and write a report whose every statement cites its source.",
)
@with_knobs("run")
def run(
    question: Annotated[
        str, typer.Argument(help="The question to research (optional when resuming --thread).")
    ] = "",
    out: Annotated[Path | None, typer.Option(help="Write the report here, not to stdout.")] = None,
    evidence: Annotated[
        Path | None, typer.Option(help="Write the evidence table (JSON) here.")
    ] = None,
    html: Annotated[
        Path | None,
        typer.Option(help="Write the report as one self-contained HTML page here."),
    ] = None,
    json_output: Annotated[
        bool, typer.Option("--json", help="Print the evidence table as JSON on stdout.")
    ] = False,
    thread: Annotated[
        str | None,
        typer.Option(
            help="Thread id: resumes its run if it stopped part-way; a new question on it "
            "builds on its earlier research."
        ),
    ] = None,
    checkpointer: Annotated[
        str,
        typer.Option(
            help="'sqlite' (default), a file ending in .sqlite/.sqlite3/.db, postgresql://…, "
            "'memory' or 'none'."
        ),
    ] = "sqlite",
    data_dir: Annotated[str | None, typer.Option(help="Where sqlite checkpoints live.")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress on stderr.")] = False,
    *,
    knobs: dict[str, Any],
) -> None:
    from grounded_research.checkpointing import checkpointer_kind
    from grounded_research.selection.embeddings import load_local_embedder_early

    try:
        check_outputs(
            {"--out": out, "--evidence": evidence, "--html": html},
            inputs={"--corpus": knobs.get("corpus"), "--urls": knobs.get("urls")},
        )
        if "urls" in knobs:
            from grounded_research.retrieval.urls import read_url_list

            knobs["urls"] = read_url_list(knobs["urls"])
            knobs["retrievers"] = with_urls(knobs.get("retrievers"), knobs["urls"])
        context = Context.from_mapping(knobs)
        if thread is None:
            check_question(question)
        checkpointer_kind(checkpointer)
        check_corpus(context)
    except GroundedResearchError as error:
        fail(str(error), error.exit_code)
    # Before LangChain is imported (checking the models does): see
    # `load_local_embedder_early`.
    if context.ranks_by_embeddings or context.dense_retrieval:
        load_local_embedder_early(context.embeddings)
    from grounded_research.models import check_models, describe_models

    try:
        check_models(context)
    except GroundedResearchError as error:
        fail(str(error), error.exit_code)
    if not quiet:
        stderr.print(f"[dim]·[/dim] model: {describe_models(context)}")

    partial: dict[str, Any] = {"question": question}
    try:
        asyncio.run(stream_run(question, context, partial, quiet, thread, checkpointer, data_dir))
    except KeyboardInterrupt:
        save_partial(partial, evidence, "interrupted")
        fail("interrupted", 130)
    except GroundedResearchError as error:
        save_partial(partial, evidence, str(error))
        fail(str(error), error.exit_code)
    except Exception as error:  # unexpected: keep what was gathered, say where it is
        kept = save_partial(partial, evidence, f"{type(error).__name__}: {error}")
        fail(f"run failed: {type(error).__name__}: {error}{kept}", 1)

    from grounded_research.api import ResearchResult

    result = ResearchResult.from_state(partial)
    saved: list[Saved] = []
    if evidence is not None:
        saved.append(save("--evidence", "evidence table", evidence, result.to_json() + "\n"))
    if result.status == "no_sources":
        report_unsaved(saved)
        fail(f"no sources found for {question!r}: no report written", EXIT_NO_SOURCES)
    if json_output:
        typer.echo(result.to_json())
    if out is not None:
        saved.append(save("--out", "report", out, result.report))
    on_stdout = not json_output and (out is None or saved[-1].path is None)
    if html is not None:
        page = result.to_html(context.cache_dir)
        saved.append(save("--html", "HTML report", html, page))
    if on_stdout:
        typer.echo(result.report)  # asked for, or nowhere else took it
    if not quiet:
        print_summary(result, saved)
    if report_unsaved(saved, "the report is on stdout" if on_stdout else ""):
        raise typer.Exit(1)


def report_unsaved(saved: list[Saved], report_elsewhere: str = "") -> bool:
    """Say, one line each, which outputs are not where they were asked; True if any."""
    for output in saved:
        if output.error:
            problem = output.problem()
            if output.path is None and output.option == "--out" and report_elsewhere:
                problem += f": {report_elsewhere}"
            print(f"error: {problem}", file=sys.stderr)
    return any(output.error for output in saved)


def with_urls(retrievers: str | None, urls: list[str] | None) -> str | None:
    """`--urls` researches those pages beside whatever `--retriever` names."""
    if retrievers is None or not urls:
        return retrievers
    names = [name.strip() for name in retrievers.split(",") if name.strip()]
    return ",".join(names if "urls" in names or names == ["auto"] else [*names, "urls"])


def check_question(question: str) -> None:
    if not question.strip():
        raise InputError("the question is empty")


async def stream_run(
    question: str,
    context: Context,
    latest: dict[str, Any],
    quiet: bool,
    thread: str | None,
    checkpointer: str,
    data_dir: str | None,
) -> None:
    """Run the graph on a thread, printing each step as it finishes and keeping the
    latest state in `latest`, so that a failure part-way still leaves everything gathered
    so far. A thread that stopped part-way is resumed; a plan awaiting approval is shown."""
    from grounded_research.api import open_session

    async with open_session(thread, checkpointer, data_dir) as session:
        resuming = thread is not None and await session.unfinished()
        if thread is not None and not resuming and not question.strip():
            if not await session.exists():
                raise InputError(f"no such thread: {thread}")
            raise InputError(
                f"thread {thread} has finished its run: give a question to ask another"
            )
        if resuming and not quiet:
            stderr.print(f"resuming thread {session.thread_id}")
        elif not quiet and checkpointer != "none":
            stderr.print(f"thread {session.thread_id}")
        resume: Any = None
        pending_question: str | None = None if resuming else question
        while True:
            async for mode, chunk in session.stream(pending_question, context, resume):
                if mode == "values":
                    latest.update(cast(dict[str, Any], chunk))
                elif mode == "custom" and not quiet and chunk.get("event") == "node_finished":
                    stderr.print(f"[dim]·[/dim] {chunk['node']}: {chunk['summary']}")
            waiting = await session.interrupts()
            if not waiting:
                break
            resume, pending_question = review_plan(waiting[0]), None
        latest.update(await session.values())


def review_plan(request: dict[str, Any]) -> dict[str, Any]:
    """Show the planned sub-questions; the person accepts, edits or drops each one."""
    if not sys.stdin.isatty():
        raise InputError("--approve-plan needs a terminal to answer on")
    planned = request["sub_questions"]
    stderr.print("planned sub-questions:")
    for item in planned:
        stderr.print(f"  {item['id']}: {item['text']}")
    if typer.confirm("accept this plan?", default=True, err=True):
        return {"action": "accept"}
    kept = []
    for item in planned[1:]:
        answer = (
            typer.prompt(f"{item['id']} [k]eep, [e]dit or [d]rop", default="k", err=True)
            .strip()
            .lower()
        )
        if answer.startswith("d"):
            continue
        if answer.startswith("e"):
            item = {**item, "text": typer.prompt("new text", default=item["text"], err=True)}
            item.pop("queries", None)
        kept.append(item)
    return {"sub_questions": kept}


def save_partial(partial: dict[str, Any], evidence: Path | None, error: str) -> str:
    """After a failure: what was gathered, in `--evidence` (or wherever it could go)."""
    if evidence is None or len(partial) <= 1:
        return ""
    from grounded_research.api import ResearchResult

    try:
        result = ResearchResult.from_state({"status": "pending", "report": "", **partial})
        table = result.evidence_table()
        table["error"] = error
        text = json.dumps(table, ensure_ascii=False, indent=2) + "\n"
    except Exception:
        return ""
    saved = save("--evidence", "evidence table", evidence, text)
    report_unsaved([saved])
    return f" (what was gathered is in {saved.path})" if saved.path else ""


def print_summary(result: ResearchResult, saved: list[Saved]) -> None:
    from rich.table import Table

    usage = result.usage
    statuses: dict[str, int] = {}
    for source in result.sources.values():
        statuses[source.status] = statuses.get(source.status, 0) + 1
    verdicts: dict[str, int] = {}
    for claim in result.claims:
        verdicts[claim.verdict] = verdicts.get(claim.verdict, 0) + 1
    table = Table(title="usage", show_header=False, title_justify="left")
    table.add_row("sources", ", ".join(f"{n} {s}" for s, n in sorted(statuses.items())) or "0")
    table.add_row("evidence", f"{len(result.evidence)} passages, {len(result.references)} cited")
    table.add_row("claims", ", ".join(f"{n} {v}" for v, n in sorted(verdicts.items())) or "0")
    table.add_row("unresolved", str(len(result.unresolved)))
    table.add_row("search calls", str(usage.search_calls))
    if usage.fetches:
        table.add_row("pages fetched", str(usage.fetches))
    if usage.embedded_texts:
        table.add_row("texts embedded", str(usage.embedded_texts))
    table.add_row("LLM calls", f"{usage.llm_calls} ({usage.tokens_in} in, {usage.tokens_out} out)")
    for node, used in usage.llm.items():
        extra = f", {used.retries} retried" if used.retries else ""
        extra += f", {used.fallbacks} fell back" if used.fallbacks else ""
        table.add_row(
            f"  {node}", f"{used.calls} calls ({used.tokens_in} in, {used.tokens_out} out{extra})"
        )
    table.add_row("seconds", f"{sum(usage.seconds.values()):.2f} in nodes")
    for warning in result.warnings:
        table.add_row("warning", warning)
    for output in sorted(saved, key=lambda s: s.option != "--out"):
        table.add_row(output.what, str(output.path) if output.path else "not written")
    stderr.print(table)


def fail(message: str, code: int) -> None:
    print(f"error: {message}", file=sys.stderr)
    raise typer.Exit(code)


serve_app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
LOOPBACK = ("127.0.0.1", "localhost", "::1")


@serve_app.command(
    cls=UsageErrorIsBadInput,
    help="Serve the HTML report of past runs, read from the checkpointer, until Ctrl-C.",
)
def serve(
    host: Annotated[
        str, typer.Option(help="Address to listen on; anything but loopback shows every run.")
    ] = "127.0.0.1",
    port: Annotated[
        int, typer.Option(min=0, max=65535, help="Port to listen on (0: any free one).")
    ] = 8765,
    checkpointer: Annotated[
        str,
        typer.Option(
            help="Where the runs' checkpoints are: 'sqlite' (default), a .sqlite/.sqlite3/.db "
            "file or postgresql://…."
        ),
    ] = "sqlite",
    data_dir: Annotated[str | None, typer.Option(help="Where sqlite checkpoints live.")] = None,
    cache_dir: Annotated[
        str | None, typer.Option(help="The runs' cache folder, for their source snapshots.")
    ] = None,
) -> None:
    from grounded_research.checkpointing import checkpointer_kind, default_data_dir
    from grounded_research.configuration import default_cache_dir
    from grounded_research.viewer import Runs, make_server

    try:
        if checkpointer_kind(checkpointer) in ("memory", "none"):
            raise InputError(
                f"--checkpointer {checkpointer} keeps no runs to serve: use sqlite, a "
                ".sqlite file or postgresql://…"
            )
        runs = Runs(checkpointer, data_dir or default_data_dir(), cache_dir or default_cache_dir())
        found = asyncio.run(runs.list())  # the checkpointer opens, before anyone asks
    except GroundedResearchError as error:
        fail(str(error), error.exit_code)
    try:
        server = make_server(runs, host, port)
    except OSError as error:
        fail(f"cannot listen on {host}:{port}: {error.strerror or error}", 1)
    bound_host, bound_port = str(server.server_address[0]), int(server.server_address[1])
    shown = f"[{bound_host}]" if ":" in bound_host else bound_host
    if host not in LOOPBACK:
        print(f"warning: listening on {host}: whoever reaches it reads every run", file=sys.stderr)
    print(
        f"serving {len(found)} run{'' if len(found) == 1 else 's'} on "
        f"http://{shown}:{bound_port}/ (Ctrl-C stops)",
        file=sys.stderr,
        flush=True,
    )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


mcp_app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
TRANSPORTS = ("stdio", "http")


@mcp_app.command(
    cls=UsageErrorIsBadInput,
    help="Serve research as MCP tools (stdio, or streamable HTTP at /mcp) until stopped.",
)
def mcp(
    corpus: Annotated[
        list[Path] | None,
        typer.Option(help="A folder (or .jsonl file) callers may research; repeat for more."),
    ] = None,
    transport: Annotated[str, typer.Option(help="'stdio' (default) or 'http'.")] = "stdio",
    host: Annotated[
        str, typer.Option(help="Address to listen on (http); anything but loopback is open.")
    ] = "127.0.0.1",
    port: Annotated[
        int, typer.Option(min=0, max=65535, help="Port to listen on (http; 0: any free one).")
    ] = 8766,
    config: Annotated[
        Path | None,
        typer.Option(
            help="The operator's policy (TOML, as for the LangGraph server); default: the "
            "file GROUNDED_RESEARCH_SERVER_CONFIG names, else the strictest."
        ),
    ] = None,
) -> None:
    try:
        if transport not in TRANSPORTS:
            raise InputError(f"--transport must be stdio or http, got {transport!r}")
        from grounded_research.policy import ServerPolicy

        policy = ServerPolicy.load(config) if config else ServerPolicy.from_environment()
        try:
            from grounded_research.mcp_server import build_server, listening_socket, with_folders
        except ImportError as missing:
            raise InputError(
                f"the mcp command needs the 'mcp' extra ({missing.name} is missing): "
                "pip install 'grounded-research[mcp]'"
            ) from None

        policy = with_folders(policy, corpus or [])
    except GroundedResearchError as error:
        fail(str(error), error.exit_code)
    server = build_server(policy)
    if transport == "stdio":
        server.run("stdio")
        return
    try:
        sock = listening_socket(host, port)
    except OSError as error:
        fail(f"cannot listen on {host}:{port}: {error.strerror or error}", 1)
    if host not in LOOPBACK:
        print(f"warning: listening on {host}: whoever reaches it may run research", file=sys.stderr)
    from grounded_research.mcp_server import serve_http

    with suppress(KeyboardInterrupt):  # Ctrl-C is how it stops
        asyncio.run(serve_http(server, sock, host))


def main() -> None:
    """Entry point: `grounded-research eval …` runs the evaluation, `serve …` serves past
    runs, `mcp …` serves research as MCP tools, anything else is a run."""
    if len(sys.argv) > 1 and sys.argv[1] == "eval":
        from grounded_research.evaluation.cli import app as eval_app

        eval_app(args=sys.argv[2:], prog_name="grounded-research eval")
        return
    if len(sys.argv) > 1 and sys.argv[1] == "mcp":
        mcp_app(args=sys.argv[2:], prog_name="grounded-research mcp")
        return
    if len(sys.argv) > 1 and sys.argv[1] == "serve":
        serve_app(args=sys.argv[2:], prog_name="grounded-research serve")
        return
    app(prog_name="grounded-research")
