"""Validate the libs evaluation set with the checks of benchmarks/docs_eval/check.py.

    python benchmarks/libs_eval/check.py --corpus benchmarks/.data/corpus-libs
    python benchmarks/libs_eval/check.py --write-splits  # rewrite dev/test from questions.jsonl
    python benchmarks/libs_eval/check.py --scan          # also list pages outside the gold
                                                         # that match every fact

The same checks and the same split rule as the first set (see benchmarks/docs_eval/check.py:
every answer and fact pattern found in the text `grounded_research.retrieval.documents`
extracts from the gold pages, every gold page holding one, dev/test the fixed split of
questions.jsonl), with this set's packages. The corpus is fetched by
`python benchmarks/docs_eval.py --set libs` into `<data>/corpus-libs`.

Exit 0 when every check passes, 1 otherwise (each failure is printed).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "docs_eval"))
import check  # noqa: E402  (benchmarks/docs_eval/check.py)

# the package tags: python-flask-doc, python-jinja2-doc, python-click-doc,
# python-pytest-doc, python-requests-doc
PACKAGES = ("flask", "jinja", "click", "pytest", "requests")

if __name__ == "__main__":
    sys.exit(check.set_main(HERE, PACKAGES, "corpus-libs", "libs"))
