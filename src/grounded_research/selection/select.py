"""Choose what the writer may ever say: the best evidence per sub-question, under one
token budget, reprints and cross-sub-question duplicates counted once, the strongest
passages at the edges of the context where models read best.

Candidates are ranked by the configured strategy (keyword, embeddings, hybrid or the
retriever's order), the budget is shared by need (a sub-question the last gap check
found lacking gets more), and what does not fit in full is cut to key sentences or
listed by title and location (`layers.py`). The outcome is a `Selection`: verdicts on
what gathering found, never edits of it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol, TypeVar

from grounded_research.configuration import Context
from grounded_research.errors import GroundedResearchError
from grounded_research.gaps.conflicts import frame
from grounded_research.gaps.kinds import CONFLICT_KINDS, LACKING_KINDS
from grounded_research.retrieval.snapshots import SnapshotStore
from grounded_research.selection.budget import count_tokens, share_by_need
from grounded_research.selection.embeddings import Embedder, EmbedderUnavailable
from grounded_research.selection.layers import Assembler, Fitted, Placed
from grounded_research.selection.reprints import find_reprints
from grounded_research.selection.strategies import Candidate, Ranker, keyword_scores
from grounded_research.selection.vectors import vector_file
from grounded_research.selection.wholeness import chunk_position, snapshot_chunks
from grounded_research.state import Evidence, Selection, Source, State, SubQuestion
from grounded_research.text.answers import Asked
from grounded_research.text.facts import named_terms
from grounded_research.text.normalize import normalize
from grounded_research.text.tokenize import tokenize

T = TypeVar("T")
TextOf = Callable[[str], str]
TIER_ORDER = {"full": 0, "key_sentences": 1, "listed": 2}


@dataclass
class Selected:
    """One selection: the verdicts the state keeps, and what it took to reach them."""

    selection: Selection
    strategy: str
    embedded: int = 0
    warnings: list[str] = field(default_factory=list)


def select(state: State, context: Context, run: RunTools) -> Selected:
    store = SnapshotStore.in_cache(context.cache_dir)
    text_of = _snapshot_reader(store)
    readable = [s for s in state.sources.values() if s.status == "fetched"]
    reprints = find_reprints(readable, store.get)
    candidates = candidates_per_sub_question(state, reprints)
    owner = best_sub_question_per_passage(candidates)
    owned = {
        sq.id: above_floor(
            sq,
            [e for e in candidates.get(sq.id, []) if owner[e.passage] == (sq.id, e.id)],
            state,
            text_of,
            context,
        )
        for sq in state.sub_questions
    }
    ranker, warnings = ranker_for(context, run)
    ranked = rank_all(
        state.sub_questions, owned, state.sources, text_of, ranker, context.chunk_size
    )
    warnings += ranked.warnings
    assembler = Assembler(text_of, state.sources, context.chunk_size, ranked.strategy)
    asked = {sq.id: Asked.of(sq.text) for sq in state.sub_questions}
    for sub_question in state.sub_questions:
        order = ranked.order.get(sub_question.id)
        if order:
            ranked.order[sub_question.id] = answers_before_guesses(
                sub_question, asked[sub_question.id], order, assembler.frames_at
            )
    demand = {
        sq_id: sum(count_tokens(e.text) for e in records[: context.evidence_per_sub_question])
        for sq_id, records in ranked.order.items()
    }
    shares = share_by_need(context.evidence_budget, demand, need_weights(state))
    spare = context.evidence_budget - sum(shares.values())  # what no candidate claims
    fitted: dict[str, Fitted] = {}
    for sub_question in state.sub_questions:
        share = shares.get(sub_question.id, 0)
        fitted[sub_question.id] = assembler.fit(
            ranked.order.get(sub_question.id, []),
            _terms_for(sub_question),
            share,
            context.evidence_per_sub_question,
            context.sources_per_sub_question,
            asked[sub_question.id],
            max(0, spare),
        )
        spare -= max(0, fitted[sub_question.id].spent - share)
    placed_ids = {p.source.id for f in fitted.values() for p in f.placed}
    unselected = [e for records in ranked.order.values() for e in records if e.id not in placed_ids]
    room = context.evidence_budget - sum(f.spent for f in fitted.values())
    assembler.keep_contradictions(fitted, unselected, _independent(reprints), max(0, room))
    selection = Selection(
        round=state.round,
        context={sq_id: [e.id for e in ordered(f.placed)] for sq_id, f in fitted.items()},
        further_sources={
            sq_id: [p.records[0].id for p in f.listed] for sq_id, f in fitted.items() if f.listed
        },
        records={r.id: r for f in fitted.values() for p in f.placed + f.listed for r in p.records},
        reprints=reprints,
    )
    return Selected(selection, ranked.strategy, ranked.embedded, warnings)


def candidates_per_sub_question(
    state: State, reprints: dict[str, str]
) -> dict[str, list[Evidence]]:
    """The turn's evidence (`State.turn_candidates`) from readable sources, best first, per
    sub-question it is filed under. A reprint's passage stays out when a
    passage found in its original says the same thing: only what the copy adds (an
    editor's note, a changed figure) is worth a place of its own, and what it shares is
    kept once, from whichever of the two the search found."""
    found_in: dict[str, list[str]] = {}
    for record in state.evidence.values():
        found_in.setdefault(record.source_id, []).append(normalize(record.text))
    grouped: dict[str, list[Evidence]] = {}
    for sub_question_id, record in state.turn_candidates():
        source = state.sources.get(record.source_id)
        if source is None or source.status != "fetched":
            continue
        original = reprints.get(source.id)
        if original is not None:
            text = normalize(record.text)
            if any(text in passage for passage in found_in.get(original, [])):
                continue
        grouped.setdefault(sub_question_id, []).append(record)
    return {
        sub_question_id: sorted(records, key=lambda r: (-r.score, r.round, r.id))
        for sub_question_id, records in grouped.items()
    }


def best_sub_question_per_passage(
    candidates: dict[str, list[Evidence]],
) -> dict[Any, tuple[str, str]]:
    """A passage found (or recalled) for several sub-questions is selected once, where it
    scores best: the sub-question and record id it is selected as."""
    owner: dict[tuple[str, int, int], tuple[str, Evidence]] = {}
    for sub_question_id, records in candidates.items():
        for record in records:
            known = owner.get(record.passage)
            if known is None or (record.score, -record.round) > (known[1].score, -known[1].round):
                owner[record.passage] = (sub_question_id, record)
    return {key: (sub_question_id, record.id) for key, (sub_question_id, record) in owner.items()}


class RunTools(Protocol):
    """What selection uses of the run's resources (`resources.RunResources`)."""

    def embedder(self) -> Embedder | None: ...

    def corpus_index(self) -> Path: ...


def ranker_for(context: Context, run: RunTools) -> tuple[Ranker, list[str]]:
    """The configured strategy, or keyword (with a warning) when the run's embedder
    cannot run."""
    requested = context.selection_strategy
    if not context.ranks_by_embeddings:
        return Ranker(requested), []
    try:
        embedder = run.embedder()
    except EmbedderUnavailable as error:
        return Ranker("keyword"), [f"select_context: no embedder ({error}); ranked by keyword"]
    if embedder is None:
        quiet = requested == "auto"
        return Ranker("keyword"), [] if quiet else [
            f"select_context: {requested} needs embeddings, which are off; ranked by keyword"
        ]
    strategy = "hybrid" if requested == "auto" else requested
    folders = _vector_folders(context, run)
    return Ranker(strategy, embedder, lambda origin: vector_file(folders(origin), embedder)), []


@dataclass
class Ranked:
    order: dict[str, list[Evidence]]  # per sub-question, best first, queries interleaved
    strategy: str
    embedded: int = 0
    warnings: list[str] = field(default_factory=list)


def rank_all(
    sub_questions: list[SubQuestion],
    owned: dict[str, list[Evidence]],
    sources: dict[str, Source],
    text_of: TextOf,
    ranker: Ranker,
    chunk_size: int,
) -> Ranked:
    """Every sub-question's candidates ranked; an embedder that fails while ranking
    (a server down, a bad key) is recorded and the ranking is done by keyword."""
    try:
        return _rank_all(sub_questions, owned, sources, text_of, ranker, chunk_size)
    except Exception as error:
        if ranker.strategy not in ("embeddings", "hybrid"):
            raise
        ranked = _rank_all(sub_questions, owned, sources, text_of, Ranker("keyword"), chunk_size)
        ranked.warnings.append(
            f"select_context: {ranker.strategy} ranking failed "
            f"({type(error).__name__}: {error}); ranked by keyword"
        )
        return ranked


def _rank_all(
    sub_questions: list[SubQuestion],
    owned: dict[str, list[Evidence]],
    sources: dict[str, Source],
    text_of: TextOf,
    ranker: Ranker,
    chunk_size: int,
) -> Ranked:
    ranked = Ranked(order={}, strategy=ranker.strategy)
    for sub_question in sub_questions:
        records = owned.get(sub_question.id, [])
        strengths, embedded = ranker.strengths(
            sub_question.text, [candidate_of(e, sources, text_of, chunk_size) for e in records]
        )
        ranked.embedded += embedded
        strength = dict(zip([e.id for e in records], strengths, strict=True))
        ranked.order[sub_question.id] = interleave_queries(records, strength)
    return ranked


def above_floor(
    sub_question: SubQuestion,
    records: list[Evidence],
    state: State,
    text_of: TextOf,
    context: Context,
) -> list[Evidence]:
    """The candidates worth ranking: all that the plan's own queries found or the thread
    recalled, and what a follow-up query found only when it bears on the sub-question (a
    keyword score against it at least `follow_up_floor` of the best candidate's) or on
    the name the follow-up asked about (its title or headings name what the query names:
    the second hop of a question starts from a name the first hop found). A follow-up
    query is a guess at a gap, a term the best passages lack paired with a name they
    introduced, and most of what it finds is about neither: the long tail of sources a
    reader wades through."""
    planned = {sub_question.text, *sub_question.queries}
    recalled = set(state.recalled.get(sub_question.id, []))
    kept = [e.query in planned or e.id in recalled for e in records]
    if not context.follow_up_floor or all(kept):  # the first search: nothing to weigh
        return records
    texts = [candidate_of(e, state.sources, text_of, context.chunk_size).text for e in records]
    scores = keyword_scores([sub_question.text], texts)[0]
    bar = context.follow_up_floor * float(scores.max())
    return [
        record
        for record, planned_or_recalled, score in zip(records, kept, scores, strict=True)
        if planned_or_recalled
        or score >= bar
        or named_terms(record.query)
        & named_terms(frame(state.sources[record.source_id].title, record.headings))
    ]


def candidate_of(
    record: Evidence, sources: dict[str, Source], text_of: TextOf, chunk_size: int
) -> Candidate:
    """What the ranking sees of a passage: its title and heading, then its text."""
    source = sources[record.source_id]
    heading = ""
    if source.sha256:
        try:
            text = text_of(source.sha256)
        except OSError:
            text = ""
        if text[record.start : record.end] == record.text:
            chunks = snapshot_chunks(source.sha256, text, chunk_size)
            position = chunk_position(chunks, record.start, record.end)
            heading = chunks[position].heading if position is not None else ""
    return Candidate(
        key=(source.sha256 or record.source_id, record.start, record.end),
        text="\n".join(part for part in (source.title, heading, record.text) if part),
        query=record.query,
        origin=source.origin,
        score=record.score,
    )


MEASURED_KINDS = ("date", "version", "quantity")


def answers_before_guesses(
    sub_question: SubQuestion,
    asked: Asked,
    ranked: list[Evidence],
    frames_at: Callable[[Evidence], Callable[[int], str]],
) -> list[Evidence]:
    """The ranking with what a follow-up query found after every passage the
    sub-question's own searches found that answers it (`Asked.answered_in`, the gap
    check's test, each sentence read under its frame: `frames_at`): a follow-up is a
    guess at a gap, and its best passage, however well it matches its own query, does
    not push out an answer already in hand. Only for a date, a version or a number
    (`MEASURED_KINDS`): a sentence holding a name answers a question about the name a
    multi-hop question describes as well as the one it asks for, which the follow-ups
    are for."""
    if asked.kind not in MEASURED_KINDS:
        return ranked
    planned = {sub_question.text, *sub_question.queries}
    if all(record.query in planned for record in ranked):
        return ranked  # the first search: no guesses yet
    last = max(
        (
            at
            for at, record in enumerate(ranked)
            if record.query in planned and asked.answered_in(record.text, frames_at(record))
        ),
        default=-1,
    )
    if last < 0:
        return ranked
    head = ranked[: last + 1]
    guesses = [record for record in head if record.query not in planned]
    return [r for r in head if r.query in planned] + guesses + ranked[last + 1 :]


def interleave_queries(ranked: list[Evidence], strength: dict[str, float]) -> list[Evidence]:
    """Every query's best passage before any query's second: a follow-up query aimed at
    a gap gets its best result in, however well the first queries did."""
    per_query: dict[str, list[Evidence]] = {}
    for record in ranked:
        per_query.setdefault(record.query, []).append(record)
    rows = [sorted(records, key=lambda r: -strength[r.id]) for records in per_query.values()]
    interleaved: list[Evidence] = []
    for depth in range(max((len(r) for r in rows), default=0)):
        layer = [row[depth] for row in rows if depth < len(row)]
        interleaved.extend(sorted(layer, key=lambda r: (-strength[r.id], r.round, r.id)))
    return interleaved


def need_weights(state: State) -> dict[str, float]:
    """A sub-question's claim on the budget: 1, plus 1 when the last gap check found it
    lacking (no evidence, too few sources, facets uncovered), plus 1 when its sources
    disagree."""
    checked = [gap.round for gap in state.gaps if gap.round <= state.round]
    last = max(checked, default=None)
    weights = {sq.id: 1.0 for sq in state.sub_questions}
    for kinds in (LACKING_KINDS, CONFLICT_KINDS):
        lacking = {
            gap.sub_question_id for gap in state.gaps if gap.round == last and gap.kind in kinds
        }
        for sub_question_id in lacking & set(weights):
            weights[sub_question_id] += 1.0
    return weights


def ordered(placed: Sequence[Placed]) -> list[Evidence]:
    """Full passages before cut pieces, each by rank, then edges first; the side of a
    contradiction that was brought back stays right after the side it contradicts."""
    glued: dict[str, list[Placed]] = {}
    main: list[Placed] = []
    for item in placed:
        if item.after is not None:
            glued.setdefault(item.after, []).append(item)
        else:
            main.append(item)
    main.sort(key=lambda p: (TIER_ORDER[p.tier], p.rank))
    units = [[item, *(g for r in item.records for g in glued.get(r.id, []))] for item in main]
    return [record for unit in edges_first(units) for item in unit for record in item.records]


def edges_first(ranked: list[T]) -> list[T]:
    """Best first, second best last, and so on inward: the weakest sit in the middle."""
    front: list[T] = []
    back: list[T] = []
    for position, item in enumerate(ranked):
        (front if position % 2 == 0 else back).append(item)
    return front + back[::-1]


def _terms_for(sub_question: SubQuestion) -> Callable[[Evidence], set[str]]:
    asked = set(tokenize(" ".join([sub_question.text, *sub_question.facets])))

    def terms(record: Evidence) -> set[str]:
        return asked | set(tokenize(record.query))

    return terms


def _independent(reprints: dict[str, str]) -> Callable[[Evidence], str]:
    def independent(record: Evidence) -> str:
        return reprints.get(record.source_id, record.source_id)

    return independent


def _snapshot_reader(store: SnapshotStore) -> TextOf:
    @lru_cache(maxsize=256)
    def text_of(sha256: str) -> str:
        return store.get(sha256)

    return text_of


def _vector_folders(context: Context, run: RunTools) -> Callable[[str], Path]:
    """Local passages keep their vectors next to the run's corpus index; web passages
    in the cache, keyed by their snapshot's hash like the rest."""

    def folder(origin: str) -> Path:
        if origin == "local" and context.corpus:
            try:
                return run.corpus_index()
            except GroundedResearchError:
                pass
        return Path(context.cache_dir) / "vectors" / origin

    return folder
