"""Validate the servers evaluation set with the checks of benchmarks/docs_eval/check.py.

    python benchmarks/servers_eval/check.py --corpus benchmarks/.data/corpus-servers
    python benchmarks/servers_eval/check.py --write-splits  # rewrite dev/test from questions.jsonl
    python benchmarks/servers_eval/check.py --scan          # also list pages outside the gold
                                                            # that match every fact

The same checks and the same split rule as the first set (see benchmarks/docs_eval/check.py),
with this set's packages. The corpus is fetched by
`python benchmarks/docs_eval.py --set servers` into `<data>/corpus-servers`.

Exit 0 when every check passes, 1 otherwise (each failure is printed).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "docs_eval"))
import check  # noqa: E402  (benchmarks/docs_eval/check.py)

# the package tags: exim4-doc-html, haproxy-doc, zsh-doc, python-werkzeug-doc,
# python-aiohttp-doc
PACKAGES = ("exim", "haproxy", "zsh", "werkzeug", "aiohttp")

if __name__ == "__main__":
    sys.exit(check.set_main(HERE, PACKAGES, "corpus-servers", "servers"))
