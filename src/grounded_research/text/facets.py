"""The terms an answer must touch, read off the question."""

from __future__ import annotations

import re

from grounded_research.text.tokenize import content_words, has_cjk

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
        "come",  # "Debian 12 comes with which version of X.Org?": "ships with 7.7" answers
        "comes",
        "came",
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
FROM_WHEN_ON = re.compile(
    r"^\s*(?:since|as of|starting (?:with|from|in)|beginning (?:with|in))\s+"
    r"(?=(?:which|what|when)\b)",
    re.IGNORECASE,
)


# The words that order two things by when they came: a comparison's form. The sources
# date each side, and none says "first". (A one-character word, "先", is no content word
# to begin with.)
_ORDER_WORDS = ("first", "earlier", "older", "newer", "later", "sooner")
_ZH_ORDER_WORDS = ("更早", "更晚", "在前")
_NOT_FACETS = frozenset((*_ORDER_WORDS, *_ZH_ORDER_WORDS, "vs", "versus"))
_ORDER = "|".join(_ORDER_WORDS)
# A question that compares two things by when they came ("Which came first, A or B?").
COMPARISON = re.compile(
    rf"\bwhich\b[^?]*\b(?:{_ORDER}|before|after)\b[^?]*\bor\b|"
    rf"\b(?:{_ORDER})\b[^?]*,[^?]*\bor\b|"
    rf"\b(?:vs|versus)\b[^?]*\b(?:{_ORDER})\b|"  # "A vs B: which …"
    rf"\bor\b[^?]*\bwhich\b[^?]*\b(?:{_ORDER})\b|"  # "A or B - which came first?"
    # "Did A or B come out earlier?", "Did CMake get A before or after B?"
    rf"^\W*(?:did|was|were|is|are|does|do)\b[^?]*\bor\b[^?]*\b(?:{_ORDER})\b|"
    r"\bbefore\s+or\s+after\b|"
    # "Did A arrive in Requests before B, or the other way around?": what came first
    r"^\W*(?:did|was|were|had)\b[^?]*\b(?:before|after|earlier\s+than|later\s+than)\b|"
    r"哪个(?:先|早|更早|更晚|在前)|谁(?:先|更早)|先于|早于|晚于|先出现|更早|更晚|"
    r"先\w{0,6}哪(?:一)?个",
    re.IGNORECASE,
)


# The nouns a question asks for a date with ("What day did Python 2.0 come out?", "In which
# year …"): the kind of its answer, which a dated sentence need not say.
DATE_ASKED_WITH = ("day", "year", "month")


# Everyday words for a release: "When did Django 2.2 come out?", "On which day did Sphinx
# 5.0.2 ship?" ask what release notes call the date it was released ("ships X.Org 7.7"
# tells what a release holds, not when it came).
_RELEASED_IN_OTHER_WORDS = re.compile(
    r"\b(?:come|came|comes|coming)\s+out\b|\b(?:launch|launched)\b", re.IGNORECASE
)
_SHIPPED = re.compile(
    r"\b(?:ship|ships|shipped)\b(?=\s*(?:[?.!]|$|first\b|earlier\b|later\b))", re.IGNORECASE
)
# "Which X.Org version does Debian 12 ship?": what is shipped comes first; the question
# asks what a release holds, not when it came ("On which day did Sphinx 5.0.2 ship?").
_ASKS_WHAT_SHIPS = re.compile(
    rf"^\W*(?:which|what)\s+(?!(?:{'|'.join(DATE_ASKED_WITH)}|date|time)\b)[^\W\d_][^?]*?"
    r"\b(?:does|do|did|will|would)\b[^?]*\bship(?:s|ped)?\b",
    re.IGNORECASE,
)


# A default asked for without the word: "unless told otherwise", "if I don't set it",
# "when you don't specify one", "if none is configured", "when you leave it out", "out
# of the box", "如果不改".
LEFT_UNSET = (
    r"\bunless (?:configured|set|told|specified) otherwise\b|"
    r"\b(?:when|if)\s+(?:left\s+)?(?:not set|unset|not specified|unspecified|not given|"
    r"not configured|unconfigured|omitted|left out)\b|"
    r"\b(?:when|if)\s+(?:none|nothing)\s+is\s+(?:set|configured|specified|given|chosen|"
    r"picked|selected)\b|"
    r"\b(?:when|if)\s+(?:it|this|that|they|(?:that|the)\s+\w+)\s+"
    r"(?:is\s+not|are\s+not|isn['’]t|aren['’]t|ha(?:s|ve)\s+not\s+been|ha(?:s|ve)n['’]t\s+been)\s+"
    r"(?:set|configured|specified|given)\b|"
    r"\b(?:(?:when|if|unless)\s+(?:i|you|we|one)|and)\s+(?:do\s+not|don['’]t|never)\s+"
    r"(?:set|change|specify|configure|pick|choose|give|pass|provide|supply)\b|"
    r"\b(?:when|if)\s+(?:i|you|we|one)\s+leave\s+(?:it|them|this|that)\s+"
    r"(?:out|alone|unset|empty|blank)\b|\bout of the box\b|"
    r"(?:如果|要是)?(?:不改|不设置|不指定|不配置|没有?(?:设置|指定|配置))"
)
_LEFT_UNSET_WORDS = re.compile(LEFT_UNSET, re.IGNORECASE)


def in_default_words(text: str) -> str:
    """The question with its everyday words for a default as documentation words it
    ("unless told otherwise", "out of the box", "如果不改" read as "default", "默认"): what
    an answer says is "**Default:** `2`", not "otherwise"."""
    return _LEFT_UNSET_WORDS.sub(
        lambda found: " 默认 " if has_cjk(found.group(0)) else " default ", text
    )


def in_release_words(text: str) -> str:
    """The question with its everyday words for a release as release notes word it
    ("came out" read as "released")."""
    text = _RELEASED_IN_OTHER_WORDS.sub("released", text)
    return text if _ASKS_WHAT_SHIPS.match(text) else _SHIPPED.sub("released", text)


_ASKED_WHEN = re.compile(rf"\b(what|which)\s+(?:{'|'.join(DATE_ASKED_WITH)})\b", re.IGNORECASE)


def facets_of(text: str) -> list[str]:
    """The terms an answer must touch: the question's content words, minus question words,
    the words that open it before them (`FROM_WHEN_ON`) and a comparison's order words
    (`COMPARISON`), the noun a date is asked with (`_ASKED_WHEN`); a release as release
    notes word it (`in_release_words`), a default as docs do (`in_default_words`)."""
    text = _ASKED_WHEN.sub(r"\1", in_release_words(in_default_words(text)))
    words = [w for w in content_words(FROM_WHEN_ON.sub("", text)) if w not in QUESTION_WORDS]
    if COMPARISON.search(text):
        return [w for w in words if w.lower() not in _NOT_FACETS]
    return words
