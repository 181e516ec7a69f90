"""What a passage is about, besides its own words: the fields of a search.

A passage of documentation rarely names what it belongs to: the notes of "Release 15"
list changes without saying "15", the page on MERGE is one of a thousand pages of
PostgreSQL that never say "PostgreSQL". Its document's title, the path of headings above
it (all of them, "Release 15 > Changes > Server", not only the nearest) and the file's
path and name do. Each is a field of the passage with its own weight in a BM25F
(`bm25f`).

Names in the query (products, commands, versions: "PostgreSQL", "MERGE", "3.11") are
strong evidence of what a document is about when a field holds them: a page of Django
that mentions PostgreSQL in passing is not about PostgreSQL. A passage gains
NAME_BOOST for the share of the query's names that its fields hold, counting only names
that the fields of many passages and documents hold (NAME_MIN_SHARE, NAME_MIN_DOCUMENTS):
those BM25 underrates.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence

import numpy as np

from grounded_research.retrieval import bm25f
from grounded_research.text.answers import asked_dimension, identifiers, mentions_identifier
from grounded_research.text.facets import in_release_words
from grounded_research.text.facts import without_possessive
from grounded_research.text.tokenize import STOPWORDS, option_names, tokenize

# BM25F weights: one occurrence in the field counts as this many in the passage's text.
# "options": the options a passage names whole (`option_tokens`), a field of their own
# so that the text's length, and so every other word's weight, stays as it was.
FIELD_WEIGHTS = {"body": 1.0, "heading": 1.0, "title": 1.0, "path": 0.5, "options": 1.0}
NAME_FIELDS = ("heading", "title", "path")  # where a name says what a passage is about
NAME_BOOST = 1.0  # at most: a passage whose fields hold every name of the query
# A name is a category of the corpus when the fields of at least this share of its
# passages hold it ("postgresql" in the path of a third of the Debian docs): BM25 gives
# it little weight for being common, yet a question naming it asks about that part of the
# corpus. A rarer name (an entity's title) needs no boost, its IDF does the work, and
# boosting it would lift its namesakes (HotpotQA's distractors) over the passage that
# answers.
NAME_MIN_SHARE = 0.03
# ... and of at least this many documents: in a small corpus (the example set's 13
# files) one document is already 3% of it, and a company named in five file names is a
# subject, not a part of the corpus.
NAME_MIN_DOCUMENTS = 50
# A code name of the query ("work_mem", "isqrt()") that a passage's headings name whole:
# the passage is that setting's or function's own entry, not one of its namesakes
# (autovacuum_work_mem), which share all its words. Checked among the best
# CODE_POOL x k passages, the words alone having found the entry's page.
CODE_BOOST = 1.0
CODE_POOL = 20
# A product is named on nearly every page of its documentation, in text if not in its
# file names: every manual page of libssl-doc says "OpenSSL", none of its paths does.
# A top folder of the corpus (a Debian package's, libssl-doc/…) of at least
# FOLDER_MIN_DOCUMENTS documents, at least FOLDER_SHARE of whose documents say a name,
# when at most FOLDER_OTHERS_SHARE of the other top folders' documents do, is named by
# it: its passages hold the name as their path would (`folder_held`). Only a coined
# name counts, one written in mixed case ("OpenSSL", "CMake"): a plain word ("Server"
# of the Server header), an acronym ("HTTP") or a version ("2.4") is said on every page
# of a web server's manual without naming what the manual is of.
FOLDER_MIN_DOCUMENTS = 20
FOLDER_SHARE = 0.9
FOLDER_OTHERS_SHARE = 0.1

# The names documentation gives a size and a time under.
DIMENSION_NAMES = {"size": ("maximum", "size"), "time": ("time", "timeout")}
# A word of a question and the words documentation writes for it, as search tokens:
# "which version added RIGHT JOIN" asks what a changelog lists under "Release 3.39.0";
# "a large database" what a page of limits gives as its "maximum size". The other
# words count SYNONYM_WEIGHT of the question's.
SYNONYMS = {
    "version": ("releas",),
    "big": DIMENSION_NAMES["size"],
    "larg": DIMENSION_NAMES["size"],
    "largest": ("maximum",),
    "biggest": ("maximum",),
}
SYNONYM_WEIGHT = 0.5
# "How big can a database get?", "how long does it wait?": the word after "how" says in
# which dimension the answer is, and documentation gives it under that dimension's name
# ("Maximum Database Size", "timeout"), where the word itself is another's ("big-endian",
# "long lines"). Asked so, the word's weight goes to those names. A question asking in a
# size or a time otherwise ("how much time does it give", "how many megabytes", "多久":
# `asked_dimension`) has the dimension's names searched too, at SYNONYM_WEIGHT.
DIMENSIONS = {
    "big": DIMENSION_NAMES["size"],
    "larg": DIMENSION_NAMES["size"],
    "long": DIMENSION_NAMES["time"],
    "often": ("interval", "frequency"),
    "deep": ("depth",),
    "many": ("number",),
}
_HOW = re.compile(r"\bhow\s+(\w+)", re.IGNORECASE)

# "E.21.3.1. Server", "9.21. Aggregate Functions", "Chapter 23. Managing Databases":
# section numbers say where a page sits, not what it is about, and would match the
# numbers of a question ("PostgreSQL 17" is not chapter "17.3").
_NUMBERING = re.compile(
    r"^\s*(?:(?:Chapter|Appendix|Part|Section)\s+[\dA-Z]+(?:\.\d+)*\.?\s+"
    r"|(?:[A-Z]|\d+)(?:\.\d+)*\.\s+)"
)
_TITLE_SEPARATOR = re.compile(r"\s+[—–|·-]\s+|\s+::\s+")
# In a file name, dashes and underscores stand for the dots a name cannot hold:
# "release-15-15.html" is release 15.15, "3_5_3.html" is 3.5.3.
_PATH_VERSION = re.compile(r"(?<![^\W_])\d+(?:[-_]\d+)+(?![^\W_])")
_PATH_SEPARATOR = re.compile(r"[/\\]+")
_SUFFIX = re.compile(r"\.(?:html?|md|markdown|txt|pdf|jsonl)$", re.IGNORECASE)
_WORD = re.compile(r"\S+")
_AROUND_WORD = "\"'“”‘’()[]{},.;:!?"  # quotes, brackets and punctuation a word is written in
_NAME_WITH_NUMBER = re.compile(r"([^\W\d_]{2,})\d+")  # "sqlite3" is SQLite's too
_INNER_CAPITAL = re.compile(r"[^\W_].*[A-Z]")


def split_title(title: str) -> tuple[str, str]:
    """A title's own part and the site's name after it, when the title has one
    ("Django 3.2.6 release notes — Django 3.2.25 documentation")."""
    parts = _TITLE_SEPARATOR.split(title.strip())
    if len(parts) < 2 or not parts[0]:
        return title.strip(), ""
    return " — ".join(parts[:-1]), parts[-1]


def without_numbering(heading: str) -> str:
    return _NUMBERING.sub("", heading, count=1)


def title_tokens(title: str) -> list[str]:
    return tokenize(without_numbering(split_title(title)[0]))


def heading_tokens(headings: Iterable[str]) -> list[str]:
    return [token for heading in headings for token in tokenize(without_numbering(heading))]


def option_tokens(headings: Iterable[str], body: str) -> list[str]:
    """The "options" field of a passage: the options it names whole (`option_names`), in
    its text or its headings, each once."""
    return list(dict.fromkeys(option_names("\n".join([*headings, body]))))


def path_tokens(location: str, title: str = "") -> list[str]:
    """The words of a file's path (its folders and name, dashed versions made dotted,
    "sqlite3" also "sqlite") and of the site's name in its title: where a document
    lives."""
    stem = _SUFFIX.sub("", location)
    parts = [
        _PATH_VERSION.sub(lambda m: re.sub(r"[-_]", ".", m.group(0)), p)
        for p in _PATH_SEPARATOR.split(stem)
    ]
    site = split_title(title)[1]
    tokens = tokenize(" ".join([*parts, site]))
    named = [m.group(1) for t in tokens if (m := _NAME_WITH_NUMBER.fullmatch(t))]
    return list(dict.fromkeys(tokens + named))


def query_names(query: str) -> set[str]:
    """The query's tokens that come from names: words with a capital inside or after
    the first word ("PostgreSQL", "MERGE", "Django"), with digits ("A1", "3.11"), with
    an underscore ("work_mem"), and a number right after a name ("PostgreSQL 15").
    A capitalised first word is a name only if it looks like one on its own."""
    names: list[str] = []
    previous_is_name = False
    for position, match in enumerate(_WORD.finditer(query)):
        word = match.group(0).strip(_AROUND_WORD)
        if not word:
            previous_is_name = False
            continue
        looks_named = bool(
            _INNER_CAPITAL.match(word)
            or (any(c.isdigit() for c in word) and any(c.isalpha() or c == "." for c in word))
            or "_" in word
        )
        capital = word[0].isupper() and position > 0
        number = word.replace(".", "").isdigit()
        is_name = looks_named or capital or (number and previous_is_name)
        if is_name and word.lower() not in STOPWORDS:
            names.extend(tokenize(word))
        previous_is_name = is_name and not number
    return set(names)


def coined_names(query: str) -> set[str]:
    """The query's tokens of words written in mixed case, letters only, a capital after
    the first letter ("OpenSSL", "CMake", "PostgreSQL"; not "Server", "HTTP", "v2")."""
    words = (without_possessive(w.strip(_AROUND_WORD)) for w in _WORD.findall(query))
    return {
        token
        for word in words
        if word.isalpha() and _INNER_CAPITAL.match(word) and not word.isupper()
        for token in tokenize(word)
    }


def name_boost(scores: np.ndarray, held: Sequence[np.ndarray], documents: np.ndarray) -> np.ndarray:
    """`scores` times 1 + NAME_BOOST x the share of the query's category names (see
    NAME_MIN_SHARE, NAME_MIN_DOCUMENTS) that each passage's fields hold; `held`: one
    mask per name, `documents`: each passage's document."""
    categories = [
        mask
        for mask in held
        if mask.mean() >= NAME_MIN_SHARE and np.unique(documents[mask]).size >= NAME_MIN_DOCUMENTS
    ]
    if not categories or not NAME_BOOST:
        return scores
    share: np.ndarray = np.mean(np.stack(categories), axis=0)
    boosted: np.ndarray = scores * (1.0 + NAME_BOOST * share)
    return boosted.astype(np.float32)


def folder_held(index: bm25f.Index, token: str, folder_of: np.ndarray | None) -> np.ndarray:
    """Which chunks lie in a top folder the token names (see FOLDER_SHARE); `folder_of`:
    each document's top folder, numbered; None: no folder is to be read as named."""
    out = np.zeros(index.chunks, dtype=bool)
    term = index.term(token)
    if term is None or folder_of is None or not folder_of.size:
        return out
    rows, _ = index.fields["body"].column(term)
    size = np.bincount(folder_of)
    said = np.bincount(folder_of[np.unique(index.chunk_document[rows])], minlength=size.size)
    others = size.sum() - size
    named = (  # a corpus in one folder: the name tells its passages apart from none
        (size >= FOLDER_MIN_DOCUMENTS)
        & (others > 0)
        & (said >= FOLDER_SHARE * size)
        & (said.sum() - said <= FOLDER_OTHERS_SHARE * others)
    )
    if not named.any():
        return out
    held: np.ndarray = named[folder_of][index.chunk_document]
    return held


def code_boost(
    scores: np.ndarray, query: str, k: int, headings_of: Callable[[int], str]
) -> np.ndarray:
    """`scores` with the passages whose headings name one of the query's code names
    whole (`CODE_BOOST`), among the best `CODE_POOL` x k; `headings_of`: a passage's
    heading path."""
    codes = identifiers(query)
    if not codes or not CODE_BOOST:
        return scores
    found = np.flatnonzero(scores > 0)
    pool = min(found.size, CODE_POOL * k)
    if pool < found.size:
        found = found[np.argpartition(-scores[found], pool - 1)[:pool]]
    boosted = scores.copy()
    for passage in found.tolist():
        headings = headings_of(passage)
        if any(mentions_identifier(headings, code) for code in codes):
            boosted[passage] *= 1.0 + CODE_BOOST
    return boosted


def query_scores(index: bm25f.Index, query: str, folder_of: np.ndarray | None = None) -> np.ndarray:
    """Every passage's score for this query: BM25F over its words and fields, times the
    boost for the query's names its fields hold, or its top folder's documents say (see
    FOLDER_SHARE; `folder_of`: each document's top folder, numbered). The local index
    and web passages both rank by it. A release asked in everyday words is searched as
    release notes word it ("come out" as "released": "come" is "How come …"'s,
    `in_release_words`)."""
    words = tokenize(in_release_words(query))
    terms: dict[str, float] = dict(Counter(words + option_names(query)))
    if not terms:
        return np.zeros(index.chunks, dtype=np.float32)
    for asked in _HOW.findall(query):
        dimension = asked.lower() if asked.lower() in DIMENSIONS else "".join(tokenize(asked))
        if dimension in DIMENSIONS:  # "many" is no search word: its names count as synonyms
            weight = terms.pop(dimension, SYNONYM_WEIGHT)
            for name in DIMENSIONS[dimension]:
                terms[name] = max(terms.get(name, 0.0), weight)
    for name in DIMENSION_NAMES.get(asked_dimension(query), ()):
        terms.setdefault(name, SYNONYM_WEIGHT)
    for word, written in SYNONYMS.items():
        for also in written if word in terms else ():
            terms.setdefault(also, SYNONYM_WEIGHT * terms[word])
    total = index.scores(terms, FIELD_WEIGHTS)
    coined = coined_names(query)
    held = [
        index.holds(name, NAME_FIELDS)
        | folder_held(index, name, folder_of if name in coined else None)
        for name in sorted(query_names(query))
    ]
    return name_boost(total, held, index.chunk_document)
