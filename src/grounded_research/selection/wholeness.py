"""Keeping facts whole across a chunk boundary.

Chunks end on sentence bounds where they can, but a passage can still stop where a
fact goes on: a sentence cut in the middle, a figure whose unit or year is on the
other side, a claim whose condition ("unless", "only if", "not yet", "尚未") opens the
next chunk. Such a chunk pulls in its neighbour: the adjacent chunk of the same
snapshot, as `chunk_text` cut it.

A question that asks for a value is the other case: a setting's section says what it
does in one chunk and "The default is one second (1s)." in the next. A chunk that holds
no sentence answering it pulls in what of a near chunk lies in its section and does
answer (a section's last line may open a chunk that is the next section's), or, when
the heading it lies under gives the value (a changelog dates a release in its heading:
"Release 1.0 (Jul 23, 2010)"), that heading's line.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from itertools import pairwise

from grounded_research.gaps.conflicts import frame
from grounded_research.text.answers import Asked
from grounded_research.text.chunking import Chunk, chunk_text, heading_lines, path_at
from grounded_research.text.facts import is_unit
from grounded_research.text.tokenize import tokenize

_SENTENCE_END = re.compile(r"[.!?。！？…;；][\"'”’)\]」』]*$")
_BLOCK_LINE = re.compile(r"^\s*(?:#{1,6}\s|[-*+•]\s|\d{1,3}[.)]\s|\|)")
_ENDS_WITH_NUMBER = re.compile(
    r"(?:\d[\d,.]*|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?)$",
    re.IGNORECASE,
)
_STARTS_WITH_NUMBER = re.compile(r"^[\d(]|^(?:19|20)\d\d\b")
_QUALIFIER = (
    r"unless|only if|only when|provided that|as long as|except|but|however|although|though|"
    r"until|not yet|yet to|not|never|no longer|subject to|pending|if not"
)
_OPENS_WITH_QUALIFIER = re.compile(
    rf"^(?:[\"'“(]\s*)?(?:{_QUALIFIER})\b|^(?:尚未|未|除非|只有|但是|但|然而|不过|直到|仅在|前提是)",
    re.IGNORECASE,
)
_QUALIFIER_EARLY = re.compile(r"\b(?:not yet|yet to|only if|unless)\b|尚未|除非|只有在|前提是")
_CONTINUATION = re.compile(r"^[a-z,;:)\]%/]")
EARLY_CHARS = 60


@lru_cache(maxsize=2048)
def snapshot_chunks(sha256: str, text: str, chunk_size: int) -> tuple[Chunk, ...]:
    """The chunks the retrievers cut this snapshot into (same function, same size)."""
    return tuple(chunk_text(text, chunk_size))


def chunk_position(chunks: tuple[Chunk, ...], start: int, end: int) -> int | None:
    for position, chunk in enumerate(chunks):
        if (chunk.start, chunk.end) == (start, end):
            return position
    return None


def needs_next(text: str, chunk: Chunk, following: Chunk) -> bool:
    """Whether the fact at the end of `chunk` goes on in `following`."""
    tail = text[chunk.start : chunk.end].rstrip()
    head = text[following.start : following.end].lstrip()
    last_line = tail.rsplit("\n", 1)[-1]
    if tail.endswith((":", "：")):
        return True  # a list or a figure follows
    if not _BLOCK_LINE.match(last_line) and not _SENTENCE_END.search(tail):
        return True  # a prose sentence cut in the middle
    return _fact_at_cut(tail, head)


def needs_previous(text: str, preceding: Chunk, chunk: Chunk) -> bool:
    """Whether `chunk` begins by finishing or qualifying what `preceding` says."""
    head = text[chunk.start : chunk.end].lstrip()
    tail = text[preceding.start : preceding.end].rstrip()
    if _CONTINUATION.match(head):
        return True  # starts in the middle of a sentence
    return _fact_at_cut(tail, head)


def _fact_at_cut(tail: str, head: str) -> bool:
    first_word = head.split(maxsplit=1)[0].strip(".,;:") if head.split() else ""
    if _ENDS_WITH_NUMBER.search(tail) and (is_unit(first_word) or _STARTS_WITH_NUMBER.match(head)):
        return True  # a number and its unit, or a month and its year, on either side
    if _OPENS_WITH_QUALIFIER.match(head):
        return True  # the next sentence qualifies this one
    return bool(_QUALIFIER_EARLY.search(head[:EARLY_CHARS]))


def section_answer(
    text: str,
    chunks: tuple[Chunk, ...],
    headings: tuple[tuple[int, tuple[str, ...]], ...],
    position: int,
    asked: Asked,
    title: str,
) -> Chunk | None:
    """The part of a chunk near `chunks[position]` that lies in the same section and
    answers what is asked when that chunk does not (the next one first, then the one
    before, then the one after next and the one before the previous when the chunk
    between is running text all of the section, then the one the section opens with:
    "UPDATE-FROM is supported beginning in SQLite version 3.33.0" is said under "2.2.
    UPDATE FROM" before its examples); None otherwise. A part, not the whole
    chunk: a section's last line ("New in version 3.8.") may open a chunk that is mostly
    the next section's."""
    chunk = chunks[position]
    if asked.answered_in(text[chunk.start : chunk.end], frames_at(title, headings, chunk.start)):
        return None
    reach = [position + 1, position - 1]
    # A section under the page's title (a setting's entry) or one of a page's several
    # top sections (a man page's DESCRIPTION) may say what it sets two chunks before or
    # after its value, across running text; a page with one heading over all of it is
    # one long section, and a list (a release's changes) is of items each about itself.
    entry = len(chunk.headings) > 1 or (len(chunk.headings) == 1 and _several_tops(headings))
    for step in (1, -1):
        beside = position + step
        if not entry or not 0 <= beside + step < len(chunks):
            continue
        between = chunks[beside]
        within = _in_section(between, chunk.headings, headings)
        if (
            within is not None
            and (within.start, within.end) == (between.start, between.end)
            and not any(map(_BLOCK_LINE.match, text[between.start : between.end].split("\n")))
        ):
            reach.append(beside + step)
    if entry and set(tokenize(chunk.headings[-1])) & (asked.words | asked.names):
        # a section about what is asked says what it is, and since when, where it opens;
        # not one of a release's notes ("Version 1.1.1" opens "Released 2019-07-08")
        opening = position
        while opening > 0 and chunks[opening - 1].headings[: len(chunk.headings)] == chunk.headings:
            opening -= 1
        if opening not in reach and opening != position:
            reach.append(opening)
    for neighbour in reach:
        if 0 <= neighbour < len(chunks):
            part = _in_section(chunks[neighbour], chunk.headings, headings)
            if part is not None and asked.answered_in(
                text[part.start : part.end], frames_at(title, headings, part.start)
            ):
                end = part.start + len(text[part.start : part.end].rstrip())
                return Chunk(part.start, end, part.heading, part.headings)
    return None


def frames_at(
    title: str, headings: tuple[tuple[int, tuple[str, ...]], ...], start: int
) -> Callable[[int], str]:
    """The frame (title and heading path) at each offset of a passage that starts at
    `start` of its snapshot, whose headings are `headings`."""
    return lambda offset: frame(title, path_at(headings, start + offset))


def _several_tops(headings: tuple[tuple[int, tuple[str, ...]], ...]) -> bool:
    """Whether the page has more than one top section (a man page's NAME, DESCRIPTION, …),
    read only as far as the second."""
    first: tuple[str, ...] | None = None
    for _, path in headings:
        if len(path) == 1:
            if first is not None and path != first:
                return True
            first = path
    return False


def _in_section(
    chunk: Chunk, path: tuple[str, ...], headings: tuple[tuple[int, tuple[str, ...]], ...]
) -> Chunk | None:
    """The span of the chunk that lies under the section `path` (its subsections too)."""
    inner = [position for position, _ in headings if chunk.start < position < chunk.end]
    spans = [
        (start, end)
        for start, end in pairwise([chunk.start, *inner, chunk.end])
        if path_at(headings, start)[: len(path)] == path
    ]
    if not spans:
        return None
    return Chunk(spans[0][0], spans[-1][1], path[-1] if path else "", path)


def heading_answer(
    text: str,
    headings: tuple[tuple[int, tuple[str, ...]], ...],
    chunk: Chunk,
    gives: Callable[[str], bool],
) -> Chunk | None:
    """The line of the nearest heading above the chunk, on its path, that gives the
    value asked for (`gives`, read on the heading's text: `Asked.heads_answer`, or the
    release heading an answering sentence leans on), with the headings above it; None
    otherwise."""
    above = [
        (position, path)
        for position, path in heading_lines(text, headings)
        if position < chunk.start
    ]
    for depth in range(len(chunk.headings), 0, -1):
        path = chunk.headings[:depth]
        at = next((position for position, p in reversed(above) if p == path), None)
        if at is None:
            continue
        end = text.find("\n", at)
        end = len(text) if end == -1 else end
        if gives(text[at:end].lstrip("# ")):
            return Chunk(at, end, path[-2] if depth > 1 else "", path[:-1])
    return None
