"""grounded-research: a LangGraph research agent whose every report sentence cites a
verbatim snippet of a saved source."""

from grounded_research.api import ResearchResult, aresearch, open_session, research
from grounded_research.configuration import Context
from grounded_research.graph import graph

__all__ = ["Context", "ResearchResult", "aresearch", "graph", "open_session", "research"]
