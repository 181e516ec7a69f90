"""Validate the Chinese administration set with the checks of benchmarks/docs_eval_zh/check.py.

    python benchmarks/admin_eval_zh/check.py                 # dev + test, likely missing gold
    python benchmarks/admin_eval_zh/check.py --corpus DIR    # another corpus folder

The same checks as the Chinese set over Debian's own manuals (every answer and fact
found in the text the system extracts from the gold pages, unanswerable questions'
`closest_sources` present, the splits disjoint), run on both splits with
`--completeness`. The corpus is fetched by `python benchmarks/docs_eval.py --set
admin-zh` into `<data>/corpus-admin-zh`; the splits are made by
`python benchmarks/docs_eval_zh/split.py --source benchmarks/admin_eval_zh/questions.jsonl
--out benchmarks/admin_eval_zh`.

Exit 0 when every check passes, 1 otherwise (each failure is printed).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
_spec = importlib.util.spec_from_file_location(
    "docs_eval_zh_check", ROOT / "benchmarks/docs_eval_zh/check.py"
)
assert _spec is not None and _spec.loader is not None
check = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = check
_spec.loader.exec_module(check)

FULL_CORPUS = ROOT / "benchmarks" / ".data" / "corpus-admin-zh"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=FULL_CORPUS, help="the corpus folder")
    args = parser.parse_args()
    splits = [str(HERE / "dev.jsonl"), str(HERE / "test.jsonl")]
    return check.main([*splits, "--corpus", str(args.corpus), "--completeness"])


if __name__ == "__main__":
    sys.exit(main())
