"""What the thread already knows about a question: the earlier evidence it recalls, whether
that answers it, and how much of the question the memory knows at all (topic drift).

Whether recalled evidence answers is the gap check's own test (`gaps.rules.why_unanswered`,
the one the writer's answer line shares): a turn that the thread's evidence answers by
that test makes no new search.
"""

from __future__ import annotations

from grounded_research.gaps.rules import as_sources_write_it, why_unanswered
from grounded_research.state import Evidence, Memory, State, SubQuestion
from grounded_research.text.facts import named_terms
from grounded_research.text.tokenize import tokenize

RECALL_SHARE = 0.5
"""Share of a question's terms a passage (with its title and headings) must hold to be
recalled for it."""


def terms(text: str) -> set[str]:
    return set(tokenize(text))


def recall(state: State, sub_question: SubQuestion, most: int) -> list[Evidence]:
    """The memory's evidence about a sub-question, best first: every passage its turns
    found or its facts cite (a fact shrunk to a pointer is expanded here), from sources
    the constraints admit, holding at least `RECALL_SHARE` of the question's terms."""
    memory = state.memory
    asked = terms(sub_question.text)
    if not asked:
        return []
    ids = dict.fromkeys([*memory.found, *(i for f in memory.facts for i in f.evidence_ids)])
    scored: list[tuple[float, float, Evidence]] = []
    for evidence_id in ids:
        record = state.evidence.get(evidence_id)
        source = state.sources.get(record.source_id) if record else None
        if record is None or source is None or not memory.admits(source):
            continue
        held = asked & terms(f"{source.title}\n{' '.join(record.headings)}\n{record.text}")
        share = len(held) / len(asked)
        if share >= RECALL_SHARE:
            scored.append((share, record.score, record))
    scored.sort(key=lambda item: (-item[0], -item[1], item[2].id))
    return [record for _, _, record in scored[:most]]


def answered(state: State, sub_question: SubQuestion, records: list[Evidence]) -> bool:
    """Whether these passages answer the sub-question, by the gap check's test."""
    read = as_sources_write_it(sub_question, records)
    return bool(records) and not why_unanswered(state, read, records)


def known_text(memory: Memory) -> str:
    """What the memory is about: what its questions asked and its facts say (not every
    source its searches came across)."""
    return "\n".join([*memory.questions, *(fact.claim for fact in memory.facts)])


def overlap(question: str, memory: Memory) -> float:
    """How much of the question the memory knows: the share of its terms in what the
    memory is about, averaged with the share of its names there when it names any (a
    follow-up on the same product or company keeps its names, a new topic brings new
    ones). Low means another topic."""
    asked = terms(question)
    if not asked:
        return 1.0
    known = known_text(memory)
    share = len(asked & terms(known)) / len(asked)
    names = named_terms(question)
    if not names:
        return share
    return (share + len(names & named_terms(known)) / len(names)) / 2
