#!/usr/bin/env python3
"""Check benchmarks/fresh_dev3/docs.jsonl against the corpus it was written over.

Answerable question: every answer string occurs (case-insensitive, whitespace
normalised) in the visible text of every gold page; every fact regex matches
(case-insensitive, whitespace collapsed) the text of at least one gold page, and every
gold page is matched by at least one fact.
Unanswerable question: the question's key words/phrases (PROBES below) occur in the
package's pages, while the strings that would answer it occur on none of them.

Prints one line per question; exits 1 on any failure.

    python benchmarks/fresh_dev3/check_fresh3.py [--corpus benchmarks/.data/corpus]
"""

import argparse
import html
import json
import os
import re
import sys
from pathlib import Path

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_CORPUS = os.path.join(HERE, "..", ".data", "corpus")
KEYS = ["id", "question", "answers", "facts", "gold_sources", "unanswerable", "tags"]
KINDS = {"date", "version", "which", "default", "yesno", "how", "unanswerable"}
PKG_DIR = {
    "python": "python3.11-doc",
    "postgresql": "postgresql-doc-15",
    "sqlite": "sqlite3-doc",
    "django": "python-django-doc",
    "git": "git-doc",
}

# Unanswerable questions: (words/phrases that must occur in the package's pages,
#                          strings that would answer it and must occur nowhere there)
PROBES = {
    "f3-django-unanswerable-django50-release-date": (
        ["Django 5.0", "released"],
        ["December 4, 2023", "2023-12-04", "Django 5.0 release notes", "Welcome to Django 5.0"],
    ),
    "f3-git-unanswerable-git220-release-date": (
        ["Git 2.20", "released"],
        [
            "2018-12-09",
            "December 9, 2018",
            "December 9th 2018",
            "December 2018",
            "2.20.0",
            "Git 2.20 (released",
            "Git version 2.20 (released",
        ],
    ),
}


def page_text(path):
    with open(path, encoding="utf-8", errors="replace") as page:
        t = page.read()
    t = re.sub(r"<script.*?</script>|<style.*?</style>", "", t, flags=re.S)
    t = html.unescape(re.sub(r"<[^>]+>", " ", t))
    return re.sub(r"\s+", " ", t).strip()


def norm(s):
    return re.sub(r"\s+", " ", s).strip().lower()


_pkg_cache = {}


def package_texts(corpus, pkg):
    if pkg not in _pkg_cache:
        texts = {}
        root = os.path.join(corpus, PKG_DIR[pkg])
        for dp, _, fns in os.walk(root):
            for fn in fns:
                if fn.endswith(".html"):
                    p = os.path.join(dp, fn)
                    texts[os.path.relpath(p, corpus)] = norm(page_text(p))
        _pkg_cache[pkg] = texts
    return _pkg_cache[pkg]


def check_question(q, corpus):
    errs = []
    if list(q.keys())[: len(KEYS)] != KEYS or set(q) - set(KEYS) - {"closest_sources"}:
        errs.append(f"keys {list(q.keys())}")
    tags = q.get("tags", [])
    if len(tags) != 3 or tags[0] not in KINDS or tags[1] not in PKG_DIR or tags[2] != "dev":
        errs.append(f"tags {tags}")
        return errs, ""
    kind, pkg = tags[0], tags[1]
    if not q["id"].startswith(f"f3-{pkg}-{kind}-"):
        errs.append("id does not match tags")
    if q["unanswerable"]:
        if kind != "unanswerable" or q["answers"] or q["facts"] or q["gold_sources"]:
            errs.append("unanswerable question with answers/facts/gold or wrong kind")
        for c in q.get("closest_sources", []):
            if not os.path.isfile(os.path.join(corpus, c)):
                errs.append(f"missing closest source {c}")
        if q["id"] not in PROBES:
            errs.append("no probe for unanswerable question")
            return errs, ""
        present, absent = PROBES[q["id"]]
        texts = package_texts(corpus, pkg)
        info = []
        for w in present:
            n = sum(1 for t in texts.values() if norm(w) in t)
            info.append(f"'{w}':{n}")
            if n == 0:
                errs.append(f"key words '{w}' occur on no page")
        for w in absent:
            hits = [p for p, t in texts.items() if norm(w) in t]
            if hits:
                errs.append(f"answer string '{w}' occurs on {hits[:3]}")
        return (
            errs,
            f"words present ({', '.join(info)}); "
            f"{len(absent)} answer strings absent from {len(texts)} pages",
        )
    if kind == "unanswerable":
        errs.append("kind unanswerable but unanswerable=false")
    if not q["answers"] or not q["facts"] or not q["gold_sources"]:
        errs.append("answerable question lacks answers/facts/gold")
        return errs, ""
    texts = {}
    for g in q["gold_sources"]:
        p = os.path.join(corpus, g)
        if not os.path.isfile(p):
            errs.append(f"missing gold page {g}")
            continue
        texts[g] = page_text(p)
    for ans in q["answers"]:
        for g, t in texts.items():
            if norm(ans) not in norm(t):
                errs.append(f"answer '{ans}' not on {g}")
    matched = {g: [] for g in texts}
    for f in q["facts"]:
        rx = re.compile(f["pattern"], re.I)
        hit = [g for g, t in texts.items() if rx.search(t)]
        if not hit:
            errs.append(f"fact {f['id']} matches no gold page")
        for g in hit:
            matched[g].append(f["id"])
    for g, fs in matched.items():
        if not fs:
            errs.append(f"no fact matches gold page {g}")
    return (
        errs,
        f"{len(q['answers'])} answer(s) on all {len(texts)} gold page(s); facts per page: "
        + ", ".join(f"{os.path.basename(g)}={'+'.join(fs)}" for g, fs in matched.items()),
    )


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default=DEFAULT_CORPUS)
    ap.add_argument("--file", default=os.path.join(HERE, "docs.jsonl"))
    args = ap.parse_args()
    corpus = os.path.abspath(args.corpus)
    failures = 0
    seen = set()
    n = 0
    for line in Path(args.file).read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        q = json.loads(line)
        n += 1
        errs, info = check_question(q, corpus)
        if q["id"] in seen:
            errs.append("duplicate id")
        seen.add(q["id"])
        if errs:
            failures += 1
            print(f"FAIL {q['id']}: " + "; ".join(errs))
        else:
            print(f"ok   {q['id']}: {info}")
    print(f"{n - failures} of {n} questions pass")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
