"""The terms an answer must touch, read off the question."""

from __future__ import annotations

import re

from grounded_research.text.tokenize import content_words

QUESTION_WORDS = frozenset(
    [
        "what",
        "which",
        "who",
        "whom",
        "whose",
        "when",
        "where",
        "why",
        "how",
        "does",
        "do",
        "did",
        "is",
        "are",
        "was",
        "were",
        "can",
        "could",
        "should",
        "would",
        "will",
        "much",
        "many",
        "kind",
        "type",
        "achieve",
        "achieved",
        "reach",
        "get",
        "make",
        "made",
        "say",
        "said",
        "give",
        "known",
        "name",
        "named",
        "called",
        "什么",
        "哪些",
        "哪个",
        "多少",
        "如何",
        "怎么",
        "何时",
        "为什么",
        "达到",
    ]
)


# What opens a question before its question word and asks no more than "in" does ("Since
# which version …", "As of what date …", "Starting with which release …"): the question's
# form, not a word its answer says; "deprecated since version 3.0" answers it no better.
_FROM_WHEN_ON = re.compile(
    r"^\s*(?:since|as of|starting (?:with|from|in)|beginning (?:with|in))\s+"
    r"(?=(?:which|what|when)\b)",
    re.IGNORECASE,
)


def facets_of(text: str) -> list[str]:
    """The terms an answer must touch: the question's content words, minus question words
    and the words that open it before them (`_FROM_WHEN_ON`)."""
    return [w for w in content_words(_FROM_WHEN_ON.sub("", text)) if w not in QUESTION_WORDS]
