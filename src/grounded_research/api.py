"""`research(question, **options)`: the graph as one call, for scripts and notebooks."""

from __future__ import annotations

import asyncio
import json
from dataclasses import asdict, dataclass, field
from typing import Any

from grounded_research.configuration import Context
from grounded_research.state import (
    Claim,
    Evidence,
    Gap,
    Reference,
    RunStatus,
    Source,
    SubQuestion,
    Usage,
)


@dataclass
class ResearchResult:
    question: str
    status: RunStatus
    report: str
    references: list[Reference] = field(default_factory=list)
    sub_questions: list[SubQuestion] = field(default_factory=list)
    sources: dict[str, Source] = field(default_factory=dict)
    evidence: dict[str, Evidence] = field(default_factory=dict)
    context: dict[str, list[str]] = field(default_factory=dict)
    gaps: list[Gap] = field(default_factory=list)
    unresolved: list[Gap] = field(default_factory=list)
    claims: list[Claim] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    warnings: list[str] = field(default_factory=list)

    @classmethod
    def from_state(cls, values: dict[str, Any]) -> ResearchResult:
        names = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in values.items() if k in names})

    def evidence_table(self) -> dict[str, Any]:
        """What `evidence.json` holds: every record needed to audit the report."""
        return {
            "question": self.question,
            "status": self.status,
            "sub_questions": [sq.model_dump() for sq in self.sub_questions],
            "sources": [s.model_dump() for s in self.sources.values()],
            "evidence": [e.model_dump() for e in self.evidence.values()],
            "context": self.context,
            "references": [r.model_dump() for r in self.references],
            "gaps": [g.model_dump() for g in self.gaps],
            "unresolved": [g.model_dump() for g in self.unresolved],
            "claims": [c.model_dump() for c in self.claims],
            "usage": self.usage.model_dump(),
            "warnings": list(self.warnings),
        }

    def selected_evidence(self) -> list[Evidence]:
        """The evidence the writer received, in context order."""
        return [self.evidence[i] for ids in self.context.values() for i in ids]

    def to_json(self) -> str:
        return json.dumps(self.evidence_table(), ensure_ascii=False, indent=2)


async def aresearch(question: str, **options: Any) -> ResearchResult:
    from grounded_research.graph import graph
    from grounded_research.state import InputState

    context = Context.from_mapping(options)
    values = await graph.ainvoke(InputState(question=question), context=context)
    return ResearchResult.from_state(values)


def research(question: str, **options: Any) -> ResearchResult:
    """Run the whole graph; options are `Context` fields (corpus=..., max_rounds=...)."""
    return asyncio.run(aresearch(question, **options))


__all__ = ["ResearchResult", "aresearch", "asdict", "research"]
