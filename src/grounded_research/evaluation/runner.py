"""Run every question of a set through the graph, a few at a time, and score each.

The local corpus index is opened once before the first question and shared by every
run in the process. A run that raises is recorded with its error and scored as having
found nothing; the evaluation goes on.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from grounded_research.api import aresearch
from grounded_research.configuration import Context
from grounded_research.evaluation.dataset import EvalQuestion
from grounded_research.evaluation.metrics import (
    Aggregate,
    QuestionMetrics,
    aggregate,
    score,
    score_failure,
)
from grounded_research.resources import RunResources

QuestionStatus = Literal["ok", "no_sources", "pending", "failed"]


class QuestionRecord(BaseModel):
    id: str
    question: str
    status: QuestionStatus
    error: str | None = None
    tags: list[str] = Field(default_factory=list)
    extra: dict[str, Any] = Field(default_factory=dict)
    metrics: QuestionMetrics


class EvalConfig(BaseModel):
    dataset: str
    corpus: str
    limit: int | None
    concurrency: int
    run: dict[str, Any] = Field(description="The `Context` every question ran with.")
    started_at: str
    wall_seconds: float = 0.0


class EvalReport(BaseModel):
    """What `--out` holds."""

    config: EvalConfig
    aggregate: Aggregate
    by_tag: dict[str, Aggregate]
    questions: list[QuestionRecord]


async def evaluate(
    questions: Sequence[EvalQuestion],
    context: Context,
    concurrency: int = 4,
    on_done: Callable[[QuestionRecord], None] | None = None,
    dataset: str = "",
    limit: int | None = None,
) -> EvalReport:
    """Every question through the graph, at most `concurrency` at once."""
    started_at = datetime.now(UTC).isoformat(timespec="seconds")
    started = time.perf_counter()
    if "local" in context.retriever_names:  # indexed once, before the questions race to it
        resources = RunResources(context)
        try:
            await asyncio.to_thread(resources.corpus)
        finally:
            resources.close()
    gate = asyncio.Semaphore(max(1, concurrency))

    async def one(question: EvalQuestion) -> QuestionRecord:
        async with gate:
            record = await run_question(question, context)
        if on_done is not None:
            on_done(record)
        return record

    records = await asyncio.gather(*(one(q) for q in questions))
    overall, by_tag = summarize(records)
    config = EvalConfig(
        dataset=dataset,
        corpus=context.corpus,
        limit=limit,
        concurrency=concurrency,
        run=asdict(context),
        started_at=started_at,
        wall_seconds=round(time.perf_counter() - started, 3),
    )
    return EvalReport(config=config, aggregate=overall, by_tag=by_tag, questions=list(records))


async def run_question(question: EvalQuestion, context: Context) -> QuestionRecord:
    """One run, scored; an exception becomes the record's error."""
    started = time.perf_counter()
    record = QuestionRecord(
        id=question.id,
        question=question.question,
        status="failed",
        tags=question.tags,
        extra=question.extra,
        metrics=score_failure(question, 0.0),
    )
    try:
        result = await aresearch(question.question, checkpointer="none", **asdict(context))
    except Exception as error:  # one broken run must not end the evaluation
        record.error = f"{type(error).__name__}: {error}"
        record.metrics = score_failure(question, time.perf_counter() - started)
        return record
    record.status = result.status
    record.metrics = score(question, result, time.perf_counter() - started)
    return record


def summarize(records: Sequence[QuestionRecord]) -> tuple[Aggregate, dict[str, Aggregate]]:
    """The whole set, and each tag's questions on their own."""
    tagged: dict[str, list[QuestionMetrics]] = {}
    for record in records:
        for tag in record.tags:
            tagged.setdefault(tag, []).append(record.metrics)
    overall = aggregate([r.metrics for r in records])
    return overall, {tag: aggregate(metrics) for tag, metrics in sorted(tagged.items())}
