"""Property tests: no question, knob value, dataset file or JSONL corpus file makes a
traceback; each is used, or refused with the project's own one-line error. Examples
are few and derandomized, so CI stays fast and a failure repeats."""

from __future__ import annotations

import json
import re
from dataclasses import fields
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from grounded_research.api import research
from grounded_research.configuration import Context
from grounded_research.errors import ConfigurationError, InputError
from grounded_research.evaluation.dataset import DatasetError, load_dataset
from grounded_research.retrieval.documents import read_documents
from tests.conftest import write
from tests.reliability import observed

FEW = settings(
    max_examples=40,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
# What a reader's catch-all makes of an exception it did not expect ("TypeError: ...").
CAUGHT_BUG = re.compile(r"^[A-Z]\w*(Error|Exception): ")
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=8,
)
knob_values = (
    st.none()
    | st.booleans()
    | st.integers(-(10**12), 10**12)
    | st.floats()
    | st.text(max_size=30)
    | st.lists(st.text(max_size=10) | st.integers(), max_size=3)
)


@FEW
@given(question=st.text(max_size=200))
def test_any_question_gives_a_report_or_one_line(question: str, tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    if not root.exists():
        write(root, "a.md", "# Aurora\n\nThe Aurora A1 cell reaches 450 Wh/kg.\n")
    try:
        result = research(
            question,
            corpus=str(root),
            cache_dir=str(tmp_path / "cache"),
            checkpointer="none",
            selection_strategy="keyword",
            embeddings="none",
            max_rounds=0,
        )
    except InputError as error:
        assert str(error) == "the question is empty" and not question.strip()
        return
    assert result.status in ("ok", "no_sources") and result.report.startswith("# ")


def test_questions_outcome() -> None:
    observed(
        "input.question",
        "a report (status ok or no_sources); a blank question: exit 64 'the question is empty'",
    )


@FEW
@given(name=st.sampled_from([f.name for f in fields(Context)]), value=knob_values)
def test_any_knob_value_is_taken_or_refused_in_one_line(name: str, value: Any) -> None:
    try:
        Context.from_mapping({name: value})
    except ConfigurationError as error:
        assert "\n" not in str(error) and str(error).startswith(name)


def test_unknown_knobs_are_refused_in_one_line() -> None:
    try:
        Context.from_mapping({"max_round": 3})
    except ConfigurationError as error:
        message = str(error)
    observed(
        "input.configuration",
        f"taken, or exit 64 with one line naming the knob; an unknown name: {message!r}",
    )


@st.composite
def dataset_lines(draw: st.DrawFn) -> bytes:
    good = {"id": draw(st.text(max_size=5)), "question": draw(st.text(max_size=20))}
    record = draw(st.dictionaries(st.sampled_from(sorted(OUR_KEYS)), json_values, max_size=4))
    lines = [
        json.dumps(good | record, ensure_ascii=draw(st.booleans())),
        draw(st.text(max_size=20)),
        json.dumps(draw(json_values)),
    ]
    data = "\n".join(draw(st.permutations(lines))[: draw(st.integers(1, 3))]).encode()
    return data if draw(st.booleans()) else data + draw(st.binary(max_size=8))


OUR_KEYS = {"id", "question", "answers", "facts", "gold_sources", "unanswerable", "tags"}


DEEP = b"[" * 100_000 + b"]" * 100_000


@FEW
@given(data=dataset_lines())
@example(data=b'{"id": "a", "question": "q", "tags": 5}')  # a TypeError once
@example(data='{"id": "a", "question": "q \u2028 r"}'.encode())  # "bad JSON" once
@example(data=b'{"id": "a", "question": "q", "x": ' + DEEP + b"}")  # a RecursionError once
def test_any_dataset_file_is_read_or_refused_in_one_line(data: bytes, tmp_path: Path) -> None:
    path = tmp_path / "questions.jsonl"
    path.write_bytes(data)
    try:
        questions = load_dataset(path)
    except DatasetError as error:
        assert "\n" not in str(error)
        return
    for question in questions:
        assert question.question.strip()
        assert all(isinstance(tag, str) for tag in question.tags)


def test_dataset_outcome() -> None:
    observed(
        "input.dataset",
        "its questions, or exit 64 with one line naming the file and line (bad JSON, "
        "nested too deeply, a field of the wrong type, tags not strings, an empty question, "
        "a duplicate id, undecodable bytes)",
    )


@st.composite
def jsonl_files(draw: st.DrawFn) -> bytes:
    lines = []
    for _ in range(draw(st.integers(1, 4))):
        record = draw(
            st.dictionaries(st.sampled_from(["id", "text", "title", "date"]), json_values)
            | json_values
        )
        lines.append(json.dumps(record, ensure_ascii=draw(st.booleans())).encode())
        if draw(st.booleans()):
            lines.append(draw(st.binary(max_size=12)))
    return b"\n".join(lines)


@FEW
@given(data=jsonl_files())
@example(data=b'{"id": "a", "text": "kept"}\n' + DEEP)  # the whole file failed once
def test_any_jsonl_file_gives_documents_and_failed_lines(data: bytes, tmp_path: Path) -> None:
    path = tmp_path / "corpus.jsonl"
    path.write_bytes(data)
    result = read_documents(path, "corpus.jsonl")
    if data.startswith(b'{"id": "a", "text": "kept"}'):
        assert [d.text for d in result.documents] == ["kept"]
    for problem in result.problems:
        assert "\n" not in problem.reason and not CAUGHT_BUG.match(problem.reason), problem.reason
    for document in result.documents:
        assert data.split(b"\n")[document.line - 1].startswith(b"{")
        assert isinstance(document.text, str) and document.text.strip()
        assert isinstance(document.location, str) and document.location.strip()


def test_jsonl_outcome() -> None:
    observed(
        "input.jsonl",
        "a document per good line; every other line a failed source 'corpus.jsonl:N' with "
        "why (invalid JSON or nested too deeply, not an object, a field not a string, no text "
        "or id, a duplicate id); a file of binary content one failed source",
    )
