"""Run options that both `grounded-research` and `grounded-research eval` take, defined
once so that their names, types and help never drift apart."""

from __future__ import annotations

from typing import Annotated

import typer

Corpus = Annotated[
    str, typer.Option(help="Folder of documents (read recursively) or one .jsonl file.")
]
MaxRounds = Annotated[int | None, typer.Option(help="Re-search rounds for gaps.")]
MaxSubQuestions = Annotated[int | None, typer.Option(help="Sub-questions the planner may add.")]
ResultsPerQuery = Annotated[int | None, typer.Option(help="Passages per retriever and query.")]
TokenBudget = Annotated[int | None, typer.Option(help="Tokens of evidence for the writer.")]
MinSources = Annotated[
    int | None, typer.Option(help="Independent sources required per sub-question.")
]
Retriever = Annotated[
    str | None,
    typer.Option(
        help="Comma-separated retrievers: local, tavily, urls (e.g. local,tavily). Default: "
        "local with --corpus, tavily when TAVILY_API_KEY is set and there is no corpus, "
        "plus urls with --urls."
    ),
]
Model = Annotated[
    str | None,
    typer.Option(help="provider:name, e.g. openai:gpt-4.1-mini; 'extractive' (default): no LLM."),
]
BaseUrl = Annotated[
    str | None,
    typer.Option(
        help="OpenAI-compatible server, e.g. http://127.0.0.1:8080/v1 (vLLM, "
        "llama.cpp, Ollama, LM Studio)."
    ),
]
StructuredOutput = Annotated[
    str | None,
    typer.Option(help="json_schema (default), function_calling, json_mode or prompt."),
]
Selection = Annotated[
    str | None,
    typer.Option(
        help="How evidence is ranked for the writer: auto (default: hybrid, or keyword "
        "without an embedder), hybrid, embeddings, keyword, none."
    ),
]
Embeddings = Annotated[
    str | None,
    typer.Option(help="Embedder: local (default, offline), none, or provider:model."),
]
CacheDir = Annotated[str | None, typer.Option(help="Index, snapshot and page cache.")]
