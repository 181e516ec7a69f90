"""The terms an answer must touch, read off the question."""

from __future__ import annotations

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


def facets_of(text: str) -> list[str]:
    """The terms an answer must touch: the question's content words, minus question words."""
    return [w for w in content_words(text) if w not in QUESTION_WORDS]
