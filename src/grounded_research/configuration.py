"""Every knob of a run, with its default: LangGraph's `context_schema`.

In Python pass `context=Context(...)` to `invoke`/`stream`; a LangGraph server copies
the run's `configurable` into it; the CLI builds it from its options.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from langgraph.runtime import Runtime

from grounded_research.errors import ConfigurationError


def default_cache_dir() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return str(Path(base) / "grounded-research")


@dataclass(kw_only=True)
class Context:
    corpus: str = field(
        default="",
        metadata={"description": "Local corpus: a folder (read recursively) or one .jsonl file."},
    )
    retrievers: str = field(
        default="local",
        metadata={"description": "Comma-separated retrievers to search with, e.g. 'local'."},
    )
    model: str = field(
        default="extractive",
        metadata={"description": "'extractive' (offline, no LLM) or provider:name."},
    )
    max_sub_questions: int = field(
        default=4, metadata={"description": "Sub-questions the planner may add to the question."}
    )
    max_rounds: int = field(
        default=2,
        metadata={"description": "Re-search rounds for gaps after the first search (0 = none)."},
    )
    results_per_query: int = field(
        default=8, metadata={"description": "Passages each retriever returns per query."}
    )
    chunk_size: int = field(
        default=600, metadata={"description": "Target passage size in characters."}
    )
    token_budget: int = field(
        default=4000, metadata={"description": "Tokens of evidence the writer may receive."}
    )
    evidence_per_sub_question: int = field(
        default=32,
        metadata={
            "description": "Most evidence passages selected per sub-question; the token "
            "budget usually binds first."
        },
    )
    min_independent_sources: int = field(
        default=2,
        metadata={"description": "Independent sources a sub-question needs before it is closed."},
    )
    follow_up_queries: int = field(
        default=3, metadata={"description": "Most follow-up queries per gap."}
    )
    approve_plan: bool = field(
        default=False,
        metadata={"description": "Stop after planning until a person accepts or edits the plan."},
    )
    cache_dir: str = field(
        default_factory=default_cache_dir,
        metadata={"description": "Where corpus indexes and source snapshots are kept."},
    )

    def __post_init__(self) -> None:
        for name in ("max_sub_questions", "results_per_query", "chunk_size", "token_budget"):
            if getattr(self, name) < 1:
                raise ConfigurationError(f"{name} must be at least 1, got {getattr(self, name)}")
        for name in ("max_rounds", "min_independent_sources"):
            if getattr(self, name) < 0:
                raise ConfigurationError(f"{name} must not be negative, got {getattr(self, name)}")

    @property
    def retriever_names(self) -> list[str]:
        return [name.strip() for name in self.retrievers.split(",") if name.strip()]

    @classmethod
    def from_mapping(cls, values: dict[str, Any]) -> Context:
        """Build from loose options (CLI, `research(**config)`), rejecting unknown names."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ConfigurationError(f"unknown option(s): {', '.join(unknown)}")
        return replace(cls(), **{k: v for k, v in values.items() if v is not None})


def get_context(runtime: Runtime[Context] | None) -> Context:
    """The run's context; the defaults when the caller passed none."""
    if runtime is None or runtime.context is None:
        return Context()
    context = runtime.context
    if isinstance(context, dict):  # some callers hand a plain mapping through
        return Context.from_mapping(context)
    return context
