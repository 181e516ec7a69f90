"""Split questions.jsonl into dev.jsonl and test.jsonl by a fixed rule.

    python benchmarks/docs_eval_zh/split.py            # rewrites dev.jsonl, test.jsonl
    python benchmarks/docs_eval_zh/split.py --table    # also prints the counts (README)

Stratified by (kind, manual), the first two tags of each question: within a stratum the
questions are ordered by the SHA-256 of their id and dealt alternately to dev and test.
A stratum of odd size gives its extra question to dev or test in turn (strata taken in
sorted order), so the halves stay even. Adding a question moves only questions of its
own stratum. Each line gets its split as a last tag.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SPLITS = ("dev", "test")


def stratum(question: dict[str, Any]) -> tuple[str, str]:
    kind, manual = question["tags"][:2]
    return kind, manual


def assign(questions: list[dict[str, Any]]) -> dict[str, str]:
    strata: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for question in questions:
        strata[stratum(question)].append(question)
    split_of: dict[str, str] = {}
    turn = 0
    for key in sorted(strata):
        ordered = sorted(strata[key], key=lambda q: hashlib.sha256(q["id"].encode()).hexdigest())
        for index, question in enumerate(ordered):
            split_of[question["id"]] = SPLITS[(index + turn) % 2]
        turn += len(ordered) % 2
    return split_of


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", type=Path, default=HERE / "questions.jsonl")
    parser.add_argument("--out", type=Path, default=HERE)
    parser.add_argument("--table", action="store_true", help="print counts per stratum")
    args = parser.parse_args()
    questions = [json.loads(line) for line in args.source.read_text().splitlines() if line.strip()]
    split_of = assign(questions)
    lines: dict[str, list[str]] = {split: [] for split in SPLITS}
    for question in questions:
        split = split_of[question["id"]]
        tags = [tag for tag in question["tags"] if tag not in SPLITS] + [split]
        lines[split].append(json.dumps({**question, "tags": tags}, ensure_ascii=False))
    for split in SPLITS:
        (args.out / f"{split}.jsonl").write_text("\n".join(lines[split]) + "\n")
    counts = Counter((*stratum(q), split_of[q["id"]]) for q in questions)
    print(f"dev {len(lines['dev'])}, test {len(lines['test'])}")
    if args.table:
        manuals = sorted({m for _, m, _ in counts})
        kinds = sorted({k for k, _, _ in counts})
        print("| kind | " + " | ".join(manuals) + " | total |")
        print("|---|" + "---|" * (len(manuals) + 1))
        for kind in kinds:
            cells = []
            for manual in manuals:
                dev, test = counts[(kind, manual, "dev")], counts[(kind, manual, "test")]
                cells.append(f"{dev}/{test}" if dev or test else "–")
            total = sum(counts[(kind, m, s)] for m in manuals for s in SPLITS)
            print(f"| {kind} | " + " | ".join(cells) + f" | {total} |")


if __name__ == "__main__":
    main()
