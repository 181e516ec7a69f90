"""Fitting ranked evidence into a sub-question's share of the token budget, in tiers.

When everything a sub-question found fits its share, it all goes in full. When it
does not, the strongest passages go in full (with the neighbouring chunk when a fact
runs across the cut), the next ones are cut to their key sentences (those with the
query's terms, numbers, dates, negations), and the rest are listed by title and
location only, under further sources. A cut piece is a verbatim slice of the snapshot
with its own offsets, and keeps the span of the chunk it was cut from so that it can
be expanded back. A statement that contradicts a selected one, left out by the budget,
is brought back next to it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from grounded_research.gaps.conflicts import find_disagreements, frame, statements
from grounded_research.gaps.headings import HeadingsAt, snapshot_headings
from grounded_research.gathering import evidence_id
from grounded_research.selection.budget import count_tokens
from grounded_research.selection.wholeness import (
    chunk_position,
    heading_answer,
    needs_next,
    needs_previous,
    section_answer,
    snapshot_chunks,
)
from grounded_research.state import Evidence, Source, Tier
from grounded_research.text.answers import Asked
from grounded_research.text.chunking import Chunk, heading_named, sentences
from grounded_research.text.facts import is_negated
from grounded_research.text.tokenize import tokenize

FULL_SHARE = 0.7  # of a tight share, what the full tier may take before cutting begins
LISTED_SHARE = 0.05  # of a tight share, kept for the further sources list
KEY_SHARE = 0.5  # a cut piece keeps about this much of its chunk, at least one sentence
LISTING_TOKENS = 4  # the list markup around a further source's title and location
_DIGIT = re.compile(r"\d")
_CONDITION = re.compile(r"\b(?:unless|only if|provided that|except)\b|除非|只有|前提是", re.I)
Span = tuple[int, int]


@dataclass
class Placed:
    """One candidate as it enters the context: one record (full, listed) or the pieces
    of one record (key sentences)."""

    records: list[Evidence]
    tier: Tier
    cost: int
    rank: int
    source: Evidence  # the candidate it was made from
    after: str | None = None  # kept right after this evidence id (the side it contradicts)


@dataclass
class Fitted:
    placed: list[Placed] = field(default_factory=list)
    listed: list[Placed] = field(default_factory=list)

    @property
    def spent(self) -> int:
        return sum(p.cost for p in self.placed) + sum(p.cost for p in self.listed)


def key_sentence_spans(text: str, start: int, end: int, terms: set[str], limit: int) -> list[Span]:
    """The spans of `text[start:end]` worth keeping when it must be cut: sentences with
    the query's terms, numbers and dates, negations and conditions, best first up to
    about `limit` tokens (at least one), then merged into runs of adjacent sentences.
    Empty when nothing qualifies or nothing would be cut."""
    spans = sentences(text, start, end)
    if len(spans) < 2:
        return []
    scored: list[tuple[int, int]] = []
    for position, (s, e) in enumerate(spans):
        sentence = text[s:e]
        score = len(set(tokenize(sentence)) & terms)
        score += 1 if _DIGIT.search(sentence) else 0
        score += 1 if is_negated(sentence) or _CONDITION.search(sentence) else 0
        if score:
            scored.append((-score, position))
    chosen: list[int] = []
    used = 0
    for _, position in sorted(scored):
        cost = count_tokens(text[spans[position][0] : spans[position][1]])
        if chosen and used + cost > limit:
            continue
        chosen.append(position)
        used += cost
    if not chosen or len(chosen) == len(spans):
        return []
    runs: list[list[int]] = []
    for position in sorted(chosen):
        if runs and runs[-1][1] == position - 1:
            runs[-1][1] = position
        else:
            runs.append([position, position])
    return [(spans[first][0], spans[last][1]) for first, last in runs]


class Assembler:
    """Fits sub-question after sub-question, remembering which spans of which sources
    are already in the context: a chunk another sub-question (or a neighbour pull)
    brought in is not brought in twice."""

    def __init__(
        self,
        text_of: Callable[[str], str],
        sources: dict[str, Source],
        chunk_size: int,
        strategy: str,
    ) -> None:
        self.text_of = text_of
        self.sources = sources
        self.headings_at = HeadingsAt(sources, text_of)
        self.chunk_size = chunk_size
        self.strategy = strategy
        self._claimed: dict[str, list[Span]] = {}

    # -- one sub-question ------------------------------------------------------------

    def fit(
        self,
        ranked: list[Evidence],
        terms_of: Callable[[Evidence], set[str]],
        budget: int,
        most: int,
        sources: int = 0,
        asked: Asked | None = None,
        spare: int = 0,
    ) -> Fitted:
        """`asked`: what the sub-question asks for. A passage that does not answer it is
        grown by the part of its section that does (`section_answer`), also after another
        source answered: a release's notes answer in which version a function came, its
        own entry's last line too ("New in version 3.8."), and that is the line to quote.
        While no placed passage answers, one is also given the heading above it that
        does (`_add_heading`). The line of the release heading a placed item leans on
        comes next, before any passage is cut to fit: in the room left, and beyond it in
        `spare`, the budget no sub-question's candidates claim (a share is what its
        candidates need, and that line is none of them)."""
        fitted = Fitted()
        unanswered = asked  # until a placed passage or its heading answers
        options = [(rank, e) for rank, e in enumerate(ranked) if not self._taken(e)]
        if sources:  # the best `sources` sources only; the others are listed, not quoted
            kept = list(dict.fromkeys(e.source_id for _, e in options))[:sources]
            beyond = [(rank, e) for rank, e in options if e.source_id not in kept]
            options = [(rank, e) for rank, e in options if e.source_id in kept]
        else:
            beyond = []
        tight = sum(count_tokens(e.text) for _, e in options[:most]) > budget
        full_cap = int(budget * FULL_SHARE) if tight else budget
        spent = 0
        rest: list[tuple[int, Evidence]] = []
        # a passage, the heading it leans on, the path to look for it on (None: the
        # passage's own): a release's for its notes' items, an entry's for its description
        leaning: list[tuple[Placed, str, tuple[str, ...] | None]] = []
        for rank, record in options:
            if self._taken(record):
                continue  # a neighbour pull above brought it in already
            if len(fitted.placed) >= most:
                rest.append((rank, record))
                continue
            placed = self._full(record, rank, full_cap - spent, not fitted.placed, asked)
            if placed is None:
                rest.append((rank, record))
                continue
            passage = placed.records[0]
            frame_at = self.frames_at(passage)
            if asked is not None:  # a release's notes: their items' release, in its heading
                releases = asked.releases_leaned_on(passage.text, frame_at)
                leaning += [(placed, release, None) for release in releases]
                opening = self.headings_at(passage, 0)
                entry = asked.entry_named(opening)
                if entry:  # asked which setting: the line of its entry's heading names it
                    leaning.append((placed, entry, opening))
            if unanswered and (
                unanswered.answered_in(passage.text, frame_at)
                or (
                    unanswered.asks_value
                    and self._add_heading(placed, unanswered.heads_answer, full_cap - spent)
                )
            ):
                unanswered = None  # answered, by it or its heading: no more heading lines
            fitted.placed.append(placed)
            spent += placed.cost
        to_list: list[tuple[int, Evidence]] = []
        cut_cap = budget - self._listing_reserve(fitted, rest, budget) if tight else budget
        for placed, name, path in leaning:  # before the cut passages: the line holds the value
            cost, left = placed.cost, max(0, cut_cap - spent)
            if self._add_heading(placed, heading_named(name), cost + left + spare, path):
                borrowed = max(0, placed.cost - cost - left)  # out of `spare`, not the share
                spare -= borrowed
                spent += placed.cost - cost - borrowed
        for rank, record in rest:
            cut = None
            if len(fitted.placed) < most and not self._taken(record):
                cut = self._cut(record, rank, terms_of(record))
            if cut is None or spent + cut.cost > cut_cap:
                to_list.append((rank, record))
                continue
            self._claim(record.source_id, record.start, record.end)
            fitted.placed.append(cut)
            spent += cut.cost
        if not fitted.placed and options:
            spent += self._never_empty(fitted, options[0], terms_of)
        spent = self._upgrade(fitted, cut_cap, spent)
        self._list(fitted, to_list + beyond, budget - spent)
        return fitted

    def _listing_reserve(
        self, fitted: Fitted, rest: list[tuple[int, Evidence]], budget: int
    ) -> int:
        """Room kept for the further sources list: what listing the sources not yet
        quoted costs, at most LISTED_SHARE of the budget."""
        quoted = {p.source.source_id for p in fitted.placed}
        unquoted = {record.source_id for _, record in rest} - quoted
        cost = sum(self._listing_cost(source_id) for source_id in unquoted)
        return min(int(budget * LISTED_SHARE), cost)

    def _title_of(self, record: Evidence) -> str:
        source = self.sources.get(record.source_id)
        return source.title if source else ""

    def _frame_of(self, record: Evidence) -> str:
        return frame(self._title_of(record), record.headings)

    def frames_at(self, record: Evidence) -> Callable[[int], str]:
        """The frame at each offset of the record (`HeadingsAt`)."""
        title = self._title_of(record)
        return lambda offset: frame(title, self.headings_at(record, offset))

    def _listing_cost(self, source_id: str) -> int:
        source = self.sources.get(source_id)
        if source is None:
            return 0
        return count_tokens(f"{source.title} {source.location}") + LISTING_TOKENS

    def _full(
        self, record: Evidence, rank: int, room: int, first: bool, asked: Asked | None
    ) -> Placed | None:
        """The record in full, grown by a neighbour chunk when a fact runs across the
        cut, or when it holds the value asked for that the record lacks, and the
        neighbour fits too (that value a chunk further on comes as a piece of its own,
        not with the chunk between); None when it does not fit."""
        plain = count_tokens(record.text)
        (start, end), apart = self._whole_span(record, asked)
        pieces: list[Evidence] = []
        if apart is not None:  # the piece's chunk stays the record's: it came for it
            piece = self._slice(record, apart.start, apart.end, "full")
            piece = piece.model_copy(update={"headings": list(apart.headings)})
            pieces = sorted([self._as(record, "full"), piece], key=lambda r: r.start)
        elif (start, end) != (record.start, record.end):
            pieces = [self._slice(record, start, end, "full")]
        if pieces:
            cost = sum(count_tokens(piece.text) for piece in pieces)
            if cost <= room:
                for piece in pieces:
                    self._claim(record.source_id, piece.start, piece.end)
                return Placed(pieces, "full", cost, rank, record)
        if plain <= room or (first and plain <= room / FULL_SHARE):
            self._claim(record.source_id, record.start, record.end)
            return Placed([self._as(record, "full")], "full", plain, rank, record)
        return None

    def _add_heading(
        self,
        placed: Placed,
        gives: Callable[[str], bool],
        room: int,
        path: tuple[str, ...] | None = None,
    ) -> bool:
        """Bring in, with a placed passage, the line of the heading above it that gives
        the value asked for (`heading_answer`), as a record of its own, when it fits in
        `room` with the passage; whether it did. `path`: the headings to look for it on,
        when not the passage's own (those where it starts, not where its chunk ends)."""
        record = placed.records[0]
        text = self._snapshot(record)
        if text is None:
            return False
        sha256 = self.sources[record.source_id].sha256
        chunk = Chunk(record.start, record.end, headings=path or tuple(record.headings))
        line = heading_answer(text, snapshot_headings(sha256, text), chunk, gives)
        if line is None or self._overlaps(record.source_id, line.start, line.end):
            return False
        heading = self._slice(record, line.start, line.end, "full").model_copy(  # a whole line
            update={"headings": list(line.headings), "chunk_start": None, "chunk_end": None}
        )
        cost = count_tokens(heading.text)
        if placed.cost + cost > room:
            return False
        self._claim(heading.source_id, heading.start, heading.end)
        placed.records.append(heading)
        placed.cost += cost
        return True

    def _cut(self, record: Evidence, rank: int, terms: set[str]) -> Placed | None:
        text = self._snapshot(record)
        if text is None:
            return None
        limit = max(1, int(count_tokens(record.text) * KEY_SHARE))
        spans = key_sentence_spans(text, record.start, record.end, terms, limit)
        if not spans:
            return None
        pieces = [self._slice(record, s, e, "key_sentences") for s, e in spans]
        cost = sum(count_tokens(p.text) for p in pieces)
        return Placed(pieces, "key_sentences", cost, rank, record)

    def _never_empty(
        self, fitted: Fitted, option: tuple[int, Evidence], terms_of: Callable[[Evidence], set[str]]
    ) -> int:
        """A sub-question with candidates gets its best one even over its share: cut to
        key sentences when it can be, else in full."""
        rank, record = option
        placed = self._cut(record, rank, terms_of(record)) or Placed(
            [self._as(record, "full")], "full", count_tokens(record.text), rank, record
        )
        self._claim(record.source_id, record.start, record.end)
        fitted.placed.append(placed)
        return placed.cost

    def _upgrade(self, fitted: Fitted, budget: int, spent: int) -> int:
        """Cut pieces go back to full, best first, while the share has room."""
        for position, placed in enumerate(fitted.placed):
            if placed.tier != "key_sentences":
                continue
            full = count_tokens(placed.source.text)
            if spent - placed.cost + full <= budget:
                fitted.placed[position] = Placed(
                    [self._as(placed.source, "full")], "full", full, placed.rank, placed.source
                )
                spent += full - placed.cost
        return spent

    def _list(self, fitted: Fitted, to_list: list[tuple[int, Evidence]], room: int) -> None:
        """The rest by title and location, one line per source not already quoted."""
        named = {p.source.source_id for p in fitted.placed}
        for rank, record in to_list:
            if record.source_id in named or record.source_id not in self.sources:
                continue
            cost = self._listing_cost(record.source_id)
            if cost > room:
                continue
            listed = self._as(record, "listed")
            listed = listed.model_copy(
                update={"id": evidence_id(f"{record.sub_question_id}:listed", *_span_id(record))}
            )
            fitted.listed.append(Placed([listed], "listed", cost, rank, record))
            named.add(record.source_id)
            room -= cost

    # -- across sub-questions --------------------------------------------------------

    def keep_contradictions(
        self,
        fitted: dict[str, Fitted],
        unselected: list[Evidence],
        independent: Callable[[Evidence], str],
        room: int,
    ) -> int:
        """A statement that contradicts a selected one on the same subject comes back,
        as its sentence, right after the selected side; a weaker cut piece of that
        sub-question makes room when the budget is spent. Returns the tokens added."""
        chosen = {
            record.id: (sub_question, placed)
            for sub_question, f in fitted.items()
            for placed in f.placed
            for record in placed.records
        }
        left_out = {e.id: e for e in unselected if not self._taken(e)}
        if not chosen or not left_out:
            return 0
        records = [r for f in fitted.values() for p in f.placed for r in p.records]
        found = statements(
            [
                (r.id, independent(r), r.text, self._frame_of(r))
                for r in [*records, *left_out.values()]
            ]
        )
        added = 0
        for disagreement in find_disagreements(found):
            inside = [s for s, _ in disagreement.sides if s.evidence_id in chosen]
            outside = [s for s, _ in disagreement.sides if s.evidence_id in left_out]
            if not inside or not outside:
                continue
            sub_question, anchor = chosen[inside[0].evidence_id]
            for side in outside:
                record = left_out[side.evidence_id]
                offset = record.text.find(side.sentence)
                start = record.start + offset
                end = start + len(side.sentence)
                if offset < 0 or self._overlaps(record.source_id, start, end):
                    continue
                piece = self._slice(record, start, end, "key_sentences")
                cost = count_tokens(piece.text)
                room += self._make_room(fitted[sub_question], cost - room, anchor)
                if cost > room:
                    continue
                self._claim(record.source_id, start, end)
                after = anchor.records[0].id
                fitted[sub_question].placed.append(
                    Placed([piece], "key_sentences", cost, anchor.rank, record, after)
                )
                room -= cost
                added += cost
        return added

    def _make_room(self, fitted: Fitted, needed: int, keep: Placed) -> int:
        """Drop the weakest cut pieces (never a contradiction's side) until `needed`
        tokens are free; returns the tokens freed."""
        freed = 0
        for placed in sorted(fitted.placed, key=lambda p: -p.rank):
            if freed >= needed:
                break
            if placed is keep or placed.tier != "key_sentences" or placed.after is not None:
                continue
            fitted.placed.remove(placed)
            freed += placed.cost
        return freed

    # -- spans -----------------------------------------------------------------------

    def _snapshot(self, record: Evidence) -> str | None:
        """The snapshot the record is a slice of, or None when it is not (then it is
        used as it is: never cut, never grown)."""
        source = self.sources.get(record.source_id)
        if source is None or not source.sha256:
            return None
        try:
            text = self.text_of(source.sha256)
        except OSError:
            return None
        return text if text[record.start : record.end] == record.text else None

    def _whole_span(
        self, record: Evidence, asked: Asked | None = None
    ) -> tuple[Span, Chunk | None]:
        """The record's span grown by what it needs of its neighbours; and the part of
        its section that answers what is asked when that lies a chunk away (a piece of
        its own, not the chunk between: `section_answer`)."""
        text = self._snapshot(record)
        if text is None:
            return (record.start, record.end), None
        sha256 = self.sources[record.source_id].sha256
        chunks = snapshot_chunks(sha256, text, self.chunk_size)
        position = chunk_position(chunks, record.start, record.end)
        start, end = record.start, record.end
        if position is None:
            return (start, end), None
        if asked is not None and asked.asks_value:
            title = self._title_of(record)
            headings = snapshot_headings(sha256, text)
            answering = section_answer(text, chunks, headings, position, asked, title)
            if answering is not None and not self._overlaps(
                record.source_id, answering.start, answering.end
            ):
                between = text[min(end, answering.end) : max(start, answering.start)]
                if between.strip():
                    return (start, end), answering
                return (min(start, answering.start), max(end, answering.end)), None
        if position + 1 < len(chunks):
            following = chunks[position + 1]
            if needs_next(text, chunks[position], following) and not self._overlaps(
                record.source_id, following.start, following.end
            ):
                end = following.end
        if position > 0:
            preceding = chunks[position - 1]
            if needs_previous(text, preceding, chunks[position]) and not self._overlaps(
                record.source_id, preceding.start, preceding.end
            ):
                start = preceding.start
        return (start, end), None

    def _slice(self, record: Evidence, start: int, end: int, tier: Tier) -> Evidence:
        """A new record for another span of the same snapshot, remembering the chunk."""
        text = self._snapshot(record)
        assert text is not None
        return record.model_copy(
            update={
                "id": evidence_id(record.sub_question_id, record.source_id, start, end),
                "text": text[start:end],
                "start": start,
                "end": end,
                "chunk_start": record.start,
                "chunk_end": record.end,
                "strategy": self.strategy,
                "tier": tier,
            }
        )

    def _as(self, record: Evidence, tier: Tier) -> Evidence:
        if (record.strategy, record.tier) == (self.strategy, tier):
            return record
        return record.model_copy(update={"strategy": self.strategy, "tier": tier})

    def _taken(self, record: Evidence) -> bool:
        """Its whole chunk is already in the context."""
        claimed = self._claimed.get(record.source_id, [])
        return any(s <= record.start and record.end <= e for s, e in claimed)

    def _overlaps(self, source_id: str, start: int, end: int) -> bool:
        return any(s < end and start < e for s, e in self._claimed.get(source_id, []))

    def _claim(self, source_id: str, start: int, end: int) -> None:
        self._claimed.setdefault(source_id, []).append((start, end))


def _span_id(record: Evidence) -> tuple[str, int, int]:
    return record.source_id, record.start, record.end
