"""Retrievers by name, built from the run's configuration."""

from __future__ import annotations

from grounded_research.configuration import Context
from grounded_research.errors import ConfigurationError
from grounded_research.retrieval.base import Retriever
from grounded_research.retrieval.local import open_corpus

KNOWN_RETRIEVERS = ("local",)


def build_retrievers(context: Context, refresh: bool = False) -> list[Retriever]:
    """`refresh` re-reads changed corpus files; a run asks for it once, at its start."""
    names = context.retriever_names
    if not names:
        raise ConfigurationError("no retriever configured")
    retrievers: list[Retriever] = []
    for name in names:
        if name == "local":
            retrievers.append(
                open_corpus(context.corpus, context.cache_dir, context.chunk_size, refresh)
            )
        else:
            known = ", ".join(KNOWN_RETRIEVERS)
            raise ConfigurationError(f"unknown retriever {name!r} (known: {known})")
    return retrievers
