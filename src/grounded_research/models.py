"""Chat models: which one each step uses, and calling it so that bad output never ends a run.

`model` names a model as `provider:name` (`openai:gpt-4.1-mini`), started through
LangChain's `init_chat_model`; `extractive` names none, and the steps then work without
one. `planner_model` (planning and gap checks), `writer_model` and `verifier_model`
override it per step. `base_url` points any of them at an OpenAI-compatible server.

A node asks `node_model(context, role, node)` for its model: `None` means extractive. The
`NodeModel` it gets back strips `<think>` blocks, repairs or re-asks for broken JSON,
retries timeouts and rate limits with backoff, counts calls and tokens, and raises
`ModelFailure` when nothing usable came back, so that the node falls back to its
extractive behaviour and records a warning.

`use_chat_model(...)` hands the graph a chat model object directly (tests, Python callers
that already hold one) without putting it in `Context`, which stays plain data. It is a
`ContextVar`, and not run state hidden in the process: each task of a graph run starts
from a copy of the context the run was started in, so every node and branch of that
run sees the caller's choice and runs started outside the block do not; and it holds
only the caller's model objects, nothing a run changes. Models named in `Context` hold
no run state either (what a node spends is counted by its own `NodeModel`), so each
node starts its own and the run keeps none (`resources.py`).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

import json_repair
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.runnables import Runnable
from langgraph.constants import TAG_NOSTREAM
from pydantic import BaseModel, ValidationError

from grounded_research.configuration import Context
from grounded_research.errors import ConfigurationError
from grounded_research.prompts import REPAIR, response_schema
from grounded_research.state import LLMUsage, Usage

Role = Literal["planner", "gaps", "writer", "verifier"]
ROLE_FIELD: dict[str, str] = {
    "planner": "planner_model",
    "gaps": "planner_model",
    "writer": "writer_model",
    "verifier": "verifier_model",
}
ROLES: tuple[Role, ...] = ("planner", "gaps", "writer", "verifier")
EXTRACTIVE = "extractive"

# Environment variables that hold each provider's key; a model named without one (and
# without a base URL of its own server) is refused before any work starts.
KEY_VARIABLES: dict[str, tuple[str, ...]] = {
    "openai": ("OPENAI_API_KEY",),
    "azure_openai": ("AZURE_OPENAI_API_KEY",),
    "anthropic": ("ANTHROPIC_API_KEY",),
    "google_genai": ("GOOGLE_API_KEY", "GEMINI_API_KEY"),
    "mistralai": ("MISTRAL_API_KEY",),
    "groq": ("GROQ_API_KEY",),
    "deepseek": ("DEEPSEEK_API_KEY",),
    "xai": ("XAI_API_KEY",),
    "fireworks": ("FIREWORKS_API_KEY",),
    "together": ("TOGETHER_API_KEY",),
    "cohere": ("COHERE_API_KEY",),
    "perplexity": ("PPLX_API_KEY",),
    "openrouter": ("OPENROUTER_API_KEY",),
}
# Providers whose LangChain class takes `timeout` and `max_retries`: their own retries are
# switched off so that the one bounded retry below governs every provider alike.
CLIENT_OPTIONS = frozenset(["openai", "azure_openai", "anthropic", "deepseek", "xai", "groq"])

CONCURRENT_CALLS = 4  # per node: a local server with one slot queues the rest anyway
PARSE_ATTEMPTS = 2  # a reply that is not valid JSON is re-asked once, with the error
BACKOFF_SECONDS = 1.0
BACKOFF_CAP_SECONDS = 16.0
# A request that outlives its own client timeout this many times over is abandoned, for
# providers whose client has no timeout of its own.
DEADLINE_FACTOR = 4
_TRANSIENT_STATUS = frozenset([408, 409, 425, 429, 500, 502, 503, 504, 529])
_TRANSIENT_NAMES = ("Timeout", "RateLimit", "Connect", "InternalServer", "Unavailable", "Overload")

_THINK_BLOCK = re.compile(r"<(think|thinking|reasoning)>.*?</\1\s*>", re.IGNORECASE | re.DOTALL)
_THINK_CLOSE = re.compile(r"</(?:think|thinking|reasoning)\s*>", re.IGNORECASE)
_THINK_OPEN = re.compile(r"<(?:think|thinking|reasoning)>", re.IGNORECASE)
_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)

SchemaT = TypeVar("SchemaT", bound=BaseModel)

_override: ContextVar[Mapping[str, BaseChatModel] | None] = ContextVar(
    "grounded_research_chat_model", default=None
)


class ModelFailure(Exception):
    """A model gave nothing usable after its retries: the node falls back to extractive."""


@contextmanager
def use_chat_model(model: BaseChatModel | Mapping[Role, BaseChatModel]) -> Iterator[None]:
    """Runs inside this block use `model` (for every role, or for the roles the mapping
    names) instead of what `Context` names. Graph runs started inside the block inherit
    it, including their parallel branches."""
    chosen: Mapping[str, BaseChatModel] = (
        dict.fromkeys(ROLES, model)
        if isinstance(model, BaseChatModel)
        else {str(role): given for role, given in model.items()}
    )
    token = _override.set(chosen)
    try:
        yield
    finally:
        _override.reset(token)


def model_spec(context: Context, role: Role) -> str:
    """What `Context` names for this role: its own field, else `model`."""
    return str(getattr(context, ROLE_FIELD[role]) or context.model).strip() or EXTRACTIVE


def describe_models(context: Context) -> str:
    """One line naming the model of each step, for the CLI."""
    override = _override.get() or {}
    names = {
        role: type(override[role]).__name__ if role in override else model_spec(context, role)
        for role in ROLES
    }
    if set(names.values()) == {EXTRACTIVE}:
        return "extractive (no LLM: the report quotes the sources)"
    if len(set(names.values())) == 1:
        return names["planner"]
    return ", ".join(f"{role} {name}" for role, name in names.items())


def check_models(context: Context) -> None:
    """Refuse, with one line, a model that cannot start (unknown provider, missing key or
    package) before any work is done. Starting a model opens no connection."""
    override = _override.get() or {}
    for spec in dict.fromkeys(model_spec(context, r) for r in ROLES if r not in override):
        if spec != EXTRACTIVE:
            build_chat_model(context, spec)


def node_model(context: Context, role: Role, node: str) -> NodeModel | None:
    """The model this node calls, or None in extractive mode."""
    override = _override.get() or {}
    if role in override:
        return NodeModel(override[role], node, context)
    spec = model_spec(context, role)
    if spec == EXTRACTIVE:
        return None
    return NodeModel(build_chat_model(context, spec), node, context)


def base_url_for(context: Context, provider: str) -> str:
    """The run's base URL; for OpenAI, OPENAI_BASE_URL fills it when the caller gave none."""
    if context.base_url:
        return context.base_url
    if provider == "openai":
        return os.environ.get("OPENAI_BASE_URL") or os.environ.get("OPENAI_API_BASE") or ""
    return ""


def build_chat_model(context: Context, spec: str) -> BaseChatModel:
    provider, colon, name = spec.partition(":")
    provider = provider.strip().lower().replace("-", "_")
    if not colon or not provider or not name.strip():
        raise ConfigurationError(
            f"unknown model {spec!r}: use 'extractive' or provider:name, e.g. openai:gpt-4.1-mini"
        )
    base_url = base_url_for(context, provider)
    keys = KEY_VARIABLES.get(provider, ())
    if keys and not base_url and not any(os.environ.get(k) for k in keys):
        raise ConfigurationError(
            f"model {spec!r} needs {' or '.join(keys)} set, or --base-url for a server of your own"
        )
    options: dict[str, Any] = {}
    if base_url:
        options["base_url"] = base_url
    if provider in CLIENT_OPTIONS:
        options.update(timeout=context.model_timeout, max_retries=0)
    if context.max_output_tokens:
        options["max_tokens"] = context.max_output_tokens
    if provider == "openai":
        options["stream_usage"] = True
        if base_url and context.max_output_tokens:  # servers that predate max_completion_tokens
            options["extra_body"] = {"max_tokens": context.max_output_tokens}
        if not os.environ.get("OPENAI_API_KEY"):
            options["api_key"] = "no-key"  # local OpenAI-compatible servers ignore it
    from langchain.chat_models import init_chat_model

    try:
        chat_model: BaseChatModel = init_chat_model(
            name.strip(), model_provider=provider, **options
        )
        return chat_model
    except ImportError as error:
        raise ConfigurationError(f"model {spec!r}: {_first_line(error)}") from error
    except Exception as error:
        message = _first_line(error)
        if "Unsupported" in message and "provider" in message:
            message = f"unknown model provider {provider!r}"
        raise ConfigurationError(f"model {spec!r}: {message}") from error


@dataclass
class NodeModel:
    """One node's use of a model: robust calls, and what they cost."""

    model: BaseChatModel
    node: str
    context: Context
    spent: LLMUsage = field(default_factory=LLMUsage)
    warnings: list[str] = field(default_factory=list)
    slots: asyncio.Semaphore = field(default_factory=lambda: asyncio.Semaphore(CONCURRENT_CALLS))

    async def structured(self, messages: Sequence[BaseMessage], schema: type[SchemaT]) -> SchemaT:
        """The reply as `schema`; broken JSON is repaired, else re-asked with the error."""
        runnable = self._structured_runnable(schema)
        conversation = list(messages)
        problem = ""
        for attempt in range(PARSE_ATTEMPTS):
            if attempt:
                self.spent.retries += 1
            reply = await self._call(runnable, conversation)
            raw, parsed = _split_reply(reply)
            try:
                return parse_structured(raw, parsed, schema)
            except ValueError as error:
                problem = str(error)
                said = _said(raw)[:2000] or "(nothing)"
                conversation = [
                    *messages,
                    AIMessage(content=said),
                    HumanMessage(content=REPAIR.format(problem=problem)),
                ]
        raise ModelFailure(f"no valid {schema.__name__} after {PARSE_ATTEMPTS} tries: {problem}")

    async def text(self, messages: Sequence[BaseMessage]) -> str:
        """The reply's text without reasoning blocks; streamed to LangGraph's `messages`
        stream when a caller listens to it."""
        for attempt in range(PARSE_ATTEMPTS):
            if attempt:
                self.spent.retries += 1
            reply = await self._call(self.model, list(messages))
            raw, _ = _split_reply(reply)
            text = strip_think(message_text(raw))
            if text:
                return text
        raise ModelFailure(f"empty answer after {PARSE_ATTEMPTS} tries")

    def fell_back(self, failure: Exception, instead: str) -> list[str]:
        """Record a fallback; the warnings the node adds to the state."""
        self.spent.fallbacks += 1
        self.warnings.append(f"{self.node}: model failed ({failure}); {instead}")
        return list(self.warnings)

    def usage(self) -> Usage:
        """This node's model calls; the node's seconds are counted by `progress.step`."""
        return Usage(
            llm_calls=self.spent.calls,
            tokens_in=self.spent.tokens_in,
            tokens_out=self.spent.tokens_out,
            llm={self.node: self.spent.model_copy()},
        )

    def _structured_runnable(self, schema: type[BaseModel]) -> Runnable[Any, Any]:
        """The model bound to return JSON the configured way; the plain model (the prompt
        carries the schema) when it has no such way."""
        quiet = self.model.with_config(tags=[TAG_NOSTREAM])
        method = self.context.structured_output
        if method == "prompt":
            return quiet
        wanted = response_schema(schema)
        for options in ({"method": method}, {}):
            try:
                bound = self.model.with_structured_output(wanted, include_raw=True, **options)
            except (NotImplementedError, ValueError, TypeError):
                continue
            return bound.with_config(tags=[TAG_NOSTREAM])
        return quiet

    async def _call(self, runnable: Runnable[Any, Any], messages: list[BaseMessage]) -> Any:
        """One request, retried with backoff after timeouts, rate limits and server errors."""
        attempts = self.context.model_retries + 1
        deadline = self.context.model_timeout * DEADLINE_FACTOR
        for attempt in range(attempts):
            self.spent.calls += 1
            try:
                async with self.slots:
                    reply = await asyncio.wait_for(runnable.ainvoke(messages), timeout=deadline)
            except Exception as error:
                salvaged = _salvaged(error)
                if salvaged is not None:
                    self._count_tokens(salvaged)
                    return salvaged
                if not is_transient(error) or attempt == attempts - 1:
                    raise ModelFailure(_describe(error)) from error
                self.spent.retries += 1
                await asyncio.sleep(backoff(attempt))
                continue
            self._count_tokens(_split_reply(reply)[0])
            return reply
        raise ModelFailure("no attempt was made")  # attempts >= 1: unreachable

    def _count_tokens(self, message: BaseMessage | None) -> None:
        usage = getattr(message, "usage_metadata", None) or {}
        self.spent.tokens_in += int(usage.get("input_tokens") or 0)
        self.spent.tokens_out += int(usage.get("output_tokens") or 0)


def backoff(attempt: int) -> float:
    """Exponential, with jitter so that parallel branches do not retry in step."""
    base: float = min(BACKOFF_CAP_SECONDS, BACKOFF_SECONDS * 2**attempt)
    return base * (0.5 + random.random() / 2)


def is_transient(error: BaseException) -> bool:
    """Timeouts, rate limits, dropped connections and server errors: worth another try."""
    if isinstance(error, TimeoutError | ConnectionError):
        return True
    status = getattr(error, "status_code", None)
    if isinstance(status, int):
        return status in _TRANSIENT_STATUS
    names = [cls.__name__ for cls in type(error).__mro__]
    return any(part in name for name in names for part in _TRANSIENT_NAMES)


def strip_think(text: str) -> str:
    """The answer without reasoning: `<think>…</think>` blocks go; so does everything up
    to a closing tag whose opening was in the prompt template, and everything after an
    opening tag that was never closed (reasoning cut short holds no answer)."""
    text = _THINK_BLOCK.sub("", text)
    closing = _THINK_CLOSE.search(text)
    if closing is not None:
        text = text[closing.end() :]
    opening = _THINK_OPEN.search(text)
    if opening is not None:
        text = text[: opening.start()]
    return text.strip()


def message_text(message: BaseMessage | None) -> str:
    if message is None:
        return ""
    content = message.content
    if isinstance(content, str):
        return content
    parts = [
        part if isinstance(part, str) else str(part.get("text", ""))
        for part in content
        if isinstance(part, str) or (isinstance(part, dict) and part.get("type") == "text")
    ]
    return "".join(parts)


def load_json(text: str) -> Any:
    """The JSON value in a model's reply: reasoning and code fences dropped, prose around
    it ignored, and broken or truncated JSON repaired. None when there is none."""
    text = strip_think(text)
    fenced = _FENCE.search(text)
    if fenced is not None:
        text = fenced.group(1)
    starts = [i for i in (text.find("{"), text.find("[")) if i >= 0]
    if not starts:
        return None
    text = text[min(starts) :].strip()
    try:
        return json.loads(text)
    except ValueError:
        pass
    try:
        repaired = json_repair.loads(text)
    except Exception:
        return None
    return repaired if isinstance(repaired, dict | list) and repaired else None


def parse_structured(raw: BaseMessage | None, parsed: Any, schema: type[SchemaT]) -> SchemaT:
    """Validate what the model returned against `schema`, trying what the provider parsed,
    then tool-call arguments, then the text; raises ValueError saying what was wrong."""
    candidates: list[Any] = []
    if isinstance(parsed, dict | list):
        candidates.append(parsed)
    if isinstance(raw, AIMessage):
        candidates += [call.get("args") for call in raw.tool_calls]
        candidates += [load_json(str(call.get("args") or "")) for call in raw.invalid_tool_calls]
    candidates.append(load_json(message_text(raw)))
    problems: list[str] = []
    for candidate in candidates:
        if not candidate:
            continue
        try:
            return schema.model_validate(_reshape(candidate, schema))
        except ValidationError as error:
            problems.append(_validation_summary(error))
    if not problems:
        text = message_text(raw).strip()
        if not text:
            raise ValueError("the answer was empty")
        raise ValueError(f"the answer held no JSON object: {text[:120]!r}")
    raise ValueError(problems[0])


def _reshape(candidate: Any, schema: type[BaseModel]) -> Any:
    """Common near-misses: a bare list for a one-list schema, or the object wrapped in
    one key (`{"Plan": {...}}`, `{"arguments": {...}}`)."""
    names = list(schema.model_fields)
    if isinstance(candidate, list) and len(names) == 1:
        return {names[0]: candidate}
    if (
        isinstance(candidate, dict)
        and len(candidate) == 1
        and next(iter(candidate)) not in names
        and isinstance(inner := next(iter(candidate.values())), dict | list)
    ):
        return _reshape(inner, schema)
    return candidate


def _validation_summary(error: ValidationError) -> str:
    parts = [
        f"{'.'.join(str(p) for p in issue['loc']) or 'answer'}: {issue['msg']}"
        for issue in error.errors()[:3]
    ]
    return "the JSON did not match the schema: " + "; ".join(parts)


def _split_reply(reply: Any) -> tuple[BaseMessage | None, Any]:
    """(raw message, parsed value) from a plain or an `include_raw` structured reply."""
    if isinstance(reply, dict) and "raw" in reply:
        raw = reply.get("raw")
        return (raw if isinstance(raw, BaseMessage) else None), reply.get("parsed")
    if isinstance(reply, BaseMessage):
        return reply, None
    return None, reply


def _said(message: BaseMessage | None) -> str:
    """What the model answered, as text: its words, else its tool-call arguments."""
    text = message_text(message)
    if text or not isinstance(message, AIMessage):
        return text
    calls = [json.dumps(c.get("args"), ensure_ascii=False) for c in message.tool_calls]
    calls += [str(c.get("args") or "") for c in message.invalid_tool_calls]
    return "\n".join(calls)


def _salvaged(error: BaseException) -> AIMessage | None:
    """A reply the client refused (e.g. cut off at the length limit under a response
    format) still holds text worth repairing."""
    completion = getattr(error, "completion", None)
    choices = getattr(completion, "choices", None)
    if not choices:
        return None
    message = getattr(choices[0], "message", None)
    text = getattr(message, "content", None) or ""
    calls = getattr(message, "tool_calls", None) or []
    if not text and calls:
        text = getattr(getattr(calls[0], "function", None), "arguments", "") or ""
    usage = getattr(completion, "usage", None)
    salvaged = AIMessage(content=str(text))
    if usage is not None:
        tokens_in = int(getattr(usage, "prompt_tokens", 0) or 0)
        tokens_out = int(getattr(usage, "completion_tokens", 0) or 0)
        salvaged.usage_metadata = {
            "input_tokens": tokens_in,
            "output_tokens": tokens_out,
            "total_tokens": tokens_in + tokens_out,
        }
    return salvaged


def _describe(error: BaseException) -> str:
    if isinstance(error, TimeoutError):
        return "timed out"
    return f"{type(error).__name__}: {_first_line(error)}"[:300]


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__
