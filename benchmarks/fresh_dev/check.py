"""Validate the fresh dev questions with the checks of benchmarks/docs_eval/check.py.

    python benchmarks/fresh_dev/check.py                      # every file of this folder
    python benchmarks/fresh_dev/check.py --data /work/data    # corpora under another folder

Each file is one corpus's questions (tools.jsonl over corpus-tools, ...), checked as the
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
}


def main() -> int:
    parser = argparse.ArgumentParser(description="Check the fresh dev questions.")
    default = check.ROOT / "benchmarks" / ".data"
    parser.add_argument("--data", type=Path, default=default, help="folder of the corpora")
    args = parser.parse_args()
    failures = check.Failures()
    for name, (corpus, packages) in SETS.items():
        path = HERE / name
        if not path.is_file():
            continue
        folder = (args.data / corpus).resolve()
        if not folder.is_dir():
            failures.add(str(path), f"corpus not found: {folder}")
            continue
        print(f"checking {path.name} against {folder}")
        questions = check.check_set(path, folder, False, failures, packages)
        print(check.summary(questions, packages))
    for message in failures.messages:
        print(f"FAIL {message}")
    print(f"{len(failures.messages)} failure(s)")
    return 1 if failures.messages else 0


if __name__ == "__main__":
    sys.exit(main())
