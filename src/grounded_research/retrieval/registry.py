"""Retrievers by name, built from the run's configuration on the run's shared parts."""

from __future__ import annotations

import os
from collections.abc import Callable

from grounded_research.configuration import Context
from grounded_research.errors import ConfigurationError
from grounded_research.retrieval.base import Retriever
from grounded_research.retrieval.local import LocalCorpus
from grounded_research.retrieval.session import Limited, RunSession


def build_retrievers(
    context: Context, session: RunSession, corpus: Callable[[], LocalCorpus]
) -> list[Retriever]:
    """The retrievers `context` names, searching and fetching within the run's
    `session`; `corpus` gives the run's opened corpus (asked only when it is used).
    Which retrievers 'auto' means is `Context.retriever_names`' choice."""
    names = context.retriever_names
    if not names:
        raise ConfigurationError("no retriever configured")
    problem = context.retriever_problem()
    if problem:
        raise ConfigurationError(problem)
    retrievers: list[Retriever] = []
    for name in names:
        if name == "local":
            retrievers.append(Limited(corpus(), session))
        elif name == "tavily":
            from grounded_research.retrieval.tavily import TavilyRetriever

            api_key = os.environ.get("TAVILY_API_KEY", "")
            if not api_key:
                raise ConfigurationError("the tavily retriever needs TAVILY_API_KEY to be set")
            retrievers.append(TavilyRetriever(context, session, api_key))
        elif name == "searxng":
            from grounded_research.retrieval.searxng import SearxngRetriever

            retrievers.append(SearxngRetriever(context, session))
        elif name == "mcp":
            from grounded_research.retrieval.mcp_tools import McpToolRetriever

            retrievers.append(McpToolRetriever(context, session))
        elif name == "urls":
            from grounded_research.retrieval.urls import UrlsRetriever

            retrievers.append(UrlsRetriever(context, session))
    return retrievers
