"""Fetch the Chinese documentation corpus of this set (once) and print its folder.

    python benchmarks/docs_eval_zh/corpus.py [--data benchmarks/.data]

`apt-get download` + `dpkg -x` of PACKAGES through benchmarks/debian_docs.py into
<data>/corpus-zh/<package>/...; only .html/.htm/.txt/.md files are kept (these packages
ship HTML only; their .txt.gz and PDF are left out). The data folder is git-ignored.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import debian_docs  # noqa: E402

PACKAGES = ("debian-reference-zh-cn", "debian-faq-zh-cn", "maint-guide-zh-cn")
SUFFIXES = (".html", ".htm", ".txt", ".md")
NAME = "corpus-zh"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=HERE.parent / ".data")
    args = parser.parse_args()
    corpus, info = debian_docs.ensure_corpus(args.data, PACKAGES, name=NAME, suffixes=SUFFIXES)
    print(json.dumps(info, indent=2), file=sys.stderr)
    print(corpus)


if __name__ == "__main__":
    main()
