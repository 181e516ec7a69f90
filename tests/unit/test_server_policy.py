"""The operator's policy for a served graph (`policy.py`): who sets each knob, how the
operator's file is read, and what a run asking for more gets. No server, no socket:
`tests/integration/test_trust_boundary.py` crosses the same boundary over HTTP."""

from __future__ import annotations

import importlib
import re
from dataclasses import fields
from pathlib import Path
from typing import Any, Literal, get_origin

import pytest

from grounded_research.configuration import (
    Ceiling,
    Context,
    FromList,
    OperatorOnly,
    Registered,
    knob_types,
    server_rule,
)
from grounded_research.errors import ConfigurationError, RunRefused
from grounded_research.policy import CONFIG_VARIABLE, ServerPolicy
from grounded_research.resources import RunContext
from tests.conftest import EXAMPLE_CORPUS, write

KNOBS = {spec.name: spec for spec in fields(Context)}
# Knobs of free text a caller sets on a server, each one read and judged harmless: a
# new text knob (a path, a URL, a command) must be given a rule or be added here.
CALLER_TEXT = {"urls", "tavily_include_domains", "tavily_exclude_domains"}


def policy(text: str, folder: Path) -> ServerPolicy:
    path = write(folder, "server.toml", text)
    return ServerPolicy.load(path)


@pytest.fixture
def operator(tmp_path: Path) -> ServerPolicy:
    docs = tmp_path / "docs"
    docs.mkdir()
    return policy(
        f"""
        [corpora]
        docs = "docs"
        solid-state = "{EXAMPLE_CORPUS}"
        [settings]
        corpus = "docs"
        cache_dir = "cache"
        model = "openai:house-model"
        max_pages = 30
        [allowed]
        models = ["extractive", "openai:gpt-4.1-mini"]
        retrievers = ["local", "urls"]
        [ceilings]
        max_pages = 100
        run_deadline = 1800
        """,
        tmp_path,
    )


def refusal(operator: ServerPolicy, asked: dict[str, Any]) -> str:
    with pytest.raises(RunRefused) as caught:
        operator.admit(asked)
    message = str(caught.value)
    assert "\n" not in message
    return message


# -- who sets what: one rule per knob, in configuration.py ---------------------------


def test_every_path_url_and_network_switch_is_the_operators() -> None:
    reaching_out = {
        name
        for name in KNOBS
        if name.endswith(("_url", "_dir"))
        or name.startswith(("mcp_", "allow_"))
        or name in ("allow_private_network", "chunk_size")
    }
    assert reaching_out == {
        "base_url",
        "embeddings_base_url",
        "tavily_base_url",
        "searxng_url",
        "cache_dir",
        "allow_private_network",
        "chunk_size",
        "mcp_server",
        "mcp_tool",
        "mcp_query_argument",
        "allow_mcp_server_start",
    }
    for name in reaching_out:
        assert isinstance(server_rule(KNOBS[name]), OperatorOnly), name
    assert isinstance(server_rule(KNOBS["corpus"]), Registered)


def test_every_free_text_knob_a_caller_sets_was_judged_harmless() -> None:
    """A text knob with no rule is the caller's: only those reviewed may be."""
    types = knob_types()
    free_text = {
        name
        for name, spec in KNOBS.items()
        if server_rule(spec) is None
        and get_origin(types[name]) is not Literal
        and types[name] not in (bool, int, float)
    }
    assert free_text == CALLER_TEXT


def test_rules_fit_their_knobs_types() -> None:
    types = knob_types()
    for name, spec in KNOBS.items():
        rule = server_rule(spec)
        if isinstance(rule, Ceiling):
            assert types[name] in (int, float), name
        if isinstance(rule, FromList | Registered):
            assert types[name] is str, name


# -- the operator's file --------------------------------------------------------------


def test_without_a_file_the_policy_is_the_strictest(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(CONFIG_VARIABLE, raising=False)
    strictest = ServerPolicy.from_environment()

    assert strictest.settings == Context()
    assert strictest.corpora == {}
    assert strictest.allowed["models"] == {"extractive"}
    assert strictest.allowed["embeddings"] == {"local", "none"}
    assert strictest.allowed["retrievers"] is None  # any the registry knows
    assert strictest.ceilings["max_pages"] == Context().max_pages
    assert "corpus" in refusal(strictest, {"corpus": str(EXAMPLE_CORPUS)})


def test_the_file_is_read_with_paths_from_its_folder(
    operator: ServerPolicy, tmp_path: Path
) -> None:
    assert operator.corpora == {"docs": str(tmp_path / "docs"), "solid-state": str(EXAMPLE_CORPUS)}
    assert operator.settings.corpus == str(tmp_path / "docs")
    assert operator.settings.cache_dir == str(tmp_path / "cache")
    assert operator.settings.max_pages == 30
    assert operator.ceilings["max_pages"] == 100
    assert operator.ceilings["max_rounds"] == Context().max_rounds  # its setting
    assert operator.allowed["models"] == {"extractive", "openai:gpt-4.1-mini", "openai:house-model"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[corpora\n", "not valid TOML"),
        ("[limits]\nmax_pages = 1\n", "unknown table(s) limits: use corpora, settings"),
        ("corpora = 3\n", "corpora must be a table"),
        ('[corpora]\ndocs = "missing"\n', "corpora.docs: no such folder or file: "),
        ("[corpora]\ndocs = 3\n", "corpora.docs must be a path, got 3"),
        ('[settings]\ncorpus = "docs"\n', "settings.corpus 'docs' is not a name under [corpora]"),
        ("[settings]\nmax_pages = -1\n", "settings: max_pages must not be negative, got -1"),
        ("[settings]\nmax_page = 1\n", "settings: unknown option(s): max_page"),
        ('[allowed]\nmodel = ["x"]\n', "allowed: unknown list(s) model: use embeddings, models"),
        ('[allowed]\nmodels = "openai:x"\n', "allowed.models must be a list of strings"),
        ("[ceilings]\ncache_dir = 1\n", "ceilings: no ceiling for cache_dir: use "),
        ('[ceilings]\nmax_pages = "many"\n', "ceilings: max_pages must be a whole number"),
        (
            "[ceilings]\nmax_pages = 10\n",
            "settings.max_pages (60) is above ceilings.max_pages (10)",
        ),
        (
            "[ceilings]\nrun_deadline = 60\n[settings]\nrun_deadline = 0\n",
            "settings.run_deadline (0)",
        ),
    ],
)
def test_a_malformed_file_is_one_line_naming_it(text: str, message: str, tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError) as caught:
        policy(text, tmp_path)

    said = str(caught.value)
    assert said.startswith(str(tmp_path / "server.toml") + ": ")
    assert message in said
    assert "\n" not in said


def test_a_missing_file_is_named(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(CONFIG_VARIABLE, str(tmp_path / "nowhere.toml"))
    with pytest.raises(ConfigurationError, match=rf"^{CONFIG_VARIABLE}: no such file: "):
        ServerPolicy.from_environment()


# -- what a run may ask for ------------------------------------------------------------


def test_a_run_chooses_within_what_the_operator_allows(
    operator: ServerPolicy, tmp_path: Path
) -> None:
    context = operator.admit(
        {
            "corpus": "solid-state",
            "model": "openai:gpt-4.1-mini",
            "writer_model": "",
            "retrievers": "local, urls",
            "urls": ["https://example.org/"],
            "max_pages": 100,
            "run_deadline": 60,
            "cache_dir": str(tmp_path / "cache"),  # the operator's own value, repeated
            "approve_plan": True,
            "max_rounds": None,  # not given
        }
    )

    assert context.corpus == str(EXAMPLE_CORPUS)
    assert (context.model, context.retrievers, context.max_pages) == (
        "openai:gpt-4.1-mini",
        "local, urls",
        100,
    )
    assert context.run_deadline == 60 and context.approve_plan
    assert context.cache_dir == str(tmp_path / "cache")
    assert operator.admit({}) == operator.settings
    assert operator.admit(None) == operator.settings


def test_a_run_asking_for_more_is_refused_naming_every_value(operator: ServerPolicy) -> None:
    message = refusal(
        operator,
        {
            "corpus": "/etc",
            "cache_dir": "/tmp/elsewhere",
            "base_url": "http://caller.example/v1",
            "allow_private_network": True,
            "chunk_size": 50,
            "planner_model": "anthropic:claude",
            "embeddings": "openai:text-embedding-3-small",
            "retrievers": "local,tavily",
            "max_pages": 101,
            "run_deadline": 0,
            "search_concurrency": 9,
        },
    )

    assert message.startswith("not allowed on this server: corpus '/etc' is not one of")
    for said in (
        "corpus '/etc' is not one of the server's corpora (docs, solid-state)",
        "cache_dir is set by the server's operator, not by a run",
        "base_url is set by the server's operator",
        "allow_private_network is set by the server's operator",
        "chunk_size is set by the server's operator",
        "planner_model 'anthropic:claude' is not allowed (allowed: 'extractive', "
        "'openai:gpt-4.1-mini', 'openai:house-model')",
        "embeddings 'openai:text-embedding-3-small' is not allowed (allowed: 'local', 'none')",
        "retrievers 'tavily' is not allowed (allowed: 'auto', 'local', 'urls')",
        "max_pages may be at most 100 on this server, got 101",
        "run_deadline 0 (no limit) is above the server's ceiling of 1800",
        "search_concurrency may be at most 8 on this server, got 9",
    ):
        assert said in message


def test_a_registered_folder_is_named_not_given_as_a_path(operator: ServerPolicy) -> None:
    assert "corpus" in refusal(operator, {"corpus": str(EXAMPLE_CORPUS)})
    assert "corpus" in refusal(operator, {"corpus": "docs/../.."})
    assert operator.admit({"corpus": ""}).corpus == ""  # no corpus at all


def test_what_auto_picks_must_be_allowed_too(
    operator: ServerPolicy, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The operator's `retrievers` is 'auto' (not set): with Tavily's key in the
    environment and no corpus, it would search with Tavily, which the list leaves out."""
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-operator")
    assert operator.admit({}).retriever_names == ["local"]  # the operator's corpus
    assert refusal(operator, {"corpus": ""}) == (
        "not allowed on this server: retrievers 'auto' means tavily here, which is not "
        "allowed (allowed: 'auto', 'local', 'urls')"
    )


def test_no_limit_is_allowed_only_under_no_ceiling(tmp_path: Path) -> None:
    unlimited = policy("[settings]\nmax_searches = 0\n", tmp_path)
    assert unlimited.admit({"max_searches": 0}).max_searches == 0
    assert unlimited.admit({"max_searches": 10**6}).max_searches == 10**6

    capped = policy("[settings]\nmax_searches = 20\n[ceilings]\nmax_searches = 50\n", tmp_path)
    assert capped.admit({"max_searches": 50}).max_searches == 50
    assert "max_searches 0 (no limit) is above" in refusal(capped, {"max_searches": 0})


def test_a_value_outside_its_declaration_or_unknown_is_refused(operator: ServerPolicy) -> None:
    assert refusal(operator, {"max_pages": "9"}) == "max_pages must be a whole number, got '9'"
    assert refusal(operator, {"max_page": 9}) == "unknown option(s): max_page"
    assert refusal(operator, {"writer_context_tokens": 100}).startswith("writer_context_tokens")


def test_a_context_object_asks_for_what_differs_from_the_defaults(
    operator: ServerPolicy,
) -> None:
    assert operator.admit(Context(max_rounds=1)).max_rounds == 1
    assert operator.admit(Context()).corpus == operator.settings.corpus
    assert "cache_dir" in refusal_of_context(operator, Context(cache_dir="/tmp/mine"))


def refusal_of_context(operator: ServerPolicy, context: Context) -> str:
    with pytest.raises(RunRefused) as caught:
        operator.admit(context)
    return str(caught.value)


def test_a_refusal_is_a_value_error_whose_message_a_server_shows() -> None:
    """langgraph-api shows the caller a ValueError's message, hides other exceptions'."""
    assert issubclass(RunRefused, ValueError) and issubclass(RunRefused, ConfigurationError)


# -- where runs meet it ----------------------------------------------------------------


def test_the_served_graph_refuses_before_any_node_runs(
    operator: ServerPolicy, tmp_path: Path
) -> None:
    from grounded_research.graph import builder

    served = builder.compile(name="researcher", policy=operator)
    copied = served.copy(update={"checkpointer": None})  # what the server runs

    assert copied.policy is operator
    with pytest.raises(RunRefused, match="cache_dir is set by the server's operator"):
        copied.invoke({"question": "Anything?"}, context={"cache_dir": str(tmp_path / "mine")})
    assert not (tmp_path / "mine").exists()
    run = RunContext.start({"corpus": "solid-state"}, operator)
    assert run.corpus == str(EXAMPLE_CORPUS) and run.resources.context is run


def test_python_and_the_cli_keep_full_control(tmp_path: Path) -> None:
    from grounded_research.graph import graph

    assert graph.policy is None
    run = RunContext.start({"corpus": str(tmp_path), "cache_dir": str(tmp_path / "c")})
    assert (run.corpus, run.cache_dir) == (str(tmp_path), str(tmp_path / "c"))


def test_the_server_reads_the_policy_when_it_starts(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import grounded_research.server as server

    write(tmp_path, "server.toml", "[ceilings]\nmax_pages = 1\n")
    monkeypatch.setenv(CONFIG_VARIABLE, str(tmp_path / "server.toml"))
    try:
        with pytest.raises(ConfigurationError, match=r"is above ceilings\.max_pages"):
            importlib.reload(server)
        write(tmp_path, "server.toml", '[allowed]\nmodels = ["openai:x"]\n')
        assert importlib.reload(server).graph.policy.allowed["models"] == {"openai:x", "extractive"}
    finally:
        monkeypatch.delenv(CONFIG_VARIABLE)
        importlib.reload(server)


def test_the_deployment_guide_lists_each_knob_under_its_rule() -> None:
    """docs/deployment.md's "Trust boundary" table is the rules in `configuration.py`."""
    from tests.conftest import ROOT

    guide = (ROOT / "docs" / "deployment.md").read_text()
    section = guide.split("## Trust boundary", 1)[1].split("\n## ", 1)[0]
    rows = {
        cells[1].strip(): set(re.findall(r"`(\w+)`", cells[2])) & set(KNOBS)
        for line in section.splitlines()
        if len(cells := line.split("|")) == 4 and "`" in cells[2]
    }
    kinds: dict[str, type | None] = {
        "operator only": OperatorOnly,
        "a registered name": Registered,
        "from a list": FromList,
        "up to a ceiling": Ceiling,
        "the caller's": None,
    }
    assert set(rows) == set(kinds)
    for row, kind in kinds.items():
        declared = {
            name
            for name, spec in KNOBS.items()
            if (kind is None and server_rule(spec) is None)
            or (kind is not None and isinstance(server_rule(spec), kind))
        }
        assert rows[row] == declared, row
