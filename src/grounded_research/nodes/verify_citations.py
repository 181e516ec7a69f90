"""Read the report back claim by claim and check each against the evidence it cites.

A citation to a number that no reference holds is invalid; a claim is supported when
its words stand in a cited passage, partial when only its numbers and names do.
Unsupported claims are flagged in the report itself, not hidden.
"""

from __future__ import annotations

import time
from typing import Any

from langgraph.runtime import Runtime

from grounded_research.citations import judge, split_claims
from grounded_research.configuration import Context
from grounded_research.state import Claim, State, Usage

FLAG = "⚠ unsupported by its citations"


async def verify_citations(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    started = time.perf_counter()
    if state.status == "no_sources":
        return {"claims": [], "usage": Usage(seconds={"verify_citations": 0.0})}
    by_number = {r.number: state.evidence[r.evidence_id] for r in state.references}
    claims: list[Claim] = []
    for position, claim in enumerate(split_claims(state.report), start=1):
        known = [n for n in claim.citations if n in by_number]
        verdict, note = judge(claim.text, [by_number[n] for n in known])
        if len(known) < len(claim.citations):
            verdict = "invalid_citation"
            missing = sorted(set(claim.citations) - set(known))
            note = f"cites missing reference(s) {missing}"
        claims.append(
            Claim(
                id=f"c{position}",
                text=claim.text,
                citations=claim.citations,
                evidence_ids=[by_number[n].id for n in known],
                verdict=verdict,
                note=note,
            )
        )
    report = flag_unsupported(state.report, claims)
    return {
        "claims": claims,
        "report": report,
        "usage": Usage(seconds={"verify_citations": round(time.perf_counter() - started, 4)}),
    }


def flag_unsupported(report: str, claims: list[Claim]) -> str:
    """Append a visible flag to each line holding an unsupported or miscited claim."""
    bad = [c for c in claims if c.verdict in ("unsupported", "contradicted", "invalid_citation")]
    if not bad:
        return report
    lines = report.splitlines()
    for claim in bad:
        for index, line in enumerate(lines):
            if claim.text[:40] in line and FLAG not in line:
                lines[index] = f"{line} {FLAG} ({claim.verdict})"
                break
    return "\n".join(lines) + "\n"
