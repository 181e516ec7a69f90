"""Runs that share one cache folder, at the scale of the Debian docs corpus.

    python benchmarks/shared_cache.py                      # 10 processes, first 300 files
    python benchmarks/shared_cache.py --runs 10 --limit 0  # the whole corpus (minutes)

1. share - `--runs` processes open the same corpus (the first `--limit` files of the
           corpus of benchmarks/index.py) on one fresh cache folder at the same moment,
           each refreshing the index and then running the same queries. Every process
           must exit 0 and find the same passages; one of them builds the index (the
           others wait on its lock and then read it: extracted 0).
2. open  - the unchanged index is opened in new processes, with the checks of its files
           against the manifest (sizes and sha256) and without them: what the checks
           cost on every open.

It prints the figures and exits 1 if a run failed or the runs disagree.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import index  # noqa: E402  (benchmarks/index.py: the corpus and its queries)

QUERIES = 30
OPENS = 5

RUN = """
import json, sys, time
from pathlib import Path
started = time.perf_counter()
from grounded_research.retrieval import local
if sys.argv[4] == "unchecked":
    local.damage = lambda path, expected: None
corpus = local.LocalCorpus(Path(sys.argv[1]), Path(sys.argv[2]), 600)
opened = time.perf_counter()
stats = corpus.refresh()
refreshed = time.perf_counter()
hits = [
    [[h.location, h.sha256, h.start, h.end] for h in corpus.search_sync(query, 8)]
    for query in json.loads(sys.argv[3])
]
print(json.dumps({
    "stats": stats.__dict__,
    "refresh_seconds": round(refreshed - opened, 3),
    "wall_seconds": round(time.perf_counter() - started, 3),
    "hits": hits,
}))
"""


def start(root: Path, cache: Path, queries: list[str], mode: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", RUN, str(root), str(cache), json.dumps(queries), mode],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(process: subprocess.Popen[str]) -> tuple[int, dict[str, Any] | str]:
    out, err = process.communicate()
    if process.returncode != 0:
        return process.returncode, err.strip().splitlines()[-1] if err.strip() else ""
    result: dict[str, Any] = json.loads(out)
    return 0, result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=HERE / ".data", help="download folder")
    parser.add_argument("--limit", type=int, default=300, help="first N files (0: all)")
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    data = args.data.resolve()
    full, _ = index.ensure_corpus(data)
    root = index.limited_corpus(data, full, args.limit) if args.limit else full
    titles = [
        " ".join(path.split("/")[-1].rsplit(".", 1)[0].replace("-", " ").split())
        for path in index.corpus_files(root)
    ]
    queries = sorted(set(titles))[:QUERIES]
    print(f"corpus: {root} ({len(titles)} files); {args.runs} runs on one fresh cache")

    with tempfile.TemporaryDirectory(prefix="shared-cache-") as scratch:
        cache = Path(scratch) / "cache"
        started = time.perf_counter()
        runs = [start(root, cache, queries, "checked") for _ in range(args.runs)]
        results = [finish(process) for process in runs]
        wall = time.perf_counter() - started
        failed = [result for code, result in results if code != 0]
        done = [result for code, result in results if code == 0 and isinstance(result, dict)]
        agree = len({json.dumps(r["hits"]) for r in done}) <= 1
        builders = sum(1 for r in done if r["stats"]["extracted"])
        print(
            f"share: {len(done)}/{args.runs} exit 0, same passages: {agree}, "
            f"built by {builders} run(s), all done in {wall:.1f} s"
        )
        for reason in failed:
            print(f"  failed: {reason}")

        timings: dict[str, list[float]] = {"checked": [], "unchecked": []}
        for _ in range(OPENS):
            for mode, seconds in timings.items():
                code, result = finish(start(root, cache, queries[:1], mode))
                if code == 0 and isinstance(result, dict):
                    seconds.append(result["refresh_seconds"])
        checked, unchecked = (statistics.median(timings[m] or [0.0]) for m in timings)
        index_bytes = sum(p.stat().st_size for p in (cache / "index").rglob("bm25f-*/*"))
        print(
            f"open (median of {OPENS}): {checked:.3f} s with the index checked, "
            f"{unchecked:.3f} s without ({index_bytes / 1e6:.1f} MB of index files)"
        )
    return 0 if not failed and agree else 1


if __name__ == "__main__":
    sys.exit(main())
