"""The run options of `grounded-research` and `grounded-research eval` come from the
`Context` declarations: each knob that declares `cli=` is an option of both commands
(unless it says `eval=False`), with the field's help, and is checked by `Context`."""

from __future__ import annotations

import ast
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from grounded_research import cli
from grounded_research.configuration import Cli, Context
from grounded_research.evaluation import cli as eval_cli
from tests.conftest import EXAMPLE_CORPUS, ROOT

COMMANDS = {"run": cli.app, "eval": eval_cli.app}
runner = CliRunner()


def declared_options(command: str) -> dict[str, Any]:
    """Option name -> field, for every field whose declaration puts it on `command`."""
    chosen = {}
    for spec in fields(Context):
        exposure = spec.metadata.get("cli")
        if isinstance(exposure, Cli) and (command == "run" or exposure.eval):
            chosen[exposure.option(spec.name)] = spec
    return chosen


def click_options(app: typer.Typer) -> dict[str, Any]:
    command = typer.main.get_command(app)
    return {opt: param for param in command.params for opt in param.opts}


@pytest.mark.parametrize("command", COMMANDS)
def test_every_declared_knob_is_an_option_with_its_help(command: str) -> None:
    app = COMMANDS[command]
    shown = runner.invoke(app, ["--help"], terminal_width=200)
    assert shown.exit_code == 0
    options = click_options(app)
    declared = declared_options(command)
    assert len(declared) >= 13
    for option, spec in declared.items():
        assert option in shown.stdout, option
        param = options[option]
        assert getattr(param, "help", None) == spec.metadata["description"]
        assert param.name == spec.name
    for spec in fields(Context):  # the others are not options: Python and Studio only
        exposure = spec.metadata.get("cli")
        if spec not in declared.values():
            name = exposure.option(spec.name) if exposure else "--" + spec.name.replace("_", "-")
            assert name not in options, name


def test_option_names_the_readme_documents() -> None:
    run = declared_options("run")
    assert run["--min-sources"].name == "min_independent_sources"
    assert run["--selection"].name == "selection_strategy"
    assert run["--retriever"].name == "retrievers"
    for name in ("--urls", "--allow-private-network", "--embeddings", "--corpus"):
        assert name in run
    assert "--urls" not in declared_options("eval")
    assert "--approve-plan" not in declared_options("eval")


def test_the_readme_cli_table_lists_every_run_option() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = readme.split("## The CLI", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in table.splitlines() if line.startswith("| `-")]
    for option in declared_options("run"):
        assert any(f"`{option}" in row for row in rows), option


@pytest.mark.parametrize(
    ("command", "args", "message"),
    [
        ("run", ["--selection", "bm42"], "selection_strategy must be one of 'auto', "),
        ("run", ["--token-budget", "0"], "token_budget must be at least 1, got 0"),
        ("run", ["--model-timeout", "0"], "model_timeout must be positive"),
        ("run", ["--min-sources", "-1"], "min_independent_sources must not be negative"),
        ("eval", ["--structured-output", "xml"], "structured_output must be one of"),
        ("eval", ["--max-sub-questions", "0"], "max_sub_questions must be at least 1"),
    ],
)
def test_a_bad_choice_or_bound_is_one_line_and_exit_64(
    tmp_path: Path, command: str, args: list[str], message: str
) -> None:
    dataset = tmp_path / "set.jsonl"
    dataset.write_text('{"id": "a", "question": "Q?"}\n', encoding="utf-8")
    first = ["What is Aurora?"] if command == "run" else [str(dataset), "--quiet"]
    common = ["--corpus", str(EXAMPLE_CORPUS), "--cache-dir", str(tmp_path / "cache")]
    done = runner.invoke(COMMANDS[command], [*first, *common, *args])
    assert done.exit_code == 64, done.output
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
    assert message in lines[0]
    assert done.stdout == ""


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def test_the_eval_cli_does_not_import_the_main_cli() -> None:
    """`cli.main` dispatches to `evaluation.cli`; nothing imports back the other way."""
    package = ROOT / "src" / "grounded_research"
    assert "grounded_research.evaluation.cli" in imported_modules(package / "cli.py")
    for module in (package / "evaluation" / "cli.py", package / "cli_options.py"):
        assert "grounded_research.cli" not in imported_modules(module), module


@pytest.mark.parametrize(
    ("command", "args", "message"),
    [
        ("run", ["--bogus"], "No such option: --bogus"),
        ("run", ["--max-rounds", "many"], "Invalid value for '--max-rounds'"),
        ("eval", ["--bogus"], "No such option: --bogus"),
        ("eval", ["--limit", "0"], "Invalid value for '--limit'"),
    ],
)
def test_a_usage_error_is_bad_input_one_line_and_exit_64_not_2(
    tmp_path: Path, command: str, args: list[str], message: str
) -> None:
    """Exit 2 is "no sources found"; click's usage errors would exit 2 too."""
    dataset = tmp_path / "set.jsonl"
    dataset.write_text('{"id": "a", "question": "Q?"}\n', encoding="utf-8")
    first = ["What is Aurora?"] if command == "run" else [str(dataset), "--quiet"]
    done = runner.invoke(COMMANDS[command], [*first, "--corpus", str(EXAMPLE_CORPUS), *args])
    assert done.exit_code == 64, done.output
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0]
    assert "--help" in lines[0]


def test_a_missing_argument_is_exit_64() -> None:
    done = runner.invoke(eval_cli.app, [], prog_name="grounded-research eval")
    assert done.exit_code == 64
    assert done.stderr == "error: Missing argument 'dataset'; see 'grounded-research eval --help'\n"


def test_help_still_exits_0() -> None:
    for app in COMMANDS.values():
        assert runner.invoke(app, ["--help"]).exit_code == 0
