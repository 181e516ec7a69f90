"""Read the report back claim by claim and check each against the evidence it cites.

A citation to a number that no reference holds is invalid; a claim is supported when
its words stand in a cited passage, partial when only its numbers and names do.
Unsupported claims are flagged in the report itself, not hidden.

With a model, the claims that are not verbatim quotes of what they cite are sent to it in
batches, each with its cited evidence quoted, for a verdict: supported, partial,
unsupported or contradicted. A batch the model cannot answer keeps the rule verdicts.
"""

from __future__ import annotations

import asyncio
import re

from grounded_research.models import ModelFailure, NodeModel
from grounded_research.prompts import ClaimToCheck, Found, Verdicts, verifier_messages
from grounded_research.report.citations import (
    UNSUPPORTED_FLAG,
    judge,
    plain,
    split_claims,
    without_citations,
)
from grounded_research.state import Claim, Evidence, State

CLAIMS_PER_BATCH = 8
_MARKUP_CHARS = re.compile(r"[*_`“”\"]")


async def verify(state: State, llm: NodeModel | None) -> tuple[list[Claim], str]:
    """Every claim of the report with its verdict, and the report with the unsupported
    ones flagged."""
    by_number: dict[int, list[Evidence]] = {}
    for reference in state.references:  # a number cites a document: each span it quotes
        by_number.setdefault(reference.number, []).append(state.record(reference.evidence_id))
    claims = rule_verdicts(state.report, by_number)
    if llm is not None:
        claims = await checked_by_model(llm, claims, by_number)
    return claims, flag_unsupported(state.report, claims)


def rule_verdicts(report: str, by_number: dict[int, list[Evidence]]) -> list[Claim]:
    """The rules' verdict on each claim; a claim citing a reference that does not exist
    is an invalid citation whatever its words."""
    claims: list[Claim] = []
    for position, claim in enumerate(split_claims(report), start=1):
        known = [n for n in claim.citations if n in by_number]
        cited = [record for n in dict.fromkeys(known) for record in by_number[n]]
        verdict, note, verbatim = judge(claim.text, cited)
        if len(known) < len(claim.citations):
            verdict, verbatim = "invalid_citation", False
            missing = sorted(set(claim.citations) - set(known))
            note = f"cites missing reference(s) {missing}"
        claims.append(
            Claim(
                id=f"c{position}",
                text=claim.text,
                citations=claim.citations,
                evidence_ids=[record.id for record in cited],
                verdict=verdict,
                note=note,
                verbatim=verbatim,
            )
        )
    return claims


async def checked_by_model(
    llm: NodeModel, claims: list[Claim], by_number: dict[int, list[Evidence]]
) -> list[Claim]:
    """Model verdicts for the claims that cite real evidence without quoting it."""
    to_check = [c for c in claims if c.evidence_ids and not c.verbatim]
    batches = [
        to_check[i : i + CLAIMS_PER_BATCH] for i in range(0, len(to_check), CLAIMS_PER_BATCH)
    ]
    judged: dict[str, Claim] = {}
    for found in await asyncio.gather(*(check_batch(llm, b, by_number) for b in batches)):
        judged.update(found)
    return [judged.get(claim.id, claim) for claim in claims]


async def check_batch(
    llm: NodeModel, batch: list[Claim], by_number: dict[int, list[Evidence]]
) -> dict[str, Claim]:
    """The batch's claims with the model's verdicts; the rules' where it gave none."""
    shown = [
        ClaimToCheck(
            id=claim.id,
            text=claim.text,
            evidence=[
                Found(id=str(n), title="", location="", text=record.text)
                for n in dict.fromkeys(claim.citations)
                for record in by_number.get(n, [])
            ],
        )
        for claim in batch
    ]
    try:
        answer = await llm.structured(verifier_messages(shown), Verdicts)
    except ModelFailure as failure:
        llm.fell_back(failure, f"claims {batch[0].id}–{batch[-1].id} checked by rules only")
        return {}
    ids = {claim.id for claim in batch}
    by_id = {claim.id: claim for claim in batch}
    judged: dict[str, Claim] = {}
    for verdict in answer.verdicts:
        claim_id = verdict.claim_id.strip().strip("[]")
        claim_id = f"c{claim_id}" if claim_id.isdigit() else claim_id
        if claim_id in ids and claim_id not in judged:
            note = " ".join(verdict.reason.split()) or "no reason given"
            judged[claim_id] = by_id[claim_id].model_copy(
                update={"verdict": verdict.verdict, "note": f"model: {note}"}
            )
    return judged


def flag_unsupported(report: str, claims: list[Claim]) -> str:
    """Append a visible flag to each line holding an unsupported or miscited claim."""
    bad = [c for c in claims if c.verdict in ("unsupported", "contradicted", "invalid_citation")]
    if not bad:
        return report
    lines = report.splitlines()
    for claim in bad:
        for index, line in enumerate(lines):
            if _bare(claim.text[:40]) in _bare(without_citations(line)) and (
                UNSUPPORTED_FLAG not in line
            ):
                lines[index] = f"{line} {UNSUPPORTED_FLAG} ({claim.verdict})"
                break
    return "\n".join(lines) + "\n"


def _bare(text: str) -> str:
    """Text as a claim and the line it was read from are matched: escapes undone, without
    quotation and emphasis marks, blanks collapsed."""
    return " ".join(_MARKUP_CHARS.sub("", plain(text)).split())
