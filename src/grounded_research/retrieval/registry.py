"""Retrievers by name, built from the run's configuration."""

from __future__ import annotations

import os

from grounded_research.configuration import Context
from grounded_research.errors import ConfigurationError
from grounded_research.retrieval.base import Retriever
from grounded_research.retrieval.local import open_corpus
from grounded_research.retrieval.session import Limited, run_session

KNOWN_RETRIEVERS = ("local", "tavily", "urls")


def build_retrievers(context: Context, refresh: bool = False) -> list[Retriever]:
    """`refresh` re-reads changed corpus files and starts the run's shared limits
    (searches and fetches in flight, deadline, pages); a run asks for it once, at its
    start. Which retrievers 'auto' means is `Context.retriever_names`' choice."""
    names = context.retriever_names
    if not names:
        raise ConfigurationError("no retriever configured")
    session = run_session(context, fresh=refresh)
    retrievers: list[Retriever] = []
    for name in names:
        if name == "local":
            corpus = open_corpus(context.corpus, context.cache_dir, context.chunk_size, refresh)
            retrievers.append(Limited(corpus, session))
        elif name == "tavily":
            from grounded_research.retrieval.tavily import TavilyRetriever

            api_key = os.environ.get("TAVILY_API_KEY", "")
            if not api_key:
                raise ConfigurationError("the tavily retriever needs TAVILY_API_KEY to be set")
            retrievers.append(TavilyRetriever(context, session, api_key))
        elif name == "urls":
            from grounded_research.retrieval.urls import UrlsRetriever

            if not context.urls:
                raise ConfigurationError("the urls retriever needs URLs (--urls FILE)")
            retrievers.append(UrlsRetriever(context, session))
        else:
            known = ", ".join(KNOWN_RETRIEVERS)
            raise ConfigurationError(f"unknown retriever {name!r} (known: {known})")
    return retrievers
