"""The user's constraints and corrections, read from what they ask.

"Only use sources published after 2025", "ignore vendor blogs", "I meant the 2026
model": each becomes a `Constraint` the thread keeps for every later turn. A date
window replaces the earlier one (the report says which statement it replaces); "I meant
X" replaces the words of the earlier question it corrects. A turn that only corrects
("Correction: after 2023, not after 2025") asks its earlier question again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from grounded_research.state import Constraint, ConstraintKind, Memory, Turn
from grounded_research.text.tokenize import content_words

_CLAUSE = re.compile(r"(?<=[.?!;。？！；])\s+")
_CORRECTION = re.compile(
    r"^\s*(?:correction|actually|sorry|no|rather|instead)\b[:,]?\s*", re.IGNORECASE
)
_DATE_WINDOW = re.compile(
    r"(?<!not )\b(after|since|from|before|until)\s+((?:19|20)\d\d)\b", re.IGNORECASE
)
_ABOUT_SOURCES = re.compile(
    r"\b(?:sources?|documents?|articles?|reports?|pages?|papers?|published|dated)\b",
    re.IGNORECASE,
)
_EXCLUDE = re.compile(
    r"^\s*(?:please\s+)?(?:ignore|exclude|skip|leave out|don't use|do not use|without)\s+"
    r"(?:the\s+|any\s+|all\s+)?(.+?)[.!]?\s*$",
    re.IGNORECASE,
)
_MEANT = re.compile(
    r"\bI\s+meant\s+(?:the\s+)?(.+?)(?:,?\s+not\s+(?:the\s+)?(.+?))?[.!]?\s*$", re.IGNORECASE
)
_GENERIC = {"source", "sources", "document", "documents", "article", "articles", "page", "pages"}
_KIND_OF_WORD: dict[str, ConstraintKind] = {
    "after": "after",
    "since": "since",
    "from": "since",
    "before": "before",
    "until": "before",
}
DATE_KINDS = ("after", "since", "before")


@dataclass
class Read:
    """A turn's words read: the question it asks, and the constraints it adds."""

    question: str
    constraints: list[Constraint] = field(default_factory=list)
    meant: tuple[str, str] | None = None  # (the words meant, the words they replace)


def read_turn(text: str, turn: int) -> Read:
    """Split the turn into its question and its constraints (clauses that only constrain)."""
    kept: list[str] = []
    constraints: list[Constraint] = []
    meant: tuple[str, str] | None = None
    for clause in _CLAUSE.split(" ".join(text.split())):
        body = _CORRECTION.sub("", clause)
        asks = "?" in body or "？" in body
        window = None if asks else _DATE_WINDOW.search(body)
        excluded = None if asks else _EXCLUDE.match(body)
        said = None if asks else _MEANT.search(body)
        if window and _ABOUT_SOURCES.search(body):
            kind = _KIND_OF_WORD[window.group(1).lower()]
            constraints.append(Constraint(text=body, kind=kind, value=window.group(2), turn=turn))
        elif excluded:
            words = [w for w in content_words(excluded.group(1)) if w.lower() not in _GENERIC]
            if words:
                value = " ".join(words)
                constraints.append(Constraint(text=body, kind="exclude", value=value, turn=turn))
        elif said:
            meant = (said.group(1).strip(), (said.group(2) or "").strip())
            constraints.append(Constraint(text=body, kind="meant", value=meant[0], turn=turn))
        else:
            kept.append(clause)
    return Read(" ".join(kept).strip(), constraints, meant)


def with_constraints(memory: Memory, added: list[Constraint]) -> list[Constraint]:
    """The memory's constraints with the turn's: a date window replaces the earlier one
    (each says which it replaces); exclusions add up; a repeated one is kept once."""
    kept = list(memory.constraints)
    for constraint in added:
        if constraint.kind in DATE_KINDS:
            earlier = [c for c in kept if c.kind in DATE_KINDS]
            if earlier:
                constraint = constraint.model_copy(
                    update={"replaces": earlier[-1].text, "replaces_turn": earlier[-1].turn}
                )
            kept = [c for c in kept if c.kind not in DATE_KINDS]
        if all((c.kind, c.value) != (constraint.kind, constraint.value) for c in kept):
            kept.append(constraint)
    return kept


def corrected_question(earlier: str, meant: tuple[str, str]) -> tuple[str, str]:
    """The earlier question with the words the user meant in place of those they
    correct, and the words replaced ("" when nothing in it matches): "I meant the 2026
    model" turns "the 2025 model" into "the 2026 model"."""
    words, wrong = meant
    if wrong and wrong.lower() in earlier.lower():
        start = earlier.lower().index(wrong.lower())
        return earlier[:start] + words + earlier[start + len(wrong) :], wrong
    new = words.split()
    old = earlier.split()
    for start in range(len(old) - len(new) + 1):
        window = old[start : start + len(new)]
        same = sum(a.lower().strip("?,.") == b.lower() for a, b in zip(window, new, strict=True))
        if 0 < same < len(new) and same * 2 >= len(new):
            tail = window[-1][len(window[-1].rstrip("?,.")) :]
            replaced = " ".join(window).rstrip("?,.")
            return " ".join([*old[:start], *new[:-1], new[-1] + tail, *old[start + len(new) :]]), (
                replaced
            )
    return earlier, ""


def only_constrains(read: Read) -> bool:
    """Whether the turn asks nothing new: it only constrains or corrects."""
    return len(content_words(read.question)) < 2


@dataclass
class TurnQuestion:
    """What a turn researches, the constraints it adds, and the earlier words its "I
    meant" replaces."""

    text: str
    constraints: list[Constraint] = field(default_factory=list)
    replaced: list[str] = field(default_factory=list)


def turn_question(question: str, earlier: Turn | None, number: int) -> TurnQuestion:
    """The turn's question: as asked, its constraints taken out; on a follow-up that only
    constrains or corrects, the earlier question again, with the words the user meant."""
    read = read_turn(question, number)
    if earlier is None:  # nothing to re-ask or correct: a question that is all constraint
        if only_constrains(read):  # is asked whole
            return TurnQuestion(" ".join(question.split()))
        return TurnQuestion(read.question, read.constraints)
    asked = earlier.asked if only_constrains(read) else read.question
    replaced: list[str] = []
    if read.meant:
        asked, wrong = corrected_question(asked, read.meant)
        if wrong:
            replaced.append(f"“{read.meant[0]}” replaces “{wrong}” (turn {earlier.number})")
    return TurnQuestion(asked, read.constraints, replaced)
