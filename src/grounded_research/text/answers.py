"""What kind of answer a question asks for, whether a sentence holds one, and the names
a passage must carry to be about the question.

Users of documentation ask "on what date was X released", "in which version was Y
added", "what is the default of Z", "which command does W", "does V support U", "which
came first, A or B". A sentence that shares the question's words but holds no date,
version, number or name of the asked kind does not answer it: the writer prefers
sentences that do, and the gap check calls a sub-question unanswered when none does.
The rules read the question's form, in English and Chinese, never a corpus's wording.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Literal, NamedTuple

from grounded_research.text.chunking import (
    HEADING_LINE,
    LINE_MARKER,
    heading_lines,
    heading_paths,
    sentences,
    with_rows_read,
)
from grounded_research.text.dates import MONTHS, WEEKDAYS
from grounded_research.text.editions import edition_releases
from grounded_research.text.facets import (
    COMPARISON,
    DATE_ASKED_WITH,
    LEFT_UNSET,
    facets_of,
    in_release_words,
)
from grounded_research.text.facts import (
    NOUN_PHRASE_OPENERS,
    is_name_word,
    is_unit,
    named_terms,
    quantities,
    without_possessive,
)
from grounded_research.text.normalize import unaccented, unescaped
from grounded_research.text.tokenize import STOPWORDS, cjk_spaced, has_cjk, tokenize

AnswerKind = Literal[
    "comparison", "procedure", "yes_no", "version", "date", "quantity", "name", "any"
]

_PROCEDURE = re.compile(
    r"^\W*how\s+(?:do|can|could|should|would|does|might)\s+(?:i|we|you|one|a\s+user)\b|"
    r"^\W*how\s+to\b|^\W*what\s+is\s+(?:the|an?)\s+(?:[\w-]+\s+){0,2}way\s+to\b|怎么|怎样|如何",
    re.IGNORECASE,
)
_YES_NO = re.compile(
    r"^\s*(?:is|are|was|were|does|do|did|can|could|will|would|should|has|have|had|may|"
    r"must|shall)\b|是否|能否|可否|是不是|有没有|能不能|可不可以|会不会|吗\s*[？?]?\s*$",
    re.IGNORECASE,
)
# "the first SQLite version that supports …", "the first Node.js 18 release that has it"
_FIRST_RELEASE_THAT = (
    r"\bfirst\s+(?:[\w.]+\s+){0,4}(?:version|release)\s+(?:that|to|with|which|where)\b"
)
_VERSION = re.compile(
    r"\b(?:which|what|in which|since which|from which)\s+(?:[\w.]+\s+){0,2}"
    r"(?:version|release)s?\b(?!\s+date)|"
    rf"{_FIRST_RELEASE_THAT}|"
    r"\bversion\s+(?:number|of)\b|"
    r"哪个版本|哪一版|哪一个版本|什么版本|版本号|哪个发行版|从哪个版本|哪一发行版|"
    r"哪(?:一)?个\s*[A-Za-z][\w.+-]*\s*(?:版本|发行版)",
    re.IGNORECASE,
)
_CHANGED_WHEN = re.compile(  # in the clause of the question word, not a relative clause
    # ("When was the release that introduced X published?" asks for a date)
    r"(?<![,;]\s)\b(?:which|what|when)\b(?:(?!\bthat\b)[^?,;])*"
    r"\b(?:added|introduced|deprecated|removed|dropped|changed)\b|"
    r"\b(?:added|introduced|deprecated|removed|dropped|changed)\s+when\W*$",  # "… added when?"
    re.IGNORECASE,
)
_DATE_NOUNS = ("date", *DATE_ASKED_WITH)
_DATE = re.compile(
    rf"\b(?:on\s+)?(?:what|which)\s+(?:{'|'.join(_DATE_NOUNS)})\b|^\W*(?:since\s+|until\s+)?when\b|"
    r"\bwhen\W*$|"  # "Django 3.2 came out when?"
    r"\brelease\s+date\b|\bwhat\s+(?:is|was)\s+the\s+(?:[\w-]+\s+)?date\b|"
    r"何时|什么时候|哪一天|哪天|哪一年|哪年|哪一?个?月|几月|日期",
    re.IGNORECASE,
)
_SETTING_NOUNS = "limit|size|number|value|length|port|timeout"  # "what is the default port"
_MEASURES = (  # "what energy density", "what price", "at what line width"
    "density|capacity|speed|rate|size|length|width|height|depth|weight|price|cost|range|"
    "temperature|voltage|percentage|share|amount|level|quality|interval|delay|duration|"
    "lifetime|threshold"
)
# Nouns of a measure: "Which port does it listen on by default?" asks for a number.
_MEASURE_NOUN = re.compile(  # a noun a "which X" asks a number with, in English or Chinese
    rf"(?:{_SETTING_NOUNS}|{_MEASURES}|priority)s?|"
    r"端口|大小|数量|数目|数值|值|长度|容量|空间|内存|速度|比例|优先级|级别"
)
_QUANTITY = re.compile(
    r"\bhow\s+(?:many|much|long|large|big|far|often|old|fast|small)\b|"
    rf"\bwhat\s+is\s+the\s+(?:default|maximum|minimum|max|min|{_SETTING_NOUNS})\b|"
    rf"\b(?:largest|smallest|highest|lowest|greatest)\s+(?:{_SETTING_NOUNS})s?\b|"
    r"\b(?:default|maximum|minimum|limit)\b|"
    rf"{LEFT_UNSET}|"
    rf"\bwhat\s+(?:\w+\s+)?(?:{_MEASURES})\b|"
    r"多少|默认|缺省|上限|下限|最大|最小|几(?:个|天|年|次|周|月|小时|分钟|秒)|多大|多长|多久",
    re.IGNORECASE,
)
_NAME = re.compile(
    r"\b(?:which|what)\s+(?:[\w-]+\s+){0,3}(?:command|function|option|setting|parameter|module|"
    r"method|class|tool|file|package|statement|clause|keyword|variable|directory|program|"
    r"utility|flag|operator|type|field|library|format|name|directive|builtin|extension|filter)"
    r"s?\b|^\W*who\b|\bwho\W*$|^\W*where\b|\bwhere\W*$|"  # "where" asks for a place or a path
    r"\bwhat\s+(?:is|are|was|were)\s+(?:[\w-]+\s+){0,4}called\b|\bwhich\s+one\b|"
    r"(?:命令|文件|软件包|工具|选项|参数|目录|程序)是哪(?:一)?(?:个|些)|哪些(?:命令|文件|工具|软件包|程序)|"
    r"哪个命令|什么命令|哪条命令|哪个文件|什么文件|哪个软件包|什么软件包|哪个工具|什么工具|"
    r"用什么|哪个选项|什么选项|哪个参数|什么参数|哪个目录|什么目录|哪个程序|什么程序|叫什么|谁|"
    r"哪里|哪儿|何处",
    re.IGNORECASE,
)

_MONTHS = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"  # as written
# A date within its year, as written: a day or a month with the year ("2014-02-03",
# "Jun 17, 2022", "16th of October 2000", "January 2004", "2023年2月").
_WITHIN_YEAR = (
    r"\b\d{4}-\d{2}(?:-\d{2})?\b|"
    rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTHS},?\s+\d{{4}}\b|"
    rf"\b{_MONTHS}\s+(?:\d{{1,2}}(?:st|nd|rd|th)?,?\s+)?\d{{4}}\b|"
    r"\d{4}\s*年\s*\d{1,2}\s*月"
)
_DATE_HOLDER = re.compile(  # any date: one within its year, a year alone, a century
    rf"{_WITHIN_YEAR}|(?<!(?-i:[A-Z][A-Z])-)\b(?:19|20)\d\d\b|"  # not in CVE-2009-3555
    r"\d{4}\s*年|"
    r"\b\d{1,2}(?:st|nd|rd|th)\s+centur(?:y|ies)\b|\d{1,2}\s*世纪",  # "the late 12th century"
    re.IGNORECASE,
)
_VERSION_NUMBER = r"\d+(?:\.\d+)+[a-z]?\d*|\d+"
_VERSION_HOLDER = re.compile(
    r"(?<![\w.])(?:[a-z]{2,})?\d+\.\d+(?:\.\d+)*(?![\w.]*\d)|"
    rf"\b(?:versions?|releases?|v)\s*(?:before|after|since|from|prior\s+to|up\s+to|until)?"
    rf"\s*(?:{_VERSION_NUMBER})|版本\s*(?:{_VERSION_NUMBER})",
    re.IGNORECASE,
)
_NUMBER_WORDS = (  # "The default is five minutes": docs write small numbers in words
    r"two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|"
    r"sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|"
    r"ninety|hundred|thousand|million|billion|dozen"
)
_NUMBER_HOLDER = re.compile(  # not digits a name ends with ("FAT32", "sha256", "x86_64"),
    # but a level or release after its v ("debhelper V10")
    r"(?:(?<![A-Za-z_\d.])|(?<=(?<![A-Za-z])[vV]))(?!(?:19|20)\d\d(?!\d))\d+(?:[.,]\d+)*(?![\d.]*\d)"
    r"(?!_[A-Za-z])|"  # nor digits an identifier starts with ("40_custom")
    rf"\b(?:unlimited|no limit|infinity|zero|{_NUMBER_WORDS})\b|无限|不限|"
    # a count in Chinese numerals ("两个字符", "十秒"); "一个" is the article "a"
    r"(?!一[个种条项])[零一二两三四五六七八九十百千万]+(?:个|位|次|天|秒|分钟|小时|周|年|"
    r"字符|字节|条|项|种|倍|行|列|级|台|名)",
    re.IGNORECASE,
)
_INLINE_CODE = re.compile(r"`[^`\n]+`")
_CODE = re.compile(
    rf"{_INLINE_CODE.pattern}|"
    r"\b[A-Z]{3,}\b|\b\w+\(\)|(?<!\w)--?[A-Za-z][\w-]*|\b[a-z]+(?:_[a-z0-9]+)+\b|"
    r"\b\w+(?:\.\w+)+\b"
)
# A release's number, which counts nothing: after "version" or "release" ("New in version
# 0.6", "版本 2.4"), after a v ("v20.5.0"), or of three parts or more ("3.39.4").
_NUMBERED_RELEASE = re.compile(
    rf"\b(?:versions?|releases?)\s+(?:{_VERSION_NUMBER})|版本\s*(?:{_VERSION_NUMBER})|"
    r"(?<![\w.])[vV]\d+(?:\.\d+)+|(?<![\w.])\d+\.\d+\.\d+(?:\.\d+)*(?![\w.]*\d)",
    re.IGNORECASE,
)
_RELEASE_TOKENS = frozenset(["version", "releas"])  # "Version 2.0.1" is a release's heading
_RELEASE_WORD = r"(?:(?:version|release)\s+|v)?"  # between a name and its number: "Django v5"
_KEY_PHRASE = re.compile(  # "Python 3.11", and a protocol's "HTTP/3"
    rf"\b([A-Z][\w+#-]*(?:\s+[A-Z][\w+#-]*)*)(?:\s+{_RELEASE_WORD}|/)(\d+(?:\.\d+)*)(?![\w.]*\d)"
)
# A reference to a part of a book by its number, in English or in Chinese ("see section
# 2.7.4", "Chapter 17.3", "参见第 2.7.4 节", "第 9 章"), a table's, a figure's or an
# example's number ("Table 3.7", "表 3.7"), and a manual page's section: "master(8)",
# "`logrotate`(8)".
_SECTION_REFERENCE = re.compile(
    r"\b(?:sections?|chapters?|tables?|figures?|examples?|§)\s*\d+(?:\.\d+)*|"
    r"第\s*\d+(?:\.\d+)*\s*(?:节|章|部分|篇)|(?:[表图]|(?<![\u4e00-\u9fff])例)\s*\d+(?:\.\d+)+|"
    r"(?<=[A-Za-z_`*])\(\d[a-z]*\)",
    re.IGNORECASE,
)
# A footnote's mark, a number in brackets set above the line ("<sup>\[6\]</sup>" as the
# pages are read), not an exponent ("2<sup>31</sup>").
_FOOTNOTE_MARK = re.compile(r"<sup>\\?\[\w+\\?\]</sup>")
# The number of an issue, a bug or a pull request: "#727708", "#9987:" (not "&#38;").
_ISSUE_NUMBER = re.compile(r"(?<![\w#&])#\d+\b")
# Any number that numbers a part of a book: a reference (`_SECTION_REFERENCE`), and the
# number a heading opens with ("6.1. 有多少种 Debian 发布版本？", "### 2.7. Set up"), which
# `holds_answer` does not skip.
_NUMBERED_PART = re.compile(
    rf"{_SECTION_REFERENCE.pattern}|^[ \t>#*]*\d+(?:\.\d+)*\.(?=\s)",
    re.IGNORECASE | re.MULTILINE,
)
_ZH_MEASURE = "个|家|位|种|款"  # the measure words "哪" takes before a noun
_ZH_WHICH = re.compile(rf"哪(?:一)?(?:{_ZH_MEASURE})\s*[\u4e00-\u9fff]")  # "由哪个机构维护"
_ZH_HEAD = re.compile(rf"哪(?:一)?(?:{_ZH_MEASURE}|些)\s*(?P<head>[\u4e00-\u9fff]+)")
_IDENTIFIER = re.compile(
    r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b|"  # max_connections
    r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b(?!=)|"  # UV_THREADPOOL_SIZE
    r"\b\w+(?:\.\w+)+\(\)|\b\w+\(\)|(?<!\w)--[a-z][\w-]*|"  # os.path.join(), --force
    r"\b[A-Z][A-Z0-9_]{2,}=[\w.-]+"  # a setting with its value: BOOT_DEBUG=4
)

# A function as its reference entry heads it: "math.isqrt(*n*)", "crypto.scrypt(password,
# salt, keylen[, options], callback)".
_CALLED = re.compile(r"(?<![\w.])[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*\(")


# Words a question is asked with, and a clause that opens asking: "what …", "how …",
# "is …", "when did …" (not "When I pick a release, what …", which sets the scene).
_DO_BE = ("is", "are", "was", "were", "does", "do", "did")  # "what is the …", "what does …"
_AUXILIARY = frozenset(
    [
        *_DO_BE,
        "can",
        "could",
        "may",
        "might",
        "will",
        "would",
        "should",
        "shall",
        "must",
        "has",
        "have",
        "had",
    ]
)
_AUX_WORDS = rf"(?:{'|'.join(sorted(_AUXILIARY))})\b"
# A preposition a question word may follow: "In which release …", "Since what version …"
_ASKED_AFTER = r"(?:(?:in|on|at|since|from|until|for|by|of|to|with|under)\s+)"
_OPENS_ASKING = re.compile(
    rf"\W*(?:{_ASKED_AFTER}?(?:what|which|who|whom|whose|why|how)\b|(?:when|where)\s+{_AUX_WORDS}"
    rf"|{_AUX_WORDS})",
    re.IGNORECASE,
)
_WH_WORDS = r"(?:what|which|who|whom|whose|why|how|when|where)\b"
_SENTENCE_END = r"(?<![.…])(?<!\b[A-Z])[.?!]"
_ASKING_CLAUSE = re.compile(  # a later clause that asks: ". When was that?", ": what …",
    # ". In which release …"; ", is the old kernel kept?"; not a verb the question goes on
    # with (", is written by someone born in what year?") nor a relative clause (", in
    # which case …"); a sentence ends at a full stop, not at a title's dots ("Based on a
    # True Story... is an album by which …") nor an initial's ("his B.A. from what …")
    rf"(?:{_SENTENCE_END}|[:;,]|\s[—–-])\s+(?={_WH_WORDS})|"
    rf"(?:{_SENTENCE_END}|[:;]|\s[—–-])\s+(?={_ASKED_AFTER}{_WH_WORDS}|{_AUX_WORDS})|"
    rf",\s+(?={_AUX_WORDS}(?![^?]*\b{_WH_WORDS}))",
    re.IGNORECASE,
)
_WHAT_IS = re.compile(r"\b(what|who|where|when|how)['’]s\b", re.IGNORECASE)


_ASKS_WITH = re.compile(
    rf"\b{_WH_WORDS}|什么|哪|怎|如何|多少|几|吗|是否|谁|何|能否|是不是|有没有", re.I
)


def asks(text: str) -> bool:
    """Whether the text asks something: a question word in it, an auxiliary opening it
    ("Is it …"), a Chinese question word; not a request that only qualifies a question
    before it ("Exact date please.", "I need the date.")."""
    return bool(_ASKS_WITH.search(text) or _OPENS_ASKING.match(text))


def question_clause(question: str) -> str:
    """The clause that asks, where the question sets the scene first ("Sam Hartman wrote
    the preface …. When was that?", "The include_patterns option: what Sphinx version
    first had it?", "When I pick a target release with -t, what priority …"): its form
    says what kind of answer is wanted. The whole question when it opens asking, or no
    later clause does ("Debian 12 comes with which version of X.Org?"). A Chinese
    question is read whole: its question words stand anywhere."""
    if has_cjk(question) or _OPENS_ASKING.match(question):
        return question
    clause = _ASKING_CLAUSE.search(question)
    return question[clause.end() :] if clause else question


def releases_asked_in(question: str) -> str:
    """The part of the question whose releases and numbers it asks of: the clause that
    asks, when it names releases of its own after the scene a question sets ("pytest
    kept a 4.6 branch for Python 2 users. Which was released first, pytest 4.6.11 or
    pytest 5.4.3?": the scene's are context); the whole question otherwise ("Moving to
    OpenSSL 3.4: what IV length …", whose release is the scene's)."""
    clause = question_clause(question)
    return clause if clause != question and key_phrases(clause) else question


def scene_releases_asked(question: str) -> bool:
    """Whether the releases the scene a question sets are what it asks of: it sets one,
    and its asking clause names no release of its own (`releases_asked_in`)."""
    return releases_asked_in(question) != question_clause(question)


def asked_kind(question: str) -> AnswerKind:
    """The kind of answer the question asks for, by the form of its asking clause
    (`question_clause`); whether it compares two things, by the whole of it ("Sphinx
    2.4.5 vs Sphinx 4.0.0: which one came out first?")."""
    if COMPARISON.search(question):
        return "comparison"
    question = _WHAT_IS.sub(r"\1 is", question)  # "what's the default …"
    clause = question_clause(question)  # what opens asking: "how do I", "is it", "when did"
    for kind, pattern, text in (
        ("procedure", _PROCEDURE, clause),
        ("yes_no", _YES_NO, clause),
        ("version", _VERSION, question),
        ("name", _NAME, clause),
        ("version", _CHANGED_WHEN, question),
        ("date", _DATE, clause),
        ("quantity", _QUANTITY, question),  # "By default, how frequently …"
    ):
        found = pattern.search(text)
        if found is None:
            continue
        if kind in ("date", "quantity") and (
            _thing_asked_before(text, found.start()) or _zh_thing_asked(text)
        ):
            return "name"  # "Which directive caps how many requests …" asks for a directive
        noun = _head_noun(text) if pattern is _CHANGED_WHEN else ""
        if noun and noun not in _KIND_NOUNS["version"].split():  # a thing was changed:
            return "date" if noun in _DATE_NOUNS else "name"  # "Which deprecation code …"
        return kind  # type: ignore[return-value]
    noun = _head_noun(clause)
    if noun and _MEASURE_NOUN.fullmatch(noun):  # "Which port does it listen on?": a number
        return "quantity"
    if noun or _ZH_WHICH.search(clause):  # "Which cyclone …": one's name
        return "name"
    return "any"


def _thing_asked_before(question: str, start: int) -> bool:
    """Whether the question opens with "which X" or "what X" before `start`: what
    follows is a clause about the X, not the question ("Which directive caps how many
    requests …"; not "…, which was founded in what year?")."""
    head = _HEAD.match(question, len(question) - len(question.lstrip()))
    noun = _head_noun(question)
    return (
        head is not None
        and not head.group("aux")
        and head.end("head") <= start
        and bool(noun)
        and _MEASURE_NOUN.fullmatch(noun) is None  # "Which port …" asks for a number
    )


STATEMENT_KINDS: frozenset[AnswerKind] = frozenset({"yes_no", "procedure", "any"})
"""The kinds a statement answers, not a value: any sentence may hold their answer."""


def _unless_code(match: re.Match[str]) -> str:
    """A name with its number left out, unless it is code: "`BrotliCompressionQuality 5`"
    is a directive set to 5, not a name like "Python 3"."""
    inside_code = match.string.count("`", 0, match.start()) % 2 == 1
    return match.group(0) if inside_code else " "


# A file's name or an address, whose numbers are a download's, not a statement of a
# version: "gentoo-0.9.12.tar.gz", "http://www.kernel.org/pub/linux/kernel/v3.11/".
_FILE_OR_ADDRESS = re.compile(
    r"(?:https?://|ftp://|~?/)\S+|"
    r"[\w.+~-]+\.(?:tar(?:\.\w+)?|t?gz|bz2|xz|zip|deb|rpm|dsc|whl|iso)\b",
    re.IGNORECASE,
)


def holds_answer(kind: AnswerKind, sentence: str) -> bool:
    """Whether the sentence holds a value of the asked kind: a date, a version number, a
    number, a command or name. Yes/no, "how do I" and open questions are answered by
    statements. A reference to a section is no number or version asked for ("see section
    2.7.4", "参见第 2.7.4 节"); a file's name or an address gives no version
    ("gentoo-0.9.12.tar.gz")."""
    if kind == "date":
        return _DATE_HOLDER.search(sentence) is not None
    if kind == "version":  # nor a section's ("在第 7.3 节", "see Section 7.3")
        unnamed = _SECTION_REFERENCE.sub(" ", _FILE_OR_ADDRESS.sub(" ", sentence))
        return _VERSION_HOLDER.search(unnamed) is not None
    if kind == "quantity":
        undated = _DATE_HOLDER.sub(" ", sentence)  # a date is not the number asked for
        unnamed = _KEY_PHRASE.sub(_unless_code, undated)  # nor a name's ("Chapter 17")
        unnamed = _SECTION_REFERENCE.sub(" ", unnamed)  # nor a section's ("第 2.7.4 节")
        unnamed = _NUMBERED_RELEASE.sub(" ", unnamed)  # nor a release's ("New in version 0.6")
        unnamed = _ISSUE_NUMBER.sub(" ", unnamed)  # nor an issue's ("bug #727708")
        unnamed = _FOOTNOTE_MARK.sub(" ", unnamed)  # nor a footnote's ("<sup>\[6\]</sup>")
        unnamed = _FILE_OR_ADDRESS.sub(" ", unnamed)  # nor a path's ("/etc/grub.d/40_custom")
        return bool(quantities(unnamed)) or _NUMBER_HOLDER.search(unnamed) is not None
    if kind == "name":
        return _CODE.search(sentence) is not None or bool(named_terms(sentence))
    if kind == "comparison":  # of two dates or two versions
        return holds_answer("date", sentence) or holds_answer("version", sentence)
    return True


# What gives a yes/no question its answer: a sentence that denies ("does not support",
# "cannot be changed", "no longer available"), limits ("Unix threaded MPMs only"), or
# says what holds by default or always ("read-only by default", "Default: True").
_VERDICT = re.compile(
    r"\b(?:not|no|never|cannot|only|always|default)\b|n't\b|"
    r"不|没有|无法|仅|只有|只能|总是|始终|默认",
    re.IGNORECASE,
)


def states_verdict(sentence: str) -> bool:
    """Whether the sentence says yes or no to something, as a yes/no question's answer
    does: it denies, limits, or says what holds by default or always (`_VERDICT`)."""
    return _VERDICT.search(sentence) is not None


def key_phrases(question: str) -> list[str]:
    """Names with the number written after them ("PostgreSQL 17", "Python 3.11"; in lower
    case before a release's full number, "pytest 8.0.0", not "httpd 2.4", which the docs
    write "Apache HTTP Server Version 2.4", unless asked when that release came: "when
    did werkzeug 0.12 come out?"), as phrases: the number belongs to the name,
    and "17.3" or "3.11.2" is another one. A capitalised function word before the name
    is not part of it ("In PostgreSQL 15, …", "Is Django 3.2 …"); a month with its day
    ("born on October 22") is a date."""
    phrases: list[str] = []
    for match in _KEY_PHRASE.finditer(question):
        words = match.group(1).split()
        while words and not is_name_word(words[0]):
            words.pop(0)
        if words and re.fullmatch(_MONTHS, words[-1], re.IGNORECASE):
            continue  # "October 22" is a day, not a release of a name
        if words:
            phrases.append(" ".join([*words, match.group(2)]))
    if has_cjk(question):  # it names in lower case too (`latin_terms`): "apt 3.0 新增了…"
        phrases += [" ".join(m.groups()) for m in _LATIN_RELEASE.finditer(cjk_spaced(question))]
    else:  # a product in lower case before a release's full number ("pytest 8.0.0"), or
        # before the number of a release whose coming is asked ("When was zsh 5.8 released?")
        phrases += [
            " ".join(m.groups())
            for m in _LATIN_RELEASE.finditer(question)
            if _naming_word(m.group(1))
            and (
                m.group(2).count(".") >= 2
                or _RELEASE_COMES.match(question, m.end())
                or _RELEASE_DATE_OF.search(question, 0, m.start())
            )
        ]
    return list(dict.fromkeys(phrases))


_RELEASE_COMES = re.compile(
    r"\s+(?:(?:was|been|get|got)\s+)?(?:released|(?:come|came)\s+out)\b", re.I
)
_RELEASE_DATE_OF = re.compile(r"\brelease\s+date\s+of\s+(?:the\s+)?$", re.I)


def _naming_word(word: str) -> bool:
    """Whether a lower-case word before a number may name what the number is of ("pytest"
    in "pytest 8.0.0", "level" in "security level 6"): not a function word ("the top
    5") nor a word of releases or ranges ("version 9", "since 3.7.1", "first 3.7.1")."""
    return word not in STOPWORDS and _NOT_A_NAME.fullmatch(word) is None


_NOT_A_NAME = re.compile(r"versions?|releases?|v|since|vs|until|till|through|between|first|last")


def headings_name_other(frame: str, phrases: list[str], series: bool = False) -> bool:
    """`names_other_release` of a title and its headings, each a line of its own: one
    heading's product and the next one's section number make no release ("Bash
    Features" over "5 Shell Variables" is not Bash 5)."""
    return any(names_other_release(line, phrases, series) for line in frame.split("\n"))


def names_other_release(sentence: str, phrases: list[str], series: bool = False) -> bool:
    """Whether the sentence is about another release of a product the question names
    with its number: "Django 1.8 is the last version to support Python 3.3" does not say
    which Python versions Django 5.0 supports. A question may name two releases of one
    product ("Python 2.6 or Python 3.0"): a sentence naming either is about the question.
    `series`: the question asks which release of the named one ("from which Apache 2.4
    release on …"), so its point releases are the named one's ("Apache 2.4.39"), also in
    a list of the releases a change came in ("Postfix 3.9, 3.8.1, 3.7.6 and later")."""
    asked: dict[tuple[str, ...], set[str]] = {}
    for phrase in phrases:
        *words, number = phrase.lower().split()
        asked.setdefault(tuple(words), set()).add(number)
    # A changelog's "Release 3.5.4" names no product: it is another release only when it
    # is none the question names ("Release 15.1" is PostgreSQL 15.1's, when the question
    # compares PostgreSQL 15.1 with SQLite 3.40.0).
    headed = set(_RELEASE_HEADED.findall(sentence)) - {n for ns in asked.values() for n in ns}
    for name, numbers in asked.items():
        pattern = _named_release(name, r"(\d+(?:\.\d+)*)(?![\w]|\.\d)")
        given = set(re.findall(pattern, sentence, re.IGNORECASE)) | headed
        if series:
            given = {g for g in given if not any(g.startswith(f"{n}.") for n in numbers)}
            listing = (mentions_point_release(sentence, " ".join([*name, n])) for n in numbers)
            if not given or any(listing):  # "Postfix 3.9, 3.8.1, 3.7.6 and later": 3.7's too
                continue
        if given and not given & numbers:
            return True
    return False


# A heading's assignment of a number to a name: an attribute's value ("max_form_parts =
# 1000"), a parameter's default in a signature ("pool_connections=10", "length: int = 255")
_ASSIGNED = re.compile(
    r"(?<![\w.])([A-Za-z_]\w*)\s*(?::\s*[\w.\[\], |]+?\s*)?"  # a name, its annotation
    r"(?<![=!<>])=(?!=)\s*(-?\d[\d_]*(?:\.\d+)?)(?![\w.])"  # "=", not "==", a number
)
# The name an entry's heading opens with, after a word such as "class" or "attribute"
_CALLED_OR_NAMED = re.compile(r"\W*(?:[a-z]+\s+)?(?:[\w.]+\.)?([A-Za-z_]\w*)\s*[(=:]")
_EMPHASIS_MARK = re.compile(r"[*`]")
# A heading that names a release: "Release 5.1.0", "Changes in version 3.39.0", "Django
# 4.0 release notes", "What's New In Python 3.11".
_RELEASE_NAMED = re.compile(r"\b(?:releases?|versions?|what['’]?s new)\b|版本|发布", re.IGNORECASE)
_RELEASE_HEADED = re.compile(r"(?<![\w.])release\s+(\d+(?:\.\d+)+)(?![\w]|\.\d)", re.IGNORECASE)
# A changelog heading that is a release number alone, its date beside it: "2.27.0
# (2022-01-03)", or after its product's name when a date is beside it: "pytest 7.2.0
# (2022-10-23)"; not a numbered section ("20.3.1. Connection Settings") nor a product's
# version named in passing ("TLS 1.3", "macOS 11.0 (Big Sur)"). "Version 3.1.0" and
# "v18.17.0" are read as "version" and "v" before a number (`names_subject`).
_VERSION_LINE = re.compile(
    r"^[ \t]*(?:(\d+(?:\.\d+)+)[ \t]*(?:\([^)\n]*\))?"
    r"|[^\W\d][\w.+-]*[ \t]+v?(\d+(?:\.\d+)+)[ \t]*\([^)\n]*\b\d{4}\b[^)\n]*\))"
    r"[ \t]*¶?[ \t]*$",
    re.MULTILINE,
)


def version_lines(text: str) -> list[str]:
    """The release numbers of the text's lines that are a changelog's heading of a
    release (`_VERSION_LINE`): "2.27.0" of "2.27.0 (2022-01-03)", "7.2.0" of "pytest
    7.2.0 (2022-10-23)"."""
    return [alone or named for alone, named in _VERSION_LINE.findall(text)]


def identifiers(question: str) -> set[str]:
    """Code names a question may carry: max_connections, UV_THREADPOOL_SIZE,
    os.path.join(), --force."""
    return {m.group(0).lower().removesuffix("()") for m in _IDENTIFIER.finditer(question)}


def mentions_identifier(text: str, identifier: str) -> bool:
    """Whether the text names this code name whole: max_wal_size is not in
    max_slot_wal_keep_size, nor os.path in os.path.join; isqrt is in math.isqrt (a name
    qualified by its module). Markdown may escape its underscores or hyphens
    ("include\\_patterns" in a heading)."""
    return _whole_identifier(identifier).search(unescaped(text)) is not None


def _whole_identifier(identifier: str) -> re.Pattern[str]:
    return re.compile(r"(?<!\w)" + re.escape(identifier) + r"(?![\w]|\.\w)", re.IGNORECASE)


def mentions_phrase(text: str, phrase: str) -> bool:
    """Whether `text` names the phrase with exactly its number: "PostgreSQL 15" is in
    "PostgreSQL 15 release notes" and "PostgreSQL version 15", not in "PostgreSQL 15.4"."""
    return _phrase_in(text, phrase) is not None


def phrase_as_written(phrase: str, text: str) -> str:
    """The phrase as the text writes it ("HTTP/3" for "HTTP 3", "Django v5" for "Django
    5"), or the phrase when the text does not name it."""
    found = _phrase_in(text, phrase)
    return found.group(0) if found else phrase


def _phrase_in(text: str, phrase: str) -> re.Match[str] | None:
    *name, number = phrase.split()
    return re.search(_named_release(name, _exactly(number)), text, re.IGNORECASE)


def mentions_point_release(text: str, phrase: str) -> bool:
    """Whether `text` names a point release of the phrase's release: "Apache 2.4.39" of
    "Apache 2.4" (what a question asking which release of a series is answered with),
    also in a list of releases after the name ("Postfix ≥ 3.9, 3.8.5, 3.6.14" of
    "Postfix 3.6")."""
    *name, number = phrase.split()
    listed = rf"(?:{_AT_LEAST}?\d+(?:\.\d+)*\s*(?:,|\band\b|\bor\b)\s*){{0,8}}{_AT_LEAST}?"
    pattern = _named_release(name, listed + re.escape(number) + r"\.\d+")
    return re.search(pattern, text, re.IGNORECASE) is not None


_AT_LEAST = r"(?:[≥≤<>]=?\s*)"  # "Postfix ≥ 3.9": a release and those after it


def _named_release(name: Sequence[str], number: str) -> str:
    """A pattern for the name followed by a number as releases are written: "Python
    3.11", "PostgreSQL version 15", "Django v5", and joined by a hyphen as GNU software
    writes them ("bash-5.1"), and with the rest of a full name before the number
    ("Apache HTTP Server Version 2.4" is Apache 2.4); a chapter or a section is not; and
    after a slash, as a protocol's version is written ("HTTP/2")."""
    words = r"\s+".join(re.escape(part) for part in name)
    rest = r"(?:\s+(?!(?:Chapter|Section|Part|Appendix|Table|Figure|Step)\b)(?-i:[A-Z][\w-]*)){0,2}"
    return rf"(?<![\w.]){words}(?:{rest}(?:\s+|-){_RELEASE_WORD}|/){number}"


def _exactly(number: str) -> str:
    return re.escape(number) + _NUMBER_END


_NUMBER_END = r"(?![\w]|\.\d)"  # "3.11" is not "3.11.2", "2024" not "20240"


def distinctive_numbers(question: str) -> list[str]:
    """The numbers a question gives that pick out one thing: a year, a version, a figure
    of two digits or more ("Who was elected in 2024?", "What changed in 3.12?", "What
    changes when I set BASH_COMPAT to 52?"), a single digit after the noun it numbers
    ("security level 6"); not another single digit, which any page holds ("the top 5"),
    nor the number of a section the question refers to ("What does section 6.1 say …":
    a page heads it "6.1. …"), nor a name's two-digit release ("Node.js 18", "Debian
    12"), which the pages of that release write otherwise ("v18.20.4", a folder of the
    release)."""
    question = _ungrouped(question)
    given = _GIVEN_NUMBER.findall(_NUMBERED_PART.sub(" ", question))
    released = set(_RELEASE_NUMBER.findall(question))
    numbered = {m.group(3) for m in _NUMBERED_THING.finditer(question) if _numbers_a_thing(m)}
    return list(
        dict.fromkeys(
            n
            for n in given
            if "." in n or len(n) >= 3 or (len(n) == 2 and n not in released) or n in numbered
        )
    )


# A number with its thousands grouped, one number: "3,000,000,000" is not 3 and 000.
_GROUPED_NUMBER = re.compile(r"(?<![\d.,])\d{1,3}(?:,\d{3})+(?![\d,])")


def _ungrouped(text: str) -> str:
    """The text with its numbers' thousands ungrouped ("3,000,000,000" as 3000000000)."""
    return _GROUPED_NUMBER.sub(lambda m: m.group(0).replace(",", ""), text)


def supposed_measures(question: str) -> set[str]:
    """The numbers a yes/no question gives with a unit ("will Node wait the ~35 days?",
    "a delay of 3,000,000,000 ms"): values it supposes, which the answer need not say
    ("delays larger than 2147483647 are set to 1"), not ones that pick out a thing."""
    if asked_kind(question) != "yes_no":
        return set()
    measured = _MEASURED.finditer(_ungrouped(question))
    return {n for m in measured for n in _GIVEN_NUMBER.findall(m.group(0))}


# A single digit after the compound noun it numbers: "security level 6"
_NUMBERED_THING = re.compile(r"\b([a-z]{3,}) ([a-z]{3,}) (\d)(?![\w.])")


def _numbers_a_thing(match: re.Match[str]) -> bool:
    """Whether the two words before a single digit are a noun it numbers ("security level
    6" is one of the security levels, which a page says as "level 6"), not a function
    word's ("the top 5", "for 4 cores") or a release word's ("Node-API version 9", which
    a release's docs write otherwise)."""
    return all(_naming_word(word) for word in match.group(1, 2))


_RELEASE_NUMBER = re.compile(rf"\b[A-Z][\w.+#-]*\s+{_RELEASE_WORD}(\d{{2}})(?![\w.]*\d)")


def mentions_number(text: str, number: str) -> bool:
    """Whether the text says the number as written, or with its thousands grouped
    ("2,000") or without its leading zero (".300"), or a series ("3.7.x") by any of its
    releases; not as the number of a section it numbers a part of a book by ("参见第 6.1
    节", "表 6.1.", "6.1. 网页浏览器" do not mention Linux 6.1)."""
    return _said_number(number).search(unnumbered(text)) is not None


def unnumbered(text: str) -> str:
    """The text without the numbers that number parts of a book (`_NUMBERED_PART`), and
    without those of a table of contents run into one line ("… automated install,
    5.2.10. Accessibility of the installed system 5.3. Boot Parameters 5.3.1. Boot
    console"): two or more numbered titles on a line, each after a comma or a word in
    lower case, not after a name, "version" or "in" ("Python 3.11. It …", "added in
    3.11. The …")."""
    text = _NUMBERED_PART.sub(" ", text)
    return "\n".join(_without_contents(line) for line in text.split("\n"))


def _without_contents(line: str) -> str:
    entries = [
        match
        for match in _NUMBERED_TITLE.finditer(line)
        if (before := _WORD_BEFORE.search(line, 0, match.start())) is not None
        and (before.group(1).endswith((",", ";")) or _TITLE_BEFORE.fullmatch(before.group(1)))
    ]
    if len(entries) < 2:
        return line
    for match in reversed(entries):
        line = f"{line[: match.start()]} {line[match.end() :]}"
    return line


_NUMBERED_TITLE = re.compile(r"(?<![\w.])\d+(?:\.\d+)+\.(?=\s+[A-Z])")
_WORD_BEFORE = re.compile(r"(\S+)\s+$")
_TITLE_BEFORE = re.compile(r"(?!(?:in|version|release|v)$)[a-z]{2,}")


NUMBER_REACH = 40  # characters either side of a number that may say what it is of


def said_anywhere(number: str) -> bool:
    """Whether a number a question gives may stand anywhere in the text that says it, not
    only beside what it is of (`mentions_number_with`): a year dates what the text
    around it tells, however far its words stand; a release written with a dot ("sqlite
    3.40") is given by its docs' headings or place."""
    return "." in number or _YEAR_ONLY.fullmatch(number) is not None


_YEAR_ONLY = re.compile(r"(?:19|20)\d\d")


def mentions_number_with(text: str, number: str, words: set[str]) -> bool:
    """Whether the text says the number (`mentions_number`) beside one of the words
    (search tokens) the question says it with, within `NUMBER_REACH` characters: the
    number a question gives is of something ("debhelper compat level 14"), and a 14 said
    of nothing the question names is another thing's ("14 Suggests: file", a line
    number of a listing; "Chapter 17" for "PostgreSQL 17"). A table row's cell is of its
    column, which the table's first row names ("| umask | file permission |" over "|
    0002 | -rw-rw-r-- |")."""
    text = unnumbered(text)
    for match in _said_number(number).finditer(text):
        around = text[max(0, match.start() - NUMBER_REACH) : match.end() + NUMBER_REACH]
        if words & set(tokenize(f"{_table_header(text, match.start())}\n{around}")):
            return True
    return False


def _table_header(text: str, at: int) -> str:
    """The first row of the markdown table whose row holds offset `at`; "" outside one."""
    start = text.rfind("\n", 0, at) + 1
    if not text.startswith("|", start):
        return ""
    while start > 0:
        above = text.rfind("\n", 0, start - 1) + 1
        if not text.startswith("|", above):
            break
        start = above
    end = text.find("\n", start)
    return text[start : end if end >= 0 else len(text)]


def _said_number(number: str) -> re.Pattern[str]:
    """How a text may write the number (`mentions_number`)."""
    if series := _SERIES.fullmatch(number):  # "3.7.x": 3.7 or any release of it, 3.7.6
        spelled = re.escape(series.group(1)) + r"(?:\.\d+)*" + _NUMBER_END
    elif re.fullmatch(r"\d{4,}", number):
        head = len(number) % 3 or 3
        groups = [number[:head], *(number[i : i + 3] for i in range(head, len(number), 3))]
        spelled = r"[,\u202f ]?".join(groups) + _NUMBER_END
    elif number.startswith("0."):
        spelled = "0?" + _exactly(number[1:])
    else:
        spelled = _exactly(number)
    return re.compile(r"(?<![\w.])" + spelled)


_GROUP_BREAK = re.compile(
    r"\s*(?:\b(?:and|or|vs\.?|versus)\b|[,;，；、：。？！]|和|与|或者?|[:.?!](?=\s))\s*",
    re.I,
)
# A comparison's two sides are also joined by what orders them: "Did SQLite get RETURNING
# before PostgreSQL got MERGE?" asks of two subjects, each named on a page of its own.
_COMPARED_BREAK = re.compile(
    rf"{_GROUP_BREAK.pattern}|\s*\b(?:before|after|earlier\s+than|later\s+than)\b\s*", re.I
)
_KIND_WORDS = {
    "date": "a date",
    "version": "a version",
    "quantity": "a number",
    "name": "a name",
    "comparison": "a date or version to compare",
}


def subjects(question: str) -> list[tuple[set[str], list[str]]]:
    """What a passage must name to be about the question: per subject the question
    joins with "and", "or" or a comma (a comparison's "before" or "after" too), or
    parts with a colon or a sentence's end (the scene it sets before it asks), its
    names (lower case; not a month's or a weekday's) and its names with numbers as
    phrases. "Does SQLite support MERGE?" has one subject, both names together; "Were A
    and B born in the same city?" has two. What it sets aside or gives as an example is
    none (`without_aside`)."""
    groups: list[tuple[set[str], list[str]]] = []
    breaks = _COMPARED_BREAK if COMPARISON.search(question) else _GROUP_BREAK
    for part in breaks.split(without_aside(question)):
        names = named_terms(part) | identifiers(part) | latin_terms(part)
        names = {n for n in names if not _CALENDAR_WORD.fullmatch(n)}
        phrases = key_phrases(part)
        if names or phrases:
            groups.append((names, phrases))
    return groups


def scene_subjects(question: str) -> list[tuple[set[str], list[str]]]:
    """The subjects (`subjects`) only the scene a question sets before its asking clause
    gives (`question_clause`): those none of whose names the clause names ("Using AES-GCM
    through the EVP interface: what IV length does OpenSSL assume?" sets AES-GCM and
    EVP). None when the question opens asking."""
    clause = question_clause(question)
    if clause == question:
        return []
    asked_of = {name for names, _ in subjects(clause) for name in names}
    return [subject for subject in subjects(question) if not subject[0] & asked_of]


def scene_names(question: str) -> set[str]:
    """The names of the subjects only the scene gives (`scene_subjects`): "Quick one: if
    code in a worker thread sets process.env.FOO, does the main thread see the new
    value?" asks of the main thread, and a passage that answers need name neither
    "Quick" nor FOO. Not a release the scene gives ("In PostgreSQL 15, what did
    pg_start_backup() become?"), unless the clause names its own (`releases_asked_in`).
    Context, unless the corpus files documents under them ("Our relay runs Postfix 3.6.
    Starting with which version …": `filed_names`), which the caller knows."""
    releases_set = scene_releases_asked(question)
    return {
        name
        for names, phrases in scene_subjects(question)
        if not (phrases and releases_set)
        for name in names
    }


# What a question sets aside as a way of doing it, not what it asks about: "without
# editing its CMakeLists.txt", "without restarting it", to the end of its clause. Not
# "instead of" or "rather than": what those name is often what the answer replaces and
# its passage names ("What should code use instead of click.get_terminal_size()?"). An
# example it gives, to the end of its sentence: "for ANALYZE, e.g. ANALYZE (VERBOSE,
# SKIP_LOCKED)" asks of ANALYZE's options, and the answer need not name these two; in
# brackets, to their end: "the largest XML request body (say, a WebDAV PROPPATCH)".
_ASIDE = re.compile(
    r"\bwithout\s+(?:(?:ever|even|first|just|also|\w+ly)\s+)?\w+ing\b[^,;:?!.。，；：？！]*|"
    r"\((?:e\.\s?g\.|say,|for\s+(?:example|instance)\b)[^()]*\)|"
    r"(?<!\w)(?:e\.\s?g\.|for\s+(?:example|instance)\b)(?:(?!\.\s)[^?!。？！])*",
    re.IGNORECASE,
)


def asked_codes(question: str) -> set[str]:
    """The code names a question asks of (`identifiers`), not one it sets aside or gives
    as an example, nor one of the scene it sets first when the clause that asks does not
    point back to it: "When I turn on UNITY_BUILD and don't set a batch size, how many
    source files get combined into each unity file?" is answered in the entry of
    UNITY_BUILD_BATCH_SIZE; "The include_patterns option: what Sphinx version first had
    it?" asks of include_patterns."""
    codes = identifiers(without_aside(question))
    clause = question_clause(question)
    if clause == question or _REFERS_BACK.search(clause):
        return codes
    return codes & identifiers(without_aside(clause))


# A word of the clause that asks pointing back to what the question said before it ("When
# REQUESTS_CA_BUNDLE isn't set, which other variable …").
_REFERS_BACK = re.compile(
    r"\b(?:it|its|that|this|these|those|they|them|their|other|another|else|same)\b", re.I
)


def without_aside(question: str) -> str:
    """The question without what it sets aside or gives as an example (`_ASIDE`)."""
    return _ASIDE.sub(" ", question)


def latin_terms(question: str) -> set[str]:
    """The words a Chinese or Japanese question writes in Latin letters, lower case as
    well: such a question writes in Latin letters only what it names (a package, a
    command, a release's code name: "bullseye", "apt-get", "sources.list"), whatever its
    case; not a word it glosses one of its own with ("会话分离（detach）": a passage may say
    either). None in a question written in Latin letters, where a lower-case word is a
    word."""
    if not has_cjk(question):
        return set()
    unglossed = cjk_spaced(_GLOSS.sub(" ", question))
    return {
        word
        for word in (m.group(0).lower() for m in _LATIN_TERM.finditer(unglossed))
        if len(word) > 1 and word not in STOPWORDS and not is_unit(word)
    }


# A month's or a weekday's name is written with a capital, yet names no subject: "Can a
# release come out on a Saturday or Sunday?" is answered by "always on a weekday".
_CALENDAR_WORD = re.compile(f"(?:{'|'.join((*MONTHS, *WEEKDAYS))})")
_LATIN_TERM = re.compile(r"(?<![\w./-])[A-Za-z][A-Za-z0-9]*(?:[._-][A-Za-z0-9]+)*(?![\w/])")
_GLOSS = re.compile(r"(?<=[\u4e00-\u9fff])\s*[（(][A-Za-z][^（）()]*[）)]")
_LATIN_RELEASE = re.compile(
    r"(?<![\w./-])([a-z][a-z0-9]*(?:[_-][a-z0-9]+)*)\s+(\d+(?:\.\d+)+)(?![\w.]*\d)"
)


def misspelt(name: str, names: set[str]) -> bool:
    """Whether a name of six letters or more is one of these names with one letter
    added, left out or changed: a question may misspell what the sources spell right
    ("Withing You Without You"). Not a name with a digit: "TLSv1.4" is another release
    than "TLSv1.3", not a misspelling of it."""
    if len(name) < 6 or not name.isalpha():
        return False
    return any(
        other.isalpha()
        and abs(len(name) - len(other)) <= 1
        and name[0] == other[0]
        and _one_edit(name, other)
        for other in names
    )


def _one_edit(a: str, b: str) -> bool:
    if len(a) > len(b):
        a, b = b, a
    start = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), len(a))
    if len(a) == len(b):
        return a[start + 1 :] == b[start + 1 :]
    return a[start:] == b[start + 1 :]


def passage_names(
    text: str,
    subject: tuple[set[str], list[str]],
    title: str,
    place: str,
    series: bool = False,
) -> bool:
    """Whether a passage of evidence names the subject, as about it (`names_subject`),
    its table rows read with their header (`with_rows_read`): a row names what its first
    column numbers ("Node-API version 9" of "| 9 | v18.17.0+ |" under "| Node-API
    version | …"). `title`: its source's title and its headings. The gap check and the
    answer line ask it alike."""
    return names_subject(with_rows_read(text), subject, title, place, about=True, series=series)


def names_subject(
    text: str,
    subject: tuple[set[str], list[str]],
    title: str = "",
    place: str = "",
    about: bool = False,
    series: bool = False,
) -> bool:
    """Whether a passage names all of the subject: every name, in the passage, its
    source's title or its place (documentation names its product in the path, a manual
    in its collection's name: `Source.place`); and every name with a number as that
    exact phrase in the passage or title, or as the name in the title or place and a
    title, collection or heading in the passage naming exactly that release or version
    ("Release 15.9" in postgresql-doc-15/…/release-15-9.html is PostgreSQL 15.9, a
    changelog's "2.26.0 (2021-07-13)" in python-requests-doc/… Requests 2.26.0; a page
    of "Apache HTTP Server Version 2.4" is of Apache 2.4; "Chapter 17" is not PostgreSQL
    17). `about`: a passage under the title or headings of another release of it is
    about that one, whatever it mentions in passing ("… will be removed in Python 3.13"
    in What's New In Python 3.11). `series`: a point release of it names it too (asked
    what holds in SQLite 3.40, not when it came, the docs of "Version 3.40.1" are of
    it), and so does every page of docs whose collection is titled by that release or
    series ("Click Documentation (8.1.x)": `collection_of_release`) or whose edition is of
    it ("… applies to version 4.96 of Exim": `edition_of_release`)."""
    names, phrases = subject
    framed = unaccented(unescaped(f"{title}\n{text}"))
    named = named_terms(framed)
    if not all(
        unaccented(n) in named
        or _said_whole(unaccented(n), framed)
        or unaccented(n) in place.lower()
        or misspelt(unaccented(n), named)
        or _method_in_entry(unaccented(n), unescaped(text), unescaped(title))
        for n in names
    ):
        return False
    frame = f"{title}\n{place}".lower()
    location, collection, edition = filed_at(place)
    for phrase in phrases:
        *name, number = phrase.split()

        def said(where: str, phrase: str = phrase) -> bool:
            return mentions_phrase(where, phrase) or (
                series and mentions_point_release(where, phrase)
            )

        if any(map(said, title.split("\n"))) or (
            said(text) and not (about and headings_name_other(title, [phrase]))
        ):
            continue
        if series and (
            collection_of_release(collection, name, number)
            or edition_of_release(edition, name, number)
        ):
            continue
        headings = (path[-1] for _, path in heading_lines(text, heading_paths(text)))
        headed = "\n".join([title, collection, *headings])
        point = r"(?:\.\d+)*" if series else ""
        released = re.search(
            r"(?:release|version|v)\s*" + re.escape(number) + point + _NUMBER_END, headed, re.I
        ) or any(  # a changelog's heading "2.26.0 (2021-07-13)"
            re.fullmatch(re.escape(number) + point, line) for line in version_lines(headed)
        )
        if not (all(part.lower() in frame for part in name) and released) and not (
            _packaged(location, name, number)
        ):
            return False
    return True


def _said_whole(name: str, text: str) -> bool:
    """Whether the text says the name as a word of its own, in any case: not inside
    another word ("quic" of "quick-start", "git" of "digit"), though a number, a plural's
    "s" or a capitalised part may follow it ("python3", "Brooks", "macOS"), or any part
    when the text capitalises the word, a name it gives in full where a question may
    shorten or misspell it ("Livesey Hal" for Livesey Hall); hyphenated or not
    ("Multi-Arch" says multiarch)."""
    if has_cjk(name):  # Chinese writes no spaces between words
        return name in text.lower()
    for said in dict.fromkeys((text, _INNER_HYPHEN.sub("", text))):
        for found in re.finditer(rf"(?<![A-Za-z0-9]){re.escape(name)}", said, re.I):
            after = said[found.end() : found.end() + 2]
            if not _LATIN_LETTER.match(after) or said[found.start()].isupper():
                return True
            if after[0] in "sS" and not _LATIN_LETTER.match(after[1:]):
                return True
            if after[0].isupper() and said[found.end() - 1].islower():
                return True
    return False


_LATIN_LETTER = re.compile(r"[A-Za-z]")  # a letter that may go on a Latin word
_INNER_HYPHEN = re.compile(r"(?<=[A-Za-z])-(?=[A-Za-z])")


def _method_in_entry(name: str, text: str, frame: str) -> bool:
    """Whether the passage writes a dotted code name's method by its own name, called or
    defined ("iter_lines(chunk_size=512, …)"), in the entry of its class, which its
    title or headings name ("class requests.Response"): reference docs document
    Response.iter_lines() so. Not a host's or a version's parts ("ftp.debian.org",
    "TLSv1.4")."""
    *owner, method = name.split(".")
    if not owner or not _METHOD.fullmatch(method):
        return False
    return says_whole(frame.lower(), owner) and (
        re.search(rf"(?<![\w.]){re.escape(method)}\(", text.lower()) is not None
    )


def says_whole(text: str, words: Iterable[str]) -> bool:
    """Whether the text says every one of the words as a whole word ("requests" in
    "class requests.Response", not in "requests_mock"), as they are written."""
    return all(re.search(rf"(?<!\w){re.escape(word)}(?!\w)", text) for word in words)


_METHOD = re.compile(r"[a-z_][a-z0-9_]*")


def collection_of_release(collection: str, name: list[str], number: str) -> bool:
    """Whether a collection's title says it documents that release or series of the
    name: "CMake 3.25.1 Documentation" is CMake 3.25.1's and of the 3.25 series,
    "Click Documentation (8.1.x)" the 8.1 series'. Every page of it is, though none
    says so: asked what holds in Click 8.1, not when it came."""
    phrase = " ".join([*name, number])
    if mentions_phrase(collection, phrase) or mentions_point_release(collection, phrase):
        return True
    opens = title_name(collection).lower() == " ".join(name).lower()
    return opens and re.search(rf"(?<![\w.]){re.escape(number)}\.x\b", collection) is not None


def edition_of_release(edition: str, name: list[str], number: str) -> bool:
    """Whether a page's edition (`Source.edition`) is of that release or series of the
    name: "1. Introduction: This edition of the Exim specification applies to version
    4.96 of Exim." is Exim 4.96's, "The Z Shell Manual (zsh): Version 5.9" zsh 5.9's and
    the 5 series'. Asked what holds in it, not when it came."""
    if not says_whole(edition.lower(), [part.lower() for part in name]):
        return False
    return any(r == number or r.startswith(f"{number}.") for r in edition_releases(edition))


def filed_at(place: str) -> tuple[str, str, str]:
    """A source's place read back (`Source.place`): its location, its collection and its
    edition, each "" where it has none."""
    location, collection, edition = [*place.split("\n", 2), "", ""][:3]
    return location, collection, edition


def named_in_location(names: set[str], location: str) -> set[str]:
    """The names a source's location holds (documentation names its product in the
    path: postgresql-doc-15/…); a name of two letters or fewer only as a whole word of
    it (go_spec.html names Go; "golang" and "gcc" do not name "go" or "c"). `location`:
    a path, or a source's place, of which the location and the collection count."""
    path, collection, _ = filed_at(location)
    path = f"{path}\n{collection}".rstrip("\n").lower()
    words = set(_PATH_WORD.split(path))
    return {name for name in names if name in path and (len(name) > 2 or name in words)}


_PATH_WORD = re.compile(r"[^a-z0-9]+")


def names_one_of(names: set[str], text: str, frame: str, location: str) -> bool:
    """Whether a passage, its source's title or headings (`frame`) or its location name
    one of these names (packaged docs name their product in the path)."""
    return bool(names & named_terms(f"{frame}\n{text}") or named_in_location(names, location))


def filed_names(
    question: str, places: Iterable[str], pages: bool = False, shelves: Iterable[str] = ()
) -> set[str]:
    """The question's names that the corpus files documents under: a product whose
    documentation lies in a folder of its name (git-doc/…, python-django-doc/…). A
    passage filed under none of them and naming none is about another product, however
    well it shares the other words. Only folders and collections count (a source's place:
    its location, then its collection's name on a line of its own, `Source.place`): a
    page's own file name or a web address's last part (wiki/Meet_Corliss_Archer) names
    that page, not a collection; `pages`: those count too (the names the corpus names
    documents by). `shelves`: the folders of the whole corpus and the products its
    collections are titled by (a product's documentation that no search reached:
    Click's, for "In which Click version was the --env-file option added?", where only
    Flask's pages say --env-file). A collection files the name its title opens with
    (`title_name`), not every name of its title."""
    names = {name for subject_names, _ in subjects(question) for name in subject_names}
    paths = []
    for place in places:
        location, collection, _ = filed_at(place)
        if not pages:  # its folder
            location = location.rsplit("/", 1)[0] if "/" in location else ""
        paths.append(f"{location}\n{title_name(collection)}")
    paths.extend(shelves)
    return {name for name in names if any(named_in_location({name}, path) for path in paths)}


def title_name(collection: str) -> str:
    """The name a collection's title opens with: the product it documents ("Debian" of
    "Debian GNU/Linux Installation Guide" and of "The Debian Administrator's Handbook",
    "Click" of "Click Documentation (8.1.x)"). Its other words name no collection of
    their own: the handbook is no less about Linux for not saying so in its title."""
    words = collection.split()
    if words and words[0].lower() in ("the", "a", "an"):
        words = words[1:]
    return words[0] if words else ""


def _packaged(location: str, name: list[str], number: str) -> bool:
    """Whether the location is the documentation of exactly that release, as packaged
    docs are laid out: postgresql-doc-15/… is PostgreSQL 15, python3.11-doc/… is Python
    3.11 (and not Python 3)."""
    pattern = r"(?<![\w.])" + "[-_ ]?".join(re.escape(p) for p in name)
    pattern += r"[-_.]?(?:doc[-_.]?)?" + _exactly(number)
    return re.search(pattern, location, re.IGNORECASE) is not None


_HEAD = re.compile(
    rf"\b(?:what|which|how\s+(?:many|much))\s+(?P<aux>(?:{'|'.join(_DO_BE)})\s+)?"
    r"(?:(?:the|a|an)\s+)?(?P<head>[A-Za-z][\w-]*(?:\.\w+)*)(?P<next>\s+\w+)?",
    re.IGNORECASE,
)
# Words that order what follows them ("the first release", "the latest version"): the
# thing asked about comes after them.
_ORDER_WORDS = frozenset(
    [
        *("first", "second", "third", "last", "latest", "newest", "oldest", "earliest"),
        *("next", "previous", "current", "final", "initial"),
    ]
)
# A superlative ("smallest", "largest") says which of the things that follow it
# is asked for, not what they are.
_SUPERLATIVE = re.compile(r"[a-z]{3,}est", re.IGNORECASE)


def head_word(question: str) -> str:
    """The thing a "what X" or "how many X" question asks about, as written ("warranty"
    in "What warranty does … offer"); "" when the question has none. In
    "what replaced the functions …" or "what makes PostgreSQL …" the word after "what"
    is its verb, not a thing: a verb in the past tense, or one followed by its object
    (an article, a pronoun or a name), where a noun would be followed by its verb. The
    thing is the last word before that verb ("What major city is …" asks for a city, "Which
    PostgreSQL command can …" for a command), and the noun a version question asks with
    is not one ("Which Django version"). A Chinese question names it after "哪个" and
    the like ("由哪个机构维护" asks for an organisation); a single character there is a
    word of its own ("哪个更早", "哪一天"), not the thing."""
    head = _head_noun(question) or _zh_head_noun(question)
    return "" if head in _KIND_NOUNS.get(asked_kind(question), "").split() else head


def featured_word(question: str) -> str:
    """The word that names the feature a question asks of, when it writes one before what
    kind of feature it is: in lower case ("the git replay command", "the built-in
    node:sqlite module", "the Redis socache module"), not a name to the name rules; or as
    a keyword in capitals ("a RETURNING clause", "the GLOBSORT variable"), a name that
    the question's other names may be found without. Either way the corpus says nothing
    of the feature unless some page says the word. "" when the question writes none."""
    match = _FEATURED.search(question)
    word = (match.group("word") or match.group("keyword")) if match else ""
    return "" if word in STOPWORDS else word  # "the directive for setting …" features none


_HYPHENS = re.compile(r"[-_\s]+")


def says_word(text: str, word: str) -> bool:
    """Whether the text says the word, hyphens and underscores read as spaces
    ("health-check" is said by "health check"), Markdown's escapes undone
    ("include\\_patterns" says include_patterns): the test of a `featured_word`."""
    said = unescaped(text).lower()
    return _HYPHENS.sub(" ", word.lower()) in _HYPHENS.sub(" ", said)


_FEATURED = re.compile(
    r"(?:\b(?i:the)\s+(?:[\w.:/+-]+\s+)?(?P<word>[a-z][\w:.+-]*[a-z0-9])|"
    r"\b(?:the|an?)\s+(?:[\w.:/+-]+\s+)?(?P<keyword>[A-Z][A-Z0-9]{2,}))\s+(?:sub)?(?:command|"
    r"module|package|function|method|directive|keyword|clause|statement|extension|option|"
    r"setting|variable|field|flag|parameter|filter|fixture|hook|decorator|attribute|argument|"
    r"property|macro)s?\b"
)


def _zh_thing_asked(question: str) -> bool:
    """Whether a Chinese question asks "哪种 X" of a thing, not of a measure: "默认使用哪种
    前端" asks for a front end, where "默认使用哪个端口" asks for a number."""
    noun = _zh_head_noun(question)
    return bool(noun) and _MEASURE_NOUN.fullmatch(noun) is None


def _zh_head_noun(question: str) -> str:
    match = _ZH_HEAD.search(question)
    words = tokenize(match.group("head")) if match else []
    return words[0] if words and len(words[0]) > 1 else ""


def _head_noun(question: str) -> str:
    match = _HEAD.search(question)
    if match is None:
        return ""
    head = match.group("head")
    if head.lower() in _ORDER_WORDS:
        return ""  # "the first Apache HTTP Server release that …": a modifier, not the thing
    after = (match.group("next") or "").strip()
    modified = after.isalpha() and after.islower() and after not in _AUXILIARY | NOUN_PHRASE_OPENERS
    if _SUPERLATIVE.fullmatch(head) and modified:
        return after  # "the smallest value …" asks for a value
    takes_object = after.lower() in NOUN_PHRASE_OPENERS or (after[:1].isupper() and head.islower())
    if not match.group("aux") and (head.lower().endswith("ed") or takes_object):
        return ""
    phrase = question[match.start("head") :].split()[:4]
    ends = [i for i, word in enumerate(phrase) if i and word.lower().strip(",?") in _AUXILIARY]
    if ends:  # the noun that ends the phrase: "What major city is …" asks for a city
        head = phrase[ends[0] - 1].strip(",?")
    elif head.lower() in named_terms(question) and after.islower():
        head = after  # "Which PostgreSQL command …" asks for a command, of PostgreSQL
    return head.lower() if tokenize(head) else ""


# The words for a beginning: "When was Debian founded?" is answered by "The Debian project
# began in 1993", "when he created Debian".
_INCEPTION = frozenset(tokenize("founded creation created established started began begin begun"))


def asked_words(question: str, kind: AnswerKind) -> set[str]:
    """The question's content words besides its names and numbers, as search tokens:
    what a sentence holding the answer shares with the question ("released" for a
    release date), so that any date on a page about the subject is not taken for it.
    The noun a version question asks with is not one: any version number stands after
    "version" ("Suppose version 2.6.18 of your project worked" shares only it with
    "Which Git version introduced git switch?"). A date is different: "Release date:"
    labels the date of the release the frame names. A word for a beginning is any of
    them (`_INCEPTION`)."""
    names = named_terms(question) | identifiers(question)
    words = [
        w
        for w in facets_of(question)
        if without_possessive(w.lower()) not in names and not _has_digit(w)
    ]
    asked = set(tokenize(" ".join(words))) - set(tokenize(_KIND_NOUNS.get(kind, "")))
    return asked | _INCEPTION if asked & _INCEPTION else asked


def _has_digit(word: str) -> bool:
    return any(c.isdigit() for c in word)  # a number or a version is a name's, not asked


# A number as a question gives it; a series written with a wildcard ("3.7.x", "2.x") whole.
_GIVEN_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)*(?:\.[xX*](?![\w.]))?" + _NUMBER_END)
_SERIES = re.compile(r"(\d+(?:\.\d+)*)\.[xX*]")
_KIND_NOUNS = {  # the noun a question asks with, not a word its answer need say
    "version": "version versions release releases 版本",
    # not "date" itself: "Release date:" labels the date of the release its frame names
    "date": " ".join(f"{noun} {noun}s" for noun in DATE_ASKED_WITH),
    "name": "name names 名字 名称",
}
# A setting's entry opening with its name and its value in brackets, as a summary of
# settings lists them ("**smtp_mx_session_limit (2)** The maximal number …").
_SETTING_WITH_VALUE = re.compile(r"\W*[a-z][\w.-]*_[\w.-]+\s*\((?:default:\s*)?[^()\s]{1,16}\)")
_VALUE_KINDS = ("quantity", "version", "date", "name")  # a yes/no answer need not say default
_DEFAULT = re.compile(  # "the initial value will be 8": a property's default, as CMake says it
    rf"\bdefault(?:s|ed)?\b|\binitial(?:ly)?\s+value\b|{LEFT_UNSET}|默认|缺省",
    re.IGNORECASE,
)


_MEASURE_ASKED = re.compile(
    r"\bhow\s+(?:long|far|tall|high|wide|deep|big|large|heavy)\b|"
    r"\bhow\s+much\s+(?:memory|ram|space|disk|storage)\b|多长|多久|多大|多高|多远|多重",
    re.IGNORECASE,
)
# A number as docs write it before a unit: in digits or in words ("five days", "a minute").
_AMOUNT = rf"(?:\d+(?:[.,]\d+)*[\s-]*|\b(?:an?|one|{_NUMBER_WORDS})[\s-]+)"
# A question that asks for a quantity in one dimension, and a quantity said in it: size,
# time or money. ("How long" asks for a time when a verb follows: "how long does it wait", not
# "how long is the bridge".)
_DIMENSIONS = {
    "size": (
        re.compile(
            r"\bhow\s+many\s+(?:(?:kilo|mega|giga|tera)?bytes|[kmgt]i?b)\b|"
            r"\bhow\s+much\s+(?:memory|ram|space|disk|storage)\b|多少\s*(?:字节|[KMGT]i?B)",
            re.IGNORECASE,
        ),
        re.compile(
            rf"{_AMOUNT}(?:[kmgtp]i?b|bytes?|(?:kilo|mega|giga|tera)bytes?)\b|"
            r"\d\s*(?:[KMGT]i?B|字节)",
            re.IGNORECASE,
        ),
    ),
    "money": (  # "How much money did the campaign raise?" is not answered by "5 years"
        re.compile(
            r"\bhow\s+much\s+(?:money|funding)\b|\bhow\s+much\s+(?:\w+\s+){0,3}(?:cost|raise)d?\b|"
            r"\bwhat\s+(?:\w+\s+)?(?:price|cost)\b|多少钱",
            re.IGNORECASE,
        ),
        re.compile(
            r"[$€£¥]\s?\d|\d\s*(?:dollars?|euros?|pounds?|usd|eur|gbp)\b|\d\s*(?:元|美元|欧元)",
            re.IGNORECASE,
        ),
    ),
    "time": (
        re.compile(
            r"\bhow\s+many\s+(?:milliseconds|ms|seconds|minutes|hours|days|weeks|months|"
            r"years)\b|\b(?:for|after)\s+how\s+long\b|\bhow\s+much\s+time\b|"
            r"\bhow\s+long\s+(?:does|do|did|will|would|can|may|must|should)\b|"
            r"多少\s*(?:毫秒|秒|分钟|小时|天|周|个?月|年)|多久",
            re.IGNORECASE,
        ),
        re.compile(
            rf"{_AMOUNT}(?:ms|milliseconds?|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|"
            r"days?|weeks?|months?|years?)\b|\d\s*(?:毫秒|秒|分钟|小时|天|周|个月)|"
            r"(?<![\d.])(?!(?:1[5-9]|20)\d\d\s*年)\d+\s*年",  # "2014 年" is a year, no time
            re.IGNORECASE,
        ),
    ),
}


def asked_dimension(question: str) -> str:
    """The dimension a question asks its quantity in, "size", "time" or "money" ("how
    many megabytes", "how much time does it give", "how much money did it raise"), or
    ""."""
    return next((d for d, (asked, _) in _DIMENSIONS.items() if asked.search(question)), "")


# A number that counts things, said with them: "4 decisions", "four files", "四个决定",
# "最后一次启动".
_COUNT_OF_THINGS = re.compile(
    rf"(?:\b(?:\d+|{_NUMBER_WORDS})\s+(?!(?:of|to|by|or|and|if|in|on|for|at|is|are|was|were|"
    r"per|as|its|the)\b)[a-z]{3,}s\b)|"
    r"(?:\d+\s*|[一二三四五六七八九十两几]+)\s*(?:个|次|项|条|台|名|种|位|件|篇|张|部|本|组)\s*[\u4e00-\u9fff]",
    re.IGNORECASE,
)


def _dimensions_said(text: str) -> list[str]:
    """The dimensions the text gives a quantity in, by its units (`_DIMENSIONS`)."""
    return [dimension for dimension, (_, unit) in _DIMENSIONS.items() if unit.search(text)]


def _counts_only(sentence: str) -> bool:
    """Whether every number of the sentence counts things said with it
    (`_COUNT_OF_THINGS`)."""
    uncounted = _COUNT_OF_THINGS.sub(" ", sentence)
    return uncounted != sentence and not holds_answer("quantity", uncounted)


_MEASURED = re.compile(
    rf"{_AMOUNT}(?:km|kilomet(?:er|re)s?|"
    r"met(?:er|re)s?|m|mi|miles?|ft|feet|foot|inch(?:es)?|cm|mm|yards?|ms|s|sec(?:ond)?s?|"
    r"min(?:ute)?s?|h|hours?|d|days?|w|weeks?|months?|years?|[kmgt]i?b|bytes?|"
    r"(?:kilo|mega|giga|tera)bytes?|kg|tons?|tonnes?|pounds?|lbs?)\b|"
    r"\d\s*(?:公里|米|秒|分钟|小时|天|周|个月|年|[KMGT]i?B|字节|千克|公斤)",
    re.IGNORECASE,
)


# What a value is the value of: a version or a date of the event of a change, a number
# of a bound or of a default. A sentence that tells of one of these answers a question
# about that one only. A release's notes tell an addition as what the product now does
# ("Requests now supports Brotli compression") or names it ("Introduction of the
# $ python -m requests.help command"), a removal as what it no longer does.
_EVENTS = {
    "added": re.compile(
        r"\b(?:add(?:ed|s)?|introduc(?:ed|es)|(?:addition|introduction)\s+of|new|"
        r"now\s+(?:support|accept|allow|handle|recogni[sz]e|understand)s?)\b|新增|加入|引入|添加",
        re.I,
    ),
    "deprecated": re.compile(r"\bdeprecat(?:e|ed|es|ion)\b|\bobsolete(?:d|s)?\b|弃用|废弃", re.I),
    "removed": re.compile(
        r"\b(?:remov(?:e|ed|es|al)|dropped|deleted|"
        r"no\s+longer\s+(?:support(?:s|ed)?|available|provided|provides|accept(?:s|ed)?|"
        r"allow(?:s|ed)?))\b|移除|删除|去掉",
        re.I,
    ),
    # turned on or off: "Which release turned off keep-alive connections?" is answered by
    # "Disable keep-alive connections …" under "Version 2.1.2"
    "switched": re.compile(
        r"\b(?:(?:en|dis)abl(?:e|ed|es|ing)|(?:turn|switch)(?:ed|es|s|ing)?\s+(?:on|off))\b"
        r"|启用|禁用|开启|关闭",
        re.I,
    ),
}
# A change with the release it came in: "deprecated in Python 3.9", "removed since
# version 2.0", "added in 3.12"; one word may stand before the number (a product's name,
# "release"), read in any case
_CHANGED_IN_RELEASE = {
    event: re.compile(
        rf"(?:{pattern.pattern})\s+(?:in|since|as\s+of)\s+(?:[A-Z][\w.+-]*\s+)?(?:version\s+)?"
        r"v?\d+(?:\.\d+)*(?![\w]|\.\d)",
        re.I,
    )
    for event, pattern in _EVENTS.items()
}
_BOUNDS = {
    "bound": re.compile(
        r"\b(?:max(?:imum|imal)?|min(?:imum|imal)?|largest|smallest|greatest|highest|lowest|"
        r"(?:most|least)(?!\s+recent)|limit(?:s|ed)?|up\s+to|no\s+more\s+than|"
        r"or\s+(?:fewer|less|more))\b|"
        r"最大|最小|最多|最少|上限|下限|不超过",
        re.I,
    ),
    "default": _DEFAULT,
}


_TOLD = {"date": _EVENTS, "version": _EVENTS, "comparison": _EVENTS, "quantity": _BOUNDS}
_RELEASED = re.compile(r"\breleas(?:e|ed|es|ing)\b|发布|发行", re.I)
# A field that names only its value's kind: a page's own date or version ("Date:
# October 07, 2026" in a Sphinx page's field list is the day the page was built).
_KIND_FIELD = re.compile(r"\s*(?:date|version|日期|版本)\s*[:：]?\s*", re.I)


def _asked_event(question: str, kind: AnswerKind) -> re.Pattern[str] | None:
    """What tells the change or release a date or version is asked of ("When was Python
    3.11 released?": a release), or None when it asks of none."""
    if kind not in ("date", "version"):
        return None
    asked = [_EVENTS[event] for event in asked_events(question, kind)]
    if _RELEASED.search(question):
        asked.append(_RELEASED)
    return re.compile("|".join(p.pattern for p in asked), re.I) if asked else None


def events_in(text: str, kind: AnswerKind) -> frozenset[str]:
    """What the text tells a value of the kind is the value of: the events of a change
    (`_EVENTS`) for a date or a version, a bound or a default (`_BOUNDS`) for a number;
    nothing for another kind."""
    told = _TOLD.get(kind, {})
    return frozenset(event for event, pattern in told.items() if pattern.search(text))


def asked_events(question: str, kind: AnswerKind) -> frozenset[str]:
    """What the question asks a date or a version of (`events_in`); when it names no
    change, "since which version" and "from which release on" ask when something came
    ("Since which Python version does the math module have isqrt()?": added), or, said
    with a negation, when it went ("From which release on is X unavailable?": removed);
    a comparison of two things that are no releases, when each came ("A or B: which did
    Python get first?": added)."""
    events = events_in(question, kind)
    if "switched" in events:  # on is a coming, off a going: "added", "no longer supported"
        events |= {"added", "removed"}
    if not events and kind == "comparison" and not key_phrases(question):
        return frozenset({"added"})  # "A or B: which did Python get first?": when each came
    if events or kind not in ("date", "version") or not _SINCE_WHEN.search(question):
        return events
    return frozenset({"removed" if _NEGATED.search(question) else "added"})


# "When did it start …", "when was it changed": asked when something came about, not when
# a release came out ("When was Python 3.11 released?") or when a thing was made.
_WHEN_CHANGED = re.compile(
    r"\W*when\s+(?:did|was|were|does|do)\b(?!.*\breleas)(?=.*\b(?:start|stop|begin|began|"
    r"become|became|change|changed|add|added|introduc\w*|deprecat\w*|remov\w*|drop\w*|"
    r"switch\w*)\b)",
    re.IGNORECASE,
)
_SINCE_WHEN = re.compile(
    r"\bsince\s+(?:which|what|when)\b|\b(?:from|starting\s+(?:with|from))\s+(?:which|what)\b"
    rf"|{_FIRST_RELEASE_THAT}"
    r"|从哪个|自哪个|从哪一",
    re.IGNORECASE,
)
_NEGATED = re.compile(
    r"\bnot\b|n't\b|\bno\s+longer\b|\bun(?:available|supported|usable)\b|不再|不能|无法",
    re.IGNORECASE,
)


# "Which Node.js 20 release", "from which Apache 2.4 release on": the release asked for
# is one of that series.
_ASKED_SERIES = re.compile(
    r"(?<![\w.])(\d+(?:\.\d+)*)\s+(?:(?:patch|point|minor|bugfix|maintenance)\s+)?"
    r"(?:release|version)s?\b",
    re.IGNORECASE,
)


_PATCH_RELEASE = re.compile(r"\bpatch(?:-level)?\s+releases?\b", re.IGNORECASE)


def _asked_series(question: str) -> re.Pattern[str] | None:
    """The releases of the series a version question asks within: "v20.5.0" or "20.5"
    for "In which Node.js 20 release …"; a patch release, when it asks for one ("In
    which Flask patch release …"): a version of three numbers at least ("2.0.1", not
    "2.0"); None when it asks within none."""
    match = _ASKED_SERIES.search(question)
    if match:
        series = re.escape(match.group(1))
    elif _PATCH_RELEASE.search(question):
        series = r"\d+\.\d+"  # any series: the patch level after it
    else:
        return None
    return re.compile(rf"(?<![\w.])[vV]?{series}\.\d")


# What "how many" counts: its words up to the verb or a preposition ("how many loose
# objects does …", "how many recipients per message …"), past a kind ("how many kinds of
# limit"); in Chinese, the word after a measure word ("有多少个邮件列表").
_COUNT_ENDS = (
    rf"(?:{'|'.join(sorted(_AUXILIARY))}|of|per|in|on|at|to|for|with|by|from|into|"
    r"before|after|when|if)\b"
)
_COUNTED = re.compile(
    r"\bhow\s+many\s+(?:(?:kinds?|types?|sorts?)\s+of\s+)?"
    rf"(?P<counted>(?:(?!{_COUNT_ENDS})[\w.-]+\s*){{1,3}})",
    re.IGNORECASE,
)
_ZH_COUNTED = re.compile(
    rf"(?:多少|几)\s*(?:{_ZH_MEASURE}|条|项|台|名)\s*(?P<counted>[\u4e00-\u9fff]+)"
)


def counted_words(question: str) -> frozenset[str]:
    """What a "how many X" question counts, as search tokens ("objects", "loose" for
    "how many loose objects does git gc --auto …"): a count answers it where X is said
    with it, in the sentence, the ones before it or its headings; "greenlet>=1.0 is
    required" gives no number of threads. Empty when it asks in a unit (`_DIMENSIONS`:
    "how many seconds" is answered by "5 s") or counts nothing it names."""
    if any(asked.search(question) for asked, _ in _DIMENSIONS.values()):
        return frozenset()
    if match := _COUNTED.search(question):
        return frozenset(w for w in tokenize(match.group("counted")) if not _has_digit(w))
    match = _ZH_COUNTED.search(question)
    return frozenset(tokenize(match.group("counted"))[:1] if match else [])


def _event_words(question: str) -> frozenset[str]:
    """The question's words that name a change ("added" in "… was QUIC client support
    added?"), as search tokens: a sentence that shares only these with the question
    tells of a change, not of the thing changed ("… functions were added in OpenSSL
    3.0")."""
    said = (m.group(0) for pattern in _EVENTS.values() for m in pattern.finditer(question))
    return frozenset(tokenize(" ".join(said)))


def _within_release(question: str, phrases: list[str]) -> bool:
    """Whether a comparison is asked within a release it names, not between releases:
    the release stands outside the two sides compared, which follow the last comma or
    colon before the final "or" ("Which came first in Apache 2.4, the proxy health-check
    module or the Redis socache provider?", "Apache 2.4: which showed up earlier, …"); so
    the versions that answer are its point releases ("Available in Apache 2.4.21 and
    later"). Not "Which came first, Python 3.8 or Python 3.9?", whose sides are releases.
    `phrases`: the question's names with their numbers (`key_phrases`)."""
    sides = compared_sides(question)
    if not phrases or sides is None:
        return False
    return not any(mentions_phrase(" or ".join(sides), phrase) for phrase in phrases)


def compared_sides(question: str) -> tuple[str, str] | None:
    """The two sides a question compares, as written: what follows the last comma or
    colon before its final "or", split there ("SQLite's RETURNING clause" and
    "PostgreSQL's MERGE command?" of "Which came first: SQLite's RETURNING clause or
    PostgreSQL's MERGE command?"). None without an "or"."""
    last_or = question.lower().rfind(" or ")
    if last_or < 0:
        return None
    cut = max(question.rfind(",", 0, last_or), question.rfind(":", 0, last_or))
    return question[cut + 1 : last_or].strip(), question[last_or + 4 :].strip()


# The fewest letters a question's lower-case word needs to be taken for a product's short
# form ("postgres" for "PostgreSQL"), not a word that happens to open the name ("post")
_SHORT_FORM = 5


# A name as code writes it: with a dot, an underscore or a hyphen inside, or as an
# option; a variable's sigil before it ("$smtp_command_history")
_CODE_NAME = re.compile(r"--?[A-Za-z][\w-]*|[$%@]?[A-Za-z]\w*(?:[._-]\w+)+(?:\(\))?")
_CODE_WORD = re.compile(r"[$%@]?[A-Za-z]\w*")  # one word a heading marks as code: `readarray`


# The kinds of value a release's notes give once in a heading for all their items: its
# version, and the date it came out ("Release 4.4.0 (released Jan 17, 2022)").
_RELEASED_KINDS = ("version", "comparison", "date")


class Asked(NamedTuple):
    """What a question asks for, read once: the kind of value, the words a sentence
    holding it shares with the question, its names with their numbers, whether it asks
    for a default ("what is the default …", "… by default") and its code names."""

    kind: AnswerKind
    words: set[str]
    phrases: list[str]
    default: bool
    codes: set[str]
    given: re.Pattern[str] | None  # the numbers the question itself gives
    measure: bool  # "how long is the bridge": a number with its unit answers
    events: frozenset[str] = frozenset()  # what the value is of: added, … (`events_in`)
    of_event: re.Pattern[str] | None = None  # what tells the asked change or release
    names: frozenset[str] = frozenset()  # its names as search tokens ("sam", "hartman")
    dimension: str = ""  # "size" or "time" when the question asks in one (`_DIMENSIONS`)
    featured: str = ""  # the feature it names by its kind: "the xmlattr filter" (`featured_word`)
    since_version: bool = False  # "When did Node start …": a version a change dates to answers
    series: re.Pattern[str] | None = None  # "Which Node.js 20 release …": its releases
    event_words: frozenset[str] = frozenset()  # the words naming the change ("added")
    counted: frozenset[str] = frozenset()  # what "how many X" counts: X (`counted_words`)
    within: bool = False  # "Which came first in Apache 2.4, …": its releases (`_within_release`)

    @classmethod
    def of(cls, question: str) -> Asked:
        question = in_release_words(question)  # "When did Django 2.2 come out?": released
        kind = asked_kind(question)
        numbers = sorted(set(_GIVEN_NUMBER.findall(question)), key=len, reverse=True)
        phrases = key_phrases(question)
        return cls(
            kind,
            asked_words(question, kind),
            phrases,
            kind in _VALUE_KINDS and _DEFAULT.search(question) is not None,
            asked_codes(question),
            re.compile("|".join(rf"(?<![\w.]){_exactly(n)}" for n in numbers)) if numbers else None,
            kind == "quantity" and _MEASURE_ASKED.search(question) is not None,
            asked_events(question, kind),
            _asked_event(question, kind),
            frozenset(tokenize(" ".join(named_terms(question)))),
            asked_dimension(question),
            featured_word(question) if kind != "comparison" else "",
            kind == "date" and _WHEN_CHANGED.match(question_clause(question)) is not None,
            _asked_series(question) if kind == "version" else None,
            _event_words(question),
            counted_words(question) if kind == "quantity" else frozenset(),
            kind == "comparison" and _within_release(question, phrases),
        )

    def holds_value(self, sentence: str) -> bool:
        """Whether the sentence holds a value of the asked kind (`holds_answer`); a
        length, a duration or a size asked for, with a unit: "How long is the bridge?"
        is answered by "nearly 8 km", not by "a population of 3.7 million"."""
        if not self.holds(sentence):
            return False
        return not self.measure or _MEASURED.search(sentence) is not None

    def holds(self, sentence: str) -> bool:
        """`holds_answer`, a name asked for being one the question does not give: "To
        enter the BIOS/UEFI setup menu you have to press a key" names nothing that
        answers "Which key opens the BIOS/UEFI setup menu?"; "Often it is the Delete or
        the F2 key" does. A sentence with a number is read as before, any name
        counting: "what" asks for a name by its form, a count or an index by its meaning
        ("What iteration count …"), which the question's own names and a number answer.
        Asked when something came about ("When did Node start …"), a version answers as
        a date does; asked for a release of a series ("which Node.js 20 release"), only
        a version of that series answers."""
        if self.since_version and holds_answer("version", sentence):
            return True  # "Since Node.js 8.0.0, …" tells when Node started doing it
        if self.series and not self.series.search(sentence):
            return False  # "Stability: 1.2" is no release of Node.js 20
        if self.kind == "version" and self.names_release(sentence):
            return True  # "Starting with Debian 10 Buster …": a release of Debian
        if self.kind != "name" or holds_answer("quantity", sentence):
            return holds_answer(self.kind, sentence)
        given = self.names | set(tokenize(" ".join(self.codes)))
        said = [*_CODE.findall(sentence), *named_terms(sentence)]
        return any(set(tokenize(name)) - given for name in said)

    def names_release(self, sentence: str) -> bool:
        """Whether the sentence gives a release of what the question names by its number
        after the name ("Starting with Debian 10 Buster", "PostgreSQL 15 adds …"): asked
        which release of it, that is a version though no dot or "version" says so; a
        number after another name is not ("Chapter 17", "RFC 8446")."""
        return any(self._gives(match.group(1)) for match in _KEY_PHRASE.finditer(sentence))

    def _gives(self, name: str) -> bool:
        """Whether a name a sentence writes before a number is one the question gives,
        by its name or, in lower case, by its short form ("postgres" for "PostgreSQL")."""
        written = set(tokenize(name))
        return bool(written & self.names) or any(
            token.startswith(word)
            for token in written
            for word in self.words
            if len(word) >= _SHORT_FORM
        )

    def answered_by(self, sentence: str, frame: str, lead: str = "") -> bool:
        """Whether the sentence, under its title and headings (`frame`) and after the
        sentences before it in its paragraph (`lead`), answers: it holds a value of the
        asked kind, not only numbers the question gives ("versions 2.6 and 3.0 were
        synchronized" dates neither); it shares a word with the question, itself or
        through its frame ("July 1, 2021" under "Django 3.2.5 release notes" is a release
        date), besides the word that names the change asked of ("… functions were added
        in OpenSSL 3.0" does not date "QUIC client support added"); it is not about
        another release of what the question names ("Django 2.2 will end in April 2022"
        under "Django 3.2 release notes"), nor stands under one without naming the asked
        release itself ("MySQL 5.0" in "Django 1.8 release notes" is not Django 5.0), nor
        tells of another event than the one asked ("added in 3.0.2" for "when was it
        deprecated"; "its current default" for "the largest value"). Asked of a code
        name, it is about it: it, the sentences before it or its headings name it, and
        its innermost heading is not another code name's entry ("Deprecated since version
        3.9" under math.factorial is not when math.isqrt came); asked of a feature named
        by its kind ("the xmlattr filter"), they say it ("Changed in version 2.11" under
        the wordwrap filter does not date the xmlattr filter). Asked how many of a thing,
        it says the thing or states a default ("greenlet>=1.0 is required" counts no
        threads; "the first parameter, which defaults to 255" is the count of a setting
        named otherwise). Asked which setting does a thing, the entry it stands in names
        one when its heading does (`entry_named`)."""
        stated = self._own_values(self._ungiven(sentence))
        release = self.release_above(stated, frame)
        if release:  # a release's notes: the item tells the change, the heading its release
            stated = f"{release}\n{stated}"
        assigned = not release and self.value_above(stated, frame)
        if assigned:  # an entry's description: its heading assigns it the value
            stated = f"{assigned}\n{stated}"
        entry = self.entry_named(frame.split("\n")[1:])  # its headings, not its title
        if entry:  # asked which setting: the entry it describes is named in its heading
            stated = f"{entry}\n{stated}"
        series = self.kind == "version" or self.within
        if not self.holds(stated) or names_other_release(
            self._without_asked_release(sentence), self.phrases, series
        ):
            return False
        if self.measures_otherwise(sentence, lead):
            return False
        read = f"{frame}\n{lead}" if lead else frame
        read_with = f"{read}\n{sentence}"  # the sentence with all read before it
        if self.codes and (
            self.under_other_code(frame)
            or not any(mentions_identifier(read_with, c) for c in self.codes)
        ):
            return False
        if self.featured and not says_word(read_with, self.featured):
            return False
        elsewhere = headings_name_other(frame, self.phrases, series) or (
            names_other_release(lead, self.phrases, series)
        )
        if elsewhere and not any(mentions_phrase(sentence, p) for p in self.phrases):
            return False
        told = events_in(f"{lead}{sentence}", self.kind) if self.events else frozenset()
        if "switched" not in self.events:  # "0 disables the timeout" describes a setting
            told -= {"switched"}
        if told and (assigned or _SETTING_WITH_VALUE.match(unescaped(sentence))):
            # "The maximum number …" under "max_form_parts = 1000", or after the setting
            # with its value ("smtp_mx_session_limit (2) The maximal number …"): the
            # entry's value is its default
            told |= {"default"}
        if told and not told & self.events:
            return False  # "added in OpenSSL 3.0.2" does not say when it was deprecated
        above, _, innermost = frame.rpartition("\n")
        if (
            self.of_event
            and _KIND_FIELD.fullmatch(innermost)
            and not self.of_event.search(f"{above}\n{lead}{sentence}")
        ):
            return False  # a page's "Date:" field is not the day its subject came out
        said = set(tokenize(read_with))
        if self.counted and not self.counted & said and not _DEFAULT.search(read_with):
            return False  # "greenlet>=1.0 is required" counts no threads
        about = (self.words - self.event_words) or self.words  # not "added" alone
        return not about or bool(about & said)

    def tells_event(self, text: str) -> bool:
        """Whether the text tells what the value asked for is of (`events_in`): the
        change asked of ("New in version 1.3" for "since which release is it bundled":
        added), not only another one ("Changed in version 3.5: Do preprocess the Google
        style docstrings also."); the bound or the default asked for."""
        return bool(events_in(text, self.kind) & self.events)

    def measures_otherwise(self, sentence: str, lead: str = "") -> bool:
        """Asked in one dimension ("how many megabytes", "how long does it wait"),
        whether the sentence gives a quantity in another and none in that one, or, giving
        none, the sentences before it in its paragraph (`lead`) do: "Set this to a
        negative value to cache inventories for unlimited time." after "The default is 5,
        meaning five days" does not say how many megabytes a cache may use; nor does a
        sentence whose every number counts things ("four decisions", "四个决定": not how
        many days). A bare number ("the default is 5") may be in the asked unit: not
        ruled out."""
        if not self.dimension:
            return False
        if said := _dimensions_said(sentence):
            return self.dimension not in said
        if _counts_only(sentence):
            return True
        said = _dimensions_said(lead)
        return bool(said) and self.dimension not in said

    def release_above(self, sentence: str, frame: str) -> str:
        """Asked in which version something changed, or which of two changed first, of a
        sentence that tells that change and no version ("Add (long overdue) support for
        RIGHT and FULL OUTER JOIN."): the nearest heading above it that names a release
        ("Changes in version 3.39.0 (2022-06-25)", "Django 4.0 release notes", "What’s
        New In Python 3.8", a title), which a release's notes give once for all their
        items; asked when it changed or when the release that changed it came out, the
        nearest such heading that dates the release ("Release 4.4.0 (released Jan 17,
        2022)"). "" otherwise."""
        if (
            self.kind not in _RELEASED_KINDS
            or not self.events
            or holds_answer(self.kind, sentence)
            or not events_in(sentence, self.kind) & self.events
        ):
            return ""
        for heading in reversed(frame.split("\n")):
            numbered = bool(version_lines(heading))  # a changelog's "2.26.0 (2021-07-13)"
            named = numbered or _RELEASE_NAMED.search(heading) is not None
            if self.kind == "date":  # the release's date: "Release 4.4.0 (released Jan 17, 2022)"
                if named and holds_answer("date", heading):
                    return heading
            elif numbered or (named and holds_answer(self.kind, heading)):
                return heading
        return ""

    def value_above(self, sentence: str, frame: str) -> str:
        """Asked how many or how much, of a sentence that gives no number and describes
        an entry of an API: its innermost heading when that assigns the entry a number
        ("The maximum number of multipart parts to parse …" under "max_form_parts =
        1000"), or a heading above it that assigns one to a parameter the sentence names
        ("pool_connections – The number of urllib3 connection pools to cache." under
        "HTTPAdapter(pool_connections=10, pool_maxsize=10, …) › Parameters"), a name
        sharing a word with the question: a signature or an attribute's line gives the
        value once, and the description never repeats it. "" otherwise."""
        if self.kind != "quantity" or self.holds(sentence):
            return ""
        wanted = self.words | self.counted | set(tokenize(" ".join(self.codes)))
        said = unescaped(sentence)
        lines = frame.split("\n")
        for depth, line in enumerate(reversed(lines[1:])):  # the title is no entry
            heading = _EMPHASIS_MARK.sub("", unescaped(line))
            entry = _CALLED_OR_NAMED.match(heading) if depth == 0 else None
            for match in _ASSIGNED.finditer(heading):
                name = match.group(1)
                if not wanted & set(tokenize(name)):
                    continue
                if (entry and entry.group(1) == name) or mentions_identifier(said, name):
                    return line
        return ""

    def entry_labelled(self, text: str, spans: Sequence[tuple[int, int, str]], at: int) -> int:
        """Where the entry ends that the sentence at `at` labels, when it is a label (it
        ends with a colon) that says something of a code name asked about only through
        the entry right after it ("Available in Postfix 3.9, 3.8.1, 3.7.6 and later:"
        over "smtpd_forbid_unauth_pipelining (…) Disconnect …"): the two are read as one
        sentence, as the reader reads them. -1 for any other sentence."""
        if not self.codes or at + 1 >= len(spans):
            return -1
        start, end, _ = spans[at]
        entry_start, entry_end, _ = spans[at + 1]
        label, entry = text[start:end], text[entry_start:entry_end]
        if (
            not label.rstrip().endswith((":", "："))
            or text[end:entry_start].count("\n") > 1  # a blank line between: no label
            or any(mentions_identifier(label, code) for code in self.codes)
            or not any(mentions_identifier(entry, code) for code in self.codes)
        ):
            return -1
        return entry_end

    def entry_named(self, headings: Sequence[str]) -> str:
        """Asked which setting, command or variable does a thing, the code name of the
        entry a passage stands in, when its innermost heading gives one the question
        does not: a reference says what a setting does below its name ("Sets the maximum
        number of headers in a request." under "tune.http.maxhdr <number>"; "A synonym
        for `mapfile`." under "`readarray`"), and that name is the answer. "" otherwise."""
        if self.kind != "name" or not headings:
            return ""
        words = unescaped(LINE_MARKER.sub("", headings[-1])).strip().strip("*").split()
        marked = words[0].rstrip("¶,;") if words else ""  # the first of "log_host, log_port"
        name = marked.strip("`*")
        in_code = len(marked) > len(name) + 1 and marked[0] == marked[-1] == "`"
        if not (_CODE_NAME.fullmatch(name) or (in_code and _CODE_WORD.fullmatch(name))):
            return ""
        # the question's own name is not the one asked for: its code name, or a word it
        # says; a name of several words may join the question's ("log_host", "log … host")
        said = tokenize(name)
        if name.lower() in self.codes or (len(said) == 1 and set(said) <= self.words | self.names):
            return ""
        return name

    def under_other_code(self, frame: str) -> bool:
        """Whether the innermost heading of the frame names a code name and none the
        question asks of: the entry of another setting, option or function; not an
        entry inside the entry of one asked of (`DISCOVERY_TIMEOUT` under
        gtest_discover_tests is one of its arguments)."""
        above, _, innermost = frame.rpartition("\n")
        if not self.codes or not (identifiers(innermost) or _CALLED.search(innermost)):
            return False
        return not any(
            mentions_identifier(innermost, code) or mentions_identifier(above, code)
            for code in self.codes
        )

    def answered_in(self, text: str, frame_at: Callable[[int], str]) -> bool:
        """Whether the passage holds a sentence that answers (asked for a default, one
        that states it), each read under its title and headings (`frame_at`: the frame
        at an offset of the passage; a passage may hold two settings' entries), its
        heading lines left out: the test the answer line makes, on a passage's
        sentences."""
        for sentence, under in _read_sentences(text, frame_at):
            if self.answered_by(sentence, under) and (
                not self.default or self.states_default(sentence, under)
            ):
                return True
        return False

    def _own_values(self, text: str) -> str:
        """The text without the dates and versions that are not of what the question
        asks: those in inline code, an example's or a name's ("`$ git switch -c new
        v2.6.13`", "the `Visual Studio 11 2012` generator"), and, asked for a version of
        something named, the number after another name ("Licensed under the Apache
        License 2.0" gives no release of OpenSSL)."""
        if self.kind not in ("date", "version", "comparison") or self.answered_in_code:
            return text
        text = _INLINE_CODE.sub(" ", text)
        if self.kind != "version" or not self.names:
            return text

        def of_another(match: re.Match[str]) -> str:
            if self._gives(match.group(1)) or set(tokenize(match.group(1))) & _RELEASE_TOKENS:
                return match.group(0)  # "OpenSSL 3.0.2", "Version 2.0.1"
            return match.group(1)

        return _KEY_PHRASE.sub(of_another, text)

    def _without_asked_release(self, sentence: str) -> str:
        """Asked in which release something changed, with no series to pick it from, the
        sentence without the releases it says that change came in: "Removed the binhex
        module, deprecated in Python 3.9." gives the release asked for, not another one
        than the "Python 3.11" the question names as where its script fails. A release
        the sentence names otherwise still rules it out ("Dropped support for Python 3.7"
        is not about Python 3.8)."""
        if self.kind != "version" or self.series or not self.events:
            return sentence
        for event in self.events:
            sentence = _CHANGED_IN_RELEASE[event].sub(" ", sentence)
        return sentence

    def _ungiven(self, text: str) -> str:
        """The text without the numbers the question gives (`given`): those are not the
        value asked for."""
        return self.given.sub(" ", text) if self.given else text

    def releases_leaned_on(self, text: str, frame_at: Callable[[int], str]) -> list[str]:
        """The release headings the passage's answers lean on: of its sentences that
        answer (read as `answered_in` reads them), those that tell the change asked of
        and leave its release to the heading above them (`release_above`: "Added
        support for hidden configuration file …" under "pytest 7.2.0 (2022-10-23)"). A
        reader needs that heading's line quoted with the sentence: it holds the value."""
        found: list[str] = []
        if self.kind not in _RELEASED_KINDS or not self.events:
            return found  # no release asked of a change (`release_above`): no sentence read
        for sentence, under in _read_sentences(text, frame_at):
            release = self.release_above(self._ungiven(sentence), under)
            if release and release not in found and self.answered_by(sentence, under):
                found.append(release)
        return found

    def heads_answer(self, heading: str) -> bool:
        """Whether a heading gives the value asked for the release the question names:
        changelogs date a release in its heading ("Release 5.0.2 (released Jun 17,
        2022)" for "Sphinx 5.0.2"). Only for a date or a version, or a comparison of
        releases (each side's heading), only for a question that names a release, and
        only the heading that names it by its exact number. And for a name asked of a
        code name the question gives, the heading of that code name's entry when it names
        something else too ("DEP0022: `os.tmpDir()`" for "Which deprecation code covers
        os.tmpDir()?")."""
        if self.kind == "name" and self.codes:
            rest = unescaped(heading)
            entry = [c for c in self.codes if _whole_identifier(c).search(rest)]
            for code in entry:  # what the heading names besides the code name ("DEP0022")
                rest = _whole_identifier(code).sub(" ", rest)
            return bool(entry) and holds_answer("name", re.sub(r"`[\s()]*`", " ", rest))
        if self.kind not in ("date", "version", "comparison") or not self.phrases:
            return False
        named = [
            re.search(r"(?<![\w.])" + _exactly(phrase.split()[-1]), heading) is not None
            for phrase in self.phrases
        ]
        if not (any(named) if self.kind == "comparison" else all(named)):
            return False
        return holds_answer(self.kind, self._ungiven(heading))

    @property
    def asks_value(self) -> bool:
        """Whether it asks for a value (a number, a version, a date, a name) that one
        sentence holds, rather than a statement."""
        return self.kind in _VALUE_KINDS

    @property
    def answered_in_code(self) -> bool:
        """Whether a line of code may answer: a command is written as code; a date, a
        version or a number in code is an example's ("$ git switch --detach v2.6.17"),
        not a statement of one."""
        return self.kind == "name"

    def states_default(self, sentence: str, frame: str) -> bool:
        """Whether the sentence states the default asked for: it says "default", and not
        under the heading of another setting or option ("The default value is 2.0"
        under hash_mem_multiplier is that one's, even where the sentence goes on to
        mention work_mem)."""
        if self.value_above(sentence, frame):
            return True  # a signature's default, an attribute's value
        return _DEFAULT.search(f"{frame}\n{sentence}") is not None and not self.under_other_code(
            frame
        )

    def states_the_kind(self, sentence: str, frame: str) -> bool:
        """Whether the sentence states what is asked as such, not only holds a value of its
        kind: asked for a default, it says "default" (`states_default`); asked for a
        version, it dates a change or an availability to it ("Available in version 2.4.17
        and later", "New in version 1.3") rather than mentions one ("Apache HTTP Server
        Version 2.4" atop every page of a manual)."""
        if self.default:
            return self.states_default(sentence, frame)
        if self.kind == "version":
            return _VERSION_STATEMENT.search(sentence) is not None
        return True


def _read_sentences(text: str, frame_at: Callable[[int], str]) -> Iterator[tuple[str, str]]:
    """A passage's sentences, each with its frame (`frame_at`: its title and headings at
    that offset), its heading lines left out: as `Asked.answered_in` reads them."""
    for start, end in sentences(text):
        if not HEADING_LINE.match(text, start):
            yield text[start:end], frame_at(start)


_VERSION_STATEMENT = re.compile(  # a change, then its version within a few words
    r"(?:\b(?:added|introduced|new|available|since|changed|deprecated|removed|dropped|"
    r"appeared|released)\b|新增|引入|加入|弃用|移除)[^.。;；\n]{0,30}?\d+\.\d+|"
    r"\d+\.\d+[^.。;；\n]{0,10}?(?:起|开始|新增|引入|加入|弃用|移除)",
    re.IGNORECASE,
)


def kind_words(kind: AnswerKind) -> str:
    """How a report names what the question asks for."""
    return _KIND_WORDS.get(kind, "an answer")
