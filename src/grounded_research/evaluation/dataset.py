"""The evaluation set: one question a line, with what a good run must find.

Our format is `{"id", "question", "answers", "facts", "gold_sources", "unanswerable"}`;
a HotpotQA line (`{"id", "question", "answers", "gold_ids"}`, as in
`shared/eval/hotpotqa/questions.jsonl`) is read as the same record, recognised by its
keys. Any other key (e.g. "tags") is kept, so results can be grouped by it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError, field_validator

from grounded_research.errors import InputError

OUR_KEYS = frozenset({"id", "question", "answers", "facts", "gold_sources", "unanswerable"})
HOTPOTQA_KEYS = frozenset({"id", "question", "answers", "gold_ids"})


class DatasetError(InputError):
    """The dataset file is missing or a line of it is unusable."""


class Fact(BaseModel):
    id: str
    pattern: str = Field(description="Regex, matched case-insensitively on normalized text.")

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, pattern: str) -> str:
        try:
            re.compile(pattern)
        except re.error as error:
            raise ValueError(f"fact pattern {pattern!r} is not a valid regex: {error}") from None
        return pattern


class EvalQuestion(BaseModel):
    id: str
    question: str
    answers: list[str] = Field(default_factory=list)
    facts: list[Fact] = Field(default_factory=list)
    gold_sources: list[str] = Field(
        default_factory=list, description="Source locations: path under the corpus or JSONL id."
    )
    unanswerable: bool = False
    extra: dict[str, Any] = Field(default_factory=dict, description="Keys we do not interpret.")

    @property
    def tags(self) -> list[str]:
        """`tags` as a list whether the line gave a list or one string."""
        raw = self.extra.get("tags", [])
        return [raw] if isinstance(raw, str) else [str(tag) for tag in raw]


def load_dataset(path: Path, limit: int | None = None) -> list[EvalQuestion]:
    """The first `limit` questions of a JSONL file; a bad line stops with its number."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DatasetError(f"dataset not found: {path}") from None
    except (OSError, UnicodeDecodeError) as error:
        raise DatasetError(f"cannot read dataset {path}: {error}") from None
    questions: list[EvalQuestion] = []
    seen: set[str] = set()
    for number, line in enumerate(text.split("\n"), start=1):  # a U+2028 in a string is text
        if limit is not None and len(questions) >= limit:
            break
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise DatasetError(f"{where}: bad JSON: {error.msg}") from None
        except RecursionError:
            raise DatasetError(f"{where}: bad JSON: nested too deeply") from None
        question = parse_question(record, where)
        if question.id in seen:
            raise DatasetError(f"{where}: duplicate question id {question.id!r}")
        seen.add(question.id)
        questions.append(question)
    if not questions:
        raise DatasetError(f"dataset has no questions: {path}")
    return questions


def parse_question(record: object, where: str) -> EvalQuestion:
    """One line, in our format or HotpotQA's."""
    if not isinstance(record, dict):
        raise DatasetError(f"{where}: a question must be a JSON object")
    if "gold_ids" in record and "gold_sources" not in record:
        known = HOTPOTQA_KEYS
        fields = {k: record[k] for k in ("id", "question", "answers") if k in record}
        fields["gold_sources"] = record["gold_ids"]
    else:
        known = OUR_KEYS
        fields = {k: v for k, v in record.items() if k in OUR_KEYS}
    fields["extra"] = {k: v for k, v in record.items() if k not in known}
    try:
        question = EvalQuestion.model_validate(fields)
    except ValidationError as error:
        first = error.errors()[0]
        place = ".".join(str(part) for part in first["loc"]) or "line"
        raise DatasetError(f"{where}: {place}: {first['msg']}") from None
    if not question.question.strip():
        raise DatasetError(f"{where}: the question is empty")
    tags = question.extra.get("tags", [])
    if not isinstance(tags, str) and not (
        isinstance(tags, list) and all(isinstance(tag, str) for tag in tags)
    ):
        raise DatasetError(f"{where}: tags: must be a string or a list of strings")
    return question
