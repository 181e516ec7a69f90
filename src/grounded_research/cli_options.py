"""The run options of `grounded-research` and `grounded-research eval`, made from the
`Context` fields that declare `cli=`, and the checks both commands make before a run.

A command takes them through `@with_knobs(...)` and a keyword-only `knobs` parameter: it
gets their values as `{field name: value}`, ready for `Context.from_mapping`. Both
commands are `UsageErrorIsBadInput` commands: an unknown option or a bad value is one
`error:` line and exit 64, like every other bad input.
"""

from __future__ import annotations

import functools
import inspect
import sys
from collections.abc import Callable
from dataclasses import MISSING, Field, fields
from pathlib import Path
from typing import Annotated, Any, Literal, cast, get_origin

import typer
from typer.core import TyperCommand

try:  # typer 0.2x carries its own copy of click
    from typer._click import Context as ClickContext
    from typer._click.exceptions import UsageError
except ImportError:  # pragma: no cover - an older typer, on click itself
    from click import Context as ClickContext  # type: ignore[assignment]
    from click.exceptions import UsageError  # type: ignore[assignment]

from grounded_research.configuration import Cli, Context, knob_types
from grounded_research.errors import InputError

PANEL = "Run options"
KEYWORD_ONLY = inspect.Parameter.KEYWORD_ONLY
Command = Literal["run", "eval"]


class UsageErrorIsBadInput(TyperCommand):
    """A command whose usage errors (an unknown option, a bad value, a missing argument)
    exit 64 with one `error:` line, as the README documents for bad input: click's own
    exit 2 is the code for "no sources found", and its boxed message spans lines."""

    def make_context(
        self,
        info_name: str | None,
        args: list[str],
        parent: ClickContext | None = None,
        **extra: Any,
    ) -> ClickContext:
        try:
            return super().make_context(info_name, args, parent, **extra)
        except UsageError as error:
            where = error.ctx.command_path if error.ctx else info_name
            message = error.format_message().rstrip(".")
            print(f"error: {message}; see '{where} --help'", file=sys.stderr)
            raise typer.Exit(InputError.exit_code) from error


def cli_knobs(command: Command) -> list[Field[Any]]:
    """The `Context` fields that `command` takes as options, in declaration order."""
    return [
        spec
        for spec in fields(Context)
        if isinstance(cli := spec.metadata.get("cli"), Cli) and (command == "run" or cli.eval)
    ]


def knob_parameter(spec: Field[Any]) -> inspect.Parameter:
    """One typer option for a knob, with the field's default (None when a factory makes
    it). Values are checked by `Context`, not by click, so a bad one is one `error:` line."""
    cli: Cli = spec.metadata["cli"]
    declared = knob_types()[spec.name]
    common: dict[str, Any] = {"help": spec.metadata["description"], "rich_help_panel": PANEL}
    if declared is bool:
        if spec.default is not False:
            raise TypeError(f"{spec.name}: a CLI flag must default to False")
        option = typer.Option(cli.option(spec.name), **common)
        return inspect.Parameter(
            spec.name, KEYWORD_ONLY, default=False, annotation=Annotated[bool, option]
        )
    if get_origin(declared) is list:
        value_type: type = Path  # a file of items, one a line
    else:
        value_type = declared if declared in (int, float) else str
    default = None if spec.default is MISSING else spec.default
    option = typer.Option(
        cli.option(spec.name),
        metavar=cli.metavar or None,
        show_default=default not in (None, ""),
        **common,
    )
    annotation = cast(Any, Annotated)[value_type | None, option]
    return inspect.Parameter(spec.name, KEYWORD_ONLY, default=default, annotation=annotation)


def with_knobs(command: Command) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Replace the decorated command's `knobs` parameter by one option per knob that
    `command` takes; the command receives their values (flags only when set)."""

    def decorate(func: Callable[..., None]) -> Callable[..., None]:
        signature = inspect.signature(func, eval_str=True)
        slot = signature.parameters["knobs"]
        if slot.kind is not KEYWORD_ONLY:
            raise TypeError(f"{func.__name__}: `knobs` must be a keyword-only parameter")
        generated = [knob_parameter(spec) for spec in cli_knobs(command)]
        parameters = [
            p
            for own in signature.parameters.values()
            for p in (generated if own is slot else [own])
        ]
        names = [p.name for p in generated]

        @functools.wraps(func)
        def with_options(**options: Any) -> None:
            values = {name: options.pop(name) for name in names}
            given = {name: v for name, v in values.items() if v is not None and v is not False}
            func(**options, knobs=given)

        with_options.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
        with_options.__annotations__ = {p.name: p.annotation for p in parameters}
        return with_options

    return decorate


def context_from_options(**options: Any) -> Context:
    """The run's `Context`; a bad value or a model that cannot run is an error here."""
    from grounded_research.models import check_models  # LangChain only once a run starts

    context = Context.from_mapping(options)
    check_models(context)
    return context


def check_corpus(context: Context) -> None:
    """The corpus, and whatever else the chosen retrievers need, before any work."""
    problem = context.retriever_problem()
    if problem:
        raise InputError(problem)
    if "local" not in context.retriever_names:
        return
    if not context.corpus:
        raise InputError(
            "no corpus given: pass --corpus DIR (a folder or a .jsonl file), --urls FILE, "
            "or set TAVILY_API_KEY to search the web"
        )
    path = Path(context.corpus).expanduser()
    if not path.exists():
        raise InputError(f"corpus not found: {context.corpus}")
    if path.is_file() and path.suffix.lower() != ".jsonl":
        raise InputError(f"corpus must be a folder or a .jsonl file: {context.corpus}")
