"""The kind of answer a question asks for, read off its form, and sentences that hold
one: the writer's preference and the gap check's "unanswered" rest on these."""

from __future__ import annotations

import pytest

from grounded_research.text.answers import (
    Asked,
    asked_kind,
    distinctive_numbers,
    featured_word,
    filed_names,
    head_word,
    holds_answer,
    identifiers,
    key_phrases,
    latin_terms,
    mentions_identifier,
    mentions_number,
    mentions_number_with,
    mentions_phrase,
    mentions_point_release,
    misspelt,
    named_in_location,
    names_other_release,
    names_subject,
    phrase_as_written,
    question_clause,
    said_anywhere,
    scene_names,
    states_verdict,
    subjects,
    supposed_measures,
    title_name,
    version_lines,
)
from grounded_research.text.facets import facets_of
from grounded_research.text.normalize import unaccented
from grounded_research.text.tokenize import tokenize


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("On what date was PostgreSQL 15 released?", "date"),
        ("When will the Aurora A1 reach series production?", "date"),
        ("In which version was the match statement added to Python?", "version"),
        ("When was os.path.join() deprecated?", "version"),
        ("What is the default value of max_connections?", "quantity"),
        ("How many rows can a SQLite table hold?", "quantity"),
        ("What energy density do solid-state cells reach?", "quantity"),
        ("Which command creates a new Git branch?", "name"),
        # a place or a path, though the question says "default"
        ("By default, where does APT keep the .deb files it downloads?", "name"),
        ("Where does dpkg write its log?", "name"),
        ("dpkg 的日志在哪里？", "name"),
        ("Does SQLite support right outer joins?", "yes_no"),
        ("Which came first, Python 3.11 or PostgreSQL 15?", "comparison"),
        ("How do I enable WAL mode in SQLite?", "procedure"),
        ("How to run the development server on another port?", "procedure"),
        ("在 Debian 里怎么重新设置键盘布局？", "procedure"),
        ("How does PostgreSQL choose a query plan?", "any"),
        ("apt-pinning 中普通档案库默认的 Pin-Priority 是多少？", "quantity"),
        ("Debian 12 是什么时候发布的？", "date"),
        ("dpkg 是否支持多架构？", "yes_no"),
        ("哪个命令可以列出已安装的软件包？", "name"),
        # the asked noun may follow a few words that say whose it is
        ("Which Django management command purges expired sessions?", "name"),
        ("Which git push option refuses to overwrite unexpected commits?", "name"),
        ("Apache 的主配置文件是哪个？", "name"),
        ("安装之后要等几天才能升级？", "quantity"),
        ("i386 和 armel 这两个架构，先放弃了哪一个？", "comparison"),
        ("Linux 内核 6.1 是哪个 Debian 版本的默认内核？", "version"),
        # "which X" or "what X" asks for the name of one, whatever X is
        ("Which cyclone had a film made about it in 2007?", "name"),
        ("What podcast was the chief executive a guest on?", "name"),
        ("ftp.cn.debian.org 这个镜像是由哪个机构维护的？", "name"),
        # a clause after the asked noun says what it does, it is not the question
        ("Which directive caps how many requests a client may send?", "name"),
        ("Which directive sets the default timeout of a request?", "name"),
        ("How many seconds does the server wait by default?", "quantity"),
        ("The team represented the university, which was founded in what year?", "date"),
        # "who" asks for a name when it is the question word, not when it opens a clause
        ("Who directed the film?", "name"),
        ("The album is by a group that was formed by who?", "name"),
        ("When was the author who wrote the novel born?", "date"),
        ("What year did the series starring the actor who played Dexter air?", "date"),
        ("The pilot who had how many victories was his friend?", "quantity"),
        ("Which port does apt-cacher-ng listen on by default?", "quantity"),
        # a measure asked by its noun alone, without a word for a default or a bound
        ("Which port does the installer's web interface listen on?", "quantity"),
        (
            "If I pipe text through the wordwrap filter, at what line width does it wrap?",
            "quantity",
        ),
        ("What priority does apt raise it to?", "quantity"),
        # a release asked for in other words
        ("From which Apache 2.4 release on is mod_brotli available?", "version"),
        ("Which is the first Apache HTTP Server release that includes mod_http2?", "version"),
        ("What is the release date of PostgreSQL 15.1?", "date"),
        ("What is the date of the Apache License that the manual reproduces?", "date"),
        ("What compression quality does mod_brotli use unless configured otherwise?", "quantity"),
        # what was added or removed, asked by its noun: a thing, or a time
        ("Which deprecation code covers the removed os.tmpDir() API?", "name"),
        ("Which directives were added in Apache httpd 2.4.72?", "name"),
        ("In which month and year was a French translation added to the book?", "date"),
        # a time asked for by its unit with "which", as with "what"
        ("In which month was the vulnerability made public?", "date"),
        ("In which year did Debian decide to move its sources to Git?", "date"),
        ("这个漏洞是哪个月公开的？", "date"),
        # a Chinese question asks "哪种 X" after what it says of the X
        ("安装程序默认使用哪种前端？", "name"),
        ("apt-cacher-ng 默认使用哪个端口？", "quantity"),
        ("In which version was the distutils package removed?", "version"),
        # a release asked for with its product's name and a word on it
        ('Since which Node.js major version is the "exports" field supported?', "version"),
        ("In which Node.js 20 release did the permission model arrive?", "version"),
        ("What is the release date of Python 3.0?", "date"),
        ("Which Django release removed the reset_days setting?", "version"),
    ],
)
def test_the_asked_kind_is_read_off_the_question(question: str, kind: str) -> None:
    assert asked_kind(question) == kind


@pytest.mark.parametrize(
    ("kind", "sentence", "holds"),
    [
        ("date", "PostgreSQL 15 was released on 2022-10-13.", True),
        ("date", "Release date: October 13, 2022", True),
        ("date", "Thanks to everyone who contributed to this release.", False),
        # history dates by centuries, not only by years
        ("date", "The founding of the abbey dates back to the late 12th Century.", True),
        ("date", "It was spoken between the 8th and 16th centuries.", True),
        ("date", "这座城堡建于 12 世纪。", True),
        ("date", "The 3rd edition added two chapters.", False),
        # an advisory's identifier holds a year that dates nothing
        ("date", "It detects an attack on a TLS flaw (CVE-2009-3555).", False),
        ("date", "The project moved in mid-2009.", True),
        ("version", "New in version 3.10.", True),
        # a release written with its name glued to its number, as Go writes its own
        ("version", "The pre-Go1.18 version, without generics, can be found here.", True),
        ("version", "Build it with go1.19 or later.", True),
        ("version", "Use sha256sum to check it.", False),
        ("version", "MERGE INTO target USING source ON condition", False),
        # a reference to a section gives no version either
        ("version", "Version 字段给出了上游的版本号，参见第 7.3 节。", False),
        ("version", "JavaScript Date objects are described in Section 20.3 of ECMAScript.", False),
        ("version", "Section 20.3 was rewritten for version 2.1.", True),
        ("quantity", "The default is 100 connections.", True),
        ("quantity", "This parameter can only be set at server start.", False),
        # a number that belongs to a name is not the number asked for
        ("quantity", "The validator accepts Unicode characters on Python 3 only.", False),
        ("quantity", "Section 17.3 explains how the server starts.", False),
        # a reference to a section by its number gives no number
        ("quantity", "请使用 bullseye-updates 的软件包（参见第 2.7.4 节）。", False),
        ("quantity", "For the details, see section 4 below.", False),
        # nor a manual page by its section: "master(8)" is the daemon's page, not 8 ports
        ("quantity", "By default, all master(8) listener ports are enabled.", False),
        ("quantity", "See SSL_CTX_new(3ssl) and postconf(5); the default is 2.", True),
        ("quantity", "用 `logrotate`(8) 来简化日志文件的管理。", False),
        # nor a table, a figure or an example by its number
        ("quantity", "**表 3.7. `systemd` 下其它零星监控命令列表**", False),
        ("quantity", "Table 3.7 lists the monitoring commands.", False),
        ("quantity", "Table 3.7: the default is 2.", True),
        ("quantity", "压缩比例 1.5 倍。", True),  # a ratio, no example's number
        # nor a bug by its number: bug #727708 is one decision, not 727708 days
        ("quantity", "缺陷 #727708 2014-02-11：委员会决定默认 init 系统应当为 systemd。", False),
        ("quantity", "#9987: the default keeps 3 directories.", True),
        ("quantity", "安全更新会提供 3 年。", True),
        # nor a footnote by its mark, set above the line; an exponent is a number
        ("quantity", r"journald 的二进制日志格式。<sup>\[6\]</sup>", False),
        ("quantity", r"The limit is 2<sup>31</sup> bytes.", True),
        ("quantity", "150 characters or fewer.", True),
        # no bound is a value too
        ("quantity", "If unspecified, subtests inherit it. **Default:** `Infinity`.", True),
        # docs write small numbers in words; "一个" is the article "a", not a count
        ("quantity", "The default is five minutes.", True),
        ("quantity", "软件包名最短长度两个字符；", True),
        ("quantity", "这是一个软件包。", False),
        ("name", "Use `git branch` to create a branch.", True),
        ("name", "this is done with a single call.", False),
    ],
)
def test_a_sentence_holds_an_answer_of_the_asked_kind(
    kind: str, sentence: str, holds: bool
) -> None:
    assert holds_answer(kind, sentence) is holds  # type: ignore[arg-type]


def test_a_name_keeps_its_number_as_a_phrase() -> None:
    assert key_phrases("Which came first, Python 3.11 or PostgreSQL 15?") == [
        "Python 3.11",
        "PostgreSQL 15",
    ]
    assert key_phrases("Which man was born on October 22, 1930?") == []  # a date
    # a product in lower case before a release's full number; not "version 3.11.2"
    assert key_phrases("On what date was pytest 8.0.0 released?") == ["pytest 8.0.0"]
    assert key_phrases("What changed from 3.10.1 to 3.11.2 in version 3.11.2?") == []
    assert key_phrases("Which is the first 3.7.1 release with it?") == []
    assert key_phrases("What does the httpd 2.4 manual reproduce?") == []
    # or before the number of a release whose coming is asked
    assert key_phrases("When was zsh 5.8 released?") == ["zsh 5.8"]
    assert key_phrases("when did werkzeug 0.12 come out?") == ["werkzeug 0.12"]
    assert key_phrases("What is the release date of zsh 5.8?") == ["zsh 5.8"]
    assert key_phrases("Which httpd 2.4 release added mod_md?") == []
    assert key_phrases("Which Apache module provides HTTP/3 support?") == ["HTTP 3"]
    assert phrase_as_written("HTTP 3", "Which module provides HTTP/3 support?") == "HTTP/3"
    assert identifiers("What is the default of max_connections or os.path.join()?") == {
        "max_connections",
        "os.path.join",
    }


@pytest.mark.parametrize(
    ("text", "phrase", "mentioned"),
    [
        ("E.1. Release 15", "Release 15", True),
        ("E.2. Release 15.15", "Release 15", False),
        ("PostgreSQL 15.4 fixes a bug", "PostgreSQL 15", False),
        ("What is new in PostgreSQL 15.", "PostgreSQL 15", True),
        ("see section 17.3 of the manual", "PostgreSQL 17", False),
        ("Python 3.11.2 changelog", "Python 3.11", False),
        ("it is required for bash-5.1 and later versions", "Bash 5.1", True),
        ("new in bash-5.10", "Bash 5.1", False),
        ("RFC 9114 - HTTP/3", "HTTP 3", True),  # a protocol's version after a slash
        ("This module provides HTTP/2 support.", "HTTP 3", False),
    ],
)
def test_a_phrase_is_named_with_exactly_its_number(text: str, phrase: str, mentioned: bool) -> None:
    assert mentions_phrase(text, phrase) is mentioned


def test_a_question_whether_one_thing_came_before_another_compares_two_subjects() -> None:
    # each side is named on a page of its own, as in "Which came first, A or B?"
    question = "Did SQLite get RETURNING before PostgreSQL got MERGE?"
    assert asked_kind(question) == "comparison"
    assert subjects(question) == [({"sqlite", "returning"}, []), ({"postgresql", "merge"}, [])]
    # not asked what came first: the words before "before" and after it are one subject
    steps = "Which packages does Debian say to remove before upgrading to Bookworm?"
    assert subjects(steps) == [({"debian", "bookworm"}, [])]


def test_a_month_or_a_weekday_names_no_subject() -> None:
    # "always on a weekday" answers it: no passage need name Saturday or Sunday
    weekend = "Can a Requests security release be published on a Saturday or Sunday?"
    assert subjects(weekend) == [({"requests"}, [])]
    assert subjects("What did Requests change in October?") == [({"requests"}, [])]


def test_what_a_question_sets_aside_names_no_subject() -> None:
    """ "Without editing its CMakeLists.txt" says a way the answer is not: the property's
    page answers, though it never names the file."""
    question = (
        "How do I stop a project's COMPILE_WARNING_AS_ERROR setting from turning my "
        "compiler warnings into errors without editing its CMakeLists.txt?"
    )
    assert subjects(question) == [({"compile_warning_as_error"}, [])]
    # what "instead of" names is often what the answer replaces, and its passage names
    replaced = "What should code use instead of click.get_terminal_size(), which Click removed?"
    assert subjects(replaced) == [({"click.get_terminal_size"}, []), ({"click"}, [])]
    assert subjects("Can Postfix run without Dovecot?") == [({"postfix", "dovecot"}, [])]
    # an adverb may stand between: "without ever calling" sets aside what it calls
    ever = "Without ever calling EVP_CTRL_AEAD_SET_IVLEN, what IV length does OpenSSL use?"
    assert subjects(ever) == [({"openssl", "iv"}, [])]


def test_an_example_in_brackets_names_no_subject() -> None:
    """ "(say, a WebDAV PROPPATCH)" shows a case of what is asked, to the bracket's end:
    the directive's page answers, though it names neither."""
    question = (
        "What's the largest XML request body (say, a WebDAV PROPPATCH) that Apache "
        "httpd accepts out of the box, in bytes?"
    )
    assert subjects(question) == [({"apache", "xml"}, [])]


def test_an_example_the_question_gives_names_no_subject_nor_code_to_match() -> None:
    """ "e.g. ANALYZE (VERBOSE, SKIP_LOCKED)" shows what the options look like: the
    sentence that dates the option list need not name these two."""
    question = (
        "Since which version does postgres accept the option list in parentheses for "
        "ANALYZE, e.g. ANALYZE (VERBOSE, SKIP_LOCKED)?"
    )
    assert subjects(question) == [({"analyze"}, [])]
    asked = Asked.of(question)
    assert asked.codes == set()
    frame = "ANALYZE\nDescription"
    lead = "When the option list is surrounded by parentheses, the options can be in any order."
    assert asked.answered_by("The parenthesized syntax was added in PostgreSQL 11.", frame, lead)
    # the example ends with its sentence: what the next one names counts
    secret = "I need secret values, e.g. keys. Which OpenSSL function makes them?"
    assert subjects(secret) == [({"openssl"}, [])]
    assert Asked.of("Is SKIP_LOCKED accepted, for example in ANALYZE?").codes == {"skip_locked"}


def test_subjects_are_split_where_the_question_joins_them() -> None:
    assert subjects("Does SQLite support MERGE?") == [({"sqlite", "merge"}, [])]
    assert subjects("Were Scott Derrickson and Ed Wood of the same nationality?") == [
        ({"scott", "derrickson"}, []),
        ({"ed", "wood"}, []),
    ]
    # the scene a question sets before it asks is a subject of its own
    assert subjects("We moved to OpenSSL 3.0: is RIPEMD-160 in the default provider?") == [
        ({"openssl"}, ["OpenSSL 3.0"]),
        ({"ripemd-160"}, []),
    ]
    assert subjects("Our relay runs Postfix 3.6. Is smtputf8_enable on there?") == [
        ({"postfix"}, ["Postfix 3.6"]),
        ({"smtputf8_enable"}, []),
    ]


@pytest.mark.parametrize(
    ("question", "text", "title", "location", "named"),
    [
        (
            "Does SQLite support MERGE?",
            "MERGE conditionally inserts rows.",
            "MERGE",
            "pg/merge.html",
            False,
        ),
        ("Does SQLite support MERGE?", "SQLite has no MERGE statement.", "", "", True),
        (
            "When was PostgreSQL 15.9 released?",
            "Release date: 2024-11-14",
            "E.8. Release 15.9",
            "postgresql-doc-15/release-15-9.html",
            True,
        ),
        (
            "When was PostgreSQL 15.9 released?",
            "Release date: 2025-11-13",
            "E.1. Release 15.19",
            "postgresql-doc-15/release-15-19.html",
            False,
        ),
        (
            "What is new in PostgreSQL 17?",
            "See chapter 17.",
            "Chapter 17. Server Setup",
            "postgresql-doc-15/runtime.html",
            False,
        ),
    ],
)
def test_a_passage_names_the_subject_with_its_exact_number(
    question: str, text: str, title: str, location: str, named: bool
) -> None:
    (subject,) = subjects(question)

    assert names_subject(text, subject, title, location) is named


def test_the_docs_of_a_point_release_are_of_its_release_when_asked_what_holds_in_it() -> None:
    """ "What is the maximum host parameter number in SQLite 3.40?" asks what holds in
    3.40, which docs whose news names "Version 3.40.1" describe; "When was SQLite 3.40
    released?" asks for 3.40's own date, which 3.40.1's heading does not give."""
    (subject,) = subjects("What is the maximum host parameter number in SQLite 3.40?")
    news = "Recent News\n2022-12-28 - Version 3.40.1"
    text = "See the branch-3.40 timeline for a complete listing of changes."
    place = "sqlite3-doc/usr/share/doc/sqlite3/index.html"

    assert names_subject(text, subject, news, place, about=True, series=True)
    assert not names_subject(text, subject, news, place, about=True)
    assert not names_subject(text, subject, "Recent News\nVersion 3.41.0", place, series=True)
    assert names_subject("Changes in SQLite 3.40.1: fixes.", subject, "News", place, series=True)


def test_a_changelog_heading_of_a_release_number_alone_names_that_release() -> None:
    """Requests' "Release History" heads each release "2.26.0 (2021-07-13)", with no
    "release" or "version" before the number: the page, filed under python-requests, is
    of Requests, and the heading names Requests 2.26.0 (not 2.26 nor 2.25.1)."""
    place = "python-requests-doc/usr/share/doc/python-requests-doc/html/community/updates.html"
    text = "### 2.26.0 (2021-07-13)\n\n**Improvements**\n\n- Requests now supports Brotli."
    (subject,) = subjects("When was Requests 2.26.0 released?")
    assert names_subject(text, subject, "Release History", place)
    (other,) = subjects("When was Requests 2.25.1 released?")
    assert not names_subject(text, other, "Release History", place)
    (series,) = subjects("When was Requests 2.26 released?")
    assert not names_subject(text, series, "Release History", place)
    assert names_subject(text, series, "Release History", place, series=True)


@pytest.mark.parametrize(
    ("heading", "numbers"),
    [
        ("2.26.0 (2021-07-13)", ["2.26.0"]),  # a release number alone
        ("pytest 7.2.0 (2022-10-23)¶", ["7.2.0"]),  # after its product, dated
        ("Node.js v18.17.0 (2023-07-18)", ["18.17.0"]),
        ("macOS 11.0 (Big Sur) and Apple Silicon Mac support", []),  # a version in passing
        ("TLS 1.3", []),
        ("20.3.1. Connection Settings", []),  # a numbered section
    ],
)
def test_a_changelog_heading_names_its_release_alone_or_after_its_product_when_dated(
    heading: str, numbers: list[str]
) -> None:
    """A release's heading in a changelog is its number, alone or after the product's
    name, its date beside it; a product's version named in a heading without a date
    ("TLS 1.3") is no release of the notes."""
    assert version_lines(heading) == numbers

    asked = Asked.of("Since which version can the configuration file be hidden?")
    item = "Added support for a hidden configuration file."
    assert bool(asked.release_above(item, f"Changelog\n{heading}\nImprovements")) == bool(numbers)


def test_a_passage_that_opens_with_a_labelled_list_is_read_without_a_heading_after_it() -> None:
    # a passage cut below its page's headings: the list's label is its only heading, and
    # where the list ends no heading is above (an empty path)
    text = "**Debian needs:**\n\n- 256 MB of RAM\n\nDebian needs little."
    (subject,) = subjects("How much RAM does Debian 12 need?")
    assert not names_subject(text, subject, "3.4. Meeting Minimum Hardware Requirements", "")


@pytest.mark.parametrize(
    ("text", "phrase", "mentioned"),
    [
        ("Apache HTTP Server Version 2.4", "Apache 2.4", True),  # the rest of its full name
        ("Apache HTTP Server Version 2.4.39", "Apache 2.4", False),
        ("PostgreSQL Chapter 17", "PostgreSQL 17", False),  # a chapter is not a release
    ],
)
def test_a_release_is_named_with_the_rest_of_its_full_name(
    text: str, phrase: str, mentioned: bool
) -> None:
    assert mentions_phrase(text, phrase) is mentioned


def test_a_name_typed_without_its_accents_names_the_accented_one() -> None:
    (malmo,) = subjects("How long is the bridge to Malmo?")
    (mor,) = subjects("Which kingdom did Aonghus Mór lead?")

    assert names_subject("The Öresund Bridge links Copenhagen and Malmö.", malmo)
    assert names_subject("Aonghus Mor ruled the Isles.", mor)
    assert not names_subject("The Öresund Bridge links Copenhagen and Lund.", malmo)
    assert unaccented("Malmö ガ 中文") == "Malmo ガ 中文"  # a Japanese voiced mark is kept


@pytest.mark.parametrize(
    ("text", "identifier", "mentioned"),
    [
        ("exceed `max_wal_size` during recovery", "max_wal_size", True),
        ("If `max_slot_wal_keep_size` is -1 (the default)", "max_wal_size", False),
        ("os.path.join(a, b) joins", "os.path.join", True),
        ("os.path.join(a, b) joins", "os.path", False),
        ("math.isqrt(*n*)", "isqrt", True),  # qualified by its module
        ("misqrt(n)", "isqrt", False),
    ],
)
def test_a_code_name_is_matched_whole(text: str, identifier: str, mentioned: bool) -> None:
    assert mentions_identifier(text, identifier) is mentioned


@pytest.mark.parametrize(
    ("question", "phrase"),
    [
        ("In PostgreSQL 15, what replaced pg_start_backup()?", "PostgreSQL 15"),
        ("Is Django 3.2 a long-term support release?", "Django 3.2"),
        ("Does SQLite 3.40 support RIGHT JOIN?", "SQLite 3.40"),
    ],
)
def test_a_capitalised_question_word_is_not_part_of_the_name(question: str, phrase: str) -> None:
    assert key_phrases(question) == [phrase]
    lower = question[0].lower() + question[1:]
    assert key_phrases(lower) == key_phrases(question)
    assert subjects(lower) == subjects(question)


def test_when_asks_for_a_date_only_as_the_question_word() -> None:
    assert asked_kind("When was PostgreSQL 15 released?") == "date"
    assert asked_kind("Since when does git support partial clones?") == "date"
    limit = "What is the default limit on the number of digits when converting int to str?"
    assert asked_kind(limit) == "quantity"


def test_a_sentence_about_another_release_does_not_answer() -> None:
    other = "Therefore Django 1.8 is the last version to support Python 3.3."
    assert names_other_release(other, ["Django 5.0"])
    assert not names_other_release("Django 5.0 supports Python 3.10 and later.", ["Django 5.0"])
    assert not names_other_release("Python 3.10 and later are supported.", ["Django 5.0"])


def test_the_release_a_change_came_in_is_the_answer_not_another_release() -> None:
    # the question names Python 3.11 as where a script fails; the deprecation came in 3.9
    asked = Asked.of(
        "My script does `import binhex` and fails on Python 3.11. "
        "In which release was that module deprecated?"
    )
    frame = "What’s New In Python 3.11\nRemoved"
    assert asked.answered_by("Removed the `binhex` module, deprecated in Python 3.9.", frame)
    # a release named otherwise still rules the sentence out
    assert not asked.answered_by("Python 3.9 deprecated the `binhex` module.", frame)
    # and asked within a series, the change's release must be of that series
    fixed = Asked.of("Which Django 3.2 release fixed the check that crashed on abstract models?")
    assert not fixed.answered_by(
        "The check that crashed on abstract models was fixed in Django 4.0.1.",
        "Django 4.0.1 release notes",
    )


def test_a_heading_naming_a_product_over_a_numbered_section_names_no_release() -> None:
    # "Bash Features" over "5 Shell Variables" is not Bash 5; a heading's own release is
    frame = "Bash Reference Manual\nBash Features\n5 Shell Variables\n`HISTSIZE`"
    asked = Asked.of("What default value does Bash 5.2 give HISTSIZE?")
    default = "The shell sets the default value to 500 after reading any startup files."
    assert asked.answered_by(default, frame)
    assert not asked.answered_by(default, "Bash 4.4 Reference Manual\n`HISTSIZE`")


def test_a_heading_naming_a_product_over_a_numbered_section_names_not_that_release() -> None:
    # the mirror: "GNU Bash" over "5.2 Bash Variables" does not name Bash 5.2 either
    subject: tuple[set[str], list[str]] = (set(), ["Bash 5.2"])
    passage = "HISTSIZE The number of commands to remember in the command history."
    assert not names_subject(passage, subject, "GNU Bash\n5.2 Bash Variables")
    assert names_subject(passage, subject, "Bash 5.2 Reference Manual\nBash Variables")


def test_a_date_or_version_in_inline_code_or_of_another_name_does_not_answer() -> None:
    # an example's tag, a year in a generator's name, another product's licence version
    introduced = Asked.of("Which Git version introduced the git switch command?")
    assert not introduced.answered_by("`$ git switch -c new v2.6.13`", "How to check out")
    assert introduced.answered_by("git switch was introduced in Git 2.23.", "Git 2.23 notes")
    released = Asked.of("On what date was CMake 3.25 released?")
    generator = "The `Visual Studio 11 2012` generator is now deprecated in CMake."
    assert not released.answered_by(generator, "CMake 3.25 Release Notes")
    assert released.answered_by("CMake 3.25 was released on 2022-11-16.", "CMake")
    deprecated = Asked.of("In which OpenSSL version was SSL_set_retry_verify() deprecated?")
    licence = "SSL_set_retry_verify() is licensed under the Apache License 2.0."
    assert not deprecated.answered_by(licence, "COPYRIGHT")
    said = "SSL_set_retry_verify() was deprecated in OpenSSL 3.2."
    assert deprecated.answered_by(said, "HISTORY")


def test_a_release_named_by_its_number_after_the_asked_name_is_a_version() -> None:
    # "Debian 10" has no dot and no "version"; "Chapter 10" is not a release of Debian
    asked = Asked.of("From which Debian release on is InRelease the signed file APT checks?")
    said = "Starting with Debian 10 Buster the signed file is the InRelease file."
    assert asked.answered_by(said, "6.5. Checking Package Authenticity")
    assert not asked.answered_by("See Chapter 10 for the InRelease file.", "6.5. Checking")
    assert not Asked.of("How many files does APT check?").names_release(said)


def test_a_release_notes_item_answers_which_version_through_the_release_above_it() -> None:
    # the item tells the change, the label above it the release
    asked = Asked.of("Which SQLite version added RIGHT and FULL OUTER JOIN?")
    frame = "SQLite Release 3.39.2 On 2022-07-21\nChanges in version 3.39.0 (2022-06-25)"
    assert asked.answered_by("Add (long overdue) support for RIGHT and FULL OUTER JOIN.", frame)
    assert not asked.answered_by("Fix a bug in the query planner.", frame)  # another change
    assert not asked.answered_by("Add support for RIGHT JOIN.", "SELECT")  # no release above
    removed = Asked.of("In which SQLite version was RIGHT JOIN removed?")
    assert not removed.answered_by("Add support for RIGHT JOIN.", frame)  # another event


def test_a_release_notes_item_turning_a_feature_on_or_off_tells_that_change() -> None:
    # "turned off" is answered by the item "Disable …" (a changelog's imperative) under
    # its release; an item that tells only another change is not that change
    asked = Asked.of("Which Werkzeug release turned off keep-alive connections?")
    frame = "Changes\nVersion 2.1.2"
    assert asked.answered_by("Disable keep-alive connections in the development server.", frame)
    assert not asked.answered_by("Deprecate keep-alive connections.", frame)
    # a removal or a deprecation said in the imperative is one too
    removed = Asked.of("Which Werkzeug release removed the shutdown function?")
    assert removed.answered_by("Remove the shutdown function from the environ.", frame)
    assert not removed.answered_by("Fix the shutdown function.", frame)
    # a setting turned off by a value is no change: it does not tell another one
    added = Asked.of("In which version was the keep-alive timeout added?")
    setting = "Since version 8.0.0, a value of 0 disables the keep-alive timeout."
    assert added.answered_by(setting, "http")


def test_a_release_notes_item_saying_what_a_product_now_does_tells_an_addition() -> None:
    # "Requests now supports Brotli compression" under "2.26.0 (2021-07-13)" is when
    # the support came; a sentence that says what a product does, without "now", is not
    asked = Asked.of("Since which Requests version can it decode Brotli-compressed responses?")
    frame = "Release History\n2.26.0 (2021-07-13)\nImprovements"
    assert asked.answered_by("Requests now supports Brotli compression.", frame)
    assert not asked.answered_by("Requests supports Brotli compression.", frame)
    removed = Asked.of("In which Requests version was Brotli support removed?")
    assert not removed.answered_by("Requests now supports Brotli compression.", frame)


def test_a_release_notes_item_saying_what_a_product_no_longer_does_tells_a_removal() -> None:
    asked = Asked.of("In which Django version was Python 3.7 support removed?")
    frame = "Django 4.0 release notes\nPython compatibility"
    item = "Python 3.7 is no longer supported."
    assert asked.answered_by(item, frame)
    added = Asked.of("In which Django version was Python 3.7 support added?")
    assert not added.answered_by(item, frame)  # another event


def test_a_whats_new_item_dates_one_side_of_a_comparison_through_its_title() -> None:
    # "What’s New In Python 3.8" (a typographic apostrophe, as Python's docs write it)
    # gives the release of the change its item tells
    compared = Asked.of("Which was added to Python first, math.isqrt() or functools.cache()?")
    added = "Added a new function `math.isqrt()` for computing integer square roots."
    assert compared.answered_by(added, "What’s New In Python 3.8\nImproved Modules\nmath")
    assert compared.answered_by(added, "What's New In Python 3.8\nmath")
    assert not compared.answered_by(added, "math — Mathematical functions")  # no release
    removed = "Removed `math.isqrt()` support for floats."
    assert not compared.answered_by(removed, "What’s New In Python 3.8\nmath")  # another event


def test_digits_of_a_path_or_an_identifier_are_no_quantity() -> None:
    """ "/etc/grub.d/40_custom" names a file: no count of seconds; "40_000" is a number."""
    assert not holds_answer("quantity", "Modify the `/etc/grub.d/40_custom` file.")
    assert not holds_answer("quantity", "Copy it to 40_custom first.")
    assert holds_answer("quantity", "The timeout is 40_000 milliseconds.")
    assert holds_answer("quantity", "The default is 40.")


def test_a_quantity_asked_in_one_dimension_is_not_given_in_another() -> None:
    size = Asked.of("How many megabytes may Sphinx's search index cache use by default?")
    days = "The default is `5`, meaning five days."
    assert size.measures_otherwise(days)
    assert not size.measures_otherwise("The default is `5`.")  # a bare number may be MB
    assert not size.measures_otherwise("The cache keeps 50 MB for a day.")
    assert size.measures_otherwise("Set it negative for no limit.", lead=days)
    assert not size.answered_by(days, "search index cache")
    wait = Asked.of("How long does PostgreSQL wait on a lock before checking for a deadlock?")
    assert wait.measures_otherwise("The buffer holds 8 MB.")
    assert not wait.measures_otherwise("The default is one second (1s).")
    assert not Asked.of("How long is the bridge?").dimension  # a length, or a time: not told
    days = Asked.of("How many days does journald keep its logs by default?")
    assert days.measures_otherwise("By default the committee took 4 decisions.")
    assert not days.measures_otherwise("By default it keeps 4.")  # a bare number
    assert not days.measures_otherwise("It retries 3 times, then waits 30.")
    assert not days.measures_otherwise("No number here.")
    # a count before it says nothing of what a bare number is in
    assert not days.measures_otherwise("The default is 5.", lead="It holds 4 files. ")
    days_zh = Asked.of("journald 默认把日志保留多少天？")
    assert days_zh.measures_otherwise("委员会做了四个决定。")
    assert days_zh.measures_otherwise("你可以显示从最后一次启动以来的日志。")
    assert not days_zh.measures_otherwise("日志默认保留 30 天。")
    money = Asked.of("How much money did the crowdfunding campaign for the book raise?")
    assert money.dimension == "money"
    assert money.measures_otherwise("5 years after the fund-raising campaigns, we dropped it.")
    assert not money.measures_otherwise("The campaign raised $25,000 in two months.")
    assert not money.measures_otherwise("It raised 25,000 euros.")
    # a year is a date, not a time the quantity is measured in
    assert not Asked.of("软件包保留多少天？").measures_otherwise("在 2014 年保留 5。")
    assert Asked.of("软件包保留多少天？").measures_otherwise("保留 3 个字节。")


def test_a_count_is_said_with_what_it_counts_or_is_a_setting_s_default() -> None:
    """ "How many threads does Waitress use" is not answered by a version requirement's
    number ("greenlet>=1.0"): a count says what it counts, or is the default of the
    setting that sets it under that setting's own name ("which defaults to 255" for "how
    many characters"); a count asked in a unit is the dimension rule's."""
    threads = Asked.of("How many threads does Waitress use by default when it serves an app?")
    assert threads.counted == frozenset({"thread"})
    required = "When using gevent to serve an application, greenlet>=1.0 is required."
    assert not threads.answered_by(required, "Deploying to Production")
    assert threads.answered_by("Waitress serves an application with 4 threads.", "Waitress")
    assert threads.answered_by("The serving uses 4 of them.", "Waitress\nthreads")  # heading
    length = Asked.of("How many characters does the truncate filter keep when none is given?")
    default = "The length is given by the first parameter, which defaults to 255."
    assert length.answered_by(default, "truncate filter")
    assert not length.answered_by("The length is given by a parameter of 255.", "truncate")
    assert Asked.of("How many kinds of limit can the quota system set?").counted == {"limit"}
    assert Asked.of("How many seconds does Apache wait?").counted == frozenset()  # a unit
    assert Asked.of("Debian 有多少个邮件列表？").counted == {"邮件"}
    assert Asked.of("Debian 12 最少需要多少内存？").counted == frozenset()  # no measure word


def test_a_version_in_a_file_name_or_an_address_is_a_download_s_not_an_answer() -> None:
    """The numbers of "gentoo-0.9.12.tar.gz" or of a download URL are the version of a
    file fetched, no statement of what a version asked about is."""
    assert not holds_answer("version", "若你想要用上游源代码 `gentoo-0.9.12.tar.gz` 创建软件包")
    url = "sourceUrl: 'https://nodejs.org/download/release/v18.12.0/node-v18.12.0.tar.gz'"
    assert not holds_answer("version", url)
    assert not holds_answer("version", "Run `dpkg -i hello_2.10-3_amd64.deb` as root.")
    assert holds_answer("version", "9: v18.17.0+, 20.3.0+, 21.0.0 and all later versions")
    assert holds_answer("version", "Since 0.9.12, gentoo ships a tarball.")


def test_a_changelog_release_heading_of_either_compared_product_is_about_the_question() -> None:
    # "Release 15.1" names no product: comparing PostgreSQL 15.1 with SQLite 3.40.0, it is
    # PostgreSQL's heading, not another SQLite release
    phrases = ["PostgreSQL 15.1", "SQLite 3.40.0"]
    assert not names_other_release("E.18. Release 15.1", phrases)
    assert names_other_release("E.17. Release 15.2", phrases)
    compared = Asked.of("Which was released earlier, PostgreSQL 15.1 or SQLite 3.40.0?")
    assert compared.answered_by("**Release date:** 2022-11-10", "E.18. Release 15.1")
    assert not compared.answered_by("**Release date:** 2023-02-09", "E.17. Release 15.2")


def test_a_point_release_answers_which_release_of_a_series() -> None:
    """ "From which Apache 2.4 release on …" is answered by "Apache 2.4.39", not by a
    version of another series ("Stability: 1.2" for "which Node.js 20 release"); "when
    was PostgreSQL 15 released" is not answered by the date of PostgreSQL 15.4."""
    series = Asked.of("From which Apache 2.4 release on is the shared object cache in Redis?")
    assert series.kind == "version"
    assert series.answered_by("Available in Apache 2.4.39 and later", "Redis object cache")
    assert not series.answered_by("Available in Apache 2.2.39 and later", "Redis object cache")
    node = Asked.of("In which Node.js 20 release did the experimental permission model arrive?")
    assert node.answered_by("Added in: v20.0.0", "Permissions\nProcess-based permissions")
    # a version that is no release of the series: a stability index
    assert not node.answered_by(
        "The permission model is at Stability: 1.1 - Active development.", "Permissions"
    )
    release = Asked.of("When was PostgreSQL 15 released?")
    assert not release.answered_by("PostgreSQL 15.4 was released on 2023-08-10.", "Release notes")


def test_a_patch_release_is_answered_by_a_version_of_three_numbers() -> None:
    """A patch release is the third number of a version: "Changed in version 2.0" is no
    answer to "In which Flask patch release …", the item under "Version 2.0.1" is."""
    patch = Asked.of(
        "In which Flask patch release was the filename parameter of send_from_directory "
        "brought back as a deprecated alias?"
    )
    assert not patch.answered_by(
        "Changed in version 2.0: `path` replaces the `filename` parameter.", "send_from_directory"
    )
    assert patch.answered_by(
        "Re-add the `filename` parameter in `send_from_directory`. The old name is deprecated.",
        "Changes\nVersion 2.0.1",
    )


def test_a_bare_number_is_not_a_version() -> None:
    listing = "task1 = tg.create_task(say_after(1, 'hello')) as the previous version did."
    assert not holds_answer("version", listing)
    assert holds_answer("version", "New in version 3.11: asyncio.TaskGroup.")
    assert holds_answer("version", "This changed in release 7 of the format.")
    assert holds_answer("version", "(PostgreSQL versions before 13 treated it as one query.")


@pytest.mark.parametrize(
    ("question", "sentence", "frame", "answers"),
    [
        (
            "Which Git version introduced the git switch command?",
            "The switch command was introduced in version 2.23.",
            "git-switch(1)",
            True,
        ),
        # "version" is what any version number stands after: it shows nothing shared
        (
            "Which Git version introduced the git switch command?",
            "Suppose version 2.6.18 of your project worked, but master crashes.",
            "Git User Manual\nHow to use bisect to find a regression",
            False,
        ),
        # the question's own numbers are not its answer
        (
            "Which was released first, Python 2.6 or Python 3.0?",
            "Python versions 2.6 and 3.0 were released in step, on a synchronized cycle.",
            "What's New In Python 3.0",
            False,
        ),
        (
            "Which was released first, Python 2.6 or Python 3.0?",
            "Python 3.0 was released on December 3, 2008.",
            "What's New In Python 3.0",
            True,
        ),
        # "come out" is a paraphrase of "released": the word "date" is shared
        (
            "On what date did SQLite 3.39.0 come out?",
            "Release date: 2022-06-25",
            "Release 3.39.0",
            True,
        ),
        (
            "On what date was PostgreSQL 15.1 released?",
            "Release date: 2022-11-10",
            "Release 15.1",
            True,
        ),
        (
            "What new features does Python 3.13 introduce?",
            "New features in Python 3.13 include a new interactive interpreter.",
            "What's New In Python 3.11",
            True,
        ),
        # the frame counts when it is about the subject itself
        (
            "When was Django 3.2 released?",
            "April 6, 2021",
            "Django 3.2 release notes — Django 3.2.25 documentation",
            True,
        ),
        # a sentence naming only another release is about that one, whatever its frame
        (
            "When was Django 3.2 released?",
            "Support for Django 2.2 will end in April 2022.",
            "Django 3.2 release notes",
            False,
        ),
        # two releases of one product asked: a sentence on either is about the question
        (
            "Which was released first, Python 2.6 or Python 3.0?",
            "Python 2.6, released on October 1, 2008, is a transition release.",
            "What's New in Python 2.6",
            True,
        ),
        # the word the question asks with is shared
        ("Which version is PostgreSQL at?", "This is version 15.20.", "", True),
        # under the entry of another code name than the one asked of, a version is its
        (
            "Since which Python version does the math module have isqrt()?",
            "Deprecated since version 3.9: Accepting floats with integral values.",
            "math — Mathematical functions\nmath.factorial(*n*)",
            False,
        ),
        (
            "Since which Python version does the math module have isqrt()?",
            "New in version 3.8.",
            "math — Mathematical functions\nmath.isqrt(*n*)",
            True,
        ),
        # ... nor where nothing above it names the code name asked of
        (
            "Since which Python version does the math module have isqrt()?",
            "New in version 3.5.",
            "math — Mathematical functions\nConstants\nmath.nan",
            False,
        ),
        # the entry of an argument of the function asked of is part of its entry
        (
            "How long does gtest_discover_tests() wait by default for the test list?",
            "The default is 5.",
            "GoogleTest\ngtest_discover_tests\n`DISCOVERY_TIMEOUT num`",
            True,
        ),
        # a code name in capitals is a code name: another's entry is not the one asked
        (
            "What is the largest value UV_THREADPOOL_SIZE accepts?",
            "On 64-bit architectures, this value currently is 2^32 (about 4 GiB).",
            "Buffer\nBuffer constants\n`buffer.constants.MAX_LENGTH`",
            False,
        ),
        # a page's own "Date:" field is the day it was built, not the release asked of
        (
            "On what date was Python 3.11 released?",
            "October 07, 2026",
            "What’s New In Python 3.11\nDate:",
            False,
        ),
        (
            "On what date was Sphinx 3.0 released?",
            "April 06, 2020",
            "Sphinx 3.0 release notes\nDate:",
            True,
        ),
        (
            "On what date was this page last changed?",
            "October 07, 2026",
            "What’s New In Python 3.11\nDate:",
            True,
        ),
        # the word that names the change is no word of what changed
        (
            "In which OpenSSL version was QUIC client support added?",
            "The macros and functions described here were added in OpenSSL 3.0.",
            "OPENSSL_VERSION_NUMBER(3SSL)\nHISTORY",
            False,
        ),
        (
            "In which OpenSSL version was QUIC client support added?",
            "Support for QUIC clients was added in OpenSSL 3.2.",
            "openssl-quic(7)\nHISTORY",
            True,
        ),
        # a question with no other word than the change still needs that one
        (
            "When was it added?",
            "Added in version 3.2.",
            "HISTORY",
            True,
        ),
    ],
)
def test_a_sentence_answers_with_a_value_of_the_asked_kind_about_the_subject(
    question: str, sentence: str, frame: str, answers: bool
) -> None:
    assert Asked.of(question).answered_by(sentence, frame) is answers


@pytest.mark.parametrize(
    ("question", "sentence", "frame", "states"),
    [
        # a number that is not said to be the default is not it
        (
            "Above how many loose objects does git gc --auto pack them by default?",
            "Setting this to 0 disables automatic packing of loose objects.",
            "gc.auto",
            False,
        ),
        (
            "Above how many loose objects does git gc --auto pack them by default?",
            "The default value is 6700.",
            "git-config(1)\ngc.auto",
            True,
        ),
        # ... nor the default of the setting whose heading it stands under
        (
            "What is the default value of work_mem?",
            "The default value is 2.0, which doubles the usual `work_mem` amount.",
            "20.4.1. Memory\n`hash_mem_multiplier` (`floating point`)",
            False,
        ),
        (
            "What is the default value of work_mem?",
            "The default value is four megabytes (4MB).",
            "20.4.1. Memory\n`work_mem` (`integer`)",
            True,
        ),
    ],
)
def test_a_default_is_stated_for_what_is_asked(
    question: str, sentence: str, frame: str, states: bool
) -> None:
    asked = Asked.of(question)
    assert asked.default
    assert asked.states_default(sentence, frame) is states


@pytest.mark.parametrize(
    ("question", "head"),
    [
        ("What warranty does Aurora offer?", "warranty"),
        ("What energy density do solid-state cells reach?", "density"),
        ("What major city is the school located by?", "city"),
        ("Which PostgreSQL command can insert rows conditionally?", "command"),
        ("In PostgreSQL 15, what replaced the functions pg_start_backup()?", ""),
        ("What makes PostgreSQL write its log in JSON?", ""),
        ("What caused the delay?", ""),
        ("Which Django version introduced the DEFAULT_AUTO_FIELD setting?", ""),
        ("Which is the first Apache HTTP Server release that includes mod_http2?", ""),
        # the name asked for is the thing's, and its passage need not say "name"
        ("What is the name of the kingdom led by Aonghus Mór?", ""),
        # a superlative says which value is asked for, not what is asked
        ("What is the smallest value readline's crlfDelay is coerced to?", "value"),
        ("What is the largest value UV_THREADPOOL_SIZE accepts?", "value"),
        ("Which test fails first?", "test"),
        # a name with its release number whole is a modifier, not the thing ("tlsv1")
        ("An OpenSSL server sends how many TLSv1.3 tickets after a handshake?", "tickets"),
        # a Chinese question names the thing after "哪个"; one character is a word of its own
        ("ftp.cn.debian.org 这个镜像是由哪个机构维护的？", "机构"),
        ("上传前用哪个命令给 .dsc 文件签名？", "命令"),
        ("本书法文第一版和 debian-installer 的问世，哪个更早？", ""),
        ("Debian 是从哪个版本开始支持多架构的？", ""),
    ],
)
def test_the_head_of_a_what_question_is_a_thing_not_a_verb_or_a_name(
    question: str, head: str
) -> None:
    assert head_word(question) == head


def test_a_page_of_a_manual_names_the_release_its_collection_names() -> None:
    """Apache's manual names its release only in each page's <title>, after the page's
    own ("mod_ratelimit - Apache HTTP Server Version 2.4")."""
    subject = ({"apache"}, ["Apache 2.4"])
    place = "apache2-doc/manual/en/mod/mod_ratelimit.html"
    text = "Provides a filter named RATE_LIMIT to limit client bandwidth."
    assert not names_subject(text, subject, "Apache Module mod_ratelimit", place)
    place += "\nApache HTTP Server Version 2.4"
    assert names_subject(text, subject, "Apache Module mod_ratelimit", place)
    assert not names_subject(text, ({"apache"}, ["Apache 2.2"]), "Apache Module", place)


def test_a_page_of_docs_titled_by_their_release_names_it_when_asked_what_holds_in_it() -> None:
    """Every page of "Click Documentation (8.1.x)" documents Click 8.1, none says so;
    asked when 8.1 came (no series), the collection says nothing of its date."""
    subject = ({"click"}, ["Click 8.1"])
    place = "python-click-doc/html/api.html\nClick Documentation (8.1.x)"
    text = "Use shutil.get_terminal_size() instead."
    assert names_subject(text, subject, "API", place, series=True)
    assert not names_subject(text, subject, "API", place)
    assert not names_subject(text, ({"click"}, ["Click 8.2"]), "API", place, series=True)
    assert not names_subject(text, ({"flask"}, ["Flask 8.1"]), "API", place, series=True)
    cmake = "cmake-doc/html/variable/X.html\nCMake 3.25.1 Documentation"
    assert names_subject(text, ({"cmake"}, ["CMake 3.25"]), "X", cmake, series=True)
    assert not names_subject(text, ({"cmake"}, ["CMake 3.24"]), "X", cmake, series=True)


def test_a_given_year_or_version_is_said_in_any_of_its_spellings() -> None:
    assert distinctive_numbers("Who was elected in 2024, of the top 5?") == ["2024"]
    assert distinctive_numbers("What is the nickname of Ubuntu 22.04?") == ["22.04"]
    # a single digit after the noun it numbers picks out one level; not "for 4 cores"
    assert distinctive_numbers("What key size does OpenSSL security level 6 allow?") == ["6"]
    assert distinctive_numbers("How many threads for 4 cores?") == []
    assert distinctive_numbers("Since which release is Node-API version 9 there?") == []
    assert mentions_number("up to 2,000 columns", "2000")
    # a table of contents run into one line numbers titles, not releases
    contents = "automated install, 5.2.10. Accessibility of the system 5.3. Boot Parameters"
    assert not mentions_number(contents, "5.3")
    assert mentions_number("It was added in 3.11. The parser came in 3.12. It", "3.11")
    assert mentions_number("Python 3.11. It is new. Python 3.12. It is newer.", "3.11")
    assert mentions_number("a .300 batting average", "0.300")
    assert not mentions_number("release 3.11.2", "3.11")
    assert not mentions_number("item 20240", "2024")


def test_a_given_number_is_said_beside_a_word_the_question_says_it_with() -> None:
    """ "debhelper compat level 14": a numbered listing's line 14 says nothing of it."""
    words = set(tokenize("Which debhelper version introduced compat level 14?")) - {"14"}
    listing = "13 Depends: ${shlibs:Depends}, ${misc:Depends} 14 Suggests: file 15 Description"
    assert mentions_number(listing, "14")
    assert not mentions_number_with(listing, "14", words)
    assert mentions_number_with("Compatibility level 14 is recommended.", "14", words)
    far = "The compat level is set in debian/control. " + "x " * 30 + "It has 14 entries."
    assert not mentions_number_with(far, "14", words)
    # a year dates what the text around it tells, however far, and a release is given by
    # its docs' headings; a cell is of its column
    assert said_anywhere("2017") and said_anywhere("3.40") and not said_anywhere("14")
    table = "| umask | 文件权限 |\n|---|---|\n| 0022 | -rw-r--r-- |\n| 0002 | -rw-rw-r-- |"
    assert mentions_number_with(table, "0002", {"umask"})
    assert not mentions_number_with(table, "0002", {"debhelp"})


def test_a_series_asked_with_a_wildcard_is_said_by_any_of_its_releases() -> None:
    """ "Which 3.7.x release" asks for a release of the 3.7 series: "3.7.9" says it, "3.70"
    does not."""
    question = "From which 3.7.x release on can Postfix disconnect pipelining clients?"
    assert distinctive_numbers(question) == ["3.7.x"]
    assert mentions_number("Available in Postfix 3.9, 3.8.4, 3.7.9 and later", "3.7.x")
    assert mentions_number("Postfix 3.7 and later", "3.7.x")
    assert not mentions_number("Postfix 3.70 and later", "3.7.x")


@pytest.mark.parametrize(
    "text",
    [
        "关于可用的发布版本，请阅读第 6.1 节。",
        "**表\xa06.1.\xa0网页浏览器列表**",
        "### 6.1. 有多少种 Debian 发布版本？",
        "See Table 6.1 for the browsers.",
    ],
)
def test_the_number_of_a_part_of_a_book_is_no_mention_of_a_version(text: str) -> None:
    """A section, a table or a heading numbered 6.1 does not say Linux 6.1; a question
    about section 6.1 gives no number a passage must say."""
    assert not mentions_number(text, "6.1")
    assert mentions_number("Linux 6.1 是默认内核。", "6.1")
    assert distinctive_numbers("What does section 6.1 say about Python 3.11?") == ["3.11"]


def test_a_two_digit_value_is_distinctive_a_two_digit_release_is_not() -> None:
    """A value a question sets ("BASH_COMPAT to 52") must be said by the page that
    answers; "Node.js 18" is a release, which its pages write as "v18.20.4"."""
    assert distinctive_numbers("What changes when I set BASH_COMPAT to 52?") == ["52"]
    assert distinctive_numbers("Are Node.js 18 policies a stable feature?") == []
    assert distinctive_numbers("Is Debian 12 supported in the top 5 until 2028?") == ["2028"]
    # a number with its thousands grouped is one number
    assert distinctive_numbers("Can it hold 3,000,000,000 rows?") == ["3000000000"]


def test_a_point_release_is_named_after_its_product_alone_or_in_a_list() -> None:
    """Asked which release of a series, "Apache 2.4.39" names one of Apache 2.4's, and so
    does "3.6.14" in "Postfix ≥ 3.9, 3.8.5, 3.7.10, 3.6.14"; a list that holds none does not."""
    assert mentions_point_release("Fixed in Apache 2.4.39.", "Apache 2.4")
    listed = "This feature is available in Postfix ≥ 3.9, 3.8.5, 3.7.10, 3.6.14, and 3.5.24."
    assert mentions_point_release(listed, "Postfix 3.6")
    assert not mentions_point_release(listed, "Postfix 3.4")
    assert not mentions_point_release("Postfix 3.6 is old; see section 3.6.2.", "Postfix 3.6")


def test_a_measure_a_yes_no_question_supposes_is_not_one_the_answer_must_say() -> None:
    """ "Will Node wait the ~35 days?" supposes a value the page answers otherwise
    ("larger than 2147483647 … set to 1"); a figure another question asks with is kept."""
    supposing = "If I call setTimeout with a delay of 3,000,000,000 ms, will it wait ~35 days?"
    assert supposed_measures(supposing) == {"3000000000", "35"}
    assert supposed_measures("What is the limit for 500 MB files?") == set()


def test_a_chinese_question_names_what_it_writes_in_latin_letters() -> None:
    """A Chinese question writes in Latin letters the packages, commands and code names
    it asks about, in lower case too; a word glossing its own ("分离（detach）") is not
    one. An English question's lower-case words stay words."""
    assert subjects("Debian LTS 团队对 bullseye 的支持到哪一天截止？") == [
        ({"debian", "lts", "bullseye"}, [])
    ]
    assert subjects("apt 3.0 新增了哪些子命令？") == [({"apt"}, ["apt 3.0"])]
    assert subjects("用 screen 的时候，怎么把当前会话分离（detach）出去？") == [({"screen"}, [])]
    assert latin_terms("Which subcommands did apt 3.0 add?") == set()


def test_a_name_is_filed_when_a_folder_of_the_corpus_bears_it() -> None:
    """Packaged docs file a product's pages in a folder of its name; a page's own file
    name or the last part of a web address names that page, not a collection."""
    question = "In which Git version did git switch appear, and which Python version?"
    assert filed_names(question, ["git-doc/usr/share/doc/git-doc/git-init.html"]) == {"git"}
    assert filed_names(question, ["notes/git.md", "python.md"]) == set()
    wiki = ["https://en.wikipedia.org/wiki/Meet_Corliss_Archer"]
    assert filed_names("Who played Corliss Archer in Kiss and Tell?", wiki) == set()
    # a manual is a collection too: its name stands on the line after the location
    guide = ["guide/ch06s03.html\nDebian GNU/Linux Installation Guide"]
    assert filed_names("Does the Debian installer offer ReiserFS?", guide) == {"debian"}
    assert filed_names("Does the Debian installer offer ReiserFS?", ["guide/ch06s03.html"]) == set()
    # the title files the product it opens with: the handbook beside the guide is no
    # less about Linux, and a question naming Linux may be answered there
    linux = "How many limits can the Linux quota system set?"
    assert filed_names(linux, guide, shelves=["Debian", "debian-handbook/html"]) == set()
    assert title_name("The Debian Administrator's Handbook") == "Debian"
    assert title_name("Click Documentation (8.1.x)") == "Click"


def test_a_default_asked_in_other_words_is_answered_by_a_setting_set_in_code() -> None:
    """ "Unless configured otherwise" asks for a default; a directive's default row
    written as code ("`BrotliCompressionQuality 5`") states it: the number is the
    setting's value, not part of a name like "Chapter 17"."""
    asked = Asked.of("What compression quality does mod_brotli use unless configured otherwise?")
    assert (asked.kind, asked.default) == ("quantity", True)
    row = "Default: | `BrotliCompressionQuality 5` |"
    frame = "Apache Module mod_brotli\nBrotliCompressionQuality Directive"
    assert asked.answered_by(row, frame) and asked.states_default(row, frame)
    assert not holds_answer("quantity", "See Chapter 17 of the manual.")


def test_a_code_name_escaped_by_markdown_is_still_named() -> None:
    """A page's heading "include\\_patterns" (Markdown escapes the underscore) names the
    setting include_patterns, for the writer and for the gap check."""
    heading = "General configuration\ninclude\\_patterns"
    assert mentions_identifier(heading, "include_patterns")
    question = "In which Sphinx version was the include_patterns setting added?"
    [subject] = subjects(question)
    assert names_subject("Glob-style patterns.", subject, heading, "sphinx-doc/html/conf.html")


def test_a_method_is_named_by_its_own_name_in_its_class_entry() -> None:
    """Reference docs write Response.iter_lines() as "iter_lines(…)" inside the entry of
    "class requests.Response"; under another class's entry it is another method."""
    question = "What chunk_size does Response.iter_lines() use when you leave it out?"
    [subject] = subjects(question)
    entry = "iter_lines(*chunk_size=512*, *decode_unicode=False*)"
    place = "python-requests-doc/html/api.html"
    assert names_subject(entry, subject, "Developer Interface\nclass requests.Response", place)
    assert not names_subject(entry, subject, "Developer Interface\nclass requests.Session", place)
    # a host's or a version's parts are not a method and its class
    [host] = subjects("ftp.debian.org 镜像站的出口带宽是多少？")
    assert not names_subject("ftp(1) fetches from a Debian mirror.", host, "org", "x.html")


def test_a_release_headed_inside_a_passage_is_named_by_it() -> None:
    """A changelog passage may end with the next release's heading: "## Release 2.4.5
    (released Nov 18, 2021)" names Sphinx 2.4.5 (the product named by the path), and
    dates it for a comparison; the release whose heading the passage lies under is
    another."""
    question = "Which was released earlier, Sphinx 2.4.5 or Sphinx 4.0.0?"
    text = (
        "- #7343: builds were slower.\n\n## Release 2.4.5 (released Nov 18, 2021)\n\n"
        "### Dependencies"
    )
    frame = "Changelog\nRelease 3.0.0 (released Apr 06, 2020)\nBugs fixed"
    location = "sphinx-doc/usr/share/doc/sphinx-doc/html/changes.html"
    older, newer = subjects(question)
    assert names_subject(text, older, frame, location, about=True)
    assert not names_subject(text, newer, frame, location, about=True)
    asked = Asked.of(question)
    assert asked.heads_answer("Release 2.4.5 (released Nov 18, 2021)")
    assert not asked.heads_answer("Release 3.0.0 (released Apr 06, 2020)")


@pytest.mark.parametrize(
    ("question", "sentence", "holds"),
    [
        ("How long is the bridge over the strait?", "The bridge runs nearly 8 km.", True),
        ("How long is the bridge over the strait?", "The region has 3.7 million people.", False),
        ("How long does the server wait on a lock?", "The default is five seconds.", True),
        ("How much memory does the installer need?", "It needs 256 MB of RAM.", True),
        ("How much memory does the installer need?", "It runs on 2 of the 3 disks.", False),
        ("How long is the bridge over the strait?", "As long as 3 others, as it was.", False),
        ("这座桥有多长？", "大桥全长约 8 公里。", True),
        # configuration files write durations with a one-letter unit: s, m, h, d, w
        ("How long does a message stay in the queue?", "maximal_queue_lifetime (5d)", True),
        ("How long is a lock kept?", "lock_time (2w)", True),
        # a count is not a measure: any number answers "how many"
        ("How many loose objects trigger a pack?", "The default value is 6700.", True),
    ],
)
def test_a_length_duration_or_size_asked_for_is_a_number_with_its_unit(
    question: str, sentence: str, holds: bool
) -> None:
    assert Asked.of(question).holds_value(sentence) is holds


def test_a_short_name_is_in_a_location_as_a_whole_word() -> None:
    """Go's specification lies in go_spec.html, whose page title the extraction cannot
    read: its path names Go. A name of two letters is no part of a longer word there
    ("golang", "gcc")."""
    spec = "golang-1.19-doc/usr/share/doc/golang-1.19-doc/html/go_spec.html"
    assert named_in_location({"go"}, spec) == {"go"}
    assert named_in_location({"go", "c"}, "golang-1.19-doc/html/asm.html") == set()
    assert named_in_location({"postgresql"}, "postgresql-doc-15/html/mvcc.html") == {"postgresql"}


def test_the_heading_of_a_code_names_entry_answers_which_name_it_has() -> None:
    """A deprecation's code stands in the heading of its entry, not in its sentences:
    the heading answers when it names the asked code name and something besides."""
    asked = Asked.of("Which deprecation code covers the removed os.tmpDir() API?")
    assert asked.heads_answer("DEP0022: `os.tmpDir()`")
    assert not asked.heads_answer("`os.tmpDir()`")
    assert not asked.heads_answer("DEP0021: `Server.listenFD`")


def test_a_name_the_question_misspells_by_one_letter_is_named() -> None:
    """ "Withing You Without You" is the song the sources call "Within You Without
    You"; a name with a digit is another release, not a misspelling ("TLSv1.4"), and a
    short name is too easily another word."""
    text = '"Within You Without You" is a song written by George Harrison.'
    assert names_subject(text, ({"withing", "without"}, []))
    assert misspelt("harrisson", {"harrison"})
    assert not misspelt("tlsv14", {"tlsv13"})
    assert not misspelt("redis", {"redos"})
    assert not misspelt("harrison", {"morrison"})


def test_a_passage_holding_two_entries_answers_by_the_one_its_sentence_is_under() -> None:
    """A passage may hold the end of one function's entry and the next one's: each
    sentence is read under the frame at its place in the passage."""
    passage = (
        "Return True if x is a NaN.\n\n###### math.isqrt(n)\n\nReturn the integer square "
        "root of the nonnegative integer n.\n\nNew in version 3.8.\n"
    )
    isqrt = Asked.of("Since which Python version does the math module have isqrt()?")
    isnan = Asked.of("Since which Python version does the math module have isnan()?")
    entry = passage.index("######")

    def frames(offset: int) -> str:
        return "math\nmath.isnan(x)" if offset < entry else "math\nmath.isqrt(n)"

    assert isqrt.answered_in(passage, frames)
    assert not isnan.answered_in(passage, frames)
    assert not isqrt.answered_in(passage, lambda _: "math\nmath.isnan(x)")
    assert isqrt.answered_by("New in version 3.8.", "math", lead="See also isqrt(). ")


@pytest.mark.parametrize(
    ("sentence", "holds"),
    [
        ("该分区格式化为 FAT32 可引导文件系统。", False),
        ("Checksums are computed with sha256 on x86_64.", False),
        ("目前你应当将其设置为 debhelper V10：", True),
        ("最少分配200MB的空间。", True),
    ],
)
def test_digits_a_name_ends_with_are_no_count_a_level_after_its_v_is(
    sentence: str, holds: bool
) -> None:
    assert holds_answer("quantity", sentence) is holds


@pytest.mark.parametrize(
    ("sentence", "holds"),
    [
        ("New in version 0.6.", False),
        ("Since v20.5.0 the flag is accepted.", False),
        ("Fixed a crash in 3.39.4.", False),
        ("版本 2.4 起可用。", False),
        ("New in version 0.6: the cache holds 5 MB.", True),
        ("The server listens on 127.0.0.1:8080.", True),
    ],
)
def test_a_release_number_is_no_count(sentence: str, holds: bool) -> None:
    """A release's number counts nothing: "New in version 0.6" on a Sphinx page does not
    say how many megabytes its search index cache may use."""
    assert holds_answer("quantity", sentence) is holds


def test_a_name_written_with_its_possessive_is_no_asked_word() -> None:
    """ "Sphinx's" is the name Sphinx, not a word the answer shares with the question: on
    a corpus of Sphinx's pages every sentence would share it."""
    asked = Asked.of("How many megabytes may Sphinx's search index cache use by default?")
    assert "sphinx" not in asked.words and {"search", "index"} <= asked.words
    frame = "Sphinx documentation\nSphinx.add_js_file()"
    assert not asked.answered_by("Its bundle weighs 5 MB.", frame)
    assert asked.answered_by("The search index cache holds 5 MB by default.", frame)


@pytest.mark.parametrize(
    ("sentence", "answers"),
    [
        ("SSL_set_retry_verify() was added in OpenSSL 3.0.2.", False),
        ("SSL_set_retry_verify() was deprecated in OpenSSL 3.0.2.", True),
        ("Deprecated since version 3.0.2: use the callback's return value instead.", True),
        ("SSL_set_retry_verify() first appeared in OpenSSL 3.0.2.", True),
    ],
)
def test_a_version_of_another_event_is_not_the_one_asked(sentence: str, answers: bool) -> None:
    """Asked when a function was deprecated, the version it was added in is no answer; a
    sentence that names no event may still be."""
    asked = Asked.of("In which OpenSSL version was SSL_set_retry_verify() deprecated?")
    assert asked.answered_by(sentence, "SSL_SET_RETRY_VERIFY(3SSL)\nHISTORY") is answers


@pytest.mark.parametrize(
    ("sentence", "answers"),
    [
        ("Set it to a value greater than 4 (its current default value).", False),
        ("UV_THREADPOOL_SIZE accepts values up to 1024.", True),
        ("The maximum is 1024, and the default is 4.", True),
        ("Its value is 1024 on most systems.", True),
    ],
)
def test_a_default_is_no_answer_to_a_question_about_a_bound(sentence: str, answers: bool) -> None:
    """Asked for the largest value a setting accepts, its default is not it; a sentence
    that tells of neither may still be."""
    asked = Asked.of("What is the largest value UV_THREADPOOL_SIZE accepts?")
    assert asked.kind == "quantity"
    assert asked.answered_by(sentence, "Environment variables\nUV_THREADPOOL_SIZE=size") is answers


@pytest.mark.parametrize(
    ("question", "event"),
    [
        ("Since which Python version does the math module have isqrt()?", "added"),
        ("From which Python release on does the math module have isqrt()?", "added"),
        ("From which Node.js version on is vm.runInDebugContext() unavailable?", "removed"),
        ("Since which Python version is the imp module deprecated?", "deprecated"),
    ],
)
def test_since_which_version_asks_when_it_came_or_went(question: str, event: str) -> None:
    """ "Since which version does it have X" asks when X was added, "from which version on
    is X unavailable" when it was removed: the notes of the release that adds it answer
    the first, a version that deprecates part of it does not."""
    asked = Asked.of(question)

    assert asked.events == {event}
    if event == "added":
        notes = "What’s New In Python 3.8\nImproved Modules\nmath"
        assert asked.answered_by("Added a new function `math.isqrt()` for square roots.", notes)
        assert not asked.answered_by("Deprecated since version 3.9: floats.", "math\nmath.isqrt")


@pytest.mark.parametrize(
    ("question", "word"),
    [
        ("In which Jinja version was the items filter added?", "items"),
        ("Which pytest release added the tmp_path fixture?", "tmp_path"),
        ("Since when does pluggy call the pytest_configure hook?", "pytest_configure"),
        ("In which Sphinx version was the include_patterns setting added?", "include_patterns"),
    ],
)
def test_a_filter_fixture_or_hook_is_a_feature_the_question_names(question: str, word: str) -> None:
    """A word written before the kind of feature it names ("the items filter") is what a
    passage must say for its answer to be about that feature, as for a module or a
    setting: "Changed in version 2.11: Added the break_on_hyphens parameter." under the
    wordwrap filter does not date the items filter."""
    assert featured_word(question) == word


def test_the_most_recent_asks_no_bound() -> None:
    """ "How many of the most recent directories does it keep?" asks for a number, not a
    maximum: "By default, … old bases are removed after 3 sessions" answers it, where a
    question about the most it keeps would want the bound."""
    asked = Asked.of("How many of the most recent base temporary directories does pytest keep?")
    said = "By default, a new base directory is made each session; old bases are removed after 3."

    assert asked.events == frozenset()
    assert asked.answered_by(said, "Temporary directories")
    assert Asked.of("How many directories does pytest keep at most?").events == {"bound"}


def test_a_sentence_about_another_feature_does_not_answer() -> None:
    """ "In which Jinja version did the xmlattr filter start raising …?" is not answered by
    "Changed in version 2.11: …" under the wordwrap filter, though the page lists both
    filters: the sentence, the sentences before it or its headings must say the feature,
    as a code name asked of must be said."""
    asked = Asked.of("In which Jinja version did the xmlattr filter start raising a ValueError?")
    other = "List of Builtin Filters\njinja-filters.wordwrap(s, width=79)"
    own = "List of Builtin Filters\njinja-filters.xmlattr(d, autospace=True)"
    said = "Changed in version 3.1.3: Keys with spaces are not allowed."

    assert asked.featured == "xmlattr"
    assert not asked.answered_by(said, other)
    assert asked.answered_by(said, own)
    assert asked.answered_by("Changed in version 3.1.3: xmlattr rejects keys with spaces.", other)


def test_when_something_started_is_answered_by_the_version_it_started_in() -> None:
    """ "When did Node start handing back zero-filled memory …?" asks when a change came
    about, which docs date by a version ("Since Node.js 8.0.0, …"); when a release came
    out is still a date."""
    since = "Since Node.js 8.0.0, exposure of memory cannot occur because the data is zero-filled."
    started = Asked.of("When did Node start handing back zero-filled memory from new Buffer(size)?")
    released = Asked.of("When was Node.js 8.0.0 released?")

    assert started.kind == released.kind == "date"
    assert started.holds(since)
    assert not released.holds(since)


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("Sam Hartman wrote the preface of the handbook. When was that?", "date"),
        ("I downloaded a .deb file. How do I install it with its dependencies?", "procedure"),
        ("When I upgrade, how do I keep my configuration?", "procedure"),
        ("After an upgrade, is the old kernel kept?", "yes_no"),
        ("By default, how frequently does logcheck read the logs?", "quantity"),
        ("Sphinx 2.4.5 vs Sphinx 4.0.0: which one came out first?", "comparison"),
        ("Django 3.1 or Python 3.9 - which was released earlier?", "comparison"),
        ("Did SQLite's RETURNING or PostgreSQL's MERGE come out earlier?", "comparison"),
        ("Did CMake get presets before or after CMAKE_MAXIMUM_RECURSION_DEPTH?", "comparison"),
        ("Is the old kernel kept or removed after an upgrade?", "yes_no"),
        ("Does apt remove old kernels first or keep them?", "yes_no"),
        ("What's the way to check Apache's configuration for errors?", "procedure"),
        ("What's the standard-library way to make a virtual environment?", "procedure"),
        ("What is a good way to back up a PostgreSQL database?", "procedure"),
        ("mapfile has a synonym in Bash. What is that other builtin called?", "name"),
        ("Django 3.2 came out when?", "date"),
        ("Debian 12 comes with which version of X.Org?", "version"),
        ("A manga about Ichitaka Seto, is written by someone born in what year?", "date"),
        ("CMP0135, the policy on timestamps of extracted files, was introduced when?", "version"),
        # a relative clause tells of a change; the question asks for what replaces it
        ("What should code use instead of get_terminal_size(), which Click 8.1 removed?", "any"),
        ("When was the --strict option deprecated, and what replaces it?", "version"),
        # a change told in a relative clause: the question asks when the release came
        ("When was the requests release that introduced `requests.help` published?", "date"),
        ("When was `requests.help` introduced?", "version"),
    ],
)
def test_the_kind_is_read_off_the_clause_that_asks(question: str, kind: str) -> None:
    """A question that sets the scene first ("…. When was that?", "When I upgrade, how
    do I …") asks with its later clause; what the scene says still counts ("By default,
    how frequently …" asks for a default number)."""
    assert asked_kind(question) == kind


def test_a_clause_that_asks_may_open_with_a_preposition() -> None:
    # "In which release …" after a sentence that sets the scene; not ", in which case …"
    scene = "My script imports binhex and fails on Python 3.11. "
    assert question_clause(f"{scene}In which release was it deprecated?") == (
        "In which release was it deprecated?"
    )
    assert question_clause("Is it on, in which case what?") == "Is it on, in which case what?"


@pytest.mark.parametrize(
    "question",
    [
        "The author of The Thing of It Is... is what nationality?",  # a title's dots
        "James Fieser received his B.A. from what college?",  # an initial's full stop
    ],
)
def test_a_title_s_dots_or_an_initial_s_full_stop_ends_no_sentence(question: str) -> None:
    """The question goes on after them: no scene is set before its asking clause."""
    assert question_clause(question) == question
    assert question_clause("Sam Hartman wrote it. When was that?") == "When was that?"


def test_a_feature_named_at_the_opening_is_featured_a_function_word_is_not() -> None:
    question = "The include_patterns option: what Sphinx version first had it?"
    assert featured_word(question) == "include_patterns"
    assert featured_word("What's the directive for setting the server banner?") == ""


def test_everyday_words_for_a_release_ask_when_it_was_released() -> None:
    """ "Come out" and "ship" at the end of a question ask the date release notes give
    as "released"; "ships X.Org" tells what a release holds."""
    for question in ("When did Django 2.2 come out?", "On which day did Sphinx 5.0.2 ship?"):
        asked = Asked.of(question)
        assert asked.kind == "date" and asked.words == {"releas"}
    assert Asked.of("Debian 12 ships which version of X.Org?").words == {"ship"}
    # what is shipped asked first: what a release holds, not when it came
    assert Asked.of("Which X.Org version does Debian 12 ship?").words == {"ship"}
    assert Asked.of("What day did Sphinx 5.0.2 ship?").words == {"releas"}
    assert facets_of("What day did Python 2.0 come out?") == ["python", "2.0", "released"]


def test_a_default_asked_in_other_words_is_a_facet_as_docs_word_it() -> None:
    """ "Unless told otherwise" and "out of the box" ask for what docs call the default
    ("**Default:** `2`"): the gap check asks that of the passages it judges, not
    "otherwise" or "box"."""
    facets = facets_of("How deep does util.inspect() go into nested objects unless told otherwise?")
    assert "default" in facets and not {"unless", "told", "otherwise"} & set(facets)
    facets = facets_of(
        "How many listeners may one event have before Node.js warns, out of the box?"
    )
    assert "default" in facets and "box" not in facets
    assert "默认" in facets_of("如果不改，Debian 安装程序会装上哪种桌面环境？")
    assert "默认" in facets_of("没有设置的话，Debian 安装程序会装上哪种桌面环境？")
    facets = facets_of("What HTML theme does Sphinx use if none is configured?")
    assert "default" in facets and "configured" not in facets
    assert "default" in facets_of("What chunk size does iter_lines() use when you leave it out?")
    assert "default" in facets_of("Which port does it listen on if it isn't set?")
    assert "default" not in facets_of("Which port does it listen on if it is set?")
    assert "default" not in facets_of("How deep does util.inspect() go into nested objects?")


def test_what_a_release_comes_with_need_not_be_said_with_come() -> None:
    """ "Comes with" is a light verb's way of asking what a release holds: its answer says
    "ships with" or "includes", and the question shares no other word with it besides
    the names."""
    asked = Asked.of("Debian 12 comes with which version of X.Org?")
    assert asked.kind == "version" and asked.words == set()
    assert asked.answered_by("Debian 12 ships with X.Org version 7.7.", "Graphics Hardware Support")


def test_a_beginning_asked_in_one_word_is_answered_in_another() -> None:
    asked = Asked.of("What year was Debian founded by Ian Murdock?")
    began = "The Debian project began in 1993, when Ian Murdock invited volunteers."
    assert asked.answered_by(began, "Debian Handbook")
    assert asked.answered_by("Ian Murdock created Debian in 1993.", "History")
    assert not asked.answered_by("Ian Murdock wrote a manifesto in 1994.", "History")


def test_the_noun_a_date_is_asked_with_is_no_thing_the_corpus_must_say() -> None:
    question = "PostgreSQL 15.9 - what day was it released?"
    assert head_word(question) == ""
    assert "day" not in facets_of(question)
    assert "year" not in facets_of("In which year did work on GNU begin?")
    assert "years" in facets_of("The president served during what years?")  # a span


@pytest.mark.parametrize(
    "question",
    [
        "what does PostgreSQL set work_mem to if I don't change it",
        "zlib streams: what chunkSize do they use when you don't specify one?",
        "How many listeners can one event have out of the box?",
        "How many clients may connect when nothing is configured?",
        "How many bytes does iter_lines() read at a time if omitted?",
        "When I turn on UNITY_BUILD and don't set a batch size, how many files get combined?",
    ],
)
def test_a_default_asked_for_without_the_word_is_a_default(question: str) -> None:
    asked = Asked.of(question)
    assert asked.kind == "quantity" and asked.default


def test_a_setting_listed_with_its_value_gives_its_default_though_it_tells_a_bound() -> None:
    """Postfix's summary of settings lists each with its default in brackets: "The
    maximal number …" after "smtp_mx_session_limit (2)" is that limit's default, where a
    bound alone is not the default asked for."""
    asked = Asked.of("How many SMTP sessions does the Postfix client try, out of the box?")
    listed = "**smtp_mx_session_limit (2)** The maximal number of SMTP sessions to try."
    assert asked.answered_by(listed, "postconf(5)")
    assert not asked.answered_by("The maximal number of SMTP sessions is 2.", "postconf(5)")


def test_a_value_a_setting_takes_when_left_unset_is_its_default() -> None:
    """CMake gives a property's default as its "initial value", when the variable it is
    taken from "has not been set": that states the default asked for."""
    asked = Asked.of("How many source files go into each unity file by default?")
    unset = "If that variable has not been set, the initial value will be 8."
    assert asked.states_default(unset, "UNITY_BUILD_BATCH_SIZE")
    assert not asked.states_default("The batch size may be set to 0.", "UNITY_BUILD_BATCH_SIZE")


def test_a_code_name_of_the_scene_is_asked_of_only_when_the_question_points_back() -> None:
    """ "When I turn on UNITY_BUILD …, how many source files get combined into each unity
    file?" is answered in UNITY_BUILD_BATCH_SIZE's entry; "The include_patterns option:
    what Sphinx version first had it?" asks of include_patterns."""
    unity = (
        "When I turn on UNITY_BUILD for a target and don't set a batch size, how many "
        "source files get combined into each unity file?"
    )
    assert Asked.of(unity).codes == set()
    assert Asked.of("The include_patterns option: what Sphinx version first had it?").codes == {
        "include_patterns"
    }
    assert Asked.of("How many files does UNITY_BUILD combine?").codes == {"unity_build"}
    other = "When REQUESTS_CA_BUNDLE isn't set, which other variable does Requests check?"
    assert Asked.of(other).codes == {"requests_ca_bundle"}


def test_two_things_compared_with_no_change_named_are_compared_by_when_they_came() -> None:
    """ "A or B: which one did Python get first?": an item of What's New that adds one
    is dated by its title, as for "Which was added first"; two releases compared are
    compared by their release dates, no change asked."""
    asked = Asked.of("math.isqrt() or functools.cache(): which one did Python get first?")
    frame = "What’s New In Python 3.8\nImproved Modules\nmath"
    assert asked.events == {"added"}
    assert asked.answered_by("Added a new function `math.isqrt()` for integer roots.", frame)
    assert not Asked.of("Which was released first, Python 2.6 or Python 3.0?").events


def test_the_first_version_that_has_a_thing_asks_when_it_was_added() -> None:
    """As "since which version" does: an item that adds it under a release heading
    answers ("Add support for the RETURNING clause …" under "SQLite Release 3.35.1")."""
    asked = Asked.of("What's the first SQLite version that supports a RETURNING clause?")
    assert asked.events == {"added"}
    frame = "SQLite Release 3.35.1 On 2021-03-15\nChanges"
    assert asked.answered_by("Add support for the RETURNING clause on DELETE.", frame)


def test_an_entry_heading_that_assigns_a_number_gives_the_value_its_description_lacks() -> None:
    # an API's attribute or signature states its default once, in the entry's heading
    asked = Asked.of("By default, how many parts of a multipart form body will Flask parse?")
    attribute = "API\nIncoming Request Data\nmax\\_form\\_parts *= 1000*"
    described = "The maximum number of multipart parts to parse."
    assert asked.value_above(described, attribute) == "max\\_form\\_parts *= 1000*"
    assert asked.answered_by(described, attribute)
    assert asked.states_default(described, attribute)
    assert not asked.answered_by(described, "API\nIncoming Request Data\nmax\\_form\\_parts")
    # a signature's parameter: the value is its default when the sentence names it
    pools = Asked.of("How many connection pools does the HTTPAdapter cache by default?")
    signature = "API\n*class* HTTPAdapter(*pool\\_connections=10*, *max\\_retries=0*)"
    assert pools.answered_by("**pool_connections** – The number of pools to cache.", signature)
    assert not pools.answered_by("The built-in HTTP Adapter for urllib3.", signature)
    # the parameter's line may lie under a label below the signature ("Parameters")
    listed = f"{signature}\nParameters"
    assert pools.answered_by("**pool_connections** – The number of pools to cache.", listed)
    assert not pools.answered_by("The number of pools to cache.", listed)  # names none
    # a parameter whose name shares no word with the question is not what is asked of
    assert not pools.value_above("**max_retries** – The number of retries.", signature)
    # a sentence that gives a number itself needs no heading's; nor does another kind
    assert not pools.value_above("It caches 4 connection pools.", signature)
    assert not Asked.of("Which class caches connection pools?").value_above(
        "**pool_connections** – The number of pools to cache.", signature
    )


@pytest.mark.parametrize(
    ("sentence", "verdict"),
    [
        ("Postfix does not support BINARYMIME at this time.", True),
        ("The number of entries currently cannot be changed.", True),
        ("Compatibility: Unix threaded MPMs only", True),
        ("Directories are made available as read-only by default.", True),
        ("This release date will always be on a weekday.", True),
        ("ReiserFS isn't offered any more.", True),
        ("默认情况下 NetworkManager 不管理这些接口。", True),
        ("The server exports the directories listed in /etc/exports.", False),
        ("Nothing here: nothingness, notation and defaults are other words.", False),
        ("NetworkManager 管理网络连接。", False),
    ],
)
def test_a_verdict_is_a_sentence_that_denies_limits_or_says_the_default(
    sentence: str, verdict: bool
) -> None:
    assert states_verdict(sentence) is verdict


@pytest.mark.parametrize(
    ("question", "within"),
    [
        ("Which came first in Apache 2.4, the proxy health-check module or the Redis?", True),
        ("Apache 2.4: which showed up earlier, the Redis provider or the proxy module?", True),
        ("Which came first, Python 3.8 or Python 3.9?", False),
        ("Which came first: SQLite 3.35, PostgreSQL 15 or MySQL 8?", False),
        ("Did SQLite 3.35 get RETURNING before PostgreSQL 15 got MERGE?", False),
        ("Which came first in Bash, the BASH_COMPAT variable or $RANDOM?", False),
    ],
)
def test_a_comparison_within_a_release_names_it_outside_its_two_sides(
    question: str, within: bool
) -> None:
    """The release a comparison is asked within stands before the two sides it compares;
    a comparison of releases names them as its sides."""
    assert Asked.of(question).within is within


@pytest.mark.parametrize(
    ("question", "names"),
    [
        (
            "Quick one: if a worker sets FOO, does the main thread see the new value?",
            {"quick", "foo"},
        ),
        ("Our relay runs Postfix. Which parameter limits the queue?", {"postfix"}),
        ("In PostgreSQL 15, what did pg_start_backup() become?", set()),  # its release
        ("Which Postfix parameter limits the queue?", set()),  # no scene
        ("Sam Hartman wrote the preface. When was Sam Hartman elected?", set()),
    ],
)
def test_the_names_only_the_scene_gives(question: str, names: set[str]) -> None:
    assert scene_names(question) == names


def test_a_release_dated_in_its_heading_dates_the_change_its_item_tells() -> None:
    """Asked when the release that added something came out, an item that tells the
    addition ("add option …", "Introduction of …") answers under the heading that dates
    its release; an item that tells another change does not."""
    question = (
        "The Sphinx release that introduced linkcheck_exclude_documents: on what date did "
        "it come out?"
    )
    asked = Asked.of(question)
    frame = "Changelog\nRelease 4.4.0 (released Jan 17, 2022)\nFeatures added"
    item = "#9894: linkcheck: add option linkcheck_exclude_documents to skip documents."
    assert asked.release_above(item, frame) == "Release 4.4.0 (released Jan 17, 2022)"
    assert asked.answered_by(item, frame)
    assert not asked.answered_by(item, "Changelog\nRelease 4.4.0\nFeatures added")
    fixed = "#9900: linkcheck: linkcheck_exclude_documents no longer crashes."
    assert not asked.answered_by(fixed, frame)
    named = Asked.of("When was the release that introduced the requests.help command published?")
    introduced = "Introduction of the $ python -m requests.help command, for debugging."
    assert named.answered_by(introduced, "Release History\n2.16.4 (2017-05-27)")
