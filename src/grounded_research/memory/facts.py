"""Confirmed facts: made each turn from the claims the verifier found supported by their
evidence, and checked against that evidence every turn, never against an earlier
summary. A fact whose numbers, units, dates, negations or conditions no longer all appear
verbatim in its evidence (or that drops a negation or condition its evidence sentence
has) is rebuilt from that sentence, word for word.
"""

from __future__ import annotations

from collections.abc import Callable

from grounded_research.report.citations import as_shown
from grounded_research.state import Claim, Fact
from grounded_research.text.chunking import sentences
from grounded_research.text.facts import conditions, exact_terms, negations
from grounded_research.text.normalize import normalize
from grounded_research.text.tokenize import tokenize

EvidenceText = Callable[[str], str]


def facts_of(claims: list[Claim], turn: int) -> list[Fact]:
    """The turn's supported claims as facts, each once."""
    return [
        Fact(claim=c.text, evidence_ids=c.evidence_ids, turn=turn, anchors=exact_terms(c.text))
        for c in claims
        if c.verdict == "supported" and c.evidence_ids
    ]


def merged(earlier: list[Fact], new: list[Fact]) -> list[Fact]:
    """Earlier facts first; a claim made again keeps its first turn."""
    seen = {normalize(f.claim) for f in earlier}
    kept = list(earlier)
    for fact in new:
        if normalize(fact.claim) not in seen:
            seen.add(normalize(fact.claim))
            kept.append(fact)
    return kept


def best_sentence(claim: str, texts: list[str]) -> str:
    """The sentence of the evidence (one or more passages of a document) that says most
    of what the claim says; of two saying as much, the longer."""
    words = set(tokenize(claim))
    said = [
        text[start:end].strip()
        for text in texts
        if text
        for start, end in (sentences(text) or [(0, len(text))])
    ]
    return max(said, key=lambda s: (len(words & set(tokenize(s))), len(s)), default="")


def still_exact(fact: Fact, text_of: EvidenceText) -> bool:
    """Whether every exact term of the claim appears verbatim in its evidence, and the
    claim keeps the negations of the evidence sentence it restates, and its conditions
    too unless it quotes that sentence word for word (half a sentence need not carry the
    other half's conditions; "no cells were delivered" without its "no" says the opposite)."""
    texts = [text_of(evidence_id) for evidence_id in fact.evidence_ids]
    evidence = "\n".join(as_shown(text) for text in texts)
    if not all(term in evidence for term in exact_terms(as_shown(fact.claim))):
        return False
    said = best_sentence(fact.claim, texts)
    if not negations(said) <= negations(fact.claim):
        return False
    quoted = bool(normalize(fact.claim)) and normalize(fact.claim) in normalize(said)
    return quoted or conditions(said) <= conditions(fact.claim)


def checked(fact: Fact, text_of: EvidenceText) -> Fact:
    """The fact as it stands if still exact, else rebuilt verbatim from its evidence."""
    if still_exact(fact, text_of):
        return fact
    texts = [text_of(evidence_id) for evidence_id in fact.evidence_ids]
    rebuilt = best_sentence(fact.claim, texts) or fact.claim
    return fact.model_copy(
        update={"claim": rebuilt, "anchors": exact_terms(rebuilt), "rebuilt": True}
    )
