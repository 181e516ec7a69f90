"""What a sentence asserts that can be checked: quantities, years, status, named terms.

The rule-based gap checker compares these across sources, the extractive writer
prefers sentences that hold them, and the verifier and the evaluation check that a
cited passage holds the same ones.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from grounded_research.text.dates import MONTHS, WEEKDAYS
from grounded_research.text.facets import FROM_WHEN_ON
from grounded_research.text.tokenize import STOPWORDS, cjk_spaced, has_cjk

_NUMBER = r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)"
_UNIT = (
    r"(wh/kg|wh/l|kwh|mwh|gwh|twh|wh|kw|mw|gw|w|%|percent|per cent|km|miles|mi|kg|tons|tonnes|"
    r"cycles|minutes|min|hours|h|volts|v|mah|ah|gwh/year|billion|million|瓦时/公斤|瓦时|千瓦时|吉瓦时|"
    r"公里|次|分钟|亿元|万辆|%)"
)
_UNIT_WORD = re.compile(_UNIT + r"|usd|eur|gbp|cny|rmb", re.IGNORECASE)
_QUANTITY = re.compile(_NUMBER + r"\s*" + _UNIT + r"(?![a-z])", re.IGNORECASE)
_MONEY = re.compile(r"([$€£¥])\s?(\d+(?:[.,]\d+)?)\s*(billion|million|bn|m)?", re.IGNORECASE)
_YEAR = re.compile(r"(?<!\d)(19[5-9]\d|20\d\d)(?!\d)")
_FULL_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
_NAMED = re.compile(
    r"\b(?:[A-Z][\w-]*[A-Z0-9][\w-]*(?:\.\d+)*|[A-Z][a-z]+(?:[-\s][A-Z][a-z]+)*|"
    r"[A-Za-z]+-?\d+[A-Za-z\d-]*)\b"
)
_JOINED_WORDS = re.compile(r"(?:-[a-z]+)+$")  # "-style" in "NumPy-style", "-compatible"
_STATUS = {
    "planned": re.compile(
        r"\b(?:will (?:begin|start|ship|deliver|launch|enter|reach|be)|plans? to|planned|"
        r"expects? to|expected to|aims? to|scheduled|targets?|on track to)\b|"
        # 计划 is also the noun "project" ("Debian 计划在每次发布时…", after its name):
        # planned only before what it plans, not after a name
        r"(?<![A-Za-z])(?<![A-Za-z] )计划"
        r"(?:\s*\d|在|于|将|要|到|明年|今年|推出|发布|开始|量产|投产)|预计|将于|将在",
        re.IGNORECASE,
    ),
    "done": re.compile(
        r"\b(?:shipped|has delivered|have delivered|delivered|launched|began (?:series )?"
        r"production|started (?:series )?production|entered (?:series )?production|"
        r"in series production|now ships|is shipping)\b|"
        # 已经 alone is any "already" ("已经安装"): done only of a release or a delivery
        r"已经(?:发布|推出|交付|量产|上市|出货|开始)|已于|已开始|已交付|已量产",
        re.IGNORECASE,
    ),
    "delayed": re.compile(
        r"\b(?:delayed|postponed|slipped|pushed back|not yet|has not|have not|hasn't|haven't|"
        r"yet to|behind schedule)\b|推迟|延期|尚未|未能",
        re.IGNORECASE,
    ),
    "cancelled": re.compile(r"\b(?:cancell?ed|abandoned|scrapped|halted)\b|取消|放弃", re.I),
}
_NEGATION = re.compile(
    r"\b(?:not|no|never|none|neither|nor|without|cannot|can't|isn't|aren't|wasn't|weren't|"
    r"hasn't|haven't|hadn't|doesn't|don't|didn't|won't)\b|尚未|没有|未|不",
    re.IGNORECASE,
)
_SENTENCE_START_WORDS = frozenset(
    [
        "The",
        "A",
        "An",
        "In",
        "On",
        "At",
        "By",
        "For",
        "From",
        "It",
        "Its",
        "This",
        "That",
        "These",
        "Those",
        "However",
        "But",
        "And",
        "Or",
        "As",
        "If",
        "When",
        "What",
        "Which",
        "Who",
        "Whom",
        "Whose",
        "Why",
        "Where",
        "How",
        "While",
        "After",
        "Before",
        "According",
        "Since",
        "Unlike",
        "Although",
        "Also",
        "Published",
        "Updated",
        "Date",
    ]
)


@dataclass(frozen=True)
class Quantity:
    value: float
    unit: str
    text: str


def quantities(sentence: str) -> list[Quantity]:
    found: list[Quantity] = []
    for match in _QUANTITY.finditer(sentence):
        unit = match.group(2).lower().replace("per cent", "%").replace("percent", "%")
        found.append(Quantity(_to_float(match.group(1)), unit, match.group(0)))
    for match in _MONEY.finditer(sentence):
        scale = (match.group(3) or "").lower()[:1]
        unit = match.group(1) + {"b": " billion", "m": " million"}.get(scale, "")
        found.append(Quantity(_to_float(match.group(2)), unit, match.group(0)))
    return found


def years(sentence: str, in_full_dates: bool = True) -> list[int]:
    """Years named in the sentence; `in_full_dates=False` skips those inside a full date
    such as 2024-05-21, which usually dates the text rather than an event."""
    if not in_full_dates:
        sentence = _FULL_DATE.sub(" ", sentence)
    return [int(y) for y in _YEAR.findall(sentence)]


def statuses(sentence: str) -> set[str]:
    """Status words the sentence asserts; "has not yet delivered" is not "delivered"."""
    found = set()
    for name, pattern in _STATUS.items():
        for match in pattern.finditer(sentence):
            negated = _NEGATION.search(sentence[max(0, match.start() - 25) : match.start()])
            if name == "delayed" or not negated:
                found.add(name)
                break
    return found


def is_unit(word: str) -> bool:
    return _UNIT_WORD.fullmatch(word.strip()) is not None


def is_negated(sentence: str) -> bool:
    return _NEGATION.search(sentence) is not None


def without_possessive(word: str) -> str:
    """The word without its possessive ending: "Django's" is the name Django."""
    return word.removesuffix("'s").removesuffix("’s")


def named_terms(sentence: str) -> set[str]:
    """Names and product codes ("Aurora", "A1", "QuantumScape"), not years, units or
    function words capitalised because they start a sentence or a question ("What",
    "Which", "Does": a word written in capitals, such as "IT", is still a name). A
    lower-case word joined on is not part of the name: "NumPy-style" names NumPy."""
    terms: set[str] = set()
    for match in _NAMED.finditer(cjk_spaced(sentence)):
        for word in match.group(0).split():
            word = _JOINED_WORDS.sub("", word.strip("'’"))
            if is_name_word(word):
                terms.add(without_possessive(word.lower()))
    return terms


def opening_as_written(text: str, sources: Iterable[str]) -> str:
    """The text with the word opening it, and each of its sentences, in lower case when
    only its place capitalises it: the sources write the word in lower case and never
    with a capital inside a sentence ("Considered the strongest recorded tropical
    cyclone, …", "Per the … table, how much RAM …", "Our relay runs Postfix 3.6. Starting
    with which …"). So read, a question's first word is a name only when the sources
    write it as one ("Debian …", "May a Go compiler …" beside "in May 2010", "Seven Brief
    Lessons on Physics was …"); when they do not write it at all, unchanged unless it
    ends in "-ing" (a participle setting the scene: "Using AES-GCM through the EVP
    interface: …") or a determiner or a pronoun follows it ("Suppose the channel …"),
    and in a Chinese question, which writes in Latin letters only what it names
    (`answers.latin_terms`). A word that opens the question's form ("Starting with
    which version …") is none."""
    if has_cjk(text):  # a Chinese question writes in Latin only names
        return text
    texts = list(sources)
    for opening in reversed(list(_OPENING_WORD.finditer(text))):
        if _only_placed(text, opening, texts):
            word = opening.group(1)
            text = f"{text[: opening.start(1)]}{word.lower()}{text[opening.end(1) :]}"
    return text


def _only_placed(text: str, opening: re.Match[str], sources: list[str]) -> bool:
    """Whether only its place capitalises the word opening the text or a sentence of it
    (`opening_as_written`)."""
    word = opening.group(1)
    if FROM_WHEN_ON.match(text[opening.start(1) :]):  # "Starting with which version …"
        return True
    inside = _inside_sentence(word)
    lower = re.compile(rf"\b{word.lower()}\b")
    said_lower = False
    for source in sources:
        if inside.search(source):
            return False
        said_lower = said_lower or lower.search(source) is not None
    participle = word.endswith("ing") and len(word) > 4
    return said_lower or participle or _DETERMINER_NEXT.match(text, opening.end(1)) is not None


# The words that open a noun phrase, determiners and pronouns: after a question's
# opening word they make it a verb that sets the scene ("Suppose the channel …",
# "Consider a table …", "Say I …"), not a name, which a noun, a verb or a number follows
# ("Redis listens …", "Debian 12 …"); after "what X" they make X a verb with its object
# ("what makes the …").
NOUN_PHRASE_OPENERS = frozenset(
    [
        "the",
        "a",
        "an",
        "this",
        "that",
        "these",
        "those",
        "my",
        "our",
        "your",
        "its",
        "their",
        "his",
        "her",
        "some",
        "every",
        "each",
        "i",
        "we",
        "you",
        "it",
        "them",
    ]
)
_DETERMINER_NEXT = re.compile(rf"\s+(?:{'|'.join(sorted(NOUN_PHRASE_OPENERS))})\b")


def releases_as_written(text: str, sources: Iterable[str]) -> str:
    """The text with a lower-case word before a release number ("sphinx 1.0 release
    date", "requests 2.26.0") capitalised where the sources write it as a name: with a
    capital inside their sentences more often than in lower case as a word of its own
    (not a command, a module or a path: "sphinx-build", "sphinx.ext"). What the question
    names with its release is what a passage must name, as for a capitalised name. A
    word the sources write capitalised before a release number of its own ("Requests
    2.27.x is likely to be …") is that name however often they use it as a common word
    ("HTTP requests")."""
    if has_cjk(text):  # a Chinese question's Latin words are its names (`latin_terms`)
        return text
    sources = list(sources)

    def as_written(match: re.Match[str]) -> str:
        word = match.group(0)
        if word in STOPWORDS:
            return word
        capital = word[:1].upper() + word[1:]
        released = re.compile(rf"(?<![\w.\-/`]){capital}\s+v?\d+\.\d")
        if any(released.search(source) for source in sources):
            return capital
        inside = _inside_sentence(capital)
        lower = re.compile(rf"(?<![\w.\-/`]){word}(?![\w.\-/`(])")
        capitals = sum(len(inside.findall(source)) for source in sources)
        lowers = sum(len(lower.findall(source)) for source in sources)
        return capital if capitals > lowers else word

    return _LOWER_BEFORE_NUMBER.sub(as_written, text)


def _inside_sentence(word: str) -> re.Pattern[str]:
    """The word written after another word of a sentence: with a capital there, a name."""
    return re.compile(rf"[\w,;:)] {word}\b")


_LOWER_BEFORE_NUMBER = re.compile(
    r"(?<![\w.\-/`])[a-z]{2,}(?=\s+v?\d+(?:\.\d+)*(?![\w.]*[A-Za-z]))"
)

# The word opening a text or one of its sentences (after a full stop, a question mark, an
# exclamation mark or a colon).
_OPENING_WORD = re.compile(r"(?:^|(?<=[.?!:])\s)\s*([A-Z][a-z]+)\b(?![-'’.]?\w)")


def is_name_word(word: str) -> bool:
    """Whether a capitalised word can be (part of) a name: not a function word that a
    sentence or a question starts with ("In", "Is", "What"), a year or a unit."""
    return (
        word not in _SENTENCE_START_WORDS
        and not (word.lower() in STOPWORDS and not word.isupper())
        and not _YEAR.fullmatch(word)
        and not _UNIT_WORD.fullmatch(word)
    )


_PHRASE = re.compile(
    r"[A-Z][\w'’.&-]*(?:[ \t]+(?:of|the|and|de|da|von|van|for|&)?[ \t]*[A-Z][\w'’.&-]*)*"
)
# A month or a weekday as a byline or a date writes it, abbreviated or not ("Sept.").
_CALENDAR = re.compile(
    rf"(?:(?:{'|'.join(m[:3] for m in MONTHS)})[a-z]*\.?"
    rf"|(?:{'|'.join(d.removesuffix('day') for d in WEEKDAYS)})day)$",
    re.IGNORECASE,
)


def name_phrases(text: str) -> list[str]:
    """Multi-word names as written ("Shirley Temple", "Aurora A1"), in order of first
    appearance; sentence-initial function words, months, weekdays and bylines left out."""
    found: list[str] = []
    for match in _PHRASE.finditer(text):
        parts = match.group(0).strip(" .,'’").split()
        while parts and (
            parts[0] in _SENTENCE_START_WORDS
            or _CALENDAR.match(parts[0])
            or parts[0] in {"By", "Source", "Photo"}
        ):
            parts = parts[1:]
        while parts and (_CALENDAR.match(parts[-1]) or parts[-1].lower() in {"of", "the", "and"}):
            parts = parts[:-1]
        phrase = " ".join(parts).strip(" .,")
        if len(phrase) > 2 and phrase not in found:
            found.append(phrase)
    return found


def names_as_written(names: set[str], sentence: str) -> str:
    """The given (lower-cased) names in the sentence's own spelling and order."""
    words = [without_possessive(w.strip(".,;:'’\"()？，。")) for w in cjk_spaced(sentence).split()]
    ordered = [w for w in dict.fromkeys(words) if w.lower() in names]
    return " ".join(ordered) or " ".join(sorted(names))


def checkable_content(sentence: str) -> set[str]:
    """Numbers (as written, commas dropped) and named terms: what a citation must hold."""
    numbers = {n.replace(",", "") for n in re.findall(r"\d[\d,]*(?:\.\d+)?", sentence)}
    return numbers | named_terms(sentence)


def contains_content(evidence_text: str, content: set[str]) -> bool:
    """Whether every checkable item appears in the evidence (case-insensitive)."""
    haystack = evidence_text.lower().replace(",", "")
    return all(item.lower() in haystack for item in content)


def _to_float(number: str) -> float:
    return float(number.replace(",", ""))


_WRITTEN_DATE = re.compile(
    r"\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}\s+[A-Z][a-z]{2,8}\.?,?\s+\d{4}\b|"
    r"\b[A-Z][a-z]{2,8}\.?\s+\d{1,2},?\s+\d{4}\b|\d{4}\s*年(?:\s*\d{1,2}\s*月)?"
)
_ANY_NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?")
_CONDITION = re.compile(
    r"\b(?:if|unless|only|except|provided|until|at least|at most|up to|more than|less than|"
    r"fewer than|below|above|before|after|per)\b|如果|除非|仅|只有|至少|最多",
    re.IGNORECASE,
)


def exact_terms(sentence: str) -> list[str]:
    """What must stay exact when the sentence is restated, as written: its numbers with
    their units, its dates, its negations and its conditions ("only", "unless", "after")."""
    terms = [q.text for q in quantities(sentence)]
    terms += _WRITTEN_DATE.findall(sentence)
    terms += _ANY_NUMBER.findall(sentence)
    terms += [m.group(0) for m in _NEGATION.finditer(sentence)]
    terms += [m.group(0) for m in _CONDITION.finditer(sentence)]
    return list(dict.fromkeys(t.strip() for t in terms if t.strip()))


def negations(sentence: str) -> set[str]:
    """The negation words of a sentence, lower case."""
    return {m.group(0).lower() for m in _NEGATION.finditer(sentence)}


def conditions(sentence: str) -> set[str]:
    """The condition words of a sentence ("only", "unless", "before"), lower case."""
    return {m.group(0).lower() for m in _CONDITION.finditer(sentence)}
