"""`grounded-research eval DATASET.jsonl --corpus DIR`: run a question set, print the
figures per stage, write every record to `--out`, and fail under `--min` thresholds.

Exit codes: 0 done (and every threshold met), 1 a threshold missed or the results could
not be written to `--out` (they are then in a new file that a line names), 64 bad input.

`eval --help` and a usage error import nothing of the graph: the runner (and with it the
graph) is imported when the questions run.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from grounded_research.cli_options import (
    UsageErrorIsBadInput,
    check_corpus,
    context_from_options,
    with_knobs,
)
from grounded_research.cli_outputs import Saved, check_outputs, save
from grounded_research.configuration import Context
from grounded_research.errors import GroundedResearchError, InputError
from grounded_research.evaluation.dataset import EvalQuestion, load_dataset
from grounded_research.evaluation.metrics import (
    METRIC_NAMES,
    STAGES,
    Aggregate,
    StageRecall,
    Threshold,
    parse_threshold,
    shortfalls,
)

if TYPE_CHECKING:
    from grounded_research.evaluation.runner import EvalReport, QuestionRecord

EXIT_BELOW_THRESHOLD = 1
EXIT_UNSAVED = 1  # the results are not where --out said (a line says where they are)
stdout = Console(highlight=False)
stderr = Console(stderr=True, highlight=False)

app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)


@app.command(
    cls=UsageErrorIsBadInput,
    help="Run every question of DATASET through the graph and measure each stage.",
)
@with_knobs("eval")
def run_eval(
    dataset: Annotated[Path, typer.Argument(help="JSONL questions (ours or HotpotQA's).")],
    limit: Annotated[int | None, typer.Option(help="Only the first N questions.", min=1)] = None,
    out: Annotated[Path | None, typer.Option(help="Write the full results (JSON) here.")] = None,
    concurrency: Annotated[int, typer.Option(help="Questions run at once.", min=1)] = 4,
    minimum: Annotated[
        list[str] | None,
        typer.Option(
            "--min",
            help="METRIC=VALUE (0.8 or 80%): exit 1 when the aggregate falls below; "
            f"repeatable. METRIC: {', '.join(METRIC_NAMES)}.",
        ),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    *,
    knobs: dict[str, Any],
) -> None:
    try:
        thresholds = [parse_threshold(text) for text in minimum or []]
        context = context_from_options(**knobs)
        check_corpus(context)
        check_outputs({"--out": out}, inputs={"DATASET": dataset})
        questions = load_dataset(dataset, limit)
        report = asyncio.run(run_with_progress(questions, context, concurrency, quiet, dataset))
    except GroundedResearchError as error:
        fail(str(error), error.exit_code)
    except OSError as error:
        fail(f"{type(error).__name__}: {error}", InputError.exit_code)

    saved = None
    if out is not None:
        saved = save("--out", "results", out, report.model_dump_json(indent=2) + "\n")
    print_report(report, saved)
    if saved is not None and saved.error:
        stderr.print(f"error: {saved.problem()}", markup=False, soft_wrap=True)
    check_thresholds(report.aggregate, thresholds)
    if saved is not None and saved.error:
        raise typer.Exit(EXIT_UNSAVED)


async def run_with_progress(
    questions: list[EvalQuestion], context: Context, concurrency: int, quiet: bool, dataset: Path
) -> EvalReport:
    from grounded_research.evaluation.runner import evaluate

    progress = Progress(
        TextColumn("eval"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[failed]} failed"),
        TimeElapsedColumn(),
        console=stderr,
        disable=quiet,
    )
    task = progress.add_task("eval", total=len(questions), failed=0)
    failed = 0

    def advance(record: QuestionRecord) -> None:
        nonlocal failed
        failed += record.status == "failed"
        progress.update(task, advance=1, failed=failed)

    with progress:
        return await evaluate(
            questions,
            context,
            concurrency=concurrency,
            on_done=advance,
            dataset=str(dataset),
            limit=len(questions),
        )


def print_report(report: EvalReport, saved: Saved | None) -> None:
    summary = report.aggregate
    stdout.print(stage_table(summary))
    stdout.print(figures_table(report))
    if report.by_tag:
        stdout.print(tag_table(list(report.by_tag.items())))
    for record in report.questions:
        if record.error:
            stderr.print(f"failed: {record.id}: {record.error}", markup=False, soft_wrap=True)
    if saved is not None and saved.path is not None:
        stderr.print(f"results: {saved.path}", markup=False, soft_wrap=True)


def stage_table(summary: Aggregate) -> Table:
    table = Table(title="evidence per stage (mean over questions)", title_justify="left")
    table.add_column("metric")
    table.add_column("n", justify="right")
    for stage in STAGES:
        table.add_column(stage, justify="right")
    rows: list[tuple[str, StageRecall | None, int]] = [
        ("gold-source recall", summary.gold_recall, summary.gold_questions),
        ("a gold source found", summary.gold_hit, summary.gold_questions),
        ("answer recall", summary.answer_recall, summary.answer_questions),
        ("fact recall", summary.fact_recall, summary.fact_questions),
    ]
    for name, recall, n in rows:
        cells = ["—"] * len(STAGES) if recall is None else [_pct(recall.at(s)) for s in STAGES]
        table.add_row(name, str(n), *cells)
    table.caption = "report: claims of the report; for sources, the sources it cites"
    return table


def figures_table(report: EvalReport) -> Table:
    summary = report.aggregate
    cost = summary.cost
    verdicts = ", ".join(f"{n} {v}" for v, n in summary.verdicts.items()) or "none"
    seconds_each = report.config.wall_seconds / max(1, summary.questions)
    table = Table(title="report quality and cost", show_header=False, title_justify="left")
    table.add_row("questions", f"{summary.questions} ({summary.failed} failed)")
    table.add_row("citation validity", f"{_pct(summary.citation_validity)} of {summary.citations}")
    table.add_row("claim coverage", f"{_pct(summary.claim_coverage)} of {summary.claims} claims")
    table.add_row("verifier verdicts", verdicts)
    table.add_row(
        "unanswerable handled", f"{_pct(summary.unanswerable_handled)} of {summary.unanswerable}"
    )
    table.add_row("answerable, declared open", _pct(summary.answerable_abstained))
    if summary.median_sources:
        table.add_row(
            "sources (median)",
            " / ".join(f"{summary.median_sources[s]:g} {s}" for s in summary.median_sources),
        )
    table.add_row(
        "per question",
        f"{cost.seconds:.2f} s wall, {cost.search_calls:.1f} searches, "
        f"{cost.llm_calls:.1f} LLM calls ({cost.tokens_in:.0f} in, {cost.tokens_out:.0f} out), "
        f"{cost.fetches:.1f} fetches",
    )
    table.add_row(
        "total", f"{report.config.wall_seconds:.1f} s wall ({seconds_each:.2f} s/question)"
    )
    return table


def tag_table(tagged: list[tuple[str, Aggregate]]) -> Table:
    table = Table(title="by tag (retrieved / selected / report)", title_justify="left")
    for column in ("tag", "n", "gold-source recall", "answer recall", "fact recall"):
        table.add_column(column, justify="left" if column == "tag" else "right")
    for tag, summary in tagged:
        table.add_row(
            tag,
            str(summary.questions),
            _stages(summary.gold_recall),
            _stages(summary.answer_recall),
            _stages(summary.fact_recall),
        )
    return table


def check_thresholds(summary: Aggregate, thresholds: list[Threshold]) -> None:
    missed = shortfalls(summary, thresholds)
    for shortfall in missed:
        stderr.print(f"below threshold: {shortfall}", markup=False, soft_wrap=True)
    if missed:
        raise typer.Exit(EXIT_BELOW_THRESHOLD)


def fail(message: str, code: int) -> NoReturn:
    stderr.print(f"error: {message}", markup=False, soft_wrap=True)
    raise typer.Exit(code)


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f}%"


def _stages(recall: StageRecall | None) -> str:
    return "—" if recall is None else " / ".join(f"{100 * recall.at(s):.0f}" for s in STAGES)
