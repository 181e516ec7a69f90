"""Validate the documentation evaluation set against the text the system indexes.

    python benchmarks/docs_eval/check.py                  # the full set + the CI slice
    python benchmarks/docs_eval/check.py --write-splits   # rewrite dev/test from questions.jsonl
    python benchmarks/docs_eval/check.py --scan           # also list pages outside the gold
                                                          # that match every fact (slow: reads
                                                          # the whole corpus)

A question set is a `questions.jsonl` in the format of `grounded-research eval`, with its
corpus folder. Checked, for every question:

- the line loads with `grounded_research.evaluation.dataset.load_dataset`; ids are unique;
- `tags` hold exactly one kind, one package and, for a set with splits, one of dev/test;
- an unanswerable question has no answers, facts or gold sources (the pages that come
  closest, for a reader, are in `closest_sources`, a key eval keeps but ignores, so that
  they do not count in gold-source recall); an answerable one has at least one answer,
  one fact and one gold page;
- every gold and closest path exists under the corpus;
- on the text `grounded_research.retrieval.documents` extracts from the gold pages:
  every answer occurs in at least one gold page (as `grounded-research eval` matches it:
  whole word, case and whitespace ignored), every fact pattern matches at least one gold
  page (case-insensitive, normalised text), and every gold page of an answerable
  question holds at least one answer or fact in its title or text (a quote comes from
  the text, so answers and facts must be found there; a page whose title alone names
  the release, as SQLite's release logs, still counts as holding it);
- dev.jsonl and test.jsonl are exactly the split the fixed rule gives (see `split_of`),
  are disjoint, and together are questions.jsonl.

Exit 0 when every check passes, 1 otherwise (each failure is printed).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, NamedTuple

from grounded_research.evaluation.dataset import EvalQuestion, load_dataset
from grounded_research.evaluation.metrics import answer_pattern
from grounded_research.report.citations import as_shown
from grounded_research.retrieval.documents import read_documents
from grounded_research.text.normalize import normalize

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
KINDS = ("date", "version", "which", "default", "compare", "yesno", "how", "unanswerable")
PACKAGES = ("python", "postgresql", "django", "sqlite", "git")
SPLITS = ("dev", "test")
FULL_SET = HERE / "questions.jsonl"
FULL_CORPUS = ROOT / "benchmarks" / ".data" / "corpus"
SLICE_SET = ROOT / "tests" / "data" / "eval" / "docs.jsonl"
SLICE_CORPUS = ROOT / "tests" / "data" / "docs" / "corpus"
HTML_SUFFIXES = (".html", ".htm")


class Page(NamedTuple):
    """A page as the system reads it, normalised: `body` is the text a quote comes from,
    `whole` is the title followed by the body; `shown` and `whole_shown` the same as a
    quote of them reads in the report (`as_shown`: Markdown's escapes and marks undone),
    which is where `grounded-research eval` looks for answers, and for facts besides the
    text as stored."""

    body: str
    whole: str
    shown: str
    whole_shown: str


# -- the split rule -----------------------------------------------------------------


def kind_of(question: EvalQuestion) -> str:
    kinds = [tag for tag in question.tags if tag in KINDS]
    return kinds[0] if len(kinds) == 1 else ""


def package_of(question: EvalQuestion, packages: tuple[str, ...] = PACKAGES) -> str:
    found = [tag for tag in question.tags if tag in packages]
    return found[0] if len(found) == 1 else ""


def _hash(question: EvalQuestion) -> str:
    return hashlib.sha256(question.id.encode()).hexdigest()


def split_of(questions: list[EvalQuestion], packages: tuple[str, ...] = PACKAGES) -> dict[str, str]:
    """The fixed rule: each kind x package stratum, ordered by the sha256 of the ids, is
    dealt alternately to dev and test, dev first. The strata are taken in the order of
    KINDS, then PACKAGES; the extra question of an odd-sized stratum goes to the half
    that so far has fewer extras of that kind plus that package (on a tie: fewer extras
    in all, then dev), so every kind and every package is halved give or take one or
    two. Nothing but the ids and the kind and package tags decides. `packages` names the
    packages of the set (another set, benchmarks/manuals_eval/, has its own)."""
    strata: dict[tuple[str, str], list[EvalQuestion]] = defaultdict(list)
    for q in questions:
        strata[(kind_of(q), package_of(q, packages))].append(q)
    rank = {name: index for index, name in enumerate((*KINDS, *packages))}
    extras = {name: Counter[str]() for name in SPLITS}
    split: dict[str, str] = {}
    for kind, package in sorted(strata, key=lambda k: (rank.get(k[0], 99), rank.get(k[1], 99))):
        members = sorted(strata[(kind, package)], key=_hash)
        paired = len(members) - len(members) % 2
        for index, q in enumerate(members[:paired]):
            split[q.id] = SPLITS[index % 2]
        if paired < len(members):
            load = {
                name: (
                    extras[name][kind] + extras[name][package],
                    sum(extras[name].values()),
                    name != "dev",
                )
                for name in SPLITS
            }
            side = min(SPLITS, key=load.__getitem__)
            split[members[-1].id] = side
            extras[side][kind] += 1
            extras[side][package] += 1
    return split


def with_split(record: dict[str, Any], split: str) -> dict[str, Any]:
    tags = [tag for tag in record.get("tags", []) if tag not in SPLITS]
    return {**record, "tags": [*tags, split]}


def write_splits(path: Path, packages: tuple[str, ...] = PACKAGES) -> None:
    """Tag every line of `path` with its split and write dev.jsonl and test.jsonl beside it."""
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    split = split_of(load_dataset(path), packages)
    records = [with_split(r, split[r["id"]]) for r in records]
    lines: dict[str, list[str]] = {name: [] for name in ("all", *SPLITS)}
    for record in records:
        line = json.dumps(record, ensure_ascii=False)
        lines["all"].append(line)
        lines[split[record["id"]]].append(line)
    path.write_text("\n".join(lines["all"]) + "\n")
    for name in SPLITS:
        (path.parent / f"{name}.jsonl").write_text("\n".join(lines[name]) + "\n")
        print(f"{path.parent / (name + '.jsonl')}: {len(lines[name])} questions")


# -- extraction ---------------------------------------------------------------------


def _extract(job: tuple[str, str]) -> tuple[str, Page | None, str]:
    path, location = job
    result = read_documents(Path(path), location)
    if not result.documents:
        reason = result.problems[0].reason if result.problems else "no document"
        return location, None, reason
    text = "\n\n".join(d.text for d in result.documents)
    body, shown = normalize(text), normalize(as_shown(text))
    title = normalize(" ".join(d.title for d in result.documents))
    page = Page(body, f"{title}\n\n{body}", shown, f"{title}\n\n{shown}")
    return location, page, ""


def extract(corpus: Path, locations: Iterable[str]) -> dict[str, Page | None]:
    """Normalised extracted text of each location (None: unreadable), read in parallel."""
    jobs = [(str(corpus / location), location) for location in sorted(set(locations))]
    texts: dict[str, Page | None] = {}
    workers = min(2, os.cpu_count() or 1)
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for location, page, reason in pool.map(_extract, jobs, chunksize=4):
            texts[location] = page
            if page is None:
                print(f"  unreadable: {location}: {reason}")
    return texts


# -- the checks ---------------------------------------------------------------------


class Failures:
    def __init__(self) -> None:
        self.messages: list[str] = []

    def add(self, where: str, message: str) -> None:
        self.messages.append(f"{where}: {message}")


def check_set(
    path: Path,
    corpus: Path,
    splits: bool,
    failures: Failures,
    packages: tuple[str, ...] = PACKAGES,
) -> list[EvalQuestion]:
    where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    try:
        questions = load_dataset(path)
    except Exception as error:  # the loader's own message names the line
        failures.add(str(where), str(error))
        return []
    gold_paths: set[str] = set()
    for q in questions:
        at = f"{where}: {q.id}"
        if not kind_of(q):
            failures.add(at, f"tags need exactly one kind of {KINDS}: {q.tags}")
        if not package_of(q, packages):
            failures.add(at, f"tags need exactly one package of {packages}: {q.tags}")
        if splits and sum(tag in SPLITS for tag in q.tags) != 1:
            failures.add(at, f"tags need exactly one of {SPLITS}: {q.tags}")
        if q.unanswerable != (kind_of(q) == "unanswerable"):
            failures.add(at, "`unanswerable` and the kind tag disagree")
        if q.unanswerable and (q.answers or q.facts):
            failures.add(at, "an unanswerable question has answers or facts")
        if not q.unanswerable and not (q.answers and q.facts and q.gold_sources):
            failures.add(at, "an answerable question needs answers, facts and gold sources")
        if q.unanswerable and q.gold_sources:
            failures.add(at, "an unanswerable question lists gold sources (use closest_sources)")
        for gold in q.gold_sources:
            if not (corpus / gold).is_file():
                failures.add(at, f"gold page not found under {corpus}: {gold}")
            else:
                gold_paths.add(gold)
        closest = q.extra.get("closest_sources", [])
        if closest and not q.unanswerable:
            failures.add(at, "closest_sources is for unanswerable questions")
        for page in closest:
            if not (corpus / page).is_file():
                failures.add(at, f"closest page not found under {corpus}: {page}")
    texts = extract(corpus, gold_paths)
    for q in questions:
        at = f"{where}: {q.id}"
        golds = {g: page for g in q.gold_sources if (page := texts.get(g)) is not None}
        if q.unanswerable or not golds:
            continue
        answers = {a: answer_pattern(a) for a in q.answers}
        facts = {f.id: re.compile(f.pattern, re.IGNORECASE) for f in q.facts}
        for answer, pattern in answers.items():
            if not any(pattern.search(page.shown) for page in golds.values()):
                failures.add(at, f"answer {answer!r} is in the text of no gold page")
        for fact_id, pattern in facts.items():
            if not any(
                pattern.search(t) for page in golds.values() for t in (page.body, page.shown)
            ):
                failures.add(at, f"fact {fact_id} ({pattern.pattern!r}) matches no gold text")
        for gold, page in golds.items():
            wholes = (page.whole, page.whole_shown)
            held = [p.search(t) for p in (*answers.values(), *facts.values()) for t in wholes]
            if not any(held):
                failures.add(at, f"gold page holds no answer or fact: {gold}")
    if splits:
        check_splits(path, questions, failures, packages)
    return questions


def check_splits(
    path: Path,
    questions: list[EvalQuestion],
    failures: Failures,
    packages: tuple[str, ...] = PACKAGES,
) -> None:
    rule = split_of(questions, packages)
    by_id = {q.id: q for q in questions}
    for q in questions:
        if rule[q.id] not in q.tags:
            failures.add(f"{path.name}: {q.id}", f"tagged {q.tags}, the rule says {rule[q.id]}")
    seen: dict[str, str] = {}
    for name in SPLITS:
        split_path = path.parent / f"{name}.jsonl"
        try:
            part = load_dataset(split_path)
        except Exception as error:
            failures.add(split_path.name, str(error))
            continue
        for q in part:
            if q.id in seen:
                failures.add(split_path.name, f"{q.id} is also in {seen[q.id]}.jsonl")
            seen[q.id] = name
            if rule.get(q.id) != name:
                failures.add(split_path.name, f"{q.id} belongs to {rule.get(q.id)}")
            elif q.model_dump() != by_id[q.id].model_dump():
                failures.add(split_path.name, f"{q.id} differs from its line in {path.name}")
    missing = set(by_id) - set(seen)
    if missing:
        failures.add(path.name, f"in no split file: {sorted(missing)}")
    texts = Counter(normalize(q.question) for q in questions)
    for text, count in texts.items():
        if count > 1:
            failures.add(path.name, f"the same question {count} times: {text!r}")


def scan(corpus: Path, questions: list[EvalQuestion]) -> None:
    """Pages outside the gold that match every fact of a question: to review by hand
    (a page that holds the answer belongs in the gold)."""
    files = [
        p.relative_to(corpus).as_posix()
        for p in corpus.rglob("*")
        if p.suffix.lower() in HTML_SUFFIXES and p.is_file()
    ]
    print(f"scan: extracting {len(files)} files of {corpus}")
    texts = extract(corpus, files)
    found = 0
    for q in questions:
        facts = [re.compile(f.pattern, re.IGNORECASE) for f in q.facts]
        if not facts:
            continue
        others = [
            location
            for location, text in texts.items()
            if text is not None
            and location not in q.gold_sources
            and all(p.search(text.whole) for p in facts)
        ]
        for location in others:
            found += 1
            print(f"  review {q.id}: every fact also matches {location}")
    print(f"scan: {found} page(s) to review")


def summary(questions: list[EvalQuestion], packages: tuple[str, ...] = PACKAGES) -> str:
    table: dict[str, Counter[str]] = defaultdict(Counter)
    for q in questions:
        split = next((tag for tag in q.tags if tag in SPLITS), "-")
        table[kind_of(q)][package_of(q, packages)] += 1
        table[kind_of(q)][split] += 1
    columns = (*packages, *SPLITS)
    width = len(packages)
    rows = [f"{'kind':<13}" + "".join(f"{c:>11}" for c in (*columns, "total"))]
    for kind in KINDS:
        counts = table.get(kind, Counter())
        cells = [counts[c] for c in columns]
        rows.append(
            f"{kind:<13}" + "".join(f"{n:>11}" for n in cells) + f"{sum(cells[:width]):>11}"
        )
    totals = [sum(table[k][c] for k in table) for c in columns]
    rows.append(
        f"{'total':<13}" + "".join(f"{n:>11}" for n in totals) + f"{sum(totals[:width]):>11}"
    )
    return "\n".join(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", type=Path, help="one question set (default: both)")
    parser.add_argument("--corpus", type=Path, help="its corpus folder")
    parser.add_argument("--write-splits", action="store_true", help="rewrite dev/test first")
    parser.add_argument("--scan", action="store_true", help="review pages outside the gold")
    args = parser.parse_args()
    if args.write_splits:
        write_splits(FULL_SET)
    if args.set:
        sets = [(args.set.resolve(), (args.corpus or FULL_CORPUS).resolve())]
    else:
        sets = [(FULL_SET, FULL_CORPUS), (SLICE_SET, SLICE_CORPUS)]
    return check_sets(sets, FULL_SET, args.scan, "benchmarks/docs_eval.py fetches it")


def set_main(folder: Path, packages: tuple[str, ...], corpus: str, name: str) -> int:
    """The command line of another set checked by these rules (benchmarks/manuals_eval/,
    benchmarks/admin_eval/): its questions.jsonl in `folder`, its package tags, its corpus
    folder under benchmarks/.data/ (or `--corpus`) and its name for docs_eval.py --set."""
    parser = argparse.ArgumentParser(description=f"Check the {name} set with these rules.")
    default = ROOT / "benchmarks" / ".data" / corpus
    parser.add_argument("--corpus", type=Path, default=default, help="the corpus folder")
    parser.add_argument("--write-splits", action="store_true", help="rewrite dev/test first")
    parser.add_argument("--scan", action="store_true", help="review pages outside the gold")
    args = parser.parse_args()
    full_set = folder / "questions.jsonl"
    if args.write_splits:
        write_splits(full_set, packages)
    fetch = f"python benchmarks/docs_eval.py --set {name} fetches it"
    return check_sets([(full_set, args.corpus.resolve())], full_set, args.scan, fetch, packages)


def check_sets(
    sets: list[tuple[Path, Path]],
    full_set: Path,
    with_scan: bool,
    fetch: str,
    packages: tuple[str, ...] = PACKAGES,
) -> int:
    """Check each (question set, corpus), print each failure and their count; the exit
    status. The dev/test split is checked on `full_set`; `fetch` says how to get a
    missing corpus."""
    failures = Failures()
    for path, corpus in sets:
        if not corpus.is_dir():
            failures.add(str(path), f"corpus not found: {corpus} ({fetch})")
            continue
        print(f"checking {path} against {corpus}")
        questions = check_set(path, corpus, path == full_set, failures, packages)
        print(summary(questions, packages))
        if with_scan:
            scan(corpus, questions)
    for message in failures.messages:
        print(f"FAIL {message}")
    print(f"{len(failures.messages)} failure(s)")
    return 1 if failures.messages else 0


if __name__ == "__main__":
    sys.exit(main())
