"""The graph as a server runs it for others: the one `langgraph.json` registers.

The same graph as `graph.py`'s, compiled with the operator's `ServerPolicy`: every run's
values pass through it (`policy.py`), so a caller chooses among what the operator allows
and never reaches the operator's keys, files or network beyond that. The policy is read
from GROUNDED_RESEARCH_SERVER_CONFIG when the server imports this module, so a malformed
one stops the server at start with its error. Python and the CLI use `graph.py`'s graph,
where the caller is the operator.
"""

from __future__ import annotations

from grounded_research.graph import builder
from grounded_research.policy import ServerPolicy

graph = builder.compile(name="researcher", policy=ServerPolicy.from_environment())
