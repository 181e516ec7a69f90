"""The documentation evaluation set (benchmarks/docs_eval/) run through `grounded-research eval`.

    python benchmarks/docs_eval.py --split dev                  # tune on this half
    python benchmarks/docs_eval.py --split test                 # report only: never tune on it
    python benchmarks/docs_eval.py --split all --out r.json -- --max-rounds 0 --selection keyword

The corpus is the Debian documentation of benchmarks/index.py (Python 3.11, PostgreSQL 15,
Django 3.2, SQLite 3.40, git 2.39: 3,398 HTML files), fetched once by
benchmarks/debian_docs.py into `--data` (default benchmarks/.data/, git-ignored). Options
after `--` go to `grounded-research eval` unchanged (see `grounded-research eval --help`).
The index lives in `<data>/cache` unless `--cache-dir` is passed there: the first run
builds it (about two minutes on 2 cores), later runs reuse it.

`grounded-research eval` prints its tables (recall per stage, figures, recall per tag:
kind, package, trap); then the figures issue 11 sets targets on are printed in one block.
The exit code is eval's (0 done, 1 a `--min` threshold missed, 64 bad input).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import debian_docs  # noqa: E402
from index import PACKAGES  # noqa: E402  (one corpus for both benchmarks)

SET = HERE / "docs_eval"
DATASETS = {"dev": SET / "dev.jsonl", "test": SET / "test.jsonl", "all": SET / "questions.jsonl"}


def eval_command() -> list[str]:
    """`grounded-research` of this Python's environment, or the one on PATH."""
    beside = Path(sys.executable).with_name("grounded-research")
    if beside.exists():
        return [str(beside)]
    found = shutil.which("grounded-research")
    if found is None:
        sys.exit("grounded-research not found: install the package (pip install -e .)")
    return [found]


def issue_figures(report: dict[str, Any]) -> list[tuple[str, str]]:
    """The aggregate figures issue 11 sets targets on, from eval's --out JSON."""
    aggregate = report["aggregate"]

    def stage(name: str, at: str) -> str:
        recall = aggregate.get(name)
        return "-" if recall is None else f"{100 * recall[at]:.1f}%"

    def share(name: str) -> str:
        value = aggregate.get(name)
        return "-" if value is None else f"{100 * value:.1f}%"

    return [
        ("questions (failed)", f"{aggregate['questions']} ({aggregate['failed']})"),
        ("answer in report", stage("answer_recall", "report")),
        ("required facts in report", stage("fact_recall", "report")),
        ("gold page in the evidence (selected)", stage("gold_recall", "selected")),
        ("gold page retrieved", stage("gold_recall", "retrieved")),
        (
            f"unanswerable declared ({aggregate['unanswerable']} q)",
            share("unanswerable_handled"),
        ),
        ("answerable declared open", share("answerable_abstained")),
        ("citation validity", share("citation_validity")),
        ("seconds / question", f"{aggregate['cost']['seconds']:.2f}"),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="Options after -- are passed to grounded-research eval.",
    )
    parser.add_argument("--split", choices=sorted(DATASETS), default="dev")
    parser.add_argument("--data", type=Path, default=HERE / ".data", help="download folder")
    parser.add_argument("--out", type=Path, help="eval's full results (JSON) here")
    parser.add_argument("extra", nargs="*", help="options for grounded-research eval (after --)")
    args = parser.parse_args()

    corpus, info = debian_docs.ensure_corpus(args.data, PACKAGES)
    versions = ", ".join(f"{p['package']} {p['version']}" for p in info["packages"])
    print(f"corpus: {corpus} ({info['files']} files: {versions})", flush=True)

    dataset = DATASETS[args.split]
    extra = list(args.extra)
    if not any(option.split("=")[0] == "--cache-dir" for option in extra):
        extra += ["--cache-dir", str(args.data / "cache")]
    with tempfile.TemporaryDirectory() as scratch:
        out = args.out or Path(scratch) / "results.json"
        command = [
            *eval_command(),
            "eval",
            str(dataset),
            "--corpus",
            str(corpus),
            "--out",
            str(out),
            *extra,
        ]
        print("$ " + " ".join(command), flush=True)
        code = subprocess.call(command, env=os.environ.copy())
        if not out.exists():
            return code
        report: dict[str, Any] = json.loads(out.read_text())
    print(f"\nissue 11 figures, {args.split} split ({dataset.name}):")
    rows = issue_figures(report)
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"  {name:<{width}}  {value}")
    return code


if __name__ == "__main__":
    sys.exit(main())
