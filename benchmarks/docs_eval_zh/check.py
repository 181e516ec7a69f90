"""Check an evaluation set against the corpus it was written for.

    python benchmarks/docs_eval_zh/check.py DATASET [DATASET ...] --corpus ROOT
    python benchmarks/docs_eval_zh/check.py dev.jsonl test.jsonl --corpus ROOT --completeness

Generic: any dataset in the format of `grounded-research eval` over any local corpus
(a folder, gold sources are paths under it or ids of documents in its .jsonl files; or
one .jsonl file, gold sources are document ids). The text checked is the text the
system indexes, i.e. what `grounded_research.retrieval.documents.read_documents`
extracts from each file, and answers and facts are matched exactly as the evaluation
scores them (`answer_pattern` / fact regex on `normalize`d text).

Warnings: a gold page that holds none of the question's answers and matches none of its
facts (a mistake in a docs set; on purpose for a stale source kept as gold).

Errors (exit status 1):
- a line the evaluation's own loader refuses; an id used twice across the files;
- a gold source that does not exist or yields no text;
- an answerable question without answers or gold sources; an answer that occurs in
  none of its gold pages; a fact pattern that matches none of them;
- an unanswerable question with answers or facts; a gold or `closest_sources` path of
  one that does not exist or yields no text;
- files that share a question (same id or same question text): the splits must be
  disjoint; a file whose questions carry both split tags ("dev" and "test").

`--completeness` also extracts every file of the corpus and lists, as warnings, pages
outside a question's gold list that hold one of its answers and match all its facts
(candidates for a missing gold page; slow on a large corpus).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from grounded_research.evaluation.dataset import DatasetError, EvalQuestion, load_dataset
from grounded_research.evaluation.metrics import answer_pattern
from grounded_research.retrieval.documents import SUPPORTED_SUFFIXES, read_documents
from grounded_research.text.normalize import normalize

SPLIT_TAGS = ("dev", "test")


class Corpus:
    """Extracted, normalized text per source location, read on demand."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._texts: dict[str, str | None] = {}
        self._jsonl: dict[str, str] | None = None

    def text(self, location: str) -> str | None:
        """The normalized text of one gold source, or None when it does not exist or
        yields no document."""
        location = location.strip().removeprefix("./")
        if self.root.is_file():  # one .jsonl corpus: gold sources are document ids
            if self._jsonl is None:
                result = read_documents(self.root, self.root.name)
                self._jsonl = {d.location: normalize(d.text) for d in result.documents}
            return self._jsonl.get(location)
        if location not in self._texts:
            path = self.root / location
            if path.is_file() and path.resolve().is_relative_to(self.root.resolve()):
                result = read_documents(path, location)
                texts = [d.text for d in result.documents]
                self._texts[location] = normalize("\n\n".join(texts)) if texts else None
            else:  # a document of a .jsonl file inside the folder is found by its id
                self._texts[location] = self._folder_jsonl().get(location)
        return self._texts[location]

    def _folder_jsonl(self) -> dict[str, str]:
        if self._jsonl is None:
            self._jsonl = {}
            for path in sorted(self.root.rglob("*.jsonl")):
                relative = path.relative_to(self.root).as_posix()
                if any(part.startswith(".") for part in Path(relative).parts):
                    continue
                for document in read_documents(path, relative).documents:
                    self._jsonl.setdefault(document.location, normalize(document.text))
        return self._jsonl

    def locations(self) -> Iterable[str]:
        if self.root.is_file():
            self.text("")
            assert self._jsonl is not None
            yield from self._jsonl
            return
        for path in sorted(self.root.rglob("*")):
            relative = path.relative_to(self.root)
            if any(part.startswith(".") for part in relative.parts):
                continue
            if path.is_file() and path.suffix.lower() in SUPPORTED_SUFFIXES:
                yield relative.as_posix()


def check_question(question: EvalQuestion, corpus: Corpus) -> tuple[list[str], list[str]]:
    """Errors and warnings of one question."""
    errors: list[str] = []
    warnings: list[str] = []
    answers = [a for a in question.answers if a.strip()]
    if question.unanswerable:
        if answers or question.facts:
            errors.append("unanswerable but has answers or facts")
        for location in question.gold_sources:  # closest material, if listed, must exist
            if corpus.text(location) is None:
                errors.append(f"gold source missing or without text: {location}")
        closest = question.extra.get("closest_sources", [])
        if not isinstance(closest, list) or not all(isinstance(c, str) for c in closest):
            return [*errors, "closest_sources must be a list of paths"], warnings
        for location in closest:  # the pages that come closest, for a reader
            if corpus.text(location) is None:
                errors.append(f"closest source missing or without text: {location}")
        return errors, warnings
    if not answers:
        errors.append("answerable question without answers")
    if not question.gold_sources:
        errors.append("answerable question without gold sources")
    patterns = {answer: answer_pattern(answer) for answer in answers}
    facts = {fact.id: re.compile(fact.pattern, re.IGNORECASE) for fact in question.facts}
    texts: dict[str, str] = {}
    for location in question.gold_sources:
        text = corpus.text(location)
        if text is None:
            errors.append(f"gold source missing or without text: {location}")
        else:
            texts[location] = text
    if not texts:
        return errors, warnings
    for answer, pattern in patterns.items():
        if not any(pattern.search(text) for text in texts.values()):
            errors.append(f"answer {answer!r} occurs in no gold page")
    for fact_id, pattern in facts.items():
        if not any(pattern.search(text) for text in texts.values()):
            errors.append(f"fact {fact_id} /{pattern.pattern}/ matches no gold page")
    for location, text in texts.items():
        holds_answer = any(p.search(text) for p in patterns.values())
        holds_fact = any(p.search(text) for p in facts.values())
        if not holds_answer and not holds_fact:  # e.g. a stale source kept as gold on purpose
            warnings.append(f"gold page holds no answer and no fact: {location}")
        elif not holds_answer:
            warnings.append(f"gold page matches a fact but holds no answer string: {location}")
    return errors, warnings


def missing_gold(question: EvalQuestion, corpus: Corpus, locations: list[str]) -> list[str]:
    """Pages outside the gold list with an answer and every fact of the question."""
    if question.unanswerable or not question.answers:
        return []
    patterns = [answer_pattern(a) for a in question.answers if a.strip()]
    facts = [re.compile(f.pattern, re.IGNORECASE) for f in question.facts]
    gold = {g.strip().removeprefix("./") for g in question.gold_sources}
    found = []
    for location in locations:
        if location in gold:
            continue
        text = corpus.text(location)
        if text is None:
            continue
        if any(p.search(text) for p in patterns) and all(p.search(text) for p in facts):
            found.append(location)
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("datasets", nargs="+", type=Path, help="JSONL files (e.g. the splits)")
    parser.add_argument("--corpus", required=True, type=Path, help="corpus folder or .jsonl")
    parser.add_argument(
        "--completeness", action="store_true", help="warn about likely missing gold pages"
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="print errors only")
    args = parser.parse_args(argv)

    corpus = Corpus(args.corpus.expanduser())
    if not corpus.root.exists():
        print(f"corpus not found: {corpus.root}", file=sys.stderr)
        return 2
    errors: list[str] = []
    warnings: list[str] = []
    seen_ids: dict[str, Path] = {}
    seen_texts: dict[str, Path] = {}
    all_questions: list[EvalQuestion] = []
    for path in args.datasets:
        try:
            questions = load_dataset(path)
        except DatasetError as problem:
            errors.append(str(problem))
            continue
        split_tags = {tag for q in questions for tag in q.tags if tag in SPLIT_TAGS}
        if len(split_tags) > 1:
            errors.append(f"{path}: mixes split tags {sorted(split_tags)}")
        for question in questions:
            where = f"{path.name}:{question.id}"
            if question.id in seen_ids and seen_ids[question.id] != path:
                errors.append(f"{where}: id also in {seen_ids[question.id].name}")
            seen_ids.setdefault(question.id, path)
            text_key = normalize(question.question)
            if text_key in seen_texts and seen_texts[text_key] != path:
                errors.append(f"{where}: same question also in {seen_texts[text_key].name}")
            seen_texts.setdefault(text_key, path)
            q_errors, q_warnings = check_question(question, corpus)
            errors += [f"{where}: {e}" for e in q_errors]
            warnings += [f"{where}: {w}" for w in q_warnings]
            all_questions.append(question)
    if args.completeness:
        locations = list(corpus.locations())
        for question in all_questions:
            for location in missing_gold(question, corpus, locations):
                warnings.append(
                    f"{question.id}: not gold but holds an answer and all facts: {location}"
                )

    if not args.quiet:
        answerable = sum(not q.unanswerable for q in all_questions)
        print(
            f"{len(all_questions)} questions in {len(args.datasets)} file(s): "
            f"{answerable} answerable, {len(all_questions) - answerable} unanswerable"
        )
        tags = Counter(tag for q in all_questions for tag in q.tags)
        print("tags: " + ", ".join(f"{tag}={n}" for tag, n in sorted(tags.items())))
        for warning in warnings:
            print(f"warning: {warning}")
    for error in errors:
        print(f"error: {error}")
    if not args.quiet or errors:
        print(f"{len(errors)} error(s), {len(warnings)} warning(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
