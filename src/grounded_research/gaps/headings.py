"""The headings each sentence of the evidence lies under.

A passage's own heading path is the one most of it lies under; a passage may hold the
last lines of one setting's entry and the next one's heading, so the writer, to show
where a quote stands, and the gap check, to judge what a sentence is about, read each
sentence's path off its source's snapshot.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import lru_cache

from grounded_research.state import Evidence, Source
from grounded_research.text.chunking import heading_paths, path_at


@lru_cache(maxsize=256)
def snapshot_headings(sha256: str, text: str) -> tuple[tuple[int, tuple[str, ...]], ...]:
    """Each heading of the snapshot: its position and its path (`heading_paths`), read
    once for the selection, the gap check and the writer."""
    return tuple(heading_paths(text))


class HeadingsAt:
    """The headings a sentence of the evidence lies under, read off its source's
    snapshot (a passage may hold the heading of the next setting or option, so the path
    where the passage starts is not every sentence's); the passage's own path when the
    snapshot cannot be read. For the selection, the gap check and the writer alike."""

    def __init__(self, sources: Mapping[str, Source], text_of: Callable[[str], str] | None) -> None:
        self.sources = sources
        self.text_of = text_of
        self.paths: dict[str, tuple[tuple[int, tuple[str, ...]], ...] | None] = {}

    def __call__(self, record: Evidence, offset: int) -> tuple[str, ...]:
        source = self.sources.get(record.source_id)
        if source is None or not source.sha256 or self.text_of is None:
            return tuple(record.headings)
        if source.sha256 not in self.paths:
            try:
                text = self.text_of(source.sha256)
            except (OSError, ValueError):  # missing or damaged: the passage's own path
                text = ""
            fits = text[record.start : record.end] == record.text
            self.paths[source.sha256] = snapshot_headings(source.sha256, text) if fits else None
        paths = self.paths[source.sha256]
        return tuple(record.headings) if paths is None else path_at(paths, record.start + offset)
