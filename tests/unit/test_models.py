"""The model boundary: choosing a model, and calling it robustly (LangChain fake models)."""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import (
    FakeMessagesListChatModel,
    GenericFakeChatModel,
)
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatResult
from langchain_openai import ChatOpenAI
from pydantic import Field

from grounded_research import models
from grounded_research.configuration import Context
from grounded_research.errors import ConfigurationError
from grounded_research.models import (
    ModelFailure,
    NodeModel,
    check_models,
    describe_models,
    load_json,
    node_model,
    parse_structured,
    response_schema,
    strip_think,
    use_chat_model,
)
from grounded_research.prompts import GapJudgement, Plan, Verdicts

USAGE = {"input_tokens": 30, "output_tokens": 7, "total_tokens": 37}


class Recording(FakeMessagesListChatModel):
    """Answers in turn, remembering what it was asked."""

    asked: list[list[BaseMessage]] = Field(default_factory=list)

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        self.asked.append(list(messages))
        return super()._generate(messages, *args, **kwargs)


class Failing(GenericFakeChatModel):
    """Raises the given errors first, then answers."""

    errors: list[BaseException] = Field(default_factory=list)

    def _generate(self, *args: Any, **kwargs: Any) -> ChatResult:
        if self.errors:
            raise self.errors.pop(0)
        return super()._generate(*args, **kwargs)


@pytest.fixture(autouse=True)
def no_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(models, "BACKOFF_SECONDS", 0.0)


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE"):
        monkeypatch.delenv(name, raising=False)


def fake(*replies: str | AIMessage) -> GenericFakeChatModel:
    return GenericFakeChatModel(messages=iter(replies))


def run_model(model: Any, context: Context | None = None) -> NodeModel:
    return NodeModel(model, "planner", context or Context())


# Reasoning, JSON and schemas -------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ('<think>plan it</think>{"a": 1}', '{"a": 1}'),
        ("<THINK>\nsteps\n</THINK>\n\nReport body", "Report body"),
        ("reasoning whose opening tag was in the template</think>answer", "answer"),
        ("<think>reasoning cut off before it closed", ""),
        ("answer <thinking>aside</thinking> goes on", "answer  goes on"),
        ("plain answer", "plain answer"),
    ],
)
def test_strip_think(text: str, answer: str) -> None:
    assert strip_think(text) == answer


@pytest.mark.parametrize(
    "text",
    [
        '{"status": "gap", "why": "x", "follow_up_queries": ["a"]}',
        'Sure! Here it is:\n```json\n{"status": "gap", "why": "x", "follow_up_queries": ["a"]}'
        "\n```",
        '<think>{"status": "covered"}?</think>'
        '{"status": "gap", "why": "x", "follow_up_queries": ["a"',
        '{"status": "gap", "why": "x", "follow_up_queries": ["a",],}',
        "{'status': 'gap', 'why': 'x', 'follow_up_queries': ['a']}",
    ],
)
def test_load_json_repairs_what_models_send(text: str) -> None:
    assert load_json(text) == {"status": "gap", "why": "x", "follow_up_queries": ["a"]}


def test_load_json_finds_none_in_prose() -> None:
    assert load_json("The evidence covers it.") is None
    assert load_json("") is None


def test_parse_structured_accepts_near_misses() -> None:
    bare_list = AIMessage(content='[{"question": "Q1?", "queries": "q one"}]')
    plan = parse_structured(bare_list, None, Plan)
    assert plan.sub_questions[0].queries == ["q one"]
    wrapped = AIMessage(content='{"GapJudgement": {"status": "Covered", "why": "ok"}}')
    assert parse_structured(wrapped, None, GapJudgement).status == "covered"
    tool = AIMessage(
        content="",
        tool_calls=[{"name": "Verdicts", "args": {"verdicts": []}, "id": "1", "type": "tool_call"}],
    )
    assert parse_structured(tool, None, Verdicts).verdicts == []


def test_parse_structured_says_what_was_wrong() -> None:
    with pytest.raises(ValueError, match="empty"):
        parse_structured(AIMessage(content=""), None, GapJudgement)
    with pytest.raises(ValueError, match="no JSON"):
        parse_structured(AIMessage(content="covered, I think"), None, GapJudgement)
    with pytest.raises(ValueError, match="did not match the schema"):
        parse_structured(AIMessage(content='{"verdicts": [{"verdict": 3}]}'), None, Verdicts)


def test_response_schema_is_strict_friendly() -> None:
    schema = response_schema(Plan)
    assert schema["title"] == "Plan" and schema["description"]
    item = schema["$defs"]["PlannedSubQuestion"]
    assert item["required"] == ["question", "queries", "facets"]
    assert item["additionalProperties"] is False
    assert "default" not in str(schema)


# Calling a model -------------------------------------------------------------------------


def test_think_wrapped_json_is_parsed_and_tokens_counted() -> None:
    llm = run_model(
        fake(AIMessage(content='<think>hm</think>{"status": "covered"}', usage_metadata=USAGE))
    )
    judgement = asyncio.run(llm.structured([], GapJudgement))
    assert judgement.status == "covered"
    assert (llm.spent.calls, llm.spent.tokens_in, llm.spent.tokens_out) == (1, 30, 7)


def test_unparseable_answer_is_asked_again_with_the_error() -> None:
    model = Recording(
        responses=[AIMessage(content="It is covered."), AIMessage(content='{"status": "gap"}')]
    )
    model.asked.clear()
    llm = run_model(model)
    assert asyncio.run(llm.structured([], GapJudgement)).status == "gap"
    assert len(model.asked) == 2 and llm.spent.retries == 1
    retry = model.asked[1]
    assert retry[-2].content == "It is covered."
    assert "could not be used" in str(retry[-1].content) and "no JSON" in str(retry[-1].content)


def test_persistent_garbage_ends_in_model_failure() -> None:
    llm = run_model(fake("nope", "still nope"))
    with pytest.raises(ModelFailure, match="GapJudgement"):
        asyncio.run(llm.structured([], GapJudgement))
    assert llm.spent.calls == models.PARSE_ATTEMPTS


def test_timeouts_and_rate_limits_are_retried_with_backoff() -> None:
    class RateLimitError(Exception):
        status_code = 429

    model = Failing(
        messages=iter(['{"status": "covered"}']), errors=[TimeoutError(), RateLimitError("slow")]
    )
    llm = run_model(model)
    assert asyncio.run(llm.structured([], GapJudgement)).status == "covered"
    assert llm.spent.calls == 3 and llm.spent.retries == 2


def test_retries_are_bounded() -> None:
    model = Failing(messages=iter([]), errors=[TimeoutError() for _ in range(10)])
    llm = run_model(model, Context(model_retries=1))
    with pytest.raises(ModelFailure, match="timed out"):
        asyncio.run(llm.text([]))
    assert llm.spent.calls == 2


def test_other_errors_are_not_retried() -> None:
    model = Failing(messages=iter(["fine"]), errors=[PermissionError("bad key")])
    llm = run_model(model)
    with pytest.raises(ModelFailure, match="bad key"):
        asyncio.run(llm.text([]))
    assert llm.spent.calls == 1


def test_empty_answer_never_crashes() -> None:
    llm = run_model(fake("", "<think>only thinking</think>"))
    with pytest.raises(ModelFailure, match="empty"):
        asyncio.run(llm.text([]))


def test_a_reply_cut_off_by_the_client_is_salvaged() -> None:
    class Cut(Exception):
        def __init__(self) -> None:
            message = type("M", (), {"content": '{"status": "gap", "why": "x", "follow_up'})
            usage = type("U", (), {"prompt_tokens": 11, "completion_tokens": 5})
            self.completion = type("C", (), {"choices": [type("Ch", (), {"message": message})]})
            self.completion.usage = usage  # type: ignore[attr-defined]

    llm = run_model(Failing(messages=iter([]), errors=[Cut()]))
    assert asyncio.run(llm.structured([], GapJudgement)).why == "x"
    assert llm.spent.tokens_in == 11


# Choosing a model ------------------------------------------------------------------------


def test_extractive_means_no_model() -> None:
    assert node_model(Context(), "planner", "planner") is None
    check_models(Context())
    assert describe_models(Context()).startswith("extractive")


@pytest.mark.usefixtures("clean_env")
def test_a_model_without_its_key_is_refused_in_one_line() -> None:
    with pytest.raises(ConfigurationError, match="needs OPENAI_API_KEY") as caught:
        check_models(Context(model="openai:gpt-4.1-mini"))
    assert "\n" not in str(caught.value)
    with pytest.raises(ConfigurationError, match="needs OPENAI_API_KEY"):
        check_models(Context(writer_model="openai:gpt-4.1"))
    with pytest.raises(ConfigurationError, match="unknown model provider"):
        check_models(Context(model="nosuch:model"))
    with pytest.raises(ConfigurationError, match="provider:name"):
        check_models(Context(model="gpt-4.1"))


@pytest.mark.usefixtures("clean_env")
def test_base_url_starts_an_openai_compatible_model(monkeypatch: pytest.MonkeyPatch) -> None:
    context = Context(model="openai:qwen3", base_url="http://127.0.0.1:8080/v1", model_timeout=7)
    llm = node_model(context, "writer", "write_report")
    assert llm is not None and isinstance(llm.model, ChatOpenAI)
    assert llm.model.openai_api_base == "http://127.0.0.1:8080/v1"
    assert llm.model.request_timeout == 7 and llm.model.max_retries == 0
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9999/v1")
    from_env = node_model(Context(model="openai:qwen3"), "planner", "planner")
    assert from_env is not None and isinstance(from_env.model, ChatOpenAI)
    assert from_env.model.openai_api_base == "http://127.0.0.1:9999/v1"
    assert models.base_url_for(context, "openai") == "http://127.0.0.1:8080/v1"  # caller wins


def test_each_step_may_have_its_own_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    context = Context(model="openai:big", verifier_model="openai:small")
    assert models.model_spec(context, "gaps") == "openai:big"
    assert models.model_spec(context, "verifier") == "openai:small"
    assert describe_models(context) == (
        "planner openai:big, gaps openai:big, writer openai:big, verifier openai:small"
    )


def test_use_chat_model_overrides_per_role_and_only_inside_the_block() -> None:
    writer = fake("text")
    with use_chat_model({"writer": writer}):
        chosen = node_model(Context(), "writer", "write_report")
        assert chosen is not None and chosen.model is writer
        assert node_model(Context(), "planner", "planner") is None
        check_models(Context(writer_model="nosuch:x"))  # the override is what runs
    assert node_model(Context(), "writer", "write_report") is None


def test_override_reaches_tasks_started_inside_the_block() -> None:
    model = fake(*itertools.repeat("x", 3))

    async def in_task() -> bool:
        chosen = node_model(Context(), "verifier", "verify_citations")
        return chosen is not None and chosen.model is model

    async def main() -> bool:
        with use_chat_model(model):
            return await asyncio.create_task(in_task())

    assert asyncio.run(main())
