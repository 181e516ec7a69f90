"""Search tokens for BM25: English words stemmed, Chinese segmented with jieba.

A whitespace tokenizer turns a Chinese sentence into one giant token that no query
ever matches; jieba's search-mode cut gives words and their parts.
"""

from __future__ import annotations

import logging
import re
from functools import cache
from typing import TYPE_CHECKING

import Stemmer

if TYPE_CHECKING:
    from types import ModuleType

_CJK = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_KANA = r"\u3040-\u30ff"
_TOKEN = re.compile(rf"[{_CJK}{_KANA}]+|[^\W_]+(?:['’][^\W_]+)*")
# In search tokens a dotted number is one token, so that a version or release matches
# exactly: "3.11" is neither "3.11.0" nor "3" and "11", "15" is not "15.15". Letters glued
# to it are a word of their own ("python3.11" is "python" and "3.11"), except the "v" of
# "v2.1".
_VERSION = r"[^\W\d_]*\d+(?:\.\d+)+"
_SEARCH_TOKEN = re.compile(rf"[{_CJK}{_KANA}]+|{_VERSION}(?![^\W_])|[^\W_]+(?:['’][^\W_]+)*")
_GLUED = re.compile(r"([^\W\d_]+)(\d.*)")
_HAS_CJK = re.compile(rf"[{_CJK}{_KANA}]")
_KANA_ONLY = re.compile(rf"[{_KANA}]")

STOPWORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "also",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "me",
        "more",
        "most",
        "my",
        "myself",
        "no",
        "nor",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "s",
        "t",
        "don",
        "now",
        "whose",
        "does",
        "did",
        "many",
        "much",
        "one",
        "ones",
        "what's",
        "who's",
        "的",
        "了",
        "和",
        "是",
        "在",
        "也",
        "及",
        "与",
        "或",
        "等",
        "将",
        "把",
        "被",
        "之",
        "其",
        "这",
        "那",
        "有",
        "于",
        "为",
        "吗",
        "呢",
        "吧",
        "啊",
        "什么",
        "哪些",
        "哪个",
        "多少",
        "如何",
        "怎么",
    ]
)


@cache
def _stemmer() -> Stemmer.Stemmer:
    return Stemmer.Stemmer("english")


@cache
def _jieba() -> ModuleType:
    """jieba with its dictionary loaded: imported, and its 60 MiB dictionary read, only
    when a text holds Chinese."""
    import jieba

    jieba.setLogLevel(logging.WARNING)
    jieba.initialize()
    module: ModuleType = jieba
    return module


def has_cjk(text: str) -> bool:
    return _HAS_CJK.search(text) is not None


def cjk_spaced(text: str) -> str:
    """The text with a space where a CJK character meets a Latin letter or a digit:
    Chinese writes names against its words ("Intel无线网卡是 firmware-iwlwifi"), and a
    regular expression's word (`\\w`) runs on through them."""
    return _CJK_EDGE.sub(" ", text) if has_cjk(text) else text  # most text has none


_CJK_EDGE = re.compile(rf"(?<=[{_CJK}{_KANA}])(?=[A-Za-z0-9])|(?<=[A-Za-z0-9])(?=[{_CJK}{_KANA}])")


def words(text: str) -> list[str]:
    """Lower-cased words and CJK terms, stopwords kept, nothing stemmed, dotted numbers
    split (reprints compare texts by these)."""
    return _words(text, _TOKEN)


def _words(text: str, pattern: re.Pattern[str], search: bool = True) -> list[str]:
    out: list[str] = []
    for match in pattern.finditer(text):
        piece = match.group(0)
        if _HAS_CJK.match(piece):
            out.extend(_cjk_terms(piece, search))
        elif "." in piece and (glued := _GLUED.fullmatch(piece.lower())):
            prefix, number = glued.groups()
            out.extend([number] if prefix == "v" else [prefix, number])
        else:
            out.append(piece.lower())
    return out


def tokenize(text: str) -> list[str]:
    """Index/query tokens: stopwords dropped, English stemmed, dotted numbers whole."""
    stemmer = _stemmer()
    tokens: list[str] = []
    for word in _words(text, _SEARCH_TOKEN):
        if word in STOPWORDS:
            continue
        tokens.append(word if has_cjk(word) else stemmer.stemWord(word))
    return tokens


def option_names(text: str) -> list[str]:
    """The command-line options of a text whose names join words, each name whole as a
    search token: "--napi-modules" is "napi-modules", besides `tokenize`'s "napi" and
    "modul", words common in a manual of its kind ("napi_module_register") where the
    name whole is rare."""
    if "-" not in text:
        return []
    return [m.group(1).lower() for m in _OPTION.finditer(text) if _LETTER.search(m.group(1))]


# An option's name: its dashes, not after a letter or a digit, then joined words.
_OPTION = re.compile(r"(?<![^\W_])--?([^\W_]+(?:[-_.][^\W_]+)+)")
_LETTER = re.compile(r"[^\W\d_]")


def content_words(text: str) -> list[str]:
    """Words that carry meaning (no stopwords), unstemmed, in order, once each; a dotted
    number is one word, as in `tokenize` (a facet "15.15" is covered by "15.15", not by
    "15"). Chinese is cut into the dictionary's words, not into search terms: not the
    parts of a longer word ("务器" of "服务器") nor a guess at a word unknown to it
    ("名是" of "设备名是什么"), which no passage says."""
    cut = _words(text, _SEARCH_TOKEN, search=False)
    return list(dict.fromkeys(w for w in cut if not is_stopword(w) and len(w) > 1))


# What a stopword is contracted with: "I'm", "what's", "don't", "shouldn't", "they've".
_CONTRACTED = re.compile(r"([^\W_]+?)(n)?['’](s|m|re|ve|ll|d|t)", re.IGNORECASE)


def is_stopword(word: str) -> bool:
    """A stopword, or one contracted ("i'm", "what’s", "don't"): a possessive
    ("django's") is its name's."""
    if word in STOPWORDS:
        return True
    contracted = _CONTRACTED.fullmatch(word)
    if contracted is None:
        return False
    head, n, tail = contracted.groups()
    if n and tail.lower() == "t":  # "don't", "shouldn't", "can't"
        return head.lower() in STOPWORDS or f"{head}n".lower() in STOPWORDS
    return f"{head}{n or ''}".lower() in STOPWORDS


def _cjk_terms(run: str, search: bool = True) -> list[str]:
    """A run of CJK text as search terms (`search`: a long word and its parts, words the
    dictionary lacks guessed), or as the dictionary's words."""
    if _KANA_ONLY.search(run):
        # jieba has no Japanese dictionary: overlapping character bigrams still match.
        return [run[i : i + 2] for i in range(max(1, len(run) - 1))]
    terms = _jieba().lcut_for_search(run) if search else _jieba().lcut(run, HMM=False)
    return [term for term in terms if term.strip()]
