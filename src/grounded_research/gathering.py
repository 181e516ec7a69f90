"""Searching for one sub-question: what `initial_search` and `research` share.

Every retriever is asked every query concurrently; a retriever that fails is recorded
as a warning and the others go on.
"""

from __future__ import annotations

import asyncio
import hashlib
import unicodedata
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from grounded_research.retrieval.base import Retriever, SearchHit, SourceProblem, shelves_of
from grounded_research.retrieval.session import SearchNotStarted
from grounded_research.state import Evidence, Limit, Source, SubQuestion, Usage, searched_key

# Bidirectional controls: they reorder what follows them on screen ("Trojan Source").
_BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
_SPELT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
# Control characters, line and paragraph separators, and lone surrogates (the bytes of a
# file name that is not UTF-8, which no UTF-8 report or table could hold).
_ESCAPED = frozenset({"Cc", "Zl", "Zp", "Cs"})


@dataclass
class Gathered:
    sources: dict[str, Source] = field(default_factory=dict)
    evidence: dict[str, Evidence] = field(default_factory=dict)
    searched: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    search_calls: int = 0
    searches_failed: int = 0
    fetches: int = 0
    limits_reached: set[Limit] = field(default_factory=set)
    shelves: set[str] = field(default_factory=set)

    def update(self) -> dict[str, object]:
        """The state update for a node that gathered this."""
        return {
            "sources": self.sources,
            "evidence": self.evidence,
            "last_found": {e.id: e.round for e in self.evidence.values()},
            "searched": self.searched,
            "shelves": sorted(self.shelves),
            "warnings": self.warnings,
            "usage": Usage(
                search_calls=self.search_calls,
                searches_failed=self.searches_failed,
                fetches=self.fetches,
                limits_reached=sorted(self.limits_reached),
            ),
        }


def summary(update: dict[str, Any]) -> str:
    """Progress: what a gathering node found."""
    sources = update.get("sources", {}).values()
    unusable = sum(1 for s in sources if s.status in ("failed", "blocked"))
    text = f"{len(update.get('evidence', {}))} passages from {len(sources) - unusable} sources"
    return text + (f", {unusable} unusable" if unusable else "")


def sources_fetched(node: str, update: dict[str, Any]) -> list[dict[str, Any]]:
    """Progress: the sources a gathering node fetched."""
    if "sources" not in update:
        return []
    sources = list(update["sources"].values())
    return [
        {
            "event": "sources_fetched",
            "node": node,
            "fetched": sum(1 for s in sources if s.status == "fetched"),
            "unusable": sum(1 for s in sources if s.status in ("failed", "blocked")),
            "locations": [s.location for s in sources][:50],
        }
    ]


def printable(text: str) -> str:
    """`text` with the characters that would break or disguise the line showing it
    spelt out as escapes (a newline as `\\n`, ESC as `\\x1b`, U+202E as `\\u202e`): a
    file may be named so, and its name is shown on a line of the report's references, of
    the writer's context and of the progress output. Everything else is kept. Only the
    shown name changes: the source's id, its snapshot and the file stay as they are."""
    if text.isprintable():
        return text
    return "".join(_spelt(character) for character in text)


def _spelt(character: str) -> str:
    if character in _SPELT:
        return _SPELT[character]
    if character in _BIDI_CONTROLS or unicodedata.category(character) in _ESCAPED:
        code = ord(character)
        return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
    return character


def source_id(origin: str, location: str) -> str:
    """From the location as found: a file name's bytes that are not UTF-8 (lone
    surrogates in Python) count as those bytes."""
    key = f"{origin}:{location}".encode("utf-8", errors="surrogateescape")
    return "src-" + hashlib.sha1(key).hexdigest()[:12]


def evidence_id(sub_question_id: str, source: str, start: int, end: int) -> str:
    return (
        "ev-" + hashlib.sha1(f"{sub_question_id}|{source}|{start}|{end}".encode()).hexdigest()[:12]
    )


async def gather(
    retrievers: list[Retriever],
    sub_question: SubQuestion,
    queries: list[str],
    k: int,
    round_number: int,
) -> Gathered:
    gathered = Gathered()
    calls = [(retriever, query) for query in queries for retriever in retrievers]
    results = await asyncio.gather(
        *(retriever.search(query, k) for retriever, query in calls), return_exceptions=True
    )
    now = datetime.now(UTC).isoformat(timespec="seconds")
    for (retriever, query), result in zip(calls, results, strict=True):
        if isinstance(result, SearchNotStarted):  # a budget refused it before it began
            gathered.limits_reached.add(result.limit)
            gathered.warnings.append(f"{retriever.name} search for {query!r}: {result}")
            continue
        gathered.search_calls += 1
        if isinstance(result, BaseException):
            gathered.searches_failed += 1
            gathered.warnings.append(
                f"{retriever.name} search failed for {query!r}: {type(result).__name__}: {result}"
            )
            continue
        best = max((hit.score for hit in result), default=0.0) or 1.0
        for hit in result:
            _record(gathered, hit, hit.score / best, sub_question, query, round_number, now)
    gathered.searched = [searched_key(sub_question.id, query) for query in queries]
    for retriever in retrievers:
        for problem in retriever.problems():
            record_problem(gathered, problem)
        gathered.fetches += int(getattr(retriever, "fetches", 0))  # web retrievers count pages
        session = getattr(retriever, "session", None)  # pages refused or cut by a budget
        gathered.limits_reached |= getattr(session, "limits_reached", set())
        gathered.shelves |= {printable(shelf) for shelf in shelves_of(retriever)}
    return gathered


def record_problem(gathered: Gathered, problem: SourceProblem) -> None:
    """A source that could not be used is kept, with why: never dropped silently."""
    failed = Source(
        id=source_id(problem.origin, problem.location),
        location=printable(problem.location),
        status="blocked" if problem.status == "blocked" else "failed",
        origin=problem.origin,
        error=problem.error,
    )
    gathered.sources.setdefault(failed.id, failed)


def _record(
    gathered: Gathered,
    hit: SearchHit,
    score: float,
    sub_question: SubQuestion,
    query: str,
    round_number: int,
    now: str,
) -> None:
    source = source_id(hit.origin, hit.location)
    gathered.sources.setdefault(
        source,
        Source(
            id=source,
            location=printable(hit.location),
            title=printable(hit.title),
            status="fetched",
            origin=hit.origin,
            sha256=hit.sha256,
            published=hit.published,
            retrieved_at=hit.retrieved_at or now,
            error=hit.note,
            collection=printable(hit.collection),
            edition=printable(hit.edition),
        ),
    )
    record_id = evidence_id(sub_question.id, source, hit.start, hit.end)
    known = gathered.evidence.get(record_id)
    if known is None or score > known.score:
        gathered.evidence[record_id] = Evidence(
            id=record_id,
            source_id=source,
            sub_question_id=sub_question.id,
            text=hit.text,
            start=hit.start,
            end=hit.end,
            score=round(score, 4),
            strategy="bm25",
            round=round_number,
            query=query,
            headings=list(hit.headings),
        )
