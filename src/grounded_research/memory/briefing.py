"""The memory as a turn's context shows it, within its share of the token budget.

The user's constraints and the facts of the latest turns are always shown in full; the
other facts are ranked by how much of the question they share, and when they do not all
fit, the least relevant shrink to pointers (their evidence ids and source title), which
`recall` expands again when a turn asks about them. The most relevant facts sit at the
start and the end, where a reader (or a model) looks first. Earlier reports are never
pasted: only their facts, open conflicts and open questions.
"""

from __future__ import annotations

from dataclasses import dataclass

from grounded_research.memory.recall import terms
from grounded_research.selection.budget import count_tokens
from grounded_research.selection.select import edges_first
from grounded_research.state import Fact, Memory, State

RECENT_TURNS = 1
"""Facts of this many latest turns are never shrunk."""


@dataclass
class Briefing:
    lines: list[str]
    tokens: int
    pointers: int


def fact_line(fact: Fact) -> str:
    return f"- {fact.claim} [{', '.join(fact.evidence_ids)}] (turn {fact.turn})"


def pointer_line(fact: Fact, titles: dict[str, str]) -> str:
    """A fact shrunk to where it is: its evidence ids and their sources' titles."""
    title = "; ".join(dict.fromkeys(titles.get(i, "") for i in fact.evidence_ids if titles.get(i)))
    return f"- [{', '.join(fact.evidence_ids)}] {title or 'earlier evidence'} (turn {fact.turn})"


def brief(state: State, memory: Memory, question: str, budget: int, turn: int) -> Briefing:
    """The memory in at most `budget` tokens, but for what is never dropped."""
    titles = {
        evidence_id: state.sources[record.source_id].title
        for evidence_id, record in state.evidence.items()
        if record.source_id in state.sources
    }
    fixed = [f"- constraint (turn {c.turn}): {c.text}" for c in memory.constraints]
    fixed += [f"- open conflict: {c.subject}: {' vs '.join(c.values)}" for c in memory.conflicts]
    fixed += [f"- still open: {q.question}: {q.detail}" for q in memory.unresolved]
    asked = terms(question)
    recent = [f for f in memory.facts if f.turn >= turn - RECENT_TURNS]
    older = sorted(
        (f for f in memory.facts if f.turn < turn - RECENT_TURNS),
        key=lambda f: -len(asked & terms(f.claim)),
    )
    spent = sum(count_tokens(line) for line in [*fixed, *map(fact_line, recent)])
    shown: list[tuple[Fact, str]] = [(f, fact_line(f)) for f in recent]
    pointers = 0
    for fact in older:
        line = fact_line(fact)
        if spent + count_tokens(line) > budget:
            line, pointers = pointer_line(fact, titles), pointers + 1
        spent += count_tokens(line)
        shown.append((fact, line))
    ranked = sorted(shown, key=lambda item: -len(asked & terms(item[0].claim)))
    lines = fixed + [line for _, line in edges_first(ranked)]
    return Briefing(lines, sum(count_tokens(line) for line in lines), pointers)
