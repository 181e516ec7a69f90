"""`Context`: every knob declared once (type, choices, bounds, help), values checked
against those declarations, and the same declarations in Studio's schema."""

from __future__ import annotations

from dataclasses import fields
from typing import Any, Literal, get_args, get_origin, get_type_hints

import pytest

from grounded_research.configuration import Context
from grounded_research.errors import ConfigurationError
from grounded_research.graph import graph

TYPES = get_type_hints(Context)
KNOBS = {spec.name: spec for spec in fields(Context)}


def bad_values() -> list[tuple[str, Any, str]]:
    """A value outside each field's declaration, and the start of the error it earns,
    made from the declarations themselves."""
    cases: list[tuple[str, Any, str]] = []
    for name, spec in KNOBS.items():
        declared = TYPES[name]
        if get_origin(declared) is Literal:
            cases.append((name, "no-such-choice", f"{name} must be one of"))
            continue
        wrong_type = [] if declared is str else "3"
        cases.append((name, wrong_type, f"{name} must be "))
        if "ge" in spec.metadata:
            below = spec.metadata["ge"] - 1
            cases.append((name, declared(below), f"{name} must "))
        if "gt" in spec.metadata:
            cases.append((name, declared(spec.metadata["gt"]), f"{name} must be positive"))
    return cases


@pytest.mark.parametrize(("name", "value", "message"), bad_values())
def test_a_value_outside_its_declaration_is_one_clear_line(
    name: str, value: Any, message: str
) -> None:
    with pytest.raises(ConfigurationError) as caught:
        Context(**{name: value})
    assert str(caught.value).startswith(message)
    assert "\n" not in str(caught.value)
    with pytest.raises(ConfigurationError, match=name):
        Context.from_mapping({name: value})


def test_bounds_and_choices_themselves_are_accepted() -> None:
    for name, spec in KNOBS.items():
        declared = TYPES[name]
        if get_origin(declared) is Literal:
            for choice in get_args(declared):
                assert getattr(Context(**{name: choice}), name) == choice
        if "ge" in spec.metadata:
            assert (
                getattr(Context(**{name: declared(spec.metadata["ge"])}), name)
                == (spec.metadata["ge"])
            )


def test_messages_keep_their_wording() -> None:
    with pytest.raises(ConfigurationError, match=r"^token_budget must be at least 1, got 0$"):
        Context(token_budget=0)
    with pytest.raises(ConfigurationError, match=r"^max_rounds must not be negative, got -1$"):
        Context(max_rounds=-1)
    with pytest.raises(ConfigurationError, match=r"^fetch_timeout must be positive, got 0$"):
        Context(fetch_timeout=0)
    with pytest.raises(ConfigurationError, match=r"^tavily_topic must be one of 'general', "):
        Context(tavily_topic="sports")
    with pytest.raises(ConfigurationError, match=r"^max_rounds must be a whole number, got '2'$"):
        Context(max_rounds="2")
    assert Context(model_timeout=7).model_timeout == 7  # a whole number is a number


def test_unknown_names_are_rejected() -> None:
    with pytest.raises(ConfigurationError, match=r"unknown option\(s\): max_round, topic"):
        Context.from_mapping({"max_round": 1, "topic": "news", "max_rounds": 1})
    assert Context.from_mapping({"max_rounds": None}).max_rounds == Context().max_rounds


def test_studio_schema_shows_choices_bounds_and_help() -> None:
    schema = graph.get_context_jsonschema()["properties"]
    assert list(schema) == list(KNOBS)
    for name, spec in KNOBS.items():
        declared = TYPES[name]
        assert schema[name]["description"] == spec.metadata["description"]
        if get_origin(declared) is Literal:
            assert schema[name]["enum"] == list(get_args(declared))
        if "ge" in spec.metadata:
            assert schema[name]["minimum"] == spec.metadata["ge"]
        if "gt" in spec.metadata:
            assert schema[name]["exclusiveMinimum"] == spec.metadata["gt"]
    assert schema["selection_strategy"]["enum"] == [
        "auto",
        "none",
        "keyword",
        "embeddings",
        "hybrid",
    ]
    assert schema["token_budget"]["minimum"] == 1


def test_a_path_is_taken_where_a_folder_is_asked_for() -> None:
    from pathlib import Path

    context = Context(corpus=Path("/some/corpus"), cache_dir=Path("/some/cache"))

    assert (context.corpus, context.cache_dir) == ("/some/corpus", "/some/cache")
