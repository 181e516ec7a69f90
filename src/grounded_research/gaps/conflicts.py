"""Sources that disagree: on a quantity, on a year, on a version, or on whether
something happened.

Two sentences from independent sources are about the same subject when they share a
name or product code, in the sentence or in what frames it (its source's title, the
headings above it: a datasheet's row "| Energy density | 390 Wh/kg |" is about the
product its title names); a subject shared only through a frame needs a shared word
besides, the attribute ("energy density"). They disagree when they give different
values for the same unit, different years for the same kind of event, different
versions for the same change of the same code name ("`tomllib` was added in 3.11"
against "added in 3.12"; in documentation "PEP" or "Changed" name no one thing), or
status words that cannot both be true now ("will ship" against "shipped", "delivered"
against "not yet").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from grounded_research.gaps.kinds import CONFLICT_KINDS, ConflictKind
from grounded_research.text.answers import identifiers
from grounded_research.text.chunking import sentences
from grounded_research.text.facts import is_unit, name_phrases, quantities, statuses, years
from grounded_research.text.tokenize import has_cjk, tokenize

_EVENTS = {
    "start": r"\b(?:start\w*|begin\w*|began|launch\w*|enter\w*|open\w*)\b|开始|投产|启动",
    "production": r"\b(?:production|produc\w+|manufactur\w+)\b|量产|生产|投产",
    "shipping": r"\b(?:ship\w*|deliver\w*|supply|supplies)\b|交付|供货",
    "completion": r"\b(?:complet\w*|finish\w*|availab\w*)\b|完成|上市",
}
_EVENT = {name: re.compile(pattern, re.IGNORECASE) for name, pattern in _EVENTS.items()}
# A copyright notice: its years are the text's, not a fact it states ("Copyright
# 2012-2016 The OpenSSL Project Authors" on one manual page, 2020-2022 on the next).
_NOTICE = re.compile(r"\bcopyright\b|©|\(c\)\s*(?:19|20)\d\d|版权所有", re.IGNORECASE)
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
    frame: str = ""  # its source's title and the headings above it


@dataclass(frozen=True)
class Disagreement:
    kind: ConflictKind  # "conflict" (quantity or year) or "status_conflict"
    names: str  # the names both sides share, as written
    detail: str  # the unit, "year" or "status"
    sides: list[tuple[Statement, str]]  # statement, the value it gives

    @property
    def subject(self) -> str:
        return f"{self.names} ({self.detail})"


def statements(evidence: list[tuple[str, str, str, str]]) -> list[Statement]:
    """Sentences of (evidence id, independent source, text, frame) passages; a
    copyright notice states nothing to compare."""
    out: list[Statement] = []
    for evidence_id, source, text, frame in evidence:
        for start, end in sentences(text):
            if not _NOTICE.search(text[start:end]):
                out.append(Statement(evidence_id, source, text[start:end], frame))
    return out


@dataclass(frozen=True)
class Read:
    """A sentence's (or a frame's) subjects, code names and attribute words, read once:
    every pair of statements compares them. Two frames that each name code names, none
    in common, are about different things: the pages of two modules ("Apache Module
    mod_brotli", "Apache Module mod_ratelimit") share their generic words, not a
    subject."""

    subjects: set[str]
    code: set[str]
    attributes: set[str]

    @classmethod
    def of(cls, text: str) -> Read:
        return cls(own_subjects(text), _code_names(text), _attribute_words(text))


def find_disagreements(found: list[Statement]) -> list[Disagreement]:
    """Pairs that disagree, grouped: pairs of the same kind and detail that share a
    statement are one disagreement with several sides."""
    groups: list[tuple[ConflictKind, str, str, list[tuple[Statement, str]]]] = []
    framed = {frame: Read.of(_without_opening_words(frame)) for frame in {s.frame for s in found}}
    analysed = [(s, Read.of(s.sentence), framed[s.frame]) for s in found]
    for (a, own_a, frame_a), (b, own_b, frame_b) in combinations(analysed, 2):
        if a.source == b.source:
            continue
        shared = own_a.subjects & own_b.subjects
        on_code = bool(own_a.code & own_b.code)
        attribute = bool(own_a.attributes & own_b.attributes)
        if not shared:
            shared = (own_a.subjects | frame_a.subjects) & (own_b.subjects | frame_b.subjects)
            if not shared or not attribute:
                continue
            if frame_a.code and frame_b.code and not frame_a.code & frame_b.code:
                continue  # "Apache Module mod_deflate" and "Apache Module mod_http2"
        found_here = _disagreements(a.sentence, b.sentence, versions=on_code, measured=attribute)
        for kind, detail, value_a, value_b in found_here:
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


def _disagreements(
    a: str, b: str, versions: bool, measured: bool
) -> list[tuple[ConflictKind, str, str, str]]:
    """`measured`: the two share a word besides names and numbers, so a figure or a
    status of each can be of one thing: "75% of votes" and "10% of web servers" both
    name Debian and are two measures of it."""
    found: list[tuple[ConflictKind, str, str, str]] = []
    quantities_a, quantities_b = (quantities(a), quantities(b)) if measured else ([], [])
    for qa in quantities_a:
        same_unit = [qb for qb in quantities_b if qb.unit == qa.unit]
        if same_unit and all(_differ(qa.value, qb.value) for qb in same_unit):
            found.append(("conflict", qa.unit, qa.text, same_unit[0].text))
    if events(a) & events(b):
        years_a, years_b = set(years(a, in_full_dates=False)), set(years(b, in_full_dates=False))
        if years_a and years_b and not years_a & years_b:
            found.append(("conflict", "year", _join(years_a), _join(years_b)))
    changes_a, changes_b = (version_changes(a), version_changes(b)) if versions else ({}, {})
    for change in sorted(changes_a.keys() & changes_b.keys()):
        if not changes_a[change] & changes_b[change]:
            detail = f"version {change}"
            found.append(("conflict", detail, _join(changes_a[change]), _join(changes_b[change])))
    status_a, status_b = (statuses(a), statuses(b)) if measured else (set(), set())
    for left, right in _INCOMPATIBLE:
        if left <= status_a and right <= status_b and not right <= status_a:
            found.append(("status_conflict", "status", _join(left), _join(right)))
        elif right <= status_a and left <= status_b and not left <= status_a:
            found.append(("status_conflict", "status", _join(right), _join(left)))
    return found


_TITLE_OPENING = re.compile(r"^[A-Z][a-z]+(?=\s+[a-z])", re.MULTILINE)


def _without_opening_words(frame: str) -> str:
    """A frame without the capitalised word each of its titles and headings opens with
    before a word in lower case: "List" of "List of islands of Tasmania", "Release" of
    "Release notes for Django 3.2" is capitalised because it comes first, and pages
    titled "List of …" share no subject by it."""
    return _TITLE_OPENING.sub("", frame)


def subjects(sentence: str) -> set[str]:
    """The whole names a sentence is about ("Aurora A1", "YG Entertainment"): two
    sentences share a subject only when they share a whole name, so "YG Entertainment"
    and "FNC Entertainment" do not."""
    return {
        phrase
        for phrase in name_phrases(sentence)
        if phrase.lower() not in GENERIC_NAME_WORDS and not phrase.isdigit() and not is_unit(phrase)
    }


_CHANGES = {
    "added": r"\b(?:added|introduced|new in)\b|新增|引入",
    "deprecated": r"\bdeprecated\b|弃用|废弃",
    "removed": r"\b(?:removed|dropped)\b|移除|删除",
}
_CHANGE = {name: re.compile(pattern, re.IGNORECASE) for name, pattern in _CHANGES.items()}
_VERSION = re.compile(r"(?<![\w.])\d+\.\d+(?:\.\d+)*(?![\w.]*\d)")
_CODE_SPAN = re.compile(r"`[^`\n]{2,60}`")
_VERSIONED_NAME = re.compile(r"\b([A-Z][\w+#-]*)\s+(?:version\s+)?\d+\.\d+")


def version_changes(sentence: str) -> dict[str, set[str]]:
    """The versions a sentence dates a change to, by kind of change: {"added": {"3.11"}}
    for "tomllib was added in Python 3.11"."""
    found = set(_VERSION.findall(sentence))
    if not found:
        return {}
    return {name: found for name, pattern in _CHANGE.items() if pattern.search(sentence)}


def _attribute_words(sentence: str) -> set[str]:
    """The words of a sentence besides its names, numbers, units and the products whose
    versions it gives: what two sentences must share to be about one attribute."""
    versioned = {m.lower() for m in _VERSIONED_NAME.findall(sentence)}
    names = {w.lower() for phrase in name_phrases(sentence) for w in phrase.split()}
    return {
        token
        for token in tokenize(sentence)
        if not any(c.isdigit() for c in token)
        and not is_unit(token)
        and token not in versioned
        and token not in names
        and (len(token) > 2 or has_cjk(token))  # "电芯", "量产": Chinese words are short
    }


def own_subjects(sentence: str) -> set[str]:
    """What a sentence is about, for comparing it with another: its whole names and code
    names (`tomllib`, max_wal_size), without the products whose versions it gives
    ("Python" of "Python 3.11": two features added in different Python versions are
    two subjects, and "PostgreSQL 15" and "PostgreSQL 16" do not contradict)."""
    versioned = set(_VERSIONED_NAME.findall(sentence))
    return (subjects(sentence) - versioned) | _code_names(sentence)


def _code_names(sentence: str) -> set[str]:
    """What a documentation change is about: `tomllib`, max_wal_size, os.path.join()."""
    return {span.strip("`").lower() for span in _CODE_SPAN.findall(sentence)} | identifiers(
        sentence
    )


def frame(title: str, headings: Sequence[str]) -> str:
    """What says what a passage is about besides its words: its source's title and the
    headings it lies under."""
    return "\n".join([title, *headings]).strip()


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
