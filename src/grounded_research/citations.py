"""How a report cites, and how its claims are read back: one place for both sides.

A claim is a sentence of the report's body (before Conflicts / Unresolved /
References); its citations are the `[n]` markers it carries.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from grounded_research.state import Evidence, Verdict
from grounded_research.text.chunking import sentences
from grounded_research.text.facts import checkable_content, contains_content
from grounded_research.text.normalize import normalize

CITATION = re.compile(r"\[(\d+(?:\s*[,;]\s*\d+)*)\]")
NON_CLAIM_SECTIONS = re.compile(
    r"^#{1,6}\s*(?:unresolved|references|sources|further sources|reprints|"
    r"未解决|参考|来源|其他来源|转载)",
    re.I | re.M,
)
_NOTE = re.compile(r"^\s*_[^_].*_\s*$")
_LINE_MARKUP = re.compile(r"^\s*(?:[-*+•]\s+|\d+[.)]\s+|>\s*)")
_EMPHASIS = re.compile(r"\*\*|__|`")
UNSUPPORTED_FLAG = "⚠ unsupported by its citations"
_FLAGGED = re.compile(r"\s*" + re.escape(UNSUPPORTED_FLAG) + r"\s*\(\w+\)")


@dataclass(frozen=True)
class ReportClaim:
    text: str  # without markup and citation markers
    citations: list[int]


def note(text: str) -> str:
    """A line about the report itself (not a claim about the world): the verifier skips it."""
    return f"_{text}_"


def cite(numbers: list[int]) -> str:
    return "".join(f"[{n}]" for n in numbers)


def split_claims(report: str) -> list[ReportClaim]:
    """The sentences of the report's body that state something, with their citations."""
    cut = NON_CLAIM_SECTIONS.search(report)
    body = report[: cut.start()] if cut else report
    claims: list[ReportClaim] = []
    for line in _FLAGGED.sub("", body).splitlines():
        if not line.strip() or line.lstrip().startswith("#") or _NOTE.match(line):
            continue
        for start, end in sentences(line):
            sentence = line[start:end]
            numbers = [
                int(n) for group in CITATION.findall(sentence) for n in re.split(r"[,;]", group)
            ]
            text = _unquoted(_EMPHASIS.sub("", _LINE_MARKUP.sub("", CITATION.sub("", sentence))))
            if not text and numbers and claims:
                # "… end of a quote.” [3]": the marker belongs to the sentence before it
                last = claims[-1]
                claims[-1] = ReportClaim(last.text, last.citations + numbers)
            elif len(text.split()) >= 3 or len(text) >= 12:
                claims.append(ReportClaim(text, numbers))
    return claims


def _unquoted(text: str) -> str:
    """The claim without the quotation marks the report put around it (a quote inside
    the claim stays: it is part of what the source says)."""
    text = text.strip(" :").removeprefix("“").removesuffix("”")
    if text.count('"') % 2:  # an unbalanced straight quote is the report's own
        text = text[1:] if text.startswith('"') else text.removesuffix('"')
    return text.strip()


def judge(claim_text: str, cited: list[Evidence]) -> tuple[Verdict, str]:
    """Extractive check: verbatim inside a cited passage is supported; its checkable
    content (numbers, names) all inside one is partial; anything else unsupported."""
    if not cited:
        return "unsupported", "no citation"
    wanted = normalize(claim_text)
    if any(wanted in normalize(e.text) for e in cited):
        return "supported", "verbatim in cited evidence"
    content = checkable_content(claim_text)
    if content and any(contains_content(e.text, content) for e in cited):
        return "partial", "numbers and names found in cited evidence, wording differs"
    return "unsupported", "not found in cited evidence"


def citation_valid(claim_text: str, evidence: Evidence) -> bool:
    """The evaluation's rule: the evidence holds every number, date and named term of the
    sentence (or, when it has none, the sentence itself)."""
    content = checkable_content(claim_text)
    if not content:
        return normalize(claim_text) in normalize(evidence.text)
    return contains_content(evidence.text, content)
