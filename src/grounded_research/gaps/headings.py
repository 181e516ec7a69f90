"""The headings each sentence of the evidence lies under, and a passage's code blocks.

A passage's own heading path is the one most of it lies under; a passage may hold the
last lines of one setting's entry and the next one's heading, so the writer, to show
where a quote stands, and the gap check, to judge what a sentence is about, read each
sentence's path off its source's snapshot. A passage may also start inside a code block,
with no fence above its first lines: the snapshot says where its blocks are.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import NamedTuple

from grounded_research.state import Evidence, Source
from grounded_research.text.chunking import (
    Span,
    code_blocks,
    header_at,
    heading_paths,
    opens_in_block,
    path_at,
    table_headers,
)


@lru_cache(maxsize=256)
def snapshot_headings(sha256: str, text: str) -> tuple[tuple[int, tuple[str, ...]], ...]:
    """Each heading of the snapshot: its position and its path (`heading_paths`), read
    once for the selection, the gap check and the writer."""
    return tuple(heading_paths(text))


class _Read(NamedTuple):
    """What a snapshot says of the passages cut from it."""

    paths: tuple[tuple[int, tuple[str, ...]], ...]
    code: tuple[Span, ...]  # its fenced code blocks
    tables: tuple[tuple[int, int, str], ...]  # its tables' body rows and headers


@lru_cache(maxsize=256)
def _snapshot_read(sha256: str, text: str) -> _Read:
    """The snapshot's headings, code blocks and tables, read once for every reader of a
    run."""
    return _Read(
        snapshot_headings(sha256, text), tuple(code_blocks(text)), tuple(table_headers(text))
    )


class HeadingsAt:
    """The headings a sentence of the evidence lies under, read off its source's
    snapshot (a passage may hold the heading of the next setting or option, so the path
    where the passage starts is not every sentence's); the passage's own path when the
    snapshot cannot be read. For the selection, the gap check and the writer alike.
    And the code blocks of a passage, which may start inside one of its snapshot's."""

    def __init__(self, sources: Mapping[str, Source], text_of: Callable[[str], str] | None) -> None:
        self.sources = sources
        self.text_of = text_of
        self.read: dict[str, _Read | None] = {}

    def __call__(self, record: Evidence, offset: int) -> tuple[str, ...]:
        read = self._snapshot(record)
        return (
            tuple(record.headings) if read is None else path_at(read.paths, record.start + offset)
        )

    def header(self, record: Evidence, offset: int) -> str:
        """The header row of the table whose row the sentence at `offset` of the passage
        is ("Install Type | RAM (minimum) | RAM (recommended)" over "| No desktop | 256
        megabytes | 512 megabytes |"), read off the snapshot or, when it cannot be read,
        the passage; "" for any other sentence. Not a heading: it says what the row's
        cells are, not which section or entry the row is in."""
        read = self._snapshot(record)
        if read is None:
            return header_at(table_headers(record.text), offset)
        return header_at(read.tables, record.start + offset)

    def code_blocks(self, record: Evidence) -> list[Span]:
        """The passage's fenced code blocks, its first lines among them when it starts
        inside a block of its snapshot (a listing cut in two at a blank line: "'FloatField',"
        is code, not a sentence, though no fence opens the passage)."""
        read = self._snapshot(record)
        return code_blocks(
            record.text, read is not None and opens_in_block(read.code, record.start)
        )

    def _snapshot(self, record: Evidence) -> _Read | None:
        """What the record's snapshot says, when it can be read and holds the passage."""
        source = self.sources.get(record.source_id)
        if source is None or not source.sha256 or self.text_of is None:
            return None
        if source.sha256 not in self.read:
            try:
                text = self.text_of(source.sha256)
            except (OSError, ValueError):  # missing or damaged: the passage's own path
                text = ""
            fits = text[record.start : record.end] == record.text
            self.read[source.sha256] = _snapshot_read(source.sha256, text) if fits else None
        return self.read[source.sha256]
