"""The trust boundary of a served graph, through a real `langgraph dev` and langgraph-sdk,
as a caller would cross it: the operator's keys, files and network stay the operator's.

The operator registered the example corpus, keeps its cache in a folder of its own,
allows one model (served by a local OpenAI-compatible server, its key in the server's
environment) and caps the run's pages. A catcher on 127.0.0.1 stands in for the
caller's host: whatever a run asks, it must never receive a request, let alone a key.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import EXAMPLE_CORPUS
from tests.integration.langgraph_dev import LANGGRAPH, langgraph_dev, toml_string
from tests.integration.openai_server import Script, openai_compatible_server
from tests.servers import Server, serve

langgraph_sdk = pytest.importorskip("langgraph_sdk")
pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(not LANGGRAPH.exists(), reason="langgraph-cli not installed"),
]

OPENAI_KEY = "sk-operator-secret-openai"
TAVILY_KEY = "tvly-operator-secret"
MODEL = "openai:operator-model"
QUESTION = (
    "When will Aurora Cellworks' Aurora A1 solid-state cells reach series production, "
    "and what energy density do they achieve?"
)


class Operator:
    """What the operator set up: its model server, its cache folder, the caller's host."""

    def __init__(self, url: str, model: Script, cache: Path, catcher: Server) -> None:
        self.url = url
        self.model = model
        self.cache = cache
        self.catcher = catcher

    def run(self, configurable: dict[str, Any], **options: Any) -> dict[str, Any]:
        """One run on a new thread, its final values or `__error__`."""
        client = langgraph_sdk.get_sync_client(url=self.url)
        thread = client.threads.create()
        values = client.runs.wait(
            thread["thread_id"],
            options.pop("assistant_id", "researcher"),
            input={"question": QUESTION},
            config={"configurable": configurable},
            raise_error=False,
            **options,
        )
        assert isinstance(values, dict)
        return values

    def refused(self, configurable: dict[str, Any], **options: Any) -> str:
        """The one-line message a run that must be refused gets."""
        values = self.run(configurable, **options)
        assert "__error__" in values, values
        assert values["__error__"]["error"] == "RunRefused"
        message = str(values["__error__"]["message"])
        assert message.startswith("not allowed on this server: ") and "\n" not in message
        return message


def keys_in(host: Server) -> list[str]:
    """The operator's keys found in what `host` received, headers or bodies."""
    received = [str(r.headers).encode() + r.body for r in host.requests]
    return [key for key in (OPENAI_KEY, TAVILY_KEY) if any(key.encode() in r for r in received)]


@pytest.fixture(scope="module")
def operator(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Operator]:
    folder = tmp_path_factory.mktemp("trust")
    cache = folder / "operator-cache"
    with (
        serve({}) as catcher,
        openai_compatible_server(Script(stall_seconds=0.0)) as (model_url, script),
    ):
        policy = f"""
            [corpora]
            solid-state = {toml_string(EXAMPLE_CORPUS)}
            [settings]
            cache_dir = {toml_string(cache)}
            base_url = {toml_string(model_url)}
            embeddings = "none"
            max_pages = 10
            [allowed]
            models = ["extractive", "{MODEL}"]
            [ceilings]
            max_pages = 20
        """
        keys = {"OPENAI_API_KEY": OPENAI_KEY, "TAVILY_API_KEY": TAVILY_KEY, "OPENAI_BASE_URL": ""}
        with langgraph_dev(folder, policy, keys) as url:
            yield Operator(url, script, cache, catcher)
        assert not catcher.requests, "the caller's host was reached"


def test_a_registered_corpus_and_an_allowed_model_work(operator: Operator) -> None:
    values = operator.run({"corpus": "solid-state", "model": MODEL, "max_pages": 20})

    assert values.get("status") == "ok", values
    assert "Aurora" in values["report"]
    assert values["usage"]["llm_calls"] > 0
    assert operator.model.authorizations  # the operator's model server, with its key
    assert set(operator.model.authorizations) == {f"Bearer {OPENAI_KEY}"}
    assert any(operator.cache.rglob("*")), "the index is in the operator's cache"


@pytest.mark.parametrize(
    ("configurable", "field"),
    [
        ({"model": MODEL, "base_url": "{catcher}/v1"}, "base_url"),
        ({"retrievers": "tavily", "tavily_base_url": "{catcher}"}, "tavily_base_url"),
        (
            {
                "corpus": "solid-state",
                "selection_strategy": "embeddings",
                "embeddings_base_url": "{catcher}/v1",
            },
            "embeddings_base_url",
        ),
    ],
)
def test_no_key_goes_to_a_host_the_caller_names(
    operator: Operator, configurable: dict[str, Any], field: str
) -> None:
    catcher = operator.catcher.url("").rstrip("/")
    asked = {k: v.format(catcher=catcher) for k, v in configurable.items()}
    calls_before = len(operator.model.authorizations)

    values = operator.run(asked)

    assert not keys_in(operator.catcher), "a key went to the caller's host"
    assert not operator.catcher.requests
    assert len(operator.model.authorizations) == calls_before  # nothing started at all
    assert values.get("__error__", {}).get("error") == "RunRefused", values
    assert (
        f"{field} is set by the server's operator, not by a run" in values["__error__"]["message"]
    )


def test_a_model_off_the_operators_list_is_refused(operator: Operator) -> None:
    message = operator.refused({"corpus": "solid-state", "writer_model": "openai:gpt-4o"})

    assert "writer_model 'openai:gpt-4o' is not allowed" in message
    assert f"'{MODEL}'" in message  # what the caller may choose instead


def test_an_unregistered_folder_cannot_be_read(operator: Operator, tmp_path: Path) -> None:
    secrets = tmp_path / "secrets"
    secrets.mkdir()
    (secrets / "passwords.md").write_text("# Passwords\n\nThe root password is hunter2-xyz.\n")

    for corpus in (str(secrets), str(EXAMPLE_CORPUS), "../secrets"):
        message = operator.refused({"corpus": corpus})
        assert f"corpus {corpus!r} is not one of the server's corpora (solid-state)" in message
        assert "hunter2" not in message
    kept = [path for path in operator.cache.rglob("*") if path.is_file()]
    assert not any(b"hunter2" in path.read_bytes() for path in kept)


def test_a_cache_cannot_be_written_outside_the_operators(
    operator: Operator, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "callers-cache"

    message = operator.refused({"corpus": "solid-state", "cache_dir": str(elsewhere)})

    assert "cache_dir is set by the server's operator" in message
    assert not elsewhere.exists()


def test_the_ssrf_guard_cannot_be_switched_off(operator: Operator) -> None:
    page = operator.catcher.url("/internal/admin")

    message = operator.refused(
        {"retrievers": "urls", "urls": [page], "allow_private_network": True}
    )
    assert "allow_private_network is set by the server's operator" in message

    values = operator.run({"retrievers": "urls", "urls": [page]})  # allowed, and guarded
    assert "__error__" not in values, values
    [source] = values["sources"].values()
    assert source["status"] == "blocked"
    assert not operator.catcher.requests


def test_limits_above_the_operators_ceilings_are_refused(operator: Operator) -> None:
    message = operator.refused(
        {"corpus": "solid-state", "max_pages": 21, "run_deadline": 0, "fetch_concurrency": 64}
    )

    assert "max_pages may be at most 20 on this server, got 21" in message
    assert "run_deadline 0 (no limit) is above the server's ceiling of 900" in message
    assert "fetch_concurrency may be at most 8 on this server, got 64" in message


def test_an_assistant_cannot_carry_what_a_run_may_not_set(
    operator: Operator, tmp_path: Path
) -> None:
    """Assistants are made through the same API as runs: their context is a caller's."""
    client = langgraph_sdk.get_sync_client(url=operator.url)
    assistant = client.assistants.create(
        "researcher", context={"corpus": "solid-state", "cache_dir": str(tmp_path / "mine")}
    )

    message = operator.refused({}, assistant_id=assistant["assistant_id"])

    assert "cache_dir is set by the server's operator" in message
    assert not (tmp_path / "mine").exists()
