"""Validate the fresh dev questions with the checks of benchmarks/docs_eval/check.py.

    python benchmarks/fresh_dev/check.py                      # every file of this folder
    python benchmarks/fresh_dev/check.py --data /work/data    # corpora under another folder
    python benchmarks/fresh_dev/check.py --folder benchmarks/fresh_dev2   # the second batch
    python benchmarks/fresh_dev/check.py --folder benchmarks/fresh_dev3   # the third
    python benchmarks/fresh_dev/check.py --folder benchmarks/fresh_dev4   # zh and servers
    python benchmarks/fresh_dev/check.py --folder benchmarks/fresh_dev5   # runtimes and tools
    python benchmarks/fresh_dev/check.py --folder benchmarks/fresh_dev6   # four corpora
    python benchmarks/fresh_dev/check.py --folder benchmarks/fresh_dev7   # six corpora

Each file is one corpus's questions (tools.jsonl over corpus-tools, docs.jsonl over
the English docs corpus, ...), checked as the
sets they add to are: every answer and fact pattern found in the text
`grounded_research.retrieval.documents` extracts from the gold pages, every gold page
holding one, one kind and one package tag per question. Dev only: no split to check.

Exit 0 when every check passes, 1 otherwise (each failure is printed).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "docs_eval"))
import check  # noqa: E402  (benchmarks/docs_eval/check.py)

SETS = {  # file: (corpus folder, package tags), as the set of that corpus has them
    "tools.jsonl": ("corpus-tools", ("postfix", "openssl", "cmake")),
    "admin.jsonl": ("corpus-admin", ("handbook", "install")),
    "manuals.jsonl": ("corpus-manuals", ("apache", "sphinx", "bash")),
    "libs.jsonl": ("corpus-libs", ("flask", "jinja", "click", "pytest", "requests")),
    "docs.jsonl": ("corpus", check.PACKAGES),
    "zh.jsonl": ("corpus-zh", ("debian-reference", "debian-faq", "maint-guide")),
    "servers.jsonl": ("corpus-servers", ("exim", "haproxy", "aiohttp", "werkzeug", "zsh")),
    "runtimes.jsonl": ("corpus-runtimes", ("go", "node")),
}


def main() -> int:
    parser = argparse.ArgumentParser(description="Check the fresh dev questions.")
    default = check.ROOT / "benchmarks" / ".data"
    parser.add_argument("--data", type=Path, default=default, help="folder of the corpora")
    parser.add_argument(
        "--folder", type=Path, default=HERE, help="folder of the question files (fresh_dev2)"
    )
    args = parser.parse_args()
    status = 0
    for name, (corpus, packages) in SETS.items():
        path = args.folder / name
        if path.is_file():  # no split to check: `full_set` is none of these files
            folder = (args.data / corpus).resolve()
            fetch = f"python benchmarks/docs_eval.py fetches it into {corpus}"
            status |= check.check_sets([(path, folder)], HERE, False, fetch, packages)
    return status


if __name__ == "__main__":
    sys.exit(main())
