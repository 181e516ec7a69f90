"""Evaluation harness: how much of the needed evidence each stage of the graph keeps,
whether the report's citations hold, and what a run costs."""

from grounded_research.evaluation.dataset import EvalQuestion, Fact, load_dataset
from grounded_research.evaluation.metrics import Aggregate, QuestionMetrics, aggregate, score
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
