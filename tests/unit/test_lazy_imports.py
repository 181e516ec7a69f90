"""`grounded-research --help`, `eval --help` and a usage error start in a blink: they
import neither the graph nor LangChain, LangGraph or the heavy libraries a run uses,
which are imported where first used (issue 14). Checked in a fresh interpreter, by the
modules it holds afterwards."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# What a run needs and the command line never does: the graph and its steps, the
# frameworks, the models' clients and the libraries of retrieval and selection.
NOT_FOR_THE_COMMAND_LINE = (
    "grounded_research.api",
    "grounded_research.graph",
    "grounded_research.nodes",
    "grounded_research.models",
    "grounded_research.evaluation.runner",
    "grounded_research.retrieval",
    "grounded_research.selection",
    "langgraph",
    "langchain",
    "langchain_core",
    "langchain_openai",
    "langsmith",
    "openai",
    "onnxruntime",
    "tokenizers",
    "scipy",
    "numpy",
    "trafilatura",
    "pypdf",
    "tavily",
    "httpx",
    "mcp",
    "uvicorn",
    "jieba",
    "bm25s",
    "tiktoken",
)

# The graph's own import leaves these to the step that needs them.
NOT_WITH_THE_GRAPH = (
    "onnxruntime",
    "scipy",
    "bm25s",
    "jieba",
    "pypdf",
    "tavily",
    "mcp",
    "langchain_openai",
    "trafilatura",
    "lxml",
)


def output_of(code: str) -> str:
    """What a fresh interpreter prints running `code` (with `json` and `sys` imported)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    run = subprocess.run(
        [sys.executable, "-c", f"import json, sys\n{code}"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    return run.stdout


def modules_after(code: str) -> set[str]:
    """The modules a fresh interpreter holds after running `code`."""
    output = output_of(f"{code}\nprint(json.dumps(sorted(sys.modules)))")
    return set(json.loads(output.splitlines()[-1]))


def loaded(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return sorted(n for n in names if any(m == n or m.startswith(n + ".") for m in modules))


def command(*argv: str) -> str:
    """Run the CLI's entry point on `argv` in-process, as the script would."""
    return (
        f"sys.argv = ['grounded-research', *{list(argv)!r}]\n"
        "from grounded_research.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "sys.stdout.flush()\nprint()"
    )


def test_importing_the_cli_loads_nothing_of_a_run() -> None:
    modules = modules_after("import grounded_research.cli")
    assert loaded(modules, NOT_FOR_THE_COMMAND_LINE) == []


@pytest.mark.parametrize(
    "argv",
    [
        ("--help",),
        ("eval", "--help"),
        ("serve", "--help"),
        ("--no-such-option",),
        ("eval", "--no-such-option"),
        ("serve", "--no-such-option"),
        ("mcp", "--help"),
        ("mcp", "--no-such-option"),
    ],
    ids=[
        "help",
        "eval-help",
        "serve-help",
        "usage-error",
        "eval-usage-error",
        "serve-error",
        "mcp-help",
        "mcp-error",
    ],
)
def test_help_and_usage_errors_load_nothing_of_a_run(argv: tuple[str, ...]) -> None:
    modules = modules_after(command(*argv))
    assert "grounded_research.cli" in modules
    assert loaded(modules, NOT_FOR_THE_COMMAND_LINE) == []


def test_the_graph_leaves_heavy_libraries_to_the_steps_that_use_them() -> None:
    modules = modules_after("import grounded_research.graph")
    assert loaded(modules, NOT_WITH_THE_GRAPH) == []


def test_the_local_embedder_starts_loading_before_langchain_and_the_graph() -> None:
    """Its load's moment of ~200 MiB falls while the process is small: the CLI starts it
    once the options are checked (the checkpointer's too), before LangGraph is imported."""
    code = (
        "from grounded_research.selection import embeddings\n"
        "def early(spec):\n"
        "    print(json.dumps(sorted(sys.modules)))\n"
        "    raise SystemExit(0)\n"
        "embeddings.load_local_embedder_early = early\n"
        + command("What is Aurora A1?", "--corpus", str(ROOT / "examples" / "solid-state"))
    )
    at_the_start = set(json.loads(output_of(code).splitlines()[0]))
    assert "grounded_research.selection.embeddings" in at_the_start
    assert loaded(at_the_start, ("langgraph", "langchain", "langchain_core", "openai")) == []


def test_the_package_still_offers_its_public_names() -> None:
    modules = modules_after(
        "import grounded_research as gr\n"
        "assert 'grounded_research.graph' not in sys.modules\n"
        "from grounded_research import Context, ResearchResult, aresearch, open_session, research\n"
        "from grounded_research import graph\n"
        "assert graph.name and callable(research) and Context().max_rounds >= 0\n"
        "assert sorted(gr.__all__) == sorted(n for n in gr.__all__ if hasattr(gr, n))"
    )
    assert "grounded_research.graph" in modules


def test_an_unknown_name_is_still_an_attribute_error() -> None:
    import grounded_research

    with pytest.raises(AttributeError, match="no_such_name"):
        _ = grounded_research.no_such_name  # type: ignore[attr-defined]
