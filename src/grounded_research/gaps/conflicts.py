"""Sources that disagree: on a quantity, on a year, or on whether something happened.

Two sentences from independent sources are about the same subject when they share a
name or product code; they disagree when they give different values for the same
unit, different years for the same kind of event, or status words that cannot both be
true now ("will ship" against "shipped", "delivered" against "not yet").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import combinations

from grounded_research.gaps.kinds import CONFLICT_KINDS, ConflictKind
from grounded_research.text.chunking import sentences
from grounded_research.text.facts import is_unit, name_phrases, quantities, statuses, years

_EVENTS = {
    "start": r"\b(?:start\w*|begin\w*|began|launch\w*|enter\w*|open\w*)\b|开始|投产|启动",
    "production": r"\b(?:production|produc\w+|manufactur\w+)\b|量产|生产|投产",
    "shipping": r"\b(?:ship\w*|deliver\w*|supply|supplies)\b|交付|供货",
    "completion": r"\b(?:complet\w*|finish\w*|availab\w*)\b|完成|上市",
}
_EVENT = {name: re.compile(pattern, re.IGNORECASE) for name, pattern in _EVENTS.items()}
_INCOMPATIBLE = ({"planned"}, {"done"}), ({"done"}, {"delayed"}), ({"done"}, {"cancelled"})
MOST_PER_KIND = 5
# Capitalized words that many different names share: "Pellam Energy" and "Qinglan New
# Energy" are not the same subject.
GENERIC_NAME_WORDS = frozenset(
    [
        "energy",
        "power",
        "motors",
        "motor",
        "automotive",
        "auto",
        "group",
        "labs",
        "lab",
        "new",
        "battery",
        "batteries",
        "cells",
        "cell",
        "technologies",
        "technology",
        "systems",
        "inc",
        "ltd",
        "co",
        "corp",
        "company",
        "holdings",
        "international",
        "global",
        "north",
        "south",
        "east",
        "west",
        "china",
        "chinese",
        "europe",
        "european",
        "american",
        "united",
        "national",
    ]
)


@dataclass(frozen=True)
class Statement:
    evidence_id: str
    source: str  # independent source: a reprint counts as its original
    sentence: str


@dataclass(frozen=True)
class Disagreement:
    kind: ConflictKind  # "conflict" (quantity or year) or "status_conflict"
    names: str  # the names both sides share, as written
    detail: str  # the unit, "year" or "status"
    sides: list[tuple[Statement, str]]  # statement, the value it gives

    @property
    def subject(self) -> str:
        return f"{self.names} ({self.detail})"


def statements(evidence: list[tuple[str, str, str]]) -> list[Statement]:
    """Sentences of (evidence id, independent source, text) passages."""
    out: list[Statement] = []
    for evidence_id, source, text in evidence:
        for start, end in sentences(text):
            out.append(Statement(evidence_id, source, text[start:end]))
    return out


def find_disagreements(found: list[Statement]) -> list[Disagreement]:
    """Pairs that disagree, grouped: pairs of the same kind and detail that share a
    statement are one disagreement with several sides."""
    groups: list[tuple[ConflictKind, str, str, list[tuple[Statement, str]]]] = []
    analysed = [(s, subjects(s.sentence)) for s in found]
    for (a, names_a), (b, names_b) in combinations(analysed, 2):
        shared = names_a & names_b
        if a.source == b.source or not shared:
            continue
        for kind, detail, value_a, value_b in _disagreements(a.sentence, b.sentence):
            group = next(
                (
                    g
                    for g in groups
                    if g[0] == kind
                    and g[1] == detail
                    and (g[2] == _subject(shared) or any(s in (a, b) for s, _ in g[3]))
                ),
                None,
            )
            if group is None:
                group = (kind, detail, _subject(shared), [])
                groups.append(group)
            for statement, value in ((a, value_a), (b, value_b)):
                if all(s.source != statement.source for s, _ in group[3]):
                    group[3].append((statement, value))
    ranked = sorted(
        (Disagreement(kind, names, detail, sides) for kind, detail, names, sides in groups),
        key=lambda d: (-len(d.sides), d.subject),
    )
    kept: list[Disagreement] = []
    for kind in CONFLICT_KINDS:
        kept.extend([d for d in ranked if d.kind == kind][:MOST_PER_KIND])
    return kept


def _disagreements(a: str, b: str) -> list[tuple[ConflictKind, str, str, str]]:
    found: list[tuple[ConflictKind, str, str, str]] = []
    quantities_b = quantities(b)
    for qa in quantities(a):
        same_unit = [qb for qb in quantities_b if qb.unit == qa.unit]
        if same_unit and all(_differ(qa.value, qb.value) for qb in same_unit):
            found.append(("conflict", qa.unit, qa.text, same_unit[0].text))
    if events(a) & events(b):
        years_a, years_b = set(years(a, in_full_dates=False)), set(years(b, in_full_dates=False))
        if years_a and years_b and not years_a & years_b:
            found.append(("conflict", "year", _join(years_a), _join(years_b)))
    status_a, status_b = statuses(a), statuses(b)
    for left, right in _INCOMPATIBLE:
        if left <= status_a and right <= status_b and not right <= status_a:
            found.append(("status_conflict", "status", _join(left), _join(right)))
        elif right <= status_a and left <= status_b and not left <= status_a:
            found.append(("status_conflict", "status", _join(right), _join(left)))
    return found


def subjects(sentence: str) -> set[str]:
    """The whole names a sentence is about ("Aurora A1", "YG Entertainment"): two
    sentences share a subject only when they share a whole name, so "YG Entertainment"
    and "FNC Entertainment" do not."""
    return {
        phrase
        for phrase in name_phrases(sentence)
        if phrase.lower() not in GENERIC_NAME_WORDS and not phrase.isdigit() and not is_unit(phrase)
    }


def _subject(shared: set[str]) -> str:
    """The most specific shared name: the longest, then the first alphabetically."""
    return sorted(shared, key=lambda name: (-len(name), name))[0]


def events(sentence: str) -> set[str]:
    """Kinds of event a sentence dates: two years conflict only for the same kind."""
    return {name for name, pattern in _EVENT.items() if pattern.search(sentence)}


def _differ(a: float, b: float) -> bool:
    return abs(a - b) > 0.01 * max(abs(a), abs(b), 1e-9)


def _join(values: set[int] | set[str]) -> str:
    return ", ".join(str(v) for v in sorted(values, key=str))
