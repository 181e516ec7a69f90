"""What a run may set when the graph serves others: the operator's policy.

On the command line and in Python the caller is the operator, and every `Context` field
is theirs. A server runs the graph for callers it does not trust with the operator's
keys, files and network: `server.py` (the graph `langgraph.json` registers) passes every
run's values through `ServerPolicy.admit`, and so does the MCP server (`mcp_server.py`),
after lowering the limits a call asks above their ceilings (`ServerPolicy.clamp`). Each
knob's `server` rule in `configuration.py` says what a run may do with it:

- operator only (`cache_dir`, `base_url`, `tavily_base_url`, `searxng_url`,
  `embeddings_base_url`, `allow_private_network`, `chunk_size`, the `mcp_*` retriever's
  server, tool and consent to start it): a run gets the operator's value;
- registered (`corpus`): a run names one of the operator's corpora and gets its folder;
- from a list (`model` and the step models, `embeddings`, `retrievers`): a run picks
  from the operator's list;
- up to a ceiling (`max_pages`, `run_deadline`, the concurrency limits, …): a run may
  lower the operator's value, or raise it up to the operator's ceiling;
- the rest shapes the research within those bounds (`approve_plan`,
  `selection_strategy`, `urls`, the Tavily filters, …) and is the caller's.

A run that asks for more is refused with one line naming every value it may not have,
before the run holds any resource: nothing is silently replaced.

The operator writes the policy in a TOML file that GROUNDED_RESEARCH_SERVER_CONFIG names
(relative paths in it count from its folder):

    [corpora]      # names a run may give as `corpus`, and their folders
    docs = "/data/docs"
    [settings]     # the operator's value of any knob: every run's default
    corpus = "docs"
    cache_dir = "/data/cache"
    [allowed]      # the lists runs pick from: models, embeddings, retrievers
    models = ["extractive", "openai:gpt-4.1-mini"]
    [ceilings]     # the most a run may ask of a limit (default: its setting)
    max_pages = 100

Without the variable the policy is the strictest one: no corpus, the extractive model,
the offline embedders, every limit at most its default. A malformed file stops the
server at start with one line saying what is wrong in it.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import Field, dataclass, fields, replace
from pathlib import Path
from typing import Any

from grounded_research.configuration import (
    Ceiling,
    Context,
    FromList,
    OperatorOnly,
    Registered,
    check_knob,
    server_rule,
)
from grounded_research.errors import ConfigurationError, RunRefused

CONFIG_VARIABLE = "GROUNDED_RESEARCH_SERVER_CONFIG"
TABLES = ("corpora", "settings", "allowed", "ceilings")
KNOBS: dict[str, Field[Any]] = {spec.name: spec for spec in fields(Context) if spec.init}


def lists() -> dict[str, tuple[str, ...] | None]:
    """The operator's lists the `FromList` knobs pick from, with their defaults."""
    return {
        rule.allowed: rule.default
        for spec in KNOBS.values()
        if isinstance(rule := server_rule(spec), FromList)
    }


@dataclass(frozen=True)
class ServerPolicy:
    settings: Context
    """The operator's values: what a run starts from (its `corpus` already a folder)."""
    corpora: Mapping[str, str]
    """Name a run may give as `corpus` -> its folder."""
    allowed: Mapping[str, frozenset[str] | None]
    """Each list `FromList` knobs pick from, the operator's own values included (None:
    any value the knob accepts)."""
    ceilings: Mapping[str, float]
    """The most a run may ask of each `Ceiling` knob."""

    @classmethod
    def strictest(cls) -> ServerPolicy:
        """The policy of a server whose operator wrote none."""
        return cls.from_tables({}, Path.cwd())

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] = os.environ) -> ServerPolicy:
        """The policy in the file GROUNDED_RESEARCH_SERVER_CONFIG names, else the strictest."""
        path = environ.get(CONFIG_VARIABLE, "").strip()
        return cls.load(path) if path else cls.strictest()

    @classmethod
    def load(cls, path: str | Path) -> ServerPolicy:
        """The policy in a TOML file; a `ConfigurationError` naming the file otherwise."""
        where = Path(path).expanduser().absolute()
        try:
            with where.open("rb") as handle:
                tables = tomllib.load(handle)
        except FileNotFoundError as error:
            raise ConfigurationError(f"{CONFIG_VARIABLE}: no such file: {where}") from error
        except OSError as error:
            raise ConfigurationError(f"{CONFIG_VARIABLE}: cannot read {where}: {error}") from error
        except tomllib.TOMLDecodeError as error:
            raise ConfigurationError(f"{where}: not valid TOML: {error}") from error
        try:
            return cls.from_tables(tables, where.parent)
        except ConfigurationError as error:
            raise ConfigurationError(f"{where}: {error}") from error

    @classmethod
    def from_tables(cls, tables: Mapping[str, Any], folder: Path) -> ServerPolicy:
        """The policy from a server config's tables; relative paths count from `folder`."""
        unknown = sorted(set(tables) - set(TABLES))
        if unknown:
            raise ConfigurationError(
                f"unknown table(s) {', '.join(unknown)}: use {', '.join(TABLES)}"
            )
        corpora = {
            name: _folder(f"corpora.{name}", path, folder, must_exist=True)
            for name, path in _table(tables, "corpora").items()
        }
        settings = _settings(_table(tables, "settings"), corpora, folder)
        return cls(
            settings=settings,
            corpora=corpora,
            allowed=_allowed(_table(tables, "allowed"), settings),
            ceilings=_ceilings(_table(tables, "ceilings"), settings),
        )

    def admit(self, given: Context | Mapping[str, Any] | None) -> Context:
        """The `Context` of a run that asked for `given`: the operator's settings with
        what the caller may set, or `RunRefused` with one line naming each value it may
        not have (or the first that fits no declaration)."""
        admitted: dict[str, Any] = {}
        refused: list[str] = []
        try:
            for name, value in asked(given).items():
                spec = KNOBS[name]
                check_knob(spec, value)
                problem = self._problem(spec, value)
                if problem:
                    refused.append(problem)
                else:
                    admitted[name] = self._value(spec, value)
            context = replace(self.settings, **admitted)
        except ConfigurationError as error:
            raise RunRefused(str(error)) from error
        refused += self._retrievers_problem(context) if not refused else []
        if refused:
            raise RunRefused("not allowed on this server: " + "; ".join(refused))
        return context

    def clamp(self, given: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
        """`given` with each limit above the server's ceiling lowered to it, and a note
        for each one lowered. For callers that pick numbers freely (a model calling the
        MCP server's tool), whom a refusal would only send back to guess lower; `admit`
        still judges everything else, and a value of the wrong type is left for it."""
        clamped = dict(given)
        notes: list[str] = []
        for name, value in given.items():
            spec = KNOBS.get(name)
            rule = server_rule(spec) if spec is not None else None
            if not isinstance(rule, Ceiling) or isinstance(value, bool):
                continue
            if not isinstance(value, int | float):
                continue
            ceiling = self.ceilings[name]
            if rule.zero_is_unlimited and ceiling == 0:
                continue
            if value > ceiling or (rule.zero_is_unlimited and value == 0):
                clamped[name] = ceiling
                notes.append(f"{name} {value:g} lowered to the server's ceiling of {ceiling:g}")
        return clamped, notes

    def _retrievers_problem(self, context: Context) -> list[str]:
        """'auto' stands for retrievers picked at run time (Tavily when its key is set
        and there is no corpus): those it picks must be allowed too."""
        listed = self.allowed["retrievers"]
        wrong = [n for n in context.retriever_names if listed is not None and n not in listed]
        if not wrong:
            return []
        return [
            f"retrievers {context.retrievers!r} means {', '.join(wrong)} here, which is not "
            f"allowed (allowed: {', '.join(repr(v) for v in sorted(listed or ()))})"
        ]

    def _problem(self, spec: Field[Any], value: Any) -> str:
        """Why a run may not have `value` for this knob ('' when it may)."""
        name, rule = spec.name, server_rule(spec)
        if isinstance(rule, OperatorOnly):
            if value != getattr(self.settings, name):
                return f"{name} is set by the server's operator, not by a run"
        elif isinstance(rule, Registered):
            if value and value not in self.corpora:
                names = ", ".join(sorted(self.corpora)) or "none is registered"
                return f"{name} {value!r} is not one of the server's corpora ({names})"
        elif isinstance(rule, FromList):
            listed = self.allowed[rule.allowed]
            wrong = [v for v in _names(value, rule) if v and listed is not None and v not in listed]
            if wrong:
                choices = ", ".join(repr(v) for v in sorted(listed or ()))
                return f"{name} {', '.join(map(repr, wrong))} is not allowed (allowed: {choices})"
        elif isinstance(rule, Ceiling):
            ceiling = self.ceilings[name]
            if rule.zero_is_unlimited and ceiling == 0:
                return ""
            if rule.zero_is_unlimited and value == 0:
                return f"{name} 0 (no limit) is above the server's ceiling of {ceiling:g}"
            if value > ceiling:
                return f"{name} may be at most {ceiling:g} on this server, got {value:g}"
        return ""

    def _value(self, spec: Field[Any], value: Any) -> Any:
        """What the run gets for an allowed value: a corpus name becomes its folder."""
        if isinstance(server_rule(spec), Registered):
            return self.corpora[value] if value else ""
        return value


def asked(given: Context | Mapping[str, Any] | None) -> dict[str, Any]:
    """What a caller asked for: the fields of a mapping (None meaning not given), or the
    fields of a `Context` that differ from the defaults."""
    if given is None:
        return {}
    if isinstance(given, Context):
        defaults = Context()
        return {
            name: getattr(given, name)
            for name in KNOBS
            if getattr(given, name) != getattr(defaults, name)
        }
    unknown = sorted(set(given) - set(KNOBS))
    if unknown:
        raise ConfigurationError(f"unknown option(s): {', '.join(unknown)}")
    return {name: value for name, value in given.items() if value is not None}


def _names(value: str, rule: FromList) -> list[str]:
    parts = value.split(rule.separator) if rule.separator else [value]
    return [part.strip() for part in parts]


def _table(tables: Mapping[str, Any], name: str) -> dict[str, Any]:
    table = tables.get(name, {})
    if not isinstance(table, dict):
        raise ConfigurationError(f"{name} must be a table ([{name}])")
    return table


def _folder(key: str, value: Any, folder: Path, *, must_exist: bool = False) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ConfigurationError(f"{key} must be a path, got {value!r}")
    path = (folder / Path(value).expanduser()).resolve()
    if must_exist and not path.exists():
        raise ConfigurationError(f"{key}: no such folder or file: {path}")
    return str(path)


def _settings(values: dict[str, Any], corpora: Mapping[str, str], folder: Path) -> Context:
    values = dict(values)
    corpus = values.get("corpus", "")
    if corpus and corpus not in corpora:
        raise ConfigurationError(f"settings.corpus {corpus!r} is not a name under [corpora]")
    values["corpus"] = corpora.get(corpus, "")
    if "cache_dir" in values:
        values["cache_dir"] = _folder("settings.cache_dir", values["cache_dir"], folder)
    try:
        return Context.from_mapping(values)
    except ConfigurationError as error:
        raise ConfigurationError(f"settings: {error}") from error


def _allowed(values: dict[str, Any], settings: Context) -> dict[str, frozenset[str] | None]:
    known = lists()
    unknown = sorted(set(values) - set(known))
    if unknown:
        raise ConfigurationError(
            f"allowed: unknown list(s) {', '.join(unknown)}: use {', '.join(sorted(known))}"
        )
    allowed: dict[str, frozenset[str] | None] = {}
    for name, default in known.items():
        listed = values.get(name, default)
        if listed is not None and (
            not isinstance(listed, list | tuple) or not all(isinstance(v, str) for v in listed)
        ):
            raise ConfigurationError(f"allowed.{name} must be a list of strings, got {listed!r}")
        allowed[name] = None if listed is None else frozenset(v.strip() for v in listed)
    for spec in KNOBS.values():  # the operator's own values are always allowed
        rule = server_rule(spec)
        if isinstance(rule, FromList) and (listed := allowed[rule.allowed]) is not None:
            own = {v for v in _names(getattr(settings, spec.name), rule) if v}
            allowed[rule.allowed] = listed | own
    return allowed


def _ceilings(values: dict[str, Any], settings: Context) -> dict[str, float]:
    limits = {
        name: rule for name, spec in KNOBS.items() if isinstance(rule := server_rule(spec), Ceiling)
    }
    unknown = sorted(set(values) - set(limits))
    if unknown:
        raise ConfigurationError(
            f"ceilings: no ceiling for {', '.join(unknown)}: use {', '.join(limits)}"
        )
    ceilings: dict[str, float] = {}
    for name, rule in limits.items():
        own = getattr(settings, name)
        ceiling = values.get(name, own)
        try:
            check_knob(KNOBS[name], ceiling)
        except ConfigurationError as error:
            raise ConfigurationError(f"ceilings: {error}") from error
        unlimited = rule.zero_is_unlimited and ceiling == 0
        if not unlimited and (own > ceiling or (rule.zero_is_unlimited and own == 0)):
            raise ConfigurationError(
                f"settings.{name} ({own:g}) is above ceilings.{name} ({ceiling:g})"
            )
        ceilings[name] = ceiling
    return ceilings
