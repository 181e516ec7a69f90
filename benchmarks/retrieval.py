"""Retrieval alone, against an evaluation set's gold pages: is a gold page among the
first k passages the local index returns for the question, and how high.

    python benchmarks/retrieval.py benchmarks/docs_eval/dev.jsonl \
        --corpus benchmarks/.data/corpus --cache-dir /tmp/ret-cache
    python benchmarks/retrieval.py ../shared/eval/hotpotqa/questions.jsonl \
        --corpus ../shared/eval/hotpotqa/corpus.jsonl --limit 100

For every answerable question with gold sources: the question is searched once
(`search_sync(question, k)`, the graph's first search), and the figures are the share of
questions with a gold page in the top 8 and top 20 passages and the mean reciprocal rank
of the first gold passage (0 when none is in the top 20), and the share of all gold
pages in the top 8 and 20 (HotpotQA has two per question); with gold pages in folders,
the share of the top 8 passages from a gold page's first folder (for the Debian docs, the
package: a question about PostgreSQL answered from Django's pages scores low). Far
cheaper than a whole `grounded-research eval`, so it is the loop to tune retrieval on;
confirm with the eval.
`--set fields.NAME_BOOST=0` (repeatable) overrides a module constant of
grounded_research.retrieval for the run, to measure a rule on and off without a rebuild
(token rules need one: a new cache dir). `--dense` adds dense retrieval with the local
embedder (what `--dense-retrieval` does in a run; the first run embeds every chunk).
`--misses` lists the questions without a gold page in the top 20 with what came first.
"""

from __future__ import annotations

import argparse
import importlib
import json
import resource
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from grounded_research.evaluation.dataset import load_dataset
from grounded_research.retrieval.dense import DenseRetrieval
from grounded_research.retrieval.local import LocalCorpus

CUTOFFS = (8, 20)


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime + children.ru_utime + children.ru_stime


def override(assignments: list[str]) -> dict[str, Any]:
    """Apply `module.NAME=value` (a JSON value) to grounded_research.retrieval.<module>."""
    applied: dict[str, Any] = {}
    for assignment in assignments:
        target, _, raw = assignment.partition("=")
        module_name, _, name = target.rpartition(".")
        module = importlib.import_module(f"grounded_research.retrieval.{module_name}")
        if not hasattr(module, name):
            sys.exit(f"--set: {module.__name__} has no {name}")
        value = json.loads(raw)
        current = getattr(module, name)
        if isinstance(current, dict) and isinstance(value, dict):
            value = current | value
        setattr(module, name, value)
        applied[target] = value
    return applied


def _dense(wanted: bool) -> DenseRetrieval | None:
    if not wanted:
        return None
    from grounded_research.selection.embeddings import local_embedder
    from grounded_research.selection.vectors import dense_retrieval

    return dense_retrieval(local_embedder())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--cache-dir", type=Path, default=Path("/tmp/retrieval-bench"))
    parser.add_argument("--chunk-size", type=int, default=600)
    parser.add_argument("--limit", type=int)
    parser.add_argument("--set", action="append", default=[], metavar="MODULE.NAME=JSON")
    parser.add_argument("--misses", action="store_true")
    parser.add_argument(
        "--dense",
        action="store_true",
        help="dense retrieval on, local embedder: embeds the chunks without a vector",
    )
    parser.add_argument("--json", type=Path, help="write the figures and per-question ranks")
    args = parser.parse_args()
    applied = override(args.set)
    questions = [
        q for q in load_dataset(args.dataset, args.limit) if q.gold_sources and not q.unanswerable
    ]
    wall, cpu = time.perf_counter(), _cpu()
    corpus = LocalCorpus(args.corpus, args.cache_dir, args.chunk_size, _dense(args.dense))
    stats = corpus.refresh()
    opened = {"wall_s": round(time.perf_counter() - wall, 1), "cpu_s": round(_cpu() - cpu, 1)}
    print(
        f"index: {stats.documents} documents, {stats.chunks} chunks; refresh {opened}"
        + (f", {stats.embedded} chunks embedded" if args.dense else "")
    )

    depth = max(CUTOFFS)
    ranks: dict[str, int | None] = {}
    recalls: dict[int, list[float]] = {k: [] for k in CUTOFFS}
    on_collection: list[float] = []
    latencies: list[float] = []
    misses: list[str] = []
    for question in questions:
        started = time.perf_counter()
        hits = corpus.search_sync(question.question, depth)
        latencies.append((time.perf_counter() - started) * 1000)
        gold = set(question.gold_sources)
        rank = next((i for i, hit in enumerate(hits, 1) if hit.location in gold), None)
        ranks[question.id] = rank
        for k in CUTOFFS:
            found = {hit.location for hit in hits[:k]} & gold
            recalls[k].append(len(found) / len(gold))
        collections = {g.split("/", 1)[0] for g in gold if "/" in g}
        if collections and hits:
            same = sum(h.location.split("/", 1)[0] in collections for h in hits[:8])
            on_collection.append(same / len(hits[:8]))
        if rank is None:
            first = ", ".join(dict.fromkeys(h.location.rsplit("/", 1)[-1] for h in hits[:3]))
            misses.append(f"  {question.id}: {question.question}\n      got: {first}")
    count = len(questions) or 1
    figures: dict[str, Any] = {
        "dataset": str(args.dataset),
        "questions": len(questions),
        "overrides": applied,
        "dense": args.dense,
        **{
            f"top{k}": round(100 * sum(1 for r in ranks.values() if r and r <= k) / count, 1)
            for k in CUTOFFS
        },
        "mrr": round(sum(1 / r for r in ranks.values() if r) / count, 3),
        **{f"gold_recall{k}": round(100 * sum(v) / count, 1) for k, v in recalls.items()},
        "query_ms_median": round(statistics.median(latencies), 1) if latencies else None,
        "open": opened,
        "top8_on_gold_collection": round(100 * statistics.mean(on_collection), 1)
        if on_collection
        else None,
    }
    print(
        f"{len(questions)} questions: gold in top 8 {figures['top8']}%, top 20 "
        f"{figures['top20']}%, MRR {figures['mrr']}; share of gold pages in top 8 "
        f"{figures['gold_recall8']}%, top 20 {figures['gold_recall20']}%; "
        f"median query {figures['query_ms_median']} ms"
    )
    if on_collection:
        print(
            "share of the top 8 passages from the gold page's collection (its first folder: "
            f"the product, for the Debian docs): {figures['top8_on_gold_collection']}%"
        )
    if args.misses:
        print("not in the top 20:\n" + "\n".join(misses))
    if args.json:
        args.json.write_text(json.dumps(figures | {"ranks": ranks}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
