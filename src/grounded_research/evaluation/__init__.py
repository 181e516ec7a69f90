"""Evaluation harness: how much of the needed evidence each stage of the graph keeps,
whether the report's citations hold, and what a run costs.

The names below are imported when first used, so that `grounded-research eval --help`
does not load the runner and with it the graph."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from grounded_research.evaluation.dataset import EvalQuestion, Fact, load_dataset
    from grounded_research.evaluation.metrics import (
        Aggregate,
        QuestionMetrics,
        aggregate,
        score,
    )
    from grounded_research.evaluation.runner import EvalReport, QuestionRecord, evaluate

__all__ = [
    "Aggregate",
    "EvalQuestion",
    "EvalReport",
    "Fact",
    "QuestionMetrics",
    "QuestionRecord",
    "aggregate",
    "evaluate",
    "load_dataset",
    "score",
]

_HOME = {
    **dict.fromkeys(("EvalQuestion", "Fact", "load_dataset"), "dataset"),
    **dict.fromkeys(("Aggregate", "QuestionMetrics", "aggregate", "score"), "metrics"),
    **dict.fromkeys(("EvalReport", "QuestionRecord", "evaluate"), "runner"),
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value
