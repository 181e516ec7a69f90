"""Every knob of a run, with its default: LangGraph's `context_schema`.

In Python pass `context=Context(...)` to `invoke`/`stream`; a LangGraph server copies
the run's `configurable` into it; the CLI builds it from its options.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Annotated, Any

from langgraph.runtime import Runtime

from grounded_research.errors import ConfigurationError


def default_cache_dir() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return str(Path(base) / "grounded-research")


ModelName = Annotated[str, {"__template_metadata__": {"kind": "llm"}}]
"""A model field: LangGraph Studio shows a model picker for it."""


@dataclass(kw_only=True)
class Context:
    corpus: str = field(
        default="",
        metadata={"description": "Local corpus: a folder (read recursively) or one .jsonl file."},
    )
    retrievers: str = field(
        default="auto",
        metadata={
            "description": "Comma-separated retrievers: local, tavily, urls. 'auto': local with a "
            "corpus, tavily when TAVILY_API_KEY is set and there is no corpus, plus urls when "
            "urls are given."
        },
    )
    urls: list[str] = field(
        default_factory=list,
        metadata={"description": "Web pages to research (the 'urls' retriever)."},
    )
    model: ModelName = field(
        default="extractive",
        metadata={
            "description": "'extractive' (offline, no LLM) or provider:name, e.g. "
            "'openai:gpt-4.1-mini'."
        },
    )
    base_url: str = field(
        default="",
        metadata={
            "description": "Base URL of an OpenAI-compatible server (vLLM, llama.cpp, Ollama's "
            "/v1, LM Studio); OPENAI_BASE_URL fills it when left empty."
        },
    )
    planner_model: ModelName = field(
        default="", metadata={"description": "Model that plans and checks gaps; empty = model."}
    )
    writer_model: ModelName = field(
        default="", metadata={"description": "Model that writes the report; empty = model."}
    )
    verifier_model: ModelName = field(
        default="", metadata={"description": "Model that checks citations; empty = model."}
    )
    structured_output: str = field(
        default="json_schema",
        metadata={
            "description": "How models return JSON: 'json_schema' (response_format), "
            "'function_calling' (tools), 'json_mode', or 'prompt' (asked in the prompt only)."
        },
    )
    model_timeout: float = field(
        default=120.0, metadata={"description": "Seconds one model request may take."}
    )
    model_retries: int = field(
        default=2,
        metadata={"description": "Retries of a model request after a timeout or rate limit."},
    )
    max_output_tokens: int = field(
        default=0,
        metadata={"description": "Most tokens one model answer may have (0: the model's limit)."},
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
    selection_strategy: str = field(
        default="auto",
        metadata={
            "description": "How evidence is ranked for the writer: 'none' (the retriever's "
            "order), 'keyword' (BM25, jieba for Chinese), 'embeddings' (vector similarity, "
            "FAISS), 'hybrid' (rank fusion of both); 'auto': hybrid when an embedder is "
            "available, else keyword."
        },
    )
    embeddings: str = field(
        default="local",
        metadata={
            "description": "Embedder for the embeddings and hybrid strategies: 'local' (an "
            "offline MiniLM shipped with the package), 'none', or a LangChain model as "
            "provider:model, e.g. 'openai:text-embedding-3-small'."
        },
    )
    embeddings_base_url: str = field(
        default="",
        metadata={"description": "Base URL of an OpenAI-compatible embeddings server."},
    )
    writer_context_tokens: int = field(
        default=0,
        metadata={
            "description": "The writer model's context window in tokens; the evidence gets "
            "what is left after the prompt and answer reserves, at most token_budget "
            "(0: token_budget alone limits it)."
        },
    )
    prompt_reserve_tokens: int = field(
        default=1500,
        metadata={"description": "Tokens of the writer's context kept for its instructions."},
    )
    answer_reserve_tokens: int = field(
        default=2000,
        metadata={"description": "Tokens of the writer's context kept for its answer."},
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
    allow_private_network: bool = field(
        default=False,
        metadata={
            "description": "Let the web fetcher reach loopback, private, link-local and "
            "metadata addresses (intranets, tests). Off: such URLs become blocked sources."
        },
    )
    tavily_search_depth: str = field(
        default="basic", metadata={"description": "Tavily search depth: basic or advanced."}
    )
    tavily_topic: str = field(
        default="general", metadata={"description": "Tavily topic: general, news or finance."}
    )
    tavily_time_range: str = field(
        default="",
        metadata={"description": "Tavily time range: day, week, month, year, or '' for any."},
    )
    tavily_max_results: int = field(
        default=5, metadata={"description": "Most pages one Tavily search returns."}
    )
    tavily_include_domains: list[str] = field(
        default_factory=list, metadata={"description": "Tavily searches only these domains."}
    )
    tavily_exclude_domains: list[str] = field(
        default_factory=list, metadata={"description": "Tavily never returns these domains."}
    )
    tavily_base_url: str = field(
        default="https://api.tavily.com",
        metadata={"description": "Tavily API base URL (tests point it at a local server)."},
    )
    search_concurrency: int = field(
        default=8,
        metadata={"description": "Searches in flight at once, across all parallel branches."},
    )
    fetch_concurrency: int = field(
        default=8,
        metadata={"description": "Page fetches in flight at once, across all parallel branches."},
    )
    search_timeout: float = field(
        default=30.0, metadata={"description": "Seconds one search call may take."}
    )
    fetch_timeout: float = field(
        default=20.0,
        metadata={"description": "Seconds one page may take, redirects and retries included."},
    )
    fetch_retries: int = field(
        default=2, metadata={"description": "Retries of a page after a 429 or 5xx answer."}
    )
    max_page_bytes: int = field(
        default=5_000_000,
        metadata={"description": "Bytes read of one page; longer HTML/text is cut there."},
    )
    max_pages: int = field(
        default=60, metadata={"description": "Web pages one run may use (fetched or cached)."}
    )
    page_cache_days: float = field(
        default=7.0,
        metadata={"description": "Days a fetched page is reused from the cache (0 = never)."},
    )
    run_deadline: float = field(
        default=900.0,
        metadata={
            "description": "Seconds after the run's start when no new search or fetch begins "
            "(0 = no deadline); the report is written from what was found."
        },
    )

    def __post_init__(self) -> None:
        for name in ("max_sub_questions", "results_per_query", "chunk_size", "token_budget"):
            if getattr(self, name) < 1:
                raise ConfigurationError(f"{name} must be at least 1, got {getattr(self, name)}")
        for name in ("search_concurrency", "fetch_concurrency", "max_page_bytes"):
            if getattr(self, name) < 1:
                raise ConfigurationError(f"{name} must be at least 1, got {getattr(self, name)}")
        for name in ("search_timeout", "fetch_timeout"):
            if getattr(self, name) <= 0:
                raise ConfigurationError(f"{name} must be positive, got {getattr(self, name)}")
        if self.model_timeout <= 0:
            raise ConfigurationError(f"model_timeout must be positive, got {self.model_timeout}")
        if self.max_output_tokens < 0:
            raise ConfigurationError(
                f"max_output_tokens must not be negative, got {self.max_output_tokens}"
            )
        if self.model_retries < 0:
            raise ConfigurationError(
                f"model_retries must not be negative, got {self.model_retries}"
            )
        choices = {
            "selection_strategy": ("auto", "none", "keyword", "embeddings", "hybrid"),
            "structured_output": ("json_schema", "function_calling", "json_mode", "prompt"),
            "tavily_search_depth": ("basic", "advanced"),
            "tavily_topic": ("general", "news", "finance"),
            "tavily_time_range": ("", "day", "week", "month", "year"),
        }
        for name, allowed in choices.items():
            if getattr(self, name) not in allowed:
                raise ConfigurationError(
                    f"{name} must be one of {', '.join(repr(a) for a in allowed)}, "
                    f"got {getattr(self, name)!r}"
                )
        for name in (
            "max_rounds",
            "min_independent_sources",
            "fetch_retries",
            "max_pages",
            "page_cache_days",
            "run_deadline",
            "writer_context_tokens",
            "prompt_reserve_tokens",
            "answer_reserve_tokens",
        ):
            if getattr(self, name) < 0:
                raise ConfigurationError(f"{name} must not be negative, got {getattr(self, name)}")
        if self.writer_context_tokens and self.evidence_budget < 1:
            raise ConfigurationError(
                f"writer_context_tokens ({self.writer_context_tokens}) leaves no room for "
                "evidence after prompt_reserve_tokens and answer_reserve_tokens"
            )

    @property
    def evidence_budget(self) -> int:
        """Tokens of evidence the writer may receive: token_budget, or less when the
        writer's context window minus the prompt and answer reserves is smaller."""
        if not self.writer_context_tokens:
            return self.token_budget
        room = self.writer_context_tokens - self.prompt_reserve_tokens - self.answer_reserve_tokens
        return min(self.token_budget, room)

    @property
    def retriever_names(self) -> list[str]:
        """The retrievers to use; 'auto' picks them from what the run was given."""
        names = [name.strip() for name in self.retrievers.split(",") if name.strip()]
        if names != ["auto"]:
            return names
        picked = ["local"] if self.corpus else []
        if self.urls:
            picked.append("urls")
        if not picked:
            picked.append("tavily" if os.environ.get("TAVILY_API_KEY") else "local")
        return picked

    @classmethod
    def from_mapping(cls, values: dict[str, Any]) -> Context:
        """Build from loose options (CLI, `research(**config)`), rejecting unknown names."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ConfigurationError(f"unknown option(s): {', '.join(unknown)}")
        return replace(cls(), **{k: v for k, v in values.items() if v is not None})


def get_context(runtime: Runtime[Context] | None) -> Context:
    """The run's knobs. A graph built with `resources.RunGraph` hands each invocation a
    `Context` of its own, whatever the caller gave; a node called outside such a graph
    may find None (the defaults) or a dict of fields. The run's resources are not
    reached from here but with `resources.resources_of`."""
    if runtime is None or runtime.context is None:
        return Context()
    context = runtime.context
    if isinstance(context, dict):  # some callers hand a plain mapping through
        return Context.from_mapping(context)
    return context
