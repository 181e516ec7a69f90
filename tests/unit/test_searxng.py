"""Reading SearXNG's JSON answer: which results become pages to fetch."""

from __future__ import annotations

from typing import Any

import pytest

from grounded_research.configuration import Context
from grounded_research.retrieval.searxng import result_links


def test_the_first_web_results_each_once_with_their_titles() -> None:
    answer = {
        "results": [
            {"url": "https://a.example/1", "title": "One"},
            {"url": "https://a.example/1", "title": "One again"},
            {"url": "ftp://files.example/x", "title": "not the web"},
            {"url": "javascript:alert(1)", "title": "not the web either"},
            {"title": "no url"},
            "not a result",
            {"url": " http://b.example/2 ", "title": None},
            {"url": "https://c.example/3", "title": "Three"},
        ]
    }
    assert result_links(answer, 2) == [("https://a.example/1", "One"), ("http://b.example/2", "")]
    assert len(result_links(answer, 10)) == 3


@pytest.mark.parametrize("answer", [None, [], {"results": None}, {"results": "x"}, "<html>"])
def test_an_answer_of_another_shape_has_no_results(answer: Any) -> None:
    assert result_links(answer, 5) == []


def test_auto_searches_searxng_when_its_url_is_all_there_is() -> None:
    assert Context(searxng_url="http://127.0.0.1:8888").retriever_names == ["searxng"]
    both = Context(searxng_url="http://127.0.0.1:8888", corpus="docs")
    assert both.retriever_names == ["local"]
    assert Context(retrievers="searxng").retriever_problem() == (
        "the searxng retriever needs --searxng-url URL"
    )
