"""Scale benchmark of the local corpus index (grounded_research.retrieval.local).

    python benchmarks/index.py                 # full corpus, a few minutes on 2 cores
    python benchmarks/index.py --limit 300     # quick run on the first 300 files
    python benchmarks/index.py --json out.json

The corpus is real documentation HTML taken from Debian's package archive, the only
outside source this needs: `apt-get download` + `dpkg -x` of the packages in PACKAGES
(no install), done once into `--data` (default benchmarks/.data/, git-ignored). Only
the .html/.htm files are copied into `<data>/corpus/<package>/...`, the tree indexed.

Each measured step runs in a fresh Python process so that its figures are its own:

1. build   - index the corpus from scratch into an empty temporary cache dir; peak RSS
             of the process (RUSAGE_SELF) and of its largest worker (RUSAGE_CHILDREN);
2. open    - re-open the unchanged index in a new process: the 3 s target is on load +
             file scan, the import of the package is shown apart; then run the queries
             (titles and headings drawn from the corpus with a fixed seed) and time
             each search_sync(query, k);
3. update  - 10 files are edited, a new process opens the index and refreshes it
             (the incremental path), then the files are restored.

It prints a table against the targets of the scale issue and exits 0 whether they
are met or not: it is a benchmark, not a test.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import platform
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import debian_docs  # noqa: E402

# Prose-heavy documentation: together 3,398 .html files and ~127 MB (Debian 12).
PACKAGES = (
    "python3.11-doc",
    "postgresql-doc-15",
    "python-django-doc",
    "sqlite3-doc",
    "git-doc",
)
HTML_SUFFIXES = debian_docs.HTML_SUFFIXES
TARGET_FILES = 3000
TARGET_MB = 120.0
TARGET_BUILD_S = 60.0
TARGET_QUERY_MS = 50.0
TARGET_OPEN_S = 3.0
SEED = 20261130
DEFAULT_MODULE = "grounded_research.retrieval.local"
MODULE_VARIABLE = "INDEX_BENCH_MODULE"
EDITED_FILES = 10
EDIT_WORD = "zqxbenchmarkedit"


# -- the corpus ----------------------------------------------------------------------


def ensure_corpus(data: Path) -> tuple[Path, dict[str, Any]]:
    """<data>/corpus with the HTML of PACKAGES; downloaded and extracted only once."""
    return debian_docs.ensure_corpus(data, PACKAGES)


def corpus_files(root: Path) -> list[str]:
    """The indexable files, in the order the indexer walks them."""
    out: list[str] = []
    for folder, subfolders, names in os.walk(root):
        subfolders[:] = sorted(d for d in subfolders if not d.startswith("."))
        for name in sorted(names):
            if not name.startswith(".") and name.lower().endswith(HTML_SUFFIXES):
                out.append((Path(folder) / name).relative_to(root).as_posix())
    return out


def limited_corpus(data: Path, full: Path, limit: int) -> Path:
    """<data>/corpus-first-N: a copy of the first N files of the full corpus."""
    root = data / f"corpus-first-{limit}"
    if (root / ".complete").exists():
        return root
    shutil.rmtree(root, ignore_errors=True)
    for rel in corpus_files(full)[:limit]:
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(full / rel, target)
    (root / ".complete").write_text("")
    return root


# -- measuring, in fresh processes ------------------------------------------------------


def _peak_mb(who: int) -> float:
    peak = resource.getrusage(who).ru_maxrss  # KiB on Linux, bytes on macOS
    return round(peak / (1024 * 1024 if sys.platform == "darwin" else 1024), 1)


def _tree_size(path: Path) -> tuple[int, int]:
    files = size = 0
    for folder, _, names in os.walk(path):
        for name in names:
            files += 1
            size += (Path(folder) / name).stat().st_size
    return files, size


_MARKDOWN = re.compile(r"[`*_#>\[\]]|\(\S+?\)|¶")
_NUMBERING = re.compile(r"^\s*(?:[\dA-Z]+\.)+\d*\s+|^\s*(?:Chapter|Appendix)\s+\S+\s+")
_SITE_SUFFIX = re.compile(r"\s+(?:—|–|\||::| - )\s+.*$")


def _phrase(raw: str) -> str:
    text = _SITE_SUFFIX.sub("", raw)
    text = _NUMBERING.sub("", _MARKDOWN.sub(" ", text))
    return " ".join(text.split())


def make_queries(documents: list[Any], count: int, seed: int) -> list[str]:
    """Half document titles, half section headings, drawn with a fixed seed."""
    titles = sorted({_phrase(d.title) for d in documents})
    headings = sorted({_phrase(h) for d in documents for _, _, h in d.chunks if h})

    def usable(phrase: str) -> bool:
        return 2 <= len(phrase.split()) <= 10 and len(phrase) <= 100

    titles = [t for t in titles if usable(t)]
    headings = [h for h in headings if usable(h) and h not in titles]
    rng = random.Random(seed)
    picked = rng.sample(titles, min(len(titles), count // 2))
    picked += rng.sample(headings, min(len(headings), count - len(picked)))
    rng.shuffle(picked)
    return picked


def _corpus_class() -> Any:
    """LocalCorpus, from the module --module names (a candidate implementation)."""
    return importlib.import_module(os.environ.get(MODULE_VARIABLE, DEFAULT_MODULE)).LocalCorpus


def _cpu_seconds(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def phase_build(root: str, cache: str, chunk_size: int, queries: int) -> dict[str, Any]:
    started = time.perf_counter()
    LocalCorpus = _corpus_class()

    imported = time.perf_counter()
    cpu_before = _cpu_seconds(resource.RUSAGE_SELF)
    corpus = LocalCorpus(Path(root), Path(cache), chunk_size)
    stats = corpus.refresh()
    built = time.perf_counter()
    peak_self, peak_child = _peak_mb(resource.RUSAGE_SELF), _peak_mb(resource.RUSAGE_CHILDREN)
    index_files, index_bytes = _tree_size(Path(cache) / "index")
    snap_files, snap_bytes = _tree_size(Path(cache) / "snapshots")
    manifest = next((Path(cache) / "index").glob("*/manifest.json"))
    return {
        "import_seconds": round(imported - started, 3),
        "seconds": round(built - imported, 3),
        "stats": stats.__dict__,
        "problems": len(corpus.problems()),
        "peak_rss_mb": peak_self,
        "peak_rss_worker_mb": peak_child,
        "workers": os.cpu_count(),
        "cpu_seconds_main": round(_cpu_seconds(resource.RUSAGE_SELF) - cpu_before, 1),
        "cpu_seconds_workers": round(_cpu_seconds(resource.RUSAGE_CHILDREN), 1),
        "index_bytes": index_bytes,
        "index_files": index_files,
        "manifest_bytes": manifest.stat().st_size,
        "snapshot_bytes": snap_bytes,
        "snapshot_files": snap_files,
        "queries": make_queries(corpus._documents, queries, SEED),
    }


def phase_open(root: str, cache: str, chunk_size: int, queries: list[str], k: int) -> dict:
    started = time.perf_counter()
    LocalCorpus = _corpus_class()

    imported = time.perf_counter()
    corpus = LocalCorpus(Path(root), Path(cache), chunk_size)  # what open_corpus does
    stats = corpus.refresh()
    opened = time.perf_counter()
    latencies: list[float] = []
    hits = 0
    for query in queries:
        before = time.perf_counter()
        found = corpus.search_sync(query, k)
        latencies.append((time.perf_counter() - before) * 1000)
        hits += bool(found)
    return {
        "import_seconds": round(imported - started, 3),
        "open_seconds": round(opened - imported, 3),
        "stats": stats.__dict__,
        "latencies_ms": [round(x, 3) for x in latencies],
        "queries_with_hits": hits,
        "peak_rss_mb": _peak_mb(resource.RUSAGE_SELF),
    }


def phase_update(root: str, cache: str, chunk_size: int, edited: list[str]) -> dict:
    LocalCorpus = _corpus_class()

    corpus = LocalCorpus(Path(root), Path(cache), chunk_size)
    stats = corpus.refresh()
    found = {hit.location for hit in corpus.search_sync(EDIT_WORD, 2 * len(edited))}
    return {
        "stats": stats.__dict__,
        "edits_found": len(found & set(edited)),
        "peak_rss_mb": _peak_mb(resource.RUSAGE_SELF),
    }


PHASES = {"build": phase_build, "open": phase_open, "update": phase_update}


def run_phase(name: str, **kwargs: Any) -> tuple[dict[str, Any], float]:
    """Run one phase in a new Python process; its result and the process's wall time."""
    with tempfile.TemporaryDirectory() as scratch:
        arguments = Path(scratch) / "in.json"
        result = Path(scratch) / "out.json"
        arguments.write_text(json.dumps(kwargs))
        started = time.perf_counter()
        process = subprocess.run(
            [
                sys.executable,
                str(Path(__file__).resolve()),
                "--phase",
                name,
                str(arguments),
                str(result),
            ],
            stdout=subprocess.DEVNULL,
        )
        wall = time.perf_counter() - started
        if process.returncode != 0 or not result.exists():
            sys.exit(f"phase {name} failed (exit {process.returncode})")
        return json.loads(result.read_text()), round(wall, 3)


def edit_files(root: Path, files: list[str], seed: int) -> dict[str, bytes]:
    """Add a paragraph to EDITED_FILES files; their original bytes, to restore later.
    (The edit check counts the pages whose new paragraph is found by a search;
    trafilatura may judge the paragraph boilerplate on some pages and leave it out.)"""
    rng = random.Random(seed)
    originals: dict[str, bytes] = {}
    for number, rel in enumerate(sorted(rng.sample(files, min(EDITED_FILES, len(files))))):
        path = root / rel
        original = path.read_bytes()
        originals[rel] = original
        paragraph = f"<p>Benchmark edit {number}: {EDIT_WORD} changed this page.</p>".encode()
        # after the middle paragraph: inside the main text, which trafilatura keeps
        ends = [m.end() for m in re.finditer(rb"</p>", original, re.IGNORECASE)]
        at = ends[len(ends) // 2] if ends else len(original)
        edited = original[:at] + paragraph + original[at:]
        path.write_bytes(edited)
    return originals


def restore_files(root: Path, originals: dict[str, bytes]) -> None:
    for rel, original in originals.items():
        (root / rel).write_bytes(original)


# -- the report ------------------------------------------------------------------------


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    position = (len(ordered) - 1) * fraction
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def mark(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=HERE / ".data", help="download folder")
    parser.add_argument("--limit", type=int, default=0, help="use only the first N files")
    parser.add_argument("--chunk-size", type=int, default=600)
    parser.add_argument("--json", type=Path, help="write the figures to this JSON file")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("-k", type=int, default=8)
    parser.add_argument("--keep-cache", action="store_true", help="keep the temporary cache")
    parser.add_argument(
        "--module",
        default=DEFAULT_MODULE,
        help="module whose LocalCorpus is measured, to compare a candidate (on PYTHONPATH)",
    )
    parser.add_argument("--phase", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.phase:  # inside a measuring process
        name, arguments, result = args.phase
        figures = PHASES[name](**json.loads(Path(arguments).read_text()))
        Path(result).write_text(json.dumps(figures))
        return 0

    os.environ[MODULE_VARIABLE] = args.module  # read by the measuring processes
    data = args.data.resolve()
    full, info = ensure_corpus(data)
    root = limited_corpus(data, full, args.limit) if args.limit else full
    files = corpus_files(root)
    megabytes = sum((root / rel).stat().st_size for rel in files) / 1e6
    versions = ", ".join(f"{p['package']} {p['version']}" for p in info["packages"])
    print(f"corpus: {root} ({len(files)} files, {megabytes:.1f} MB; {versions})", flush=True)
    if args.module != DEFAULT_MODULE:
        print(f"measuring {args.module}.LocalCorpus", flush=True)

    load_before = os.getloadavg()[0]
    cache = Path(tempfile.mkdtemp(prefix="index-bench-"))
    try:
        print("building the index from scratch ...", flush=True)
        build, build_wall = run_phase(
            "build",
            root=str(root),
            cache=str(cache),
            chunk_size=args.chunk_size,
            queries=args.queries,
        )
        print("re-opening it in a new process and querying ...", flush=True)
        opened, open_wall = run_phase(
            "open",
            root=str(root),
            cache=str(cache),
            chunk_size=args.chunk_size,
            queries=build["queries"],
            k=args.k,
        )
        print(f"editing {EDITED_FILES} files and refreshing ...", flush=True)
        originals = edit_files(root, files, SEED)
        try:
            update, update_wall = run_phase(
                "update",
                root=str(root),
                cache=str(cache),
                chunk_size=args.chunk_size,
                edited=[f"{rel}" for rel in originals],
            )
        finally:
            restore_files(root, originals)
    finally:
        if args.keep_cache:
            print(f"cache kept at {cache}")
        else:
            shutil.rmtree(cache, ignore_errors=True)

    load_after = os.getloadavg()[0]
    latencies = opened["latencies_ms"]
    seconds = build["seconds"]
    full_size = len(files) >= TARGET_FILES and megabytes >= TARGET_MB
    scale = max(TARGET_FILES / max(len(files), 1), TARGET_MB / max(megabytes, 1e-9))
    projected = seconds if full_size else seconds * scale
    open_seconds = opened["open_seconds"]
    figures: dict[str, Any] = {
        "corpus": {"root": str(root), "packages": info["packages"]},
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
            "load_1min_before_after": [round(load_before, 2), round(load_after, 2)],
        },
        "module": args.module,
        "chunk_size": args.chunk_size,
        "files": len(files),
        "megabytes": round(megabytes, 1),
        "build": {k: v for k, v in build.items() if k != "queries"} | {"wall": build_wall},
        "build_files_per_second": round(len(files) / seconds, 1),
        "build_mb_per_second": round(megabytes / seconds, 2),
        "build_seconds_for_target": round(projected, 1),
        "open": {k: v for k, v in opened.items() if k != "latencies_ms"} | {"wall": open_wall},
        "open_seconds": open_seconds,
        "queries": build["queries"],
        "k": args.k,
        "query_ms_median": round(statistics.median(latencies), 2) if latencies else None,
        "query_ms_p95": round(percentile(latencies, 0.95), 2) if latencies else None,
        "query_ms_first": latencies[0] if latencies else None,
        "update": update | {"wall": update_wall, "edited": list(originals)},
    }
    figures["targets"] = {
        "build": projected <= TARGET_BUILD_S,
        "query": bool(latencies) and figures["query_ms_median"] <= TARGET_QUERY_MS,
        "open": open_seconds <= TARGET_OPEN_S,
    }

    stats, mb = build["stats"], 1024 * 1024
    rows = [
        ("files indexed (scanned)", f"{stats['files']} ({len(files)})", "", ""),
        ("HTML size", f"{megabytes:.1f} MB", "", ""),
        ("documents / chunks", f"{stats['documents']} / {stats['chunks']}", "", ""),
        ("unreadable files", f"{build['problems']}", "", ""),
        ("build (from scratch)", f"{seconds:.1f} s", "", ""),
        ("  files/s, MB/s", f"{len(files) / seconds:.1f}, {megabytes / seconds:.2f}", "", ""),
        (
            "  for 3,000 files / 120 MB" + ("" if full_size else " (projected)"),
            f"{projected:.1f} s",
            f"<= {TARGET_BUILD_S:.0f} s",
            mark(figures["targets"]["build"]),
        ),
        (
            "  CPU: main / workers",
            f"{build['cpu_seconds_main']:.0f} / "
            f"{build['cpu_seconds_workers']:.0f} s (parallelism "
            f"{(build['cpu_seconds_main'] + build['cpu_seconds_workers']) / seconds:.2f})",
            "",
            "",
        ),
        (
            "  peak RSS: process / worker",
            f"{build['peak_rss_mb']:.0f} / "
            f"{build['peak_rss_worker_mb']:.0f} MB (x{build['workers']} workers)",
            "",
            "",
        ),
        (
            "index on disk (manifest)",
            f"{build['index_bytes'] / mb:.1f} MB ({build['manifest_bytes'] / mb:.1f} MB)",
            "",
            "",
        ),
        (
            "snapshots on disk",
            f"{build['snapshot_bytes'] / mb:.1f} MB in {build['snapshot_files']} files",
            "",
            "",
        ),
        (
            "open unchanged index (load + scan)",
            f"{open_seconds:.2f} s (rebuilt: {opened['stats']['rebuilt']})",
            f"<= {TARGET_OPEN_S:.0f} s",
            mark(figures["targets"]["open"]),
        ),
        (
            "  new process: import / wall",
            f"{opened['import_seconds']:.2f} / {open_wall:.2f} s (wall includes the queries)",
            "",
            "",
        ),
        (
            f"query, k={args.k}: median",
            f"{figures['query_ms_median']} ms",
            f"<= {TARGET_QUERY_MS:.0f} ms",
            mark(figures["targets"]["query"]),
        ),
        (
            "  p95 / first / with hits",
            f"{figures['query_ms_p95']} / "
            f"{figures['query_ms_first']:.1f} ms / {opened['queries_with_hits']} of "
            f"{len(latencies)}",
            "",
            "",
        ),
        (
            f"incremental: {EDITED_FILES} files edited",
            f"{update['stats']['seconds']:.1f} s "
            f"(extracted {update['stats']['extracted']}, edits found {update['edits_found']})",
            "",
            "",
        ),
    ]
    width = max(len(r[0]) for r in rows)
    value_width = max(len(r[1]) for r in rows)
    print(
        f"\nmachine: {os.cpu_count()} CPUs, 1-min load average {load_before:.2f} before, "
        f"{load_after:.2f} after (other processes' load skews the seconds)\n"
    )
    print(f"{'figure'.ljust(width)}  {'measured'.ljust(value_width)}  {'target':<9}  result")
    for name, value, target, result in rows:
        print(f"{name.ljust(width)}  {value.ljust(value_width)}  {target:<9}  {result}".rstrip())
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
        print(f"\nfigures written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
