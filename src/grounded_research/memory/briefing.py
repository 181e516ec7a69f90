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


def pointer_line(facts: list[Fact], titles: dict[str, str]) -> str:
    """Facts shrunk to where they are: their evidence ids, the sources' titles, turns."""
    ids = list(dict.fromkeys(i for fact in facts for i in fact.evidence_ids))
    title = "; ".join(dict.fromkeys(titles[i] for i in ids if titles.get(i)))
    turns = ", ".join(str(n) for n in sorted({fact.turn for fact in facts}))
    return f"- [{', '.join(ids)}] {title or 'earlier evidence'} (turn {turns})"


def brief(state: State, memory: Memory, question: str, budget: int, turn: int) -> Briefing:
    """The memory in at most `budget` tokens, but for what is never dropped: the older
    facts that share no term with the question, or do not fit, become pointers, one line
    per passage they come from; the weakest lines sit in the middle."""
    titles = {
        evidence_id: state.sources[record.source_id].title
        for evidence_id, record in state.evidence.items()
        if record.source_id in state.sources
    }
    fixed = [f"- constraint (turn {c.turn}): {c.text}" for c in memory.constraints]
    fixed += [f"- open conflict: {c.subject}: {' vs '.join(c.values)}" for c in memory.conflicts]
    fixed += [f"- still open: {q.question}: {q.detail}" for q in memory.unresolved]
    asked = terms(question)

    def relevance(fact: Fact) -> int:
        return len(asked & terms(fact.claim))

    recent = [f for f in memory.facts if f.turn >= turn - RECENT_TURNS]
    older = sorted(
        (f for f in memory.facts if f.turn < turn - RECENT_TURNS), key=lambda f: -relevance(f)
    )
    spent = sum(count_tokens(line) for line in [*fixed, *map(fact_line, recent)])
    shown: list[tuple[int, str]] = [(relevance(f), fact_line(f)) for f in recent]
    shrunk: dict[tuple[str, ...], list[Fact]] = {}
    for fact in older:
        line = fact_line(fact)
        if relevance(fact) and spent + count_tokens(line) <= budget:
            spent += count_tokens(line)
            shown.append((relevance(fact), line))
        else:
            shrunk.setdefault(tuple(fact.evidence_ids), []).append(fact)
    shown += [(-1, pointer_line(facts, titles)) for facts in shrunk.values()]
    ranked = [line for _, line in sorted(shown, key=lambda item: -item[0])]
    lines = fixed + edges_first(ranked)
    pointers = sum(len(facts) for facts in shrunk.values())
    return Briefing(lines, sum(count_tokens(line) for line in lines), pointers)
