"""Choose what the writer may ever say: the best evidence per sub-question, under one
token budget, reprints and cross-sub-question duplicates counted once, the strongest
passages at the edges of the context where models read best."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from langgraph.runtime import Runtime

from grounded_research.citations import normalize
from grounded_research.configuration import Context, get_context
from grounded_research.retrieval.snapshots import SnapshotStore
from grounded_research.selection.budget import count_tokens
from grounded_research.selection.reprints import find_reprints
from grounded_research.state import Evidence, Source, State, Usage


async def select_context(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    started = time.perf_counter()
    context = get_context(runtime)
    sources, selected = await asyncio.to_thread(select, state, context)  # reads snapshots
    changed = {i: s for i, s in sources.items() if state.sources.get(i) != s}
    return {
        "sources": changed,
        "context": selected,
        "usage": Usage(seconds={"select_context": round(time.perf_counter() - started, 4)}),
    }


def select(state: State, context: Context) -> tuple[dict[str, Source], dict[str, list[str]]]:
    store = SnapshotStore.in_cache(context.cache_dir)
    sources = mark_reprints(state.sources, store)
    candidates = candidates_per_sub_question(state, sources, store)
    owner = best_sub_question_per_passage(candidates)
    budget_each = context.token_budget // max(1, len(state.sub_questions))
    selected: dict[str, list[str]] = {}
    for sub_question in state.sub_questions:
        owned = [e for e in candidates.get(sub_question.id, []) if owner[e.passage] == e.id]
        chosen = within_budget(
            interleave_queries(owned), budget_each, context.evidence_per_sub_question
        )
        selected[sub_question.id] = [e.id for e in edges_first(chosen)]
    return sources, selected


def mark_reprints(sources: dict[str, Source], store: SnapshotStore) -> dict[str, Source]:
    readable = [s for s in sources.values() if s.status in ("fetched", "duplicate")]
    originals = find_reprints(readable, store.get)
    marked = dict(sources)
    for source in readable:
        original = originals.get(source.id)
        if original is not None:
            marked[source.id] = source.model_copy(
                update={"status": "duplicate", "duplicate_of": original}
            )
        elif source.status == "duplicate":
            marked[source.id] = source.model_copy(
                update={"status": "fetched", "duplicate_of": None}
            )
    return marked


def candidates_per_sub_question(
    state: State, sources: dict[str, Source], store: SnapshotStore
) -> dict[str, list[Evidence]]:
    """Evidence from readable sources, best first. A reprint's passage stays out when
    its original says the same thing: only what the copy adds (an editor's note, a
    changed figure) is worth a place of its own."""
    grouped: dict[str, list[Evidence]] = {}
    for record in state.evidence.values():
        source = sources.get(record.source_id)
        if source is None or source.status not in ("fetched", "duplicate"):
            continue
        if source.status == "duplicate" and source.duplicate_of in sources:
            original = sources[source.duplicate_of]
            if normalize(record.text) in normalize(store.get(original.sha256)):
                continue
        grouped.setdefault(record.sub_question_id, []).append(record)
    return {
        sub_question_id: sorted(records, key=lambda r: (-r.score, r.round, r.id))
        for sub_question_id, records in grouped.items()
    }


def best_sub_question_per_passage(candidates: dict[str, list[Evidence]]) -> dict[Any, str]:
    """A passage found for several sub-questions is selected once, where it scores best."""
    owner: dict[tuple[str, int, int], Evidence] = {}
    for records in candidates.values():
        for record in records:
            known = owner.get(record.passage)
            if known is None or (record.score, -record.round) > (known.score, -known.round):
                owner[record.passage] = record
    return {key: record.id for key, record in owner.items()}


def interleave_queries(ranked: list[Evidence]) -> list[Evidence]:
    """Every query's best passage before any query's second: a follow-up query aimed at
    a gap gets its best result in, however well the first queries did."""
    per_query: dict[str, list[Evidence]] = {}
    for record in ranked:
        per_query.setdefault(record.query, []).append(record)
    rows = [sorted(records, key=lambda r: -r.score) for records in per_query.values()]
    interleaved: list[Evidence] = []
    for depth in range(max((len(r) for r in rows), default=0)):
        layer = [row[depth] for row in rows if depth < len(row)]
        interleaved.extend(sorted(layer, key=lambda r: (-r.score, r.round, r.id)))
    return interleaved


def within_budget(ranked: list[Evidence], budget: int, most: int) -> list[Evidence]:
    chosen: list[Evidence] = []
    spent = 0
    for record in ranked:
        cost = count_tokens(record.text)
        if spent + cost > budget and chosen:
            continue
        chosen.append(record)
        spent += cost
        if len(chosen) >= most:
            break
    return chosen


def edges_first(ranked: list[Evidence]) -> list[Evidence]:
    """Best first, second best last, and so on inward: the weakest sit in the middle."""
    front: list[Evidence] = []
    back: list[Evidence] = []
    for position, record in enumerate(ranked):
        (front if position % 2 == 0 else back).append(record)
    return front + back[::-1]
