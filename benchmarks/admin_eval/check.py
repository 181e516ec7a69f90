"""Validate the administration evaluation set with the checks of benchmarks/docs_eval/check.py.

    python benchmarks/admin_eval/check.py --corpus benchmarks/.data/corpus-admin
    python benchmarks/admin_eval/check.py --write-splits  # rewrite dev/test from questions.jsonl
    python benchmarks/admin_eval/check.py --scan          # also list pages outside the gold
                                                          # that match every fact

The same checks and the same split rule as the first set (see benchmarks/docs_eval/check.py:
every answer and fact pattern found in the text `grounded_research.retrieval.documents`
extracts from the gold pages, every gold page holding one, dev/test the fixed split of
questions.jsonl), with this set's packages: the Debian Administrator's Handbook
(debian-handbook, English pages) and the Debian 12 installation guide for amd64
(installation-guide-amd64, English pages). The corpus is fetched by
`python benchmarks/docs_eval.py --set admin` into `<data>/corpus-admin`.

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
    "docs_eval_check", ROOT / "benchmarks/docs_eval/check.py"
)
assert _spec is not None and _spec.loader is not None
check = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = check  # its worker processes import it by this name
_spec.loader.exec_module(check)

PACKAGES = ("handbook", "install")  # the package tags: debian-handbook, installation-guide-amd64
FULL_SET = HERE / "questions.jsonl"
FULL_CORPUS = ROOT / "benchmarks" / ".data" / "corpus-admin"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=FULL_CORPUS, help="the corpus folder")
    parser.add_argument("--write-splits", action="store_true", help="rewrite dev/test first")
    parser.add_argument("--scan", action="store_true", help="review pages outside the gold")
    args = parser.parse_args()
    if args.write_splits:
        check.write_splits(FULL_SET, PACKAGES)
    fetch = "python benchmarks/docs_eval.py --set admin fetches it"
    sets = [(FULL_SET, args.corpus.resolve())]
    return int(check.check_sets(sets, FULL_SET, args.scan, fetch, PACKAGES))


if __name__ == "__main__":
    sys.exit(main())
