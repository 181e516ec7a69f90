"""The retriever protocol: one small async interface, many implementations."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from grounded_research.state import Origin


@dataclass(frozen=True)
class SearchHit:
    """One passage a retriever found, as a span of its source's snapshot."""

    location: str
    title: str
    sha256: str
    start: int
    end: int
    text: str
    score: float
    origin: Origin
    published: str | None = None
    retrieved_at: str | None = None  # when the source was fetched, if not just now
    note: str = ""  # e.g. that a web page was cut at the byte cap
    headings: tuple[str, ...] = ()  # the heading path the passage lies under, outermost first
    collection: str = ""  # the manual or site its document belongs to, as declared
    edition: str = ""  # the release its document, or its manual, says it documents


@dataclass(frozen=True)
class SourceProblem:
    """A source the retriever could not use, and why."""

    location: str
    status: str  # "failed" or "blocked"
    error: str
    origin: Origin


class Retriever(Protocol):
    name: str

    async def search(self, query: str, k: int) -> list[SearchHit]: ...

    def problems(self) -> list[SourceProblem]:
        """Sources seen but unusable (unreadable files, refused URLs)."""
        ...


def shelves_of(retriever: object) -> list[str]:
    """The folders and collections a retriever's corpus files documents under
    (`LocalCorpus.shelves`); none for the web, whose sites are its sources' own. Not part
    of the protocol: a retriever without a corpus of its own need not say so."""
    shelves = getattr(retriever, "shelves", None)
    return list(shelves()) if callable(shelves) else []
