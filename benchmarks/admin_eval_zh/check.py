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
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "docs_eval_zh"))
import check  # noqa: E402  (benchmarks/docs_eval_zh/check.py)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default = HERE.parent / ".data" / "corpus-admin-zh"
    parser.add_argument("--corpus", type=Path, default=default, help="the corpus folder")
    args = parser.parse_args()
    splits = [str(HERE / "dev.jsonl"), str(HERE / "test.jsonl")]
    return int(check.main([*splits, "--corpus", str(args.corpus), "--completeness"]))


if __name__ == "__main__":
    sys.exit(main())
