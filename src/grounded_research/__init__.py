"""grounded-research: a LangGraph research agent whose every report sentence cites a
verbatim snippet of a saved source.

The public names are imported when first used (module `__getattr__`), not with the
package: `grounded-research --help` and a usage error then never load the graph, its
models or its libraries.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from grounded_research.api import ResearchResult, aresearch, open_session, research
    from grounded_research.configuration import Context
    from grounded_research.graph import graph

__all__ = ["Context", "ResearchResult", "aresearch", "graph", "open_session", "research"]

_HOME = {
    "Context": "grounded_research.configuration",
    "ResearchResult": "grounded_research.api",
    "aresearch": "grounded_research.api",
    "graph": "grounded_research.graph",
    "open_session": "grounded_research.api",
    "research": "grounded_research.api",
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value  # found once; later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
