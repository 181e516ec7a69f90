"""The report starts with the quote that answers, or says plainly that the sources do
not answer and lists the question under Unresolved."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from grounded_research.api import ResearchResult, research
from grounded_research.gaps.headings import HeadingsAt
from grounded_research.report.body import (
    SENTENCES_PER_SUB_QUESTION,
    Quote,
    answer_line,
    best_sentences,
    hop_pages,
    instruction_lines,
    joined,
    ranked_sentences,
    with_antecedent,
    with_lead,
    with_subject,
)
from grounded_research.state import WHOLE_QUESTION_ID, Evidence, SubQuestion
from grounded_research.text.answers import Asked
from tests.conftest import passage, write


@pytest.fixture
def release_notes(tmp_path: Path) -> dict[str, object]:
    root = tmp_path / "corpus"
    write(
        root,
        "release-15.md",
        "# Release 15\n\nPostgreSQL 15 was released on 2022-10-13. Thanks to everyone "
        "who tested the PostgreSQL 15 betas.\n",
    )
    write(
        root,
        "runtime.md",
        "# Chapter 17. Server Setup and Operation\n\nSection 17.3 explains how PostgreSQL "
        "starts the database server.\n",
    )
    return {
        "corpus": str(root),
        "cache_dir": str(tmp_path / "cache"),
        "selection_strategy": "keyword",
        "checkpointer": "none",
    }


def ask(tmp_path: Path, question: str, **knobs: Any) -> ResearchResult:
    """The question asked of the corpus written under tmp_path/corpus."""
    return research(
        question,
        corpus=str(tmp_path / "corpus"),
        cache_dir=str(tmp_path / "cache"),
        checkpointer="none",
        **knobs,
    )


def report_lines(tmp_path: Path, page: str, text: str, question: str) -> list[str]:
    """The lines of the report on the question asked of a corpus of one page."""
    write(tmp_path / "corpus", page, text)
    return ask(tmp_path, question).report.splitlines()


def line_with(lines: list[str], part: str) -> int:
    """The number of the first line holding `part`."""
    return next(i for i, line in enumerate(lines) if part in line)


def answer_of(result: ResearchResult) -> list[str]:
    """The lines of the report's one-line answer (its heading, then its quote)."""
    report: str = result.report
    return report.split("## Answer\n\n", 1)[1].split("\n\n", 1)[0].splitlines()


def answer_section(result: ResearchResult) -> tuple[str, list[str]]:
    """The report's Answer section, and its quote lines (a heading's line, then the
    quote that leans on it, each in a group of its own)."""
    answer: str = result.report.split("## Answer", 1)[1].split("\n## ", 1)[0]
    return answer, [line for line in answer.splitlines() if line.startswith("- ")]


def unanswered(result: ResearchResult) -> list[str]:
    return [
        gap.detail
        for gap in result.unresolved
        if gap.sub_question_id == WHOLE_QUESTION_ID and gap.kind == "unanswered"
    ]


def test_the_report_starts_with_the_quote_that_answers(release_notes: dict[str, object]) -> None:
    result = research("When was PostgreSQL 15 released?", **release_notes)

    answer = answer_of(result)[0]
    assert "2022-10-13" in answer and answer.endswith("[1]")
    assert not unanswered(result)


def test_a_version_the_corpus_does_not_cover_is_declared_unanswered(
    release_notes: dict[str, object],
) -> None:
    result = research("When was PostgreSQL 17 released?", **release_notes)

    assert unanswered(result) == ["no passage names PostgreSQL 17"]
    assert "do not answer this question" in result.report.split("## Closest material")[0]
    assert "## Unresolved" in result.report


def test_a_sentence_answers_under_the_heading_that_names_its_subject(tmp_path: Path) -> None:
    """Reference pages name a setting once, in the term above its description: "The
    default is 1 GB." answers for max_wal_size, and the quote shows where it stands."""
    write(
        tmp_path / "corpus",
        "wal.html",
        "<html><head><title>20.5. Write Ahead Log</title></head><body><article>"
        "<h2>20.5. Write Ahead Log</h2><h3>20.5.2. Checkpoints</h3><dl>"
        "<dt><code>checkpoint_timeout</code> (<code>integer</code>)</dt><dd><p>Maximum time "
        "between automatic WAL checkpoints. The default is five minutes.</p></dd>"
        "<dt><code>max_wal_size</code> (<code>integer</code>)</dt><dd><p>Maximum size to let "
        "the WAL grow during automatic checkpoints. The default is 1 GB.</p></dd>"
        "</dl></article></body></html>",
    )
    result = ask(tmp_path, "What is the default max_wal_size?")

    assert answer_of(result) == [
        "_20.5.2. Checkpoints › `max_wal_size` (`integer`)_",
        "- “Maximum size to let the WAL grow during automatic checkpoints. "
        "The default is 1 GB.” [1]",
    ]
    assert "five minutes" not in result.report
    assert all("Checkpoints ›" not in claim.text for claim in result.claims)


@pytest.mark.parametrize(("year", "why"), [("2021", []), ("2024", ["no passage mentions 2024"])])
def test_a_year_the_question_gives_must_be_in_the_evidence(
    tmp_path: Path, year: str, why: list[str]
) -> None:
    """A book of 2022 does not say who was elected in 2024, however well its pages on the
    elections match the question's other words."""
    write(
        tmp_path / "corpus",
        "handbook/organization.md",
        "# 1.3. The Inner Workings of the Debian Project\n\nThe Debian Project Leader is "
        "elected every year by the developers. Jonathan Carter was elected Debian Project "
        "Leader in 2020 and again in 2021.\n",
    )
    result = ask(tmp_path, f"Who was elected Debian Project Leader in {year}?")

    assert unanswered(result) == why


def test_a_numbered_section_does_not_give_the_version_asked_about(tmp_path: Path) -> None:
    """ "6.1. 有多少种 Debian 发布版本？" heads a section: the corpus does not say which
    release ships Linux 6.1, however well that section matches the question's words."""
    write(
        tmp_path / "corpus",
        "faq/choosing.md",
        "# 第 6 章 Debian 档案库\n\n## 6.1. 有多少种 Debian 发布版本？\n\n"
        "Debian 的每个发布版本都带有一个默认的 Linux 内核，例如 Linux 内核 5.10。\n",
    )
    result = ask(tmp_path, "Linux 内核 6.1 是哪个 Debian 版本的默认内核？")

    assert unanswered(result) == ["no passage mentions 6.1"]


@pytest.mark.parametrize(
    ("release", "why"), [("apt 2.6", []), ("apt 3.0", ["no passage names apt 3.0"])]
)
def test_a_chinese_question_names_a_release_in_lower_case(
    tmp_path: Path, release: str, why: list[str]
) -> None:
    """ "apt 3.0" in a Chinese question is that release of apt, written as users write
    it: a page on apt 2.6 does not say what apt 3.0 added."""
    write(
        tmp_path / "corpus",
        "handbook/apt.md",
        "# 6.2. apt 2.6 的新功能\n\napt 2.6 新增了 apt satisfy 和 apt modernize-sources 子命令。\n",
    )
    result = ask(tmp_path, f"{release} 新增了哪些子命令？")

    assert unanswered(result) == why


def test_a_chinese_question_is_open_when_no_page_says_what_it_asks_for(tmp_path: Path) -> None:
    """ "由哪个机构维护" asks for an organisation: a page that names the mirror and never
    says who runs it does not answer, however well it matches the other words."""
    write(
        tmp_path / "corpus",
        "faq/uptodate.md",
        "# 9.1. 如何使 Debian 系统保持最新？\n\n您可以将 ftp.cn.debian.org（中国的默认镜像站）"
        "替换成离您更近的 Debian 镜像站，镜像由 Debian 维护者 Ian Murdock 列出。\n",
    )
    result = ask(tmp_path, "ftp.cn.debian.org 这个镜像是由哪个机构维护的？")

    assert unanswered(result) == ["no passage about it mentions 机构"]


@pytest.mark.parametrize(("level", "why"), [("51", []), ("52", ["no passage mentions 52"])])
def test_a_value_the_question_sets_must_be_in_the_evidence(
    tmp_path: Path, level: str, why: list[str]
) -> None:
    """A manual that lists compatibility levels up to 51 does not say what level 52
    changes, however well its list matches the question's other words."""
    write(
        tmp_path / "corpus",
        "bash/compat.md",
        "# 6.12 Shell Compatibility Mode\n\nThe `BASH_COMPAT` variable sets the "
        "compatibility level.\n\n- compat50: changes how `$RANDOM` is generated.\n"
        "- compat51: the `unset` builtin treats `a[@]` differently when `BASH_COMPAT` "
        "is set to 51.\n",
    )
    result = ask(tmp_path, f"What changes when I set BASH_COMPAT to {level}?")

    assert unanswered(result) == why


def test_digits_a_name_ends_with_are_no_size(tmp_path: Path) -> None:
    """ "FAT32" names a file system: a page saying the EFI partition is formatted as
    FAT32 does not say how large it must be."""
    write(
        tmp_path / "corpus",
        "guide/partitioning.md",
        "# 分区\n\n在 EFI 模式引导时会有一个额外的 EFI 分区，该分区格式化为 FAT32 "
        "可引导文件系统。\n",
    )
    result = ask(tmp_path, "EFI 分区最少要分多大？")

    assert unanswered(result) == ["no passage about it gives a number"]


def test_the_number_of_a_list_item_does_not_answer_how_many(tmp_path: Path) -> None:
    """ "9. 一步步地升级" is the ninth step of a list, not a number of years: a question
    on how many years security support lasts is not answered by it (the writer quotes
    the line without its marker, and the gap check reads it so too)."""
    write(
        tmp_path / "corpus",
        "faq/upgrade.md",
        "# 3.1. 升级 Debian 系统\n\n对 oldstable 的安全更新会持续提供若干年。\n\n"
        "8. 先阅读发行说明。\n9. 一步步地升级：oldstable → stable → testing。\n",
    )
    result = ask(tmp_path, "Debian 对 oldstable 的安全更新会持续提供多少年？")

    assert unanswered(result) == ["no passage about it gives a number"]


def test_closest_material_is_quoted_when_no_passage_names_the_subject(tmp_path: Path) -> None:
    """A question may name what the pages call otherwise ("CPU" for "a Pentium 4"): it is
    not answered, and the report still quotes the nearest the evidence comes."""
    write(
        tmp_path / "corpus",
        "guide/requirements.md",
        "# 3.4. Meeting Minimum Hardware Requirements\n\nA Pentium 4, 1GHz system is the "
        "minimum recommended for a desktop system. Machines below it may still install.\n",
    )
    result = ask(tmp_path, "What is the minimum recommended CPU for a desktop system?")

    assert unanswered(result) == ["no passage names CPU"]
    closest = result.report.split("## Closest material")[1]
    assert "“A Pentium 4, 1GHz system is the minimum recommended for a desktop system." in closest


@pytest.mark.parametrize(("home", "answered"), [(True, True), (False, False)])
def test_a_manual_names_its_product_in_its_collection(
    tmp_path: Path, home: bool, answered: bool
) -> None:
    """A page of the installation guide names neither Debian in its text nor in its path;
    the manual it belongs to does, in the link to its first page."""
    link = '<link rel="home" href="index.html" title="Debian Installation Guide">' * home
    write(
        tmp_path / "corpus",
        "guide/ch06s03.html",
        f"<html><head><title>6.3. Using Individual Components</title>{link}</head><body>"
        "<article><h2>6.3. Using Individual Components</h2><h3>6.3.4. Partitioning</h3>"
        "<p>The installer supports several file systems. Support for the ReiserFS file "
        "system is no longer available by default; it can be enabled by selecting the "
        "partman-reiserfs component.</p></article></body></html>",
    )
    result = ask(tmp_path, "Is ReiserFS still available by default in the Debian installer?")

    assert unanswered(result) == ([] if answered else ["no passage names ReiserFS, Debian"])
    assert result.sources[next(iter(result.sources))].collection == (
        "Debian Installation Guide" if home else ""
    )


@pytest.mark.parametrize("edition_stated", [True, False])
def test_a_manual_is_of_the_release_its_front_page_states(
    tmp_path: Path, edition_stated: bool
) -> None:
    """Bash's manual says once, on its front page, that it is of Bash 5.2; its page on
    arrays never says so, and answers what holds in Bash 5.2 all the same. Without that
    statement, no page says which Bash it documents."""
    front = "This manual is for `Bash`, Version 5.2." if edition_stated else "The GNU shell."
    write(tmp_path / "corpus", "bash/index.md", f"# Bash Reference Manual\n\n{front}\n")
    write(
        tmp_path / "corpus",
        "bash/arrays.md",
        "# Arrays\n\nBash provides one-dimensional indexed and associative array "
        "variables. Array variables may not (yet) be exported.\n",
    )
    result = ask(tmp_path, "Can Bash 5.2 export an array variable to child processes?")

    assert unanswered(result) == ([] if edition_stated else ["no passage names Bash 5.2"])
    assert "may not (yet) be exported" in result.report


@pytest.mark.parametrize("click_documented", [True, False])
def test_a_product_the_corpus_documents_is_not_answered_by_another_products_changelog(
    tmp_path: Path, click_documented: bool
) -> None:
    """Flask's changelog adds an --env-file option to Flask's CLI and names Click in
    another item. Where the corpus holds Click's own docs (which never mention
    --env-file, so no search reaches them), that is not when Click added one."""
    write(
        tmp_path / "corpus",
        "python-flask-doc/html/changes.md",
        "# Changes\n\n## Version 2.2.0\n\n- A `FlaskGroup` Click group can be nested as a "
        "sub-command in a custom CLI.\n- Add `--env-file` option to the `flask` CLI.\n",
    )
    if click_documented:
        write(
            tmp_path / "corpus",
            "python-click-doc/html/options.md",
            "# Options\n\nAdding options to commands is done with the option decorator.\n",
        )
    result = ask(tmp_path, "In which Click version was the --env-file option added?")

    assert bool(unanswered(result)) is click_documented


def test_the_product_named_by_the_path_and_a_date_line_below_the_best_six(
    tmp_path: Path,
) -> None:
    """Packaged docs name their product in the path, not in every sentence; the date
    line answers even when six other sentences share more words with the question."""
    notes = "\n".join(
        f"- Fix a release {n} problem in PostgreSQL's release date handling (Tom Lane)."
        for n in range(8)
    )
    write(
        tmp_path / "corpus",
        "postgresql-doc-15/html/release-15-1.md",
        f"# E.20. Release 15.1\n\n**Release date:** 2022-11-10\n\n## E.20.1. Changes\n\n{notes}\n",
    )
    result = ask(tmp_path, "What is the release date of PostgreSQL 15.1?", max_rounds=0)

    assert answer_of(result)[0] == "- “**Release date:** 2022-11-10” [1]"


def test_a_sentence_answers_about_what_the_sentences_before_it_name(tmp_path: Path) -> None:
    """Manuals describe a setting first and give its default last, in a sentence that
    names nothing ("The default value is 6700."): the sentences before it in its
    paragraph say what it is about, so it answers, quoted with them (one claim, cited
    and supported)."""
    write(
        tmp_path / "corpus",
        "git-config.md",
        "# git-config(1)\n\n## Variables\n\n"
        "When there are approximately more than this many loose objects in the "
        "repository, `git gc --auto` will pack them. Some commands run a light-weight "
        "garbage collection from time to time. The default value is 6700.\n\n"
        "Setting this to 0 disables not only automatic packing based on the number of "
        "loose objects, but any other heuristic `git gc --auto` will otherwise use.\n",
    )
    result = ask(
        tmp_path,
        "Above how many loose objects does git gc --auto pack them by default?",
        max_rounds=0,
    )

    assert answer_of(result)[-1] == (
        "- “When there are approximately more than this many loose objects in the "
        "repository, `git gc --auto` will pack them. Some commands run a light-weight "
        "garbage collection from time to time. The default value is 6700.” [1]"
    )
    assert result.claims[0].text.endswith("The default value is 6700.")
    assert result.claims[0].verdict == "supported"
    assert result.report.count("will pack them") == 1  # not quoted again below


def test_a_bare_value_is_quoted_with_the_sentence_it_labels(tmp_path: Path) -> None:
    """Release notes give the date alone on a line, and the version note of a setting
    ends in a colon: the answer is quoted with the sentence after it, which says what
    the value is the value of (one claim, cited and supported)."""
    write(
        tmp_path / "corpus",
        "auth.md",
        "# django.contrib.auth\n\n## User model\n\n### first_name\n\n"
        "Optional. 150 characters or fewer.\n\nChanged in Django 3.1:\n\n"
        "The max_length increased from 30 to 150 characters.\n\n### last_name\n\n"
        "Optional. 150 characters or fewer.\n",
    )
    result = ask(
        tmp_path,
        "In which Django version did the max_length of first_name increase to 150?",
        max_rounds=0,
    )

    assert answer_of(result)[-1] == (
        "- “Changed in Django 3.1: The max_length increased from 30 to 150 characters.” [1]"
    )
    assert result.claims[0].verdict == "supported"
    assert result.report.count("max_length increased") == 1  # not quoted again below


def test_a_bare_date_is_ranked_and_quoted_with_the_names_that_follow_it(
    tmp_path: Path,
) -> None:
    """A signed preface dates itself on a line of its own, its signature after it: the
    date is read with the names of the line after it, so it outranks a copyright line
    whose only tie to the question is its page's title, and it is quoted with them."""
    root = tmp_path / "corpus"
    write(
        root,
        "index.md",
        "# The Debian Administrator's Handbook\n\nCopyright © 2003, 2004, 2005, 2006, "
        "2007, 2008 Raphaël Hertzog\n",
    )
    write(
        root,
        "preface.md",
        "# Preface\n\nThis book is an excellent way to explore Debian and I am pleased to "
        "recommend it.\n\nAugust 2019\n\nSam Hartman (Debian Project Leader)\n",
    )
    result = ask(
        tmp_path,
        "When did Sam Hartman write the preface of the Debian Administrator's Handbook?",
        max_rounds=0,
    )

    assert answer_of(result)[-1] == "- “August 2019 Sam Hartman (Debian Project Leader)” [1]"
    assert result.claims[0].verdict == "supported"


def test_the_answer_line_comes_from_a_passage_that_says_the_feature_asked_of(
    tmp_path: Path,
) -> None:
    """ "the zoneinfo module": as the gap check, the answer line is a passage's that says
    "zoneinfo" (itself or its title and headings), not another entry's version note
    that shares more words with the question ("… parameter was added")."""
    root = tmp_path / "corpus"
    write(
        root,
        "python3.11/library/xml.dom.minidom.md",
        "# xml.dom.minidom — Minimal DOM implementation\n\n## Node.toprettyxml()\n\n"
        "Return a pretty-printed version of the document.\n\nChanged in version 3.2: "
        "The standalone parameter was added to the Python standard library module.\n",
    )
    write(
        root,
        "python3.11/library/zoneinfo.md",
        "# zoneinfo — IANA time zone support\n\nNew in version 3.9.\n\nIt provides a "
        "concrete time zone implementation to support the IANA time zone database.\n",
    )
    result = ask(
        tmp_path,
        "In which Python version was the zoneinfo module added to the standard library?",
        max_rounds=0,
    )

    assert answer_of(result)[-1] == "- “New in version 3.9.” [1]"


def test_asked_when_a_thing_came_the_answer_line_tells_that_it_came(tmp_path: Path) -> None:
    """ "Since which release is the extension bundled" asks when it was added: "New in
    version 1.3" under the page's title answers, not a setting's "Changed in version
    3.5" that shares more words with the question."""
    write(
        tmp_path / "corpus",
        "sphinx/usage/extensions/napoleon.md",
        "# sphinx.ext.napoleon – Support for NumPy and Google style docstrings\n\n"
        "Module author: Rob Ruana\n\nNew in version 1.3.\n\n## napoleon_preprocess_types\n\n"
        "True to convert the type definitions in the docstrings as references.\n\n"
        "Changed in version 3.5: Do preprocess the Google style docstrings also.\n",
    )
    result = ask(
        tmp_path,
        "Since which Sphinx release is the extension for Google style docstrings bundled?",
        max_rounds=0,
    )

    assert answer_of(result)[-1] == "- “New in version 1.3.” [1]"


def test_a_comparison_is_answered_by_each_sides_date(tmp_path: Path) -> None:
    """ "Which came first, A or B" needs A's date and B's: the answer quotes the best
    sentence for each side, and a sentence that only repeats the question's own
    version numbers ("versions 2.6 and 3.0 were synchronized") is no answer."""
    write(
        tmp_path / "corpus",
        "2.6.md",
        "# What's New in Python 2.6\n\nThis article explains the new features in Python "
        "2.6, released on October 1, 2008. The development cycle for Python versions 2.6 "
        "and 3.0 was synchronized, with the alpha and beta releases for both versions "
        "being made on the same days.\n",
    )
    write(
        tmp_path / "corpus",
        "3.0.md",
        "# What's New in Python 3.0\n\nThis article explains the new features in Python "
        "3.0, compared to 2.6. Python 3.0 was released on December 3, 2008.\n",
    )
    result = ask(tmp_path, "Which was released first, Python 2.6 or Python 3.0?", max_rounds=0)

    answer = " ".join(answer_of(result))
    assert "released on October 1, 2008" in answer
    assert "Python 3.0 was released on December 3, 2008" in answer
    assert "synchronized" not in answer


def test_a_version_in_example_code_does_not_answer_which_version(tmp_path: Path) -> None:
    """An example's shell line holds a version and the command asked about, and says
    nothing about when the command came: the question is declared unanswered."""
    write(
        tmp_path / "corpus",
        "user-manual.md",
        "# Git User Manual\n\n## Examining an old version\n\nThe `git switch` command "
        "normally expects a branch head, but will also accept an arbitrary commit when "
        "invoked with --detach; for example:\n\n```\n$ git switch --detach v2.6.17\n```\n",
    )
    result = ask(tmp_path, "Which Git version introduced the git switch command?", max_rounds=0)

    assert unanswered(result) == ["no passage about it gives a version"]


def test_a_how_do_i_question_is_answered_by_the_instruction_and_its_command(
    tmp_path: Path,
) -> None:
    """Documentation answers "how do I" with a sentence that introduces a command and
    the command itself in a code block: both are quoted, each as written."""
    write(
        tmp_path / "corpus",
        "packages.md",
        "# Holding packages\n\nA held package is not upgraded.\n\nIf you use apt, you can "
        "hold a package with the following command:\n\n```\napt-mark hold package_name\n```"
        "\n\nUse apt-mark unhold to release it.\n",
    )
    result = ask(tmp_path, "How do I hold a package with apt?")

    assert answer_of(result) == [
        "- “If you use apt, you can hold a package with the following command:” [1]",
        "- “apt-mark hold package_name” [1]",
    ]
    assert all(claim.verdict == "supported" for claim in result.claims)


@pytest.mark.parametrize(
    ("question", "text", "command"),
    [
        (  # the one whose own words say what is asked, not the one its headings rank first
            "How do I create a virtual environment?",
            "The command, if run with -h, will show the available options:\n\n```\n"
            "usage: venv [-h] [--clear] ENV_DIR\n```\n\nCreation of virtual environments is "
            "done by executing the command venv:\n\n```\npython -m venv /path/to/env\n```\n",
            "python -m venv /path/to/env",
        ),
        (  # of two that say as much of what is asked, the one that adds least: not IPv6
            "How do I run the development server on port 7000?",
            "Port 7000 on IPv6 address 2001:0db8::9:\n\n```\n"
            "django-admin runserver [2001:0db8::9]:7000\n```\n\nPort 7000 on IP address "
            "127.0.0.1:\n\n```\ndjango-admin runserver 7000\n```\n",
            "django-admin runserver 7000",
        ),
    ],
)
def test_a_how_do_i_question_is_answered_by_the_instruction_that_fits_it_best(
    question: str, text: str, command: str
) -> None:
    """Of two instructions, the second fits the question best though the first ranks
    higher: it and its command are the answer."""
    record = passage(text)
    first, second = (line for line in text.splitlines() if line.endswith(":"))
    ranked = [Quote(record, first, ()), Quote(record, second, ())]

    lines = instruction_lines(question, ranked, HeadingsAt({}, None))

    assert [line.sentence for line in lines] == [second, command]


def test_a_how_do_i_question_is_answered_by_the_option_whose_entry_says_it(
    tmp_path: Path,
) -> None:
    """A command's reference lists what to type as its entries' headings ("-j N") and
    says below what each does, with no instruction and command to quote: the option's
    heading line is the answer, then the sentence of its entry."""
    write(
        tmp_path / "corpus",
        "sphinx-build.md",
        "# sphinx-build\n\n## Options\n\n### -b buildername\n\nThe most important option: "
        "it selects a builder.\n\n### -j N\n\nDistribute the build over *N* processes in "
        "parallel. If `auto` is given, Sphinx uses the number of CPUs as *N*.\n",
    )
    result = ask(tmp_path, "How do I make sphinx-build use every CPU for a parallel build?")

    _, quotes = answer_section(result)
    assert quotes[0] == "- “-j N” [1]" and "CPUs" in quotes[1]
    assert all(claim.verdict == "supported" for claim in result.claims)


def test_a_passage_cut_from_inside_a_code_block_is_code_to_the_gap_check(tmp_path: Path) -> None:
    """A passage cut from inside a listing has no fence above its first lines; they are
    still code, read off the snapshot: a trace's "version | 2.20.1" does not say in
    which Git version main became the default branch name."""
    lines = [
        "12:28:42.620675 common-main.c:38 | d0 | main | version | | | | | 2.20.1.155.g426c96\n",
        "12:28:42.621001 common-main.c:39 | d0 | main | start | | 0.001173 | | | git version\n",
    ]
    write(
        tmp_path / "corpus",
        "trace2.md",
        "# Trace2 performance format\n\nThe performance format target writes one line per "
        "event of a git command, with the time and the source file that wrote it.\n\n```\n"
        f"{lines[0] * 6}\n{lines[1] * 6}```\n\nEach line begins with the time.\n",
    )
    question = "In which Git version does main become the default name of the initial branch?"
    result = ask(tmp_path, question, chunk_size=300)

    assert unanswered(result) == ["no passage about it gives a version"]


def test_an_answer_is_not_quoted_with_a_code_block_read_into_its_line() -> None:
    """The answer is quoted with the sentences before it that name what it is the value
    of, but not across a code block: shown on one line, the block would read as a code
    span, which the citation check does not find in the source."""
    lead = "Checkpoints are spaced by a timeout:\n```\ncheckpoint_timeout = 5min\n```\n"
    text = f"{lead}The default is five minutes.\n"
    record = passage(text)
    answer = Quote(record, "The default is five minutes.", (), lead)
    asked = Asked.of("What is the default checkpoint timeout?")

    assert with_lead(answer, asked).sentence == "The default is five minutes."
    prose = "Checkpoints are spaced by a timeout. "
    plain = passage(prose + answer.sentence, "e2")
    quoted = with_lead(Quote(plain, answer.sentence, (), prose), asked).sentence
    assert quoted == prose + answer.sentence  # no code between: quoted with it


def test_an_answer_in_a_list_item_is_quoted_with_the_item_it_goes_on_from() -> None:
    """The sentence that answers goes on about its list item's term ("`nofail` …"): the
    answer line quotes the item from its start, though the term shares no word with the
    question, and not the items before it."""
    earlier = "  - `noauto` disables mounting at boot.\n"
    item = "  - `nofail` lets the boot go on without the device. "
    answer = "Use it for an external disk that may be unplugged when the system boots."
    text = f"Options:\n{earlier}{item}{answer}\n"
    record = passage(text)
    asked = Asked.of("Which mount option keeps an unplugged external disk from stopping boot?")

    quoted = with_lead(Quote(record, answer, (), item), asked).sentence

    assert quoted == f"- `nofail` lets the boot go on without the device. {answer}"
    assert with_lead(Quote(record, answer, (), ""), asked).sentence == answer


def test_the_quotes_cover_the_question_not_only_its_best_ranked_words() -> None:
    """Eight sentences that repeat the first hop rank above the one that answers the
    second ("the nickname of the city where the pavilion stands"): the quotes make room
    for the sentence that says what the others do not."""
    first_hop = [
        f"The pavilion stands in Bangor, stage {n}." for n in range(SENTENCES_PER_SUB_QUESTION)
    ]
    text = " ".join([*first_hop, "Bangor has the nickname Queen City."])
    record = passage(text)
    ranked = [Quote(record, sentence, ()) for sentence in [*first_hop, text.rsplit(". ", 1)[1]]]
    wanted = {"nicknam", "citi", "pavilion", "stand"}

    chosen = [quote.sentence for quote in best_sentences(ranked, set(), wanted)]

    assert "Bangor has the nickname Queen City." in chosen
    assert len(chosen) == SENTENCES_PER_SUB_QUESTION
    assert chosen == sorted(chosen, key=text.index)  # in rank order


def test_a_quote_whose_subject_points_back_is_read_with_the_sentence_before() -> None:
    """ "This should be done whenever the configuration file is changed" says what only
    the sentence before names: the quote starts there; not when that one is quoted
    already, when the pronoun is no subject that points back, or beyond a glance."""
    before = "The SIGHUP signal can be used to cause the daemon to re-execute itself."
    this = "This should be done whenever the configuration file is changed."
    record = passage(f"{before} {this}")
    quote = Quote(record, this, (), f"{before} ")

    [pointed] = with_antecedent([quote])
    assert pointed.sentence == f"{before} {this}" and pointed.lead == ""
    assert with_antecedent([Quote(record, before, ()), quote])[1] == quote
    document = "This document covers the configuration language."
    other = passage(f"{before} {document}")
    assert with_antecedent([Quote(other, document, (), f"{before} ")])[0].sentence == document
    far = passage(f"{' '.join(['It was long.'] * 3)} {'word ' * 60}end. {this}")
    lead = far.text[: far.text.index(this)]
    assert with_antecedent([Quote(far, this, (), lead)])[0].sentence == this


def test_a_quote_that_does_not_name_its_pages_subject_is_read_from_the_opening() -> None:
    """A quote "The film stars …" says what film only through its page: the quote starts at the
    page's opening sentence, which names it, when both fit in a quote read at a glance;
    not when the opening is quoted already, names nothing of the title, or is too far."""
    opening = "The Bye Bye Man is a 2017 American supernatural horror film directed by Stacy Title."
    stars = "The film stars Douglas Smith, Lucien Laviscount and Cressida Bonas."
    record = passage(f"{opening} {stars}")
    titles = {"s1": "The Bye Bye Man (film)"}
    quote = Quote(record, stars, (), f"{opening} ")

    [named] = with_subject([quote], titles)
    assert named.sentence == f"{opening} {stars}" and named.lead == ""
    assert with_subject([Quote(record, opening, ()), quote], titles)[1] == quote
    assert with_subject([quote], {"s1": "Jenna Kanell"}) == [quote]  # opening names no title
    assert with_subject([quote], {"s1": "Douglas Smith"}) == [quote]  # the quote names it
    far = passage(f"{opening} {' '.join(['It was filmed in Ohio.'] * 12)} {stars}")
    lead = far.text[: far.text.index(stars)]
    assert with_subject([Quote(far, stars, (), lead)], titles)[0].sentence == stars
    cut = record.model_copy(update={"start": 100})  # a passage from further on the page
    assert with_subject([Quote(cut, stars, (), f"{opening} ")], titles)[0].sentence == stars


def test_sentences_that_follow_each_other_in_a_paragraph_are_one_quote() -> None:
    """A statement and its value, quoted apart, read as two claims; quoted as the
    paragraph gives them, they are one, verbatim, where the better ranked stood. A list
    item or a line of code after them is a quote of its own."""
    text = (
        "Returns the default highWaterMark used by streams. Defaults to `16384` (16 KiB),\n"
        "or `16` for `objectMode`.\n- Sets the default highWaterMark used by streams.\n"
        "Other streams differ."
    )
    record = passage(text)
    value = "Defaults to `16384` (16 KiB),\nor `16` for `objectMode`."
    item = "Sets the default highWaterMark used by streams."
    after_item = "Other streams differ."
    elsewhere = passage(item, "e2", "s2")
    picked = [
        Quote(record, value, ("Defaults",)),
        Quote(elsewhere, item, ()),
        Quote(record, "Returns the default highWaterMark used by streams.", ()),
        Quote(record, item, ()),
        Quote(record, after_item, ()),
    ]

    quotes = [(quote.record.id, quote.sentence) for quote in joined(picked)]

    assert quotes == [
        ("e1", text.split("\n- ")[0]),
        ("e2", item),
        ("e1", f"{item}\n{after_item}"),
    ]
    assert all(sentence in text for record_id, sentence in quotes if record_id == "e1")


def test_rows_of_a_table_are_quoted_apart() -> None:
    """Each row of a table is a statement of its own, whatever follows it on its line."""
    rows = ["| Gravimetric energy density | 390 Wh/kg |", "| Cell mass | 0.55 kg |"]
    text = " \n".join(rows) + " \n"
    record = passage(text)

    quotes = joined([Quote(record, row, ()) for row in rows])

    assert [quote.sentence for quote in quotes] == rows


def test_a_sentence_is_about_the_product_its_passage_names(tmp_path: Path) -> None:
    """A manual names its product once in a section, not in every sentence: a sentence
    of a passage that names Debian is about Debian."""
    write(
        tmp_path / "corpus",
        "naming.md",
        "# package names\n\nDebian has rules for the names of its packages.\n\n"
        "A package name must be at least two characters long.\n",
    )
    result = ask(tmp_path, "How many characters must a Debian package name have at least?")

    assert "at least two characters long" in result.report


def test_the_second_hop_is_quoted_from_the_page_a_found_passage_names(tmp_path: Path) -> None:
    """A multi-hop question names the first page only ("the author of Q Is for
    Quarry"); the page of the author, named by that first page, answers its second hop
    and is quoted although it never names the book. The page of an alias works the same
    way: a page titled by another name that names the question's name."""
    write(
        tmp_path / "corpus",
        "q-is-for-quarry.md",
        "# Q Is for Quarry\n\nQ Is for Quarry is the 17th novel in Sue Grafton's Alphabet "
        "series of mystery novels.\n",
    )
    write(
        tmp_path / "corpus",
        "sue-grafton.md",
        "# Sue Grafton\n\nSue Taylor Grafton was an American author of detective novels. "
        "She is the daughter of detective novelist C. W. Grafton.\n",
    )
    write(
        tmp_path / "corpus",
        "rubislaw-quarry.md",
        "# Rubislaw Quarry\n\nRubislaw Quarry is a granite quarry in the west end of "
        "Aberdeen, opened in 1740.\n",
    )
    result = ask(
        tmp_path,
        "Who is the detective novelist parent of the author of Q Is for Quarry?",
        max_rounds=0,
    )

    assert "She is the daughter of detective novelist C. W. Grafton." in result.report


def test_a_passage_naming_the_subject_by_its_pages_title_is_about_it(tmp_path: Path) -> None:
    """A page titled by one name that gives the question's name for the same subject
    ("Onika Tanya Maraj, known as Nicki Minaj") makes its title a name of the subject:
    a passage elsewhere naming Nicki Minaj is about her."""
    write(
        tmp_path / "corpus",
        "nicki-minaj.md",
        "# Nicki Minaj\n\nOnika Tanya Maraj, known professionally as Nicki Minaj, is a "
        "rapper and singer.\n",
    )
    write(
        tmp_path / "corpus",
        "idol.md",
        "# American Idol season 12\n\nThe season's judges were Mariah Carey, Nicki Minaj "
        "and Keith Urban; the television show was hosted by Ryan Seacrest.\n",
    )
    result = ask(
        tmp_path,
        "Onika Tanya Maraj was a judge on a television show hosted by whom?",
        max_rounds=0,
    )

    assert "hosted by Ryan Seacrest" in result.report


def test_a_release_dated_in_its_heading_is_answered_by_the_heading(tmp_path: Path) -> None:
    """Changelogs date a release in its heading, far above the passages that name the
    release: the answer quotes the heading's line (not the heading of another release,
    whose line names the release too), a verbatim, supported claim."""
    filler = " ".join(f"Fixed issue {n} in the HTML writer." for n in range(40))
    write(
        tmp_path / "corpus",
        "sphinx-doc/html/changes.md",
        "# Changelog\n\n## Release 1.2 (released Mar 31, 2013)\n\n### Bugs fixed\n\n"
        f"{filler}\n\nThe 1.2 release removed helpers deprecated since Sphinx 1.0.\n\n"
        "## Release 1.0 (Jul 23, 2010)\n\n### Features added\n\n"
        f"{filler}\n\n### Incompatible changes\n\n"
        "The oldcmarkup extension is needed in future versions; in Sphinx 1.0 it is "
        "activated by default when Sphinx 1.0 is released.\n",
    )
    result = ask(
        tmp_path, "When was Sphinx 1.0 released?", max_rounds=0, chunk_size=300, token_budget=300
    )

    assert answer_of(result) == ["- “Release 1.0 (Jul 23, 2010)” [1]"]
    assert result.claims[0].verdict == "supported"


def test_a_version_question_is_answered_by_the_line_that_dates_a_change(
    tmp_path: Path,
) -> None:
    """A manual's pages open with the product's version ("Apache HTTP Server Version
    2.4"), which shares most words with a question on a release; the answer is the line
    that dates the module's availability to a version."""
    write(
        tmp_path / "corpus",
        "mod/mod_http2.md",
        "# Apache Module mod_http2\n\nApache HTTP Server Version 2.4\n\n"
        "| Description: | Support for the HTTP/2 transport layer |\n"
        "| Compatibility: | Available in version 2.4.17 and later |\n\n"
        "This module provides HTTP/2 support for the Apache HTTP Server.\n",
    )
    result = ask(
        tmp_path,
        "Which is the first Apache HTTP Server release that includes mod_http2?",
        max_rounds=0,
    )

    assert "Available in version 2.4.17 and later" in answer_of(result)[-1]


def test_a_release_date_comes_from_a_passage_that_names_the_release(tmp_path: Path) -> None:
    """The changelog names Sphinx 3.5.5 without a date (it is in development); a date in
    a table of the release process does not answer when it was released."""
    write(
        tmp_path / "corpus",
        "sphinx-doc/html/changes.md",
        "# Changelog\n\n## Release 3.5.5 (in development)\n\n### Bugs fixed\n\n"
        "- #9001: a fix in the HTML builder.\n\n## Release 3.5.4 (released Apr 11, 2021)\n\n"
        "### Bugs fixed\n\n- #9000: another fix in the HTML builder.\n",
    )
    write(
        tmp_path / "corpus",
        "sphinx-doc/html/release-process.md",
        "# Sphinx's release process\n\n## Python version support policy\n\n"
        "| Date | Ubuntu | Python |\n| --- | --- | --- |\n| April 2021 | 18.04 LTS | 3.6+ |\n",
    )
    result = ask(tmp_path, "On what date was Sphinx 3.5.5 released?", max_rounds=0)

    assert unanswered(result)


def test_a_how_do_i_question_ranks_the_command_its_instruction_introduces() -> None:
    """A command shares no word with the question ("dpkg-reconfigure
    keyboard-configuration" for "how do I set the keyboard layout again"): it is read
    with the paragraph that introduces its code block, it is a command, not a heading,
    though a root prompt ("# ") opens it, and a "how do I" question is answered by one."""
    text = (
        "The keyboard layout was chosen when the system was installed. The layout of "
        "a keyboard shows on the screen when you press a key.\n\n"
        "Debian can set the keyboard layout with the keyboard-configuration package.\n\n"
        "```\n# dpkg-reconfigure keyboard-configuration\n```\n"
    )
    record = Evidence(
        id="e1", source_id="s1", sub_question_id="q", text=text, start=120, end=500, score=1
    )
    question = SubQuestion(id="q", text="How do I set the keyboard layout again?")

    ranked = ranked_sentences(question, [record], {}, {}, HeadingsAt({}, None))

    assert [quote.sentence for quote in ranked][:2] == [
        "Debian can set the keyboard layout with the keyboard-configuration package.",
        "dpkg-reconfigure keyboard-configuration",  # above the sentences on the layout
    ]


def test_the_tail_of_a_flattened_table_of_contents_is_no_sentence() -> None:
    """A table of contents flattened into one line ends in the next chapter's title and
    number ("… 7.15. 我应该如何创建自己的 Debian 软件包？ 8. Debian 软件包管理工具 8.1."): that tail
    opens with no section number, yet it is no sentence to quote."""
    contents = (
        "6.11. “incoming”目录是什么？, 6.12. 我要如何建立软件仓库？, "
        "7.14. 如何从源码包构建二进制包？, "
        "7.15. 我应该如何创建自己的 Debian 软件包？ 8. Debian 软件包管理工具 8.1."
    )
    text = f"{contents}\n\n在源码目录里运行 dpkg-buildpackage 构建 Debian 软件包。\n"
    record = Evidence(
        id="e1", source_id="s1", sub_question_id="q", text=text, start=0, end=len(text), score=1
    )
    question = SubQuestion(id="q", text="在源码目录里构建 Debian 软件包用什么命令？")

    ranked = [
        q.sentence for q in ranked_sentences(question, [record], {}, {}, HeadingsAt({}, None))
    ]

    assert ranked == ["在源码目录里运行 dpkg-buildpackage 构建 Debian 软件包。"]


def test_a_report_with_nothing_close_enough_to_quote_does_not_promise_quotes(
    tmp_path: Path,
) -> None:
    """When no sentence comes close to an unanswered question, the report says so
    instead of announcing closest material below that is not there."""
    write(
        tmp_path / "corpus",
        "guide/boot.md",
        "# 5.3. Boot Parameters\n\nBoot parameters are Linux kernel parameters. The "
        "installer accepts BOOT_DEBUG=2 for more verbose logging.\n",
    )
    result = ask(tmp_path, "What does the boot parameter BOOT_DEBUG=4 do?")

    assert unanswered(result) == ["no passage names BOOT_DEBUG=4"]
    assert "nothing found comes close enough to quote" in result.report
    assert "quoted below" not in result.report and "“" not in result.report


def test_a_word_many_page_titles_share_does_not_make_a_sentence_about_a_name() -> None:
    """ "Pavilion" of "Harbour Lights Pavilion" is also the last word of three other
    pages' titles: their sentences are about other pavilions, not about the one asked
    of, and do not crowd out the second hop (the city it stands in)."""
    pages = {
        "s1": ("Harbour Lights Pavilion", "The Harbour Lights Pavilion is an open-air venue "
               "in Dunmore, on the river front."),
        "s2": ("Dunmore", "Dunmore is a city on the river. Dunmore is known as the Lantern "
               "City of the coast."),
        "s3": ("Concord Pavilion", "Concord Pavilion is an amphitheatre located in a city "
               "park, with seats for twelve thousand."),
        "s4": ("Bajing Pavilion", "The Bajing Pavilion is a three-level pavilion located "
               "on the city wall."),
        "s5": ("Oleson Park Pavilion", "The Oleson Park Pavilion is a bandshell located in "
               "a city park."),
    }  # fmt: skip
    records = [
        Evidence(id=f"e{source}", source_id=source, sub_question_id="q", text=text, start=0,
                 end=len(text), score=1, query=question)
        for source, (_, text) in pages.items()
        for question in ["What is the nickname of the city where Harbour Lights Pavilion is?"]
    ]  # fmt: skip
    question = SubQuestion(id="q", text=records[0].query)
    titles = {source: title for source, (title, _) in pages.items()}

    ranked = [
        q.sentence for q in ranked_sentences(question, records, titles, {}, HeadingsAt({}, None))
    ]

    assert "Dunmore is known as the Lantern City of the coast." in ranked
    others = ("Concord", "The Bajing", "The Oleson")
    assert not any(sentence.startswith(others) for sentence in ranked)


@pytest.mark.parametrize(
    ("question", "quoted"),
    [
        ("What is the default lifetime of a database connection?", True),
        ("Does Django close idle database connections?", False),
    ],
)
def test_a_fragment_is_quoted_when_it_holds_the_value_asked_for(
    question: str, quoted: bool
) -> None:
    """A reference entry gives its value in two words ("Default: `0`"), too few for a
    statement; asked for that value, it is the answer, and it is quoted."""
    text = "Default: `0`\n\nThe lifetime of a database connection, as an integer of seconds.\n"
    record = passage(text)
    sub_question = SubQuestion(id="q", text=question)

    ranked = ranked_sentences(sub_question, [record], {}, {}, HeadingsAt({}, None))

    assert ("Default: `0`" in [quote.sentence for quote in ranked]) is quoted


POSTCONF = (
    "# Postfix configuration parameters\n\n"
    "       **header_from_format (standard)**\n"
    "              The format of the Postfix-generated **From:** header.\n"
    "       Available in Postfix 3.9, 3.8.1, 3.7.6, 3.6.10 and later:\n"
    "       **smtpd_forbid_unauth_pipelining (default: yes)**\n"
    "              Disconnect remote SMTP clients that violate RFC 2920 command\n"
    "              pipelining constraints.\n"
    "       **smtpd_helo_required (default: no)**\n"
    "              Require that a remote SMTP client introduces itself.\n"
)


def test_a_label_is_read_with_the_entry_it_heads(tmp_path: Path) -> None:
    """A manual page may say when a setting came in a line above its entry ("Available
    in Postfix 3.9, 3.8.1, 3.7.6 and later:"), which names no setting itself: read with
    the entry after it, it answers for that setting, in the gap check and the report
    alike; the entry after it is no part of the answer."""
    write(tmp_path / "corpus", "postconf.5.md", POSTCONF)
    result = ask(
        tmp_path,
        "From which 3.7.x release on can Postfix disconnect clients that break pipelining "
        "rules (smtpd_forbid_unauth_pipelining)?",
    )
    [answer] = [line for line in answer_of(result) if line.startswith("- ")]
    assert "3.7.6" in answer and "smtpd_forbid_unauth_pipelining" in answer
    assert "helo_required" not in answer
    assert not unanswered(result)  # the gap check reads the label with its entry too


def test_a_table_row_names_the_release_its_first_column_numbers(tmp_path: Path) -> None:
    """ "Node-API version 9" is said by no sentence: the matrix's row "| 9 | v18.17.0+ |"
    names it through its first column's name. The question is answered by that row,
    not by another page's point release of the series ("the 18.x LTS line beginning with
    18.12.0"), which names no Node-API version. A release no row's first cell numbers
    ("Node-API version 10") stays unanswered."""
    write(
        tmp_path / "corpus",
        "nodejs/api/n-api.md",
        "# Node-API\n\n## Node-API version matrix\n\nNode-API versions are additive. "
        "Each version is supported in the Node.js releases listed here.\n\n"
        "| Node-API version | Supported In |\n|---|---|\n"
        "| 9 | v18.17.0+, 20.3.0+, 21.0.0 and all later versions |\n"
        "| 8 | v12.22.0+, v14.17.0+, 15.12.0+, 16.0.0 and all later versions |\n",
    )
    write(
        tmp_path / "corpus",
        "nodejs/api/process.md",
        "# Process\n\n## process.release\n\nThe release of Node.js that is running. "
        "`'Hydrogen'` for the 18.x LTS line beginning with 18.12.0.\n",
    )

    found = ask(tmp_path, "From which Node.js 18 release on is Node-API version 9 available?")
    assert not unanswered(found)
    assert "v18.17.0+" in answer_of(found)[-1]
    missing = ask(tmp_path, "From which Node.js 18 release on is Node-API version 10 available?")
    assert unanswered(missing)


def test_a_quoted_table_row_is_shown_under_its_header_row(tmp_path: Path) -> None:
    """A row quoted alone says what its cells are only through the table's header row:
    the report shows the header above the row, as it shows the headings above a quote,
    and the row stays verbatim; the header row is not quoted as a row of its own
    ("Install Type: RAM (minimum), …" reads as a value)."""
    lines = report_lines(
        tmp_path,
        "hardware.md",
        "# Meeting Minimum Hardware Requirements\n\nThe installer needs memory and disk "
        "space; the table lists what each install type needs.\n\n"
        "| Install Type | RAM (minimum) | RAM (recommended) | Hard Drive |\n"
        "|---|---|---|---|\n| No desktop | 256 megabytes | 512 megabytes | 4 gigabytes |\n"
        "| With Desktop | 1 gigabytes | 2 gigabytes | 10 gigabytes |\n",
        "How much RAM does an install with no desktop need at least?",
    )

    row = line_with(lines, "No desktop: 256 megabytes")
    assert lines[row - 1] == "_Install Type | RAM (minimum) | RAM (recommended) | Hard Drive_"
    assert not any("Install Type:" in line for line in lines)  # the header is not quoted


def test_a_table_header_is_not_a_heading_the_gap_check_reads() -> None:
    """A header row says what a row's cells are, not which section or entry the row is
    in: "Function/Operator Description Example(s)" is no entry of another function over
    a row about regexp_count. The row's headings stay its section's; its header is read
    apart, for the writer to show."""
    text = (
        "# String Functions\n\n| Function/Operator Description Example(s) |\n|---|\n"
        "| `regexp_count` ( `string` text ) → integer Returns the number of matches. |\n"
    )
    record = passage(text).model_copy(update={"headings": ["String Functions"]})
    at = text.index("| `regexp_count`")
    headings_at = HeadingsAt({}, None)

    assert headings_at(record, at) == ("String Functions",)
    assert headings_at.header(record, at) == "Function/Operator Description Example(s)"
    assert headings_at.header(record, text.index("# String")) == ""


def test_a_table_of_contents_run_into_a_line_is_not_quoted() -> None:
    """An index page whose contents list was read as one line: its entries ("…, 7.14.
    如何从源码包构建二进制包？") share every word of a question and state nothing."""
    text = (
        "目录 7. 基础 7.13. 如何安装源码包？, 7.14. 如何从源码包构建二进制包？ 8. 工具\n\n"
        "要从源码包构建二进制包，在源码目录中运行 dpkg-buildpackage 命令。\n"
    )
    question = SubQuestion(id="q", text="如何从源码包构建二进制包？")

    ranked = ranked_sentences(question, [passage(text)], {}, {}, HeadingsAt({}, None))

    assert ranked[0].sentence == "要从源码包构建二进制包，在源码目录中运行 dpkg-buildpackage 命令。"
    assert not any("7.14." in quote.sentence for quote in ranked)


def test_a_quote_adding_words_of_the_question_is_chosen_from_far_down_the_ranks() -> None:
    """Three sections' worth of sentences repeat the first hop; the one that answers the
    second ranks last: what it adds of the question outweighs its rank, so it is quoted."""
    first_hop = [
        f"The pavilion stands in Bangor, stage {n}." for n in range(3 * SENTENCES_PER_SUB_QUESTION)
    ]
    answer = "Bangor has the nickname Queen City."
    record = passage(" ".join([*first_hop, answer]))
    ranked = [Quote(record, sentence, ()) for sentence in [*first_hop, answer]]
    wanted = {"nicknam", "citi", "pavilion", "stand"}

    chosen = [quote.sentence for quote in best_sentences(ranked, set(), wanted)]

    assert answer in chosen and len(chosen) == SENTENCES_PER_SUB_QUESTION


def test_a_disagreeing_table_row_in_the_answer_is_shown_under_its_header_row(
    tmp_path: Path,
) -> None:
    """When the answer gives each side of a disagreement, a side that is a table's row
    is shown under the table's header row, as any quoted row is."""
    write(
        tmp_path / "corpus",
        "test-2026.md",
        "# Independent test of the Aurora A1 cell\n\nPublished: 2026-01-20\n\n"
        "We measured the cell in our laboratory over six weeks.\n\n| Test | Result |\n"
        "|---|---|\n| Gravimetric energy density | 390 Wh/kg |\n| Cycle life | 800 cycles |\n",
    )
    write(
        tmp_path / "corpus",
        "press-2024.md",
        "# Aurora A1 pilot line\n\nPublished: 2024-05-21\n\nThe Aurora A1 cell reaches a "
        "gravimetric energy density of 450 Wh/kg at the cell level.\n",
    )
    result = ask(tmp_path, "What gravimetric energy density does the Aurora A1 cell reach?")

    answer = result.report.split("## Findings")[0].splitlines()
    row = answer.index("- “Gravimetric energy density: 390 Wh/kg” [1]")
    assert "disagree" in result.report.split("## Answer")[1].splitlines()[2]
    assert answer[row - 1] == "_Test | Result_"  # the title, its heading, is not repeated


def test_the_page_the_best_quotes_name_is_quoted_as_the_second_hop() -> None:
    """The best quotes name a page ("… led the kingdoms of the Isles"); that page's own
    sentences share few of the question's words and rank below the cap. Its best
    sentence is quoted; a page no best quote names is not lifted."""
    first = passage("Aonghus Mór led the kingdoms of the Isles.", record_id="e1", source_id="s1")
    second = passage(
        "The Kingdom of the Isles comprised the Hebrides and covered 8300 km2.",
        record_id="e2",
        source_id="s2",
    )
    other = passage("Somerled ruled Argyll.", record_id="e3", source_id="s3")
    filler = [Quote(first, f"Aonghus Mór led the Isles, year {n}.", ()) for n in range(12)]
    ranked = [
        Quote(first, "Aonghus Mór led the kingdoms of the Isles.", ()),
        *filler,
        Quote(other, "Somerled ruled Argyll.", ()),
        Quote(second, second.text, ()),
    ]
    titles = {"s1": "Aonghus Mór", "s2": "Kingdom of the Isles", "s3": "Somerled"}
    wanted = {"aonghu", "mór", "led", "isl"}

    hops = hop_pages(ranked, titles, [])
    chosen = [quote.sentence for quote in best_sentences(ranked, set(), wanted, hops)]

    assert hops == {"s2"}
    assert second.text in chosen and "Somerled ruled Argyll." not in chosen
    assert second.text not in [q.sentence for q in best_sentences(ranked, set(), wanted)]


def test_a_table_of_labels_and_values_has_no_header_row(tmp_path: Path) -> None:
    """An Apache module's summary ("| Description: | … |", then "Status:", "Source
    File:", "Compatibility:") gets a rule under its first row only because Markdown wants
    one: every row is a label and its value, the first too. The answering row is quoted
    with the rows above it, the first among them, and no header is shown."""
    lines = report_lines(
        tmp_path,
        "mod_spdy.md",
        "# Apache Module mod_spdy\n\n| Description: | Support for the SPDY transport layer |\n"
        "|---|---|\n| Status: | Extension |\n| Source File: | mod_spdy.c |\n"
        "| Compatibility: | Available in version 2.4.99 and later |\n",
        "Which Apache release first includes mod_spdy?",
    )

    row = line_with(lines, "2.4.99 and later")
    assert "Description:: Support for the SPDY transport layer; Status::" in lines[row]
    assert not any("Description: |" in line for line in lines)  # no header shown


def test_names_the_best_passage_leaves_out_qualify_what_the_sources_call_it() -> None:
    """ "the Linux quota system": the best passage of the question's own search, the
    handbook's Quotas section, never says Linux. Its sentences are about what is asked,
    not the pages a follow-up search for Linux found; when the best passage names a
    name, a sentence must name one."""
    question = "How many limits can the Linux quota system set?"
    found = [
        ("s1", "Quotas", "The quota system allows you to set four limits.", question, 0),
        ("s2", "GNU/Linux", "Linux lets you set limits on many resources.", "Linux limits", 1),
    ]
    records = [
        Evidence(id=f"e{source}", source_id=source, sub_question_id="q", text=text, start=0,
                 end=len(text), score=1, query=query, round=round_)
        for source, _, text, query, round_ in found
    ]  # fmt: skip
    titles = {source: title for source, title, *_ in found}

    def ranked() -> list[str]:
        sub_question = SubQuestion(id="q", text=question)
        quotes = ranked_sentences(sub_question, records, titles, {}, HeadingsAt({}, None))
        return [quote.sentence for quote in quotes]

    assert "The quota system allows you to set four limits." in ranked()
    titles["s1"] = "Linux quotas"
    assert "The quota system allows you to set four limits." in ranked()  # the title names it
    titles["s1"] = "Quotas"
    records[0] = records[0].model_copy(update={"round": 2})  # the Linux page is the best now
    assert "The quota system allows you to set four limits." not in ranked()


def test_a_name_question_is_not_answered_by_the_names_it_gives() -> None:
    """ "Which key opens the BIOS/UEFI setup menu?": the sentence that repeats the
    question's own names ("To enter the BIOS/UEFI setup menu you have to press a key")
    holds no name that answers; the one after it, naming Delete and F2, does."""
    restated = "To enter the BIOS/UEFI setup menu you have to press a key after power-on."
    answer = "Often it is the **Delete** or the **F2** key, but some manufacturers use others."
    record = passage(f"{restated} {answer}")
    asked = Asked.of("Which key usually opens the BIOS/UEFI setup menu?")

    line = answer_line(asked, [Quote(record, restated, ()), Quote(record, answer, ())], {})

    assert line is not None and line.sentence == answer
    assert not asked.holds(restated) and asked.holds(answer)


@pytest.mark.parametrize(
    ("question", "inner", "own", "answer"),
    [
        (  # a module's directive gives its own "Available in version"
            "Which is the first Apache HTTP Server release that includes mod_http2?",
            (
                "Module: mod_http2. Compatibility: Available in version 2.4.58 and later.",
                ("Apache Module mod_http2", "H2ProxyRequests Directive"),
            ),
            (
                "Source File: mod_http2.c. Compatibility: Available in version 2.4.17.",
                ("Apache Module mod_http2",),
            ),
            "2.4.17",
        ),
        (  # a default may be an argument's, inside the function's entry
            "What is the default timeout of a test added with matlab_add_unit_test()?",
            (
                "TIMEOUT: the test timeout in seconds. Defaults to 180 seconds.",
                ("matlab_add_unit_test", "TIMEOUT"),
            ),
            (
                "By default matlab_add_unit_test() runs each test 2 times.",
                ("matlab_add_unit_test",),
            ),
            "180 seconds",
        ),
    ],
)
def test_asked_when_a_code_name_came_its_own_entry_dates_it_not_one_inside_it(
    question: str, inner: tuple[str, tuple[str, ...]], own: tuple[str, tuple[str, ...]], answer: str
) -> None:
    """Asked which release first had a module, the line in the module's own entry
    answers, though a directive's ranks first. Asked a default, an entry inside the one
    asked of (an argument's) may be the answer: the ranking stands."""
    records = [passage(inner[0]), passage(own[0], "e2")]
    quotes = [Quote(records[0], inner[0], inner[1]), Quote(records[1], own[0], own[1])]

    line = answer_line(Asked.of(question), quotes, {})

    assert line is not None and answer in line.sentence


def test_a_number_answers_a_what_question_that_asks_for_a_count() -> None:
    """ "What" asks for a name by its form and for a count by its meaning: a sentence with
    no name besides the question's own answers it with a number."""
    asked = Asked.of("What iteration count does the PBKDF2 key derivation use by default?")

    assert asked.kind == "name"
    assert asked.holds("By default the PBKDF2 key derivation runs 600000 iterations.")
    assert not asked.holds("The PBKDF2 key derivation is slow on purpose.")


def test_an_answer_whose_value_only_the_title_gives_is_shown_under_the_title() -> None:
    """ "Added a new function math.isqrt()" answers "since which Python version" only
    through its page's title, "What’s New In Python 3.8": the answer line shows the title
    above it, where the headings shown beside other quotes leave the title out."""
    title = "What’s New In Python 3.8"
    record = passage("Added a new function `math.isqrt()` for computing square roots.")
    asked = Asked.of("In which Python version was isqrt() added to the math module?")
    quote = Quote(record, record.text, ("Improved Modules", "math"))

    line = answer_line(asked, [quote], {record.source_id: title})
    dated = passage("New in version 3.8: the `math.isqrt()` function.", "e2")
    own = answer_line(asked, [Quote(dated, dated.text, ("math",))], {dated.source_id: title})

    assert line is not None and line.titled
    assert own is not None and not own.titled


def test_an_item_of_release_notes_is_answered_with_its_release_heading_line(
    tmp_path: Path,
) -> None:
    """ "Added support for a hidden configuration file .tidyrc" says the change asked of
    and no version: its release's heading, "tidy 7.2.0 (2022-10-23)", gives that. The
    answer quotes the heading's line, cited, above the item, as its words (without the
    permalink sign a documentation page ends it with); "New in version 6.0." on
    another setting, which states a version in its own words, is not the answer."""
    root = tmp_path / "corpus"
    filler = "".join(f"- #{n}: Fixed a crash in the pager on very long lines.\n" for n in range(40))
    write(
        root,
        "changelog.md",
        "# Changelog\n\n## tidy 7.2.0 (2022-10-23)¶\n\n### Bug Fixes\n\n"
        f"{filler}\n### Improvements\n\n- #9987: Added support for a hidden configuration "
        "file by allowing `.tidyrc` as an alternative to `tidyrc`.\n\n"
        f"## tidy 7.1.0 (2022-06-01)\n\n### Bug Fixes\n\n{filler}",
    )
    write(
        root,
        "configuration.md",
        "# Configuration\n\n## pyproject.toml\n\nNew in version 6.0. The pyproject.toml file "
        "is read for configuration when it has a tidy table.\n",
    )

    result = ask(
        tmp_path,
        "Since which tidy version can the configuration file be a hidden .tidyrc?",
        chunk_size=200,
    )

    answer, quoted = answer_section(result)
    assert quoted[0].startswith("- “tidy 7.2.0 (2022-10-23)”"), answer
    assert "#9987: Added support for a hidden configuration file" in quoted[1]
    assert "New in version 6.0" not in answer
    claims = {claim.text: claim.verdict for claim in result.claims}
    assert any("tidy 7.2.0" in text and v == "supported" for text, v in claims.items()), claims


def test_an_item_under_a_release_label_is_answered_with_the_label_line(tmp_path: Path) -> None:
    """Release notes that label each release's list ("**Changes in version 3.38.0
    (2022-02-22):**") give the item's version only in the label: the answer quotes the
    label's line, cited, above the item, not a sentence on another thing that holds a
    version of its own ("For versions before 3.16.0, the unixepoch modifier …")."""
    root = tmp_path / "corpus"
    write(
        root,
        "changes.md",
        "# Release History\n\n**Changes in version 3.38.0 (2022-02-22):**\n\n"
        "1. Added the unixepoch() function.\n2. Added the -> and ->> operators.\n\n"
        "**Changes in version 3.37.0 (2021-11-27):**\n\n1. STRICT tables.\n",
    )
    write(
        root,
        "modifiers.md",
        "# Date and time functions\n\n## Modifiers\n\nFor versions before 3.16.0, the "
        "unixepoch modifier works only for dates between 0000-01-01 and 5352-11-01.\n",
    )

    result = ask(tmp_path, "In which version was the unixepoch() function added?")

    answer, quoted = answer_section(result)
    assert quoted[0].startswith("- “**Changes in version 3.38.0 (2022-02-22):**”"), answer
    assert "Added the unixepoch() function." in quoted[1]
    assert "3.16.0" not in answer


@pytest.mark.parametrize(
    ("path", "page", "question", "heading", "described"),
    [
        (  # an attribute's value in its entry's heading
            "flask/api.md",
            "# API\n\n## Incoming Request Data\n\n### max\\_form\\_parts *= 1000*\n\n"
            "The maximum number of multipart parts to parse. Parsing form data with more "
            "than this many parts will raise `RequestEntityTooLarge`.\n\n"
            "### max\\_content\\_length *= None*\n\n"
            "The maximum content length of the request body.\n",
            "By default, how many parts of a multipart form body will a Flask request parse?",
            "max_form_parts *= 1000*",
            "The maximum number of multipart parts to parse.",
        ),
        (  # a setting named only by its entry's heading, asked which setting
            "haproxy/configuration.md",
            "# Configuration\n\n## Performance tuning\n\n### tune.http.maxhdr <number>\n\n"
            "Sets the maximum number of headers in a request. A request with more headers "
            'is rejected with a "400 Bad Request" status code.\n\n'
            "### tune.http.logurilen <number>\n\n"
            "Sets the maximum length of the request URI in logs.\n",
            "Which tuning setting controls how many headers a request may carry?",
            "tune.http.maxhdr \\<number>",
            "Sets the maximum number of headers in a request.",
        ),
        (  # a variable, its sigil before its name
            "exim/expansions.md",
            "# String expansions\n\n## Expansion variables\n\n### $smtp_command_argument\n\n"
            "While an ACL is running to check an SMTP command, this variable contains the "
            "argument that follows the command name.\n\n### $smtp_command_history\n\n"
            "A comma-separated list of the most recent SMTP commands received, in time "
            "order from left to right.\n",
            "Which expansion variable lists the most recent SMTP commands received?",
            "$smtp_command_history",
            "A comma-separated list of the most recent SMTP commands received",
        ),
        (  # a builtin whose heading is its name as code, one plain word
            "bash/builtins.md",
            "# Bash Builtin Commands\n\n### `mapfile`\n\nRead lines from the standard input "
            "into the indexed array variable array.\n\n### `readarray`\n\n"
            "A synonym for `mapfile`.\n\n### `source`\n\nA synonym for `.`.\n",
            "Which builtin is a synonym for mapfile in Bash?",
            "`readarray`",
            "A synonym for `mapfile`.",
        ),
        (  # a name that joins words the question says apart ("log … host")
            "installer/parameters.md",
            "# Boot parameters\n\n## Installer parameters\n\n### log_host, log_port\n\n"
            "Causes the installer to send log messages to a remote syslog on the "
            "specified host and port.\n\n### lowmem\n\nForces the low memory level.\n",
            "Which boot parameter makes the installer send its log messages to a remote "
            "syslog host?",
            "log_host, log_port",
            "Causes the installer to send log messages to a remote syslog",
        ),
    ],
)
def test_the_value_or_name_an_entry_s_heading_gives_is_quoted_as_the_answer(
    tmp_path: Path, path: str, page: str, question: str, heading: str, described: str
) -> None:
    """A reference gives an attribute's value in its entry's heading ("max_form_parts =
    1000"), or a setting's name ("tune.http.maxhdr <number>"), and describes it below
    without it: the question is answered, not declared open, and the answer quotes the
    heading's line above the description, so the value or the name asked for stands in
    a cited quote, not only in the heading shown beside it."""
    write(tmp_path / "corpus", path, page)

    result = ask(tmp_path, question, max_rounds=0)

    answer, quoted = answer_section(result)
    assert quoted[0] == f"- “{heading}” [1]", answer
    assert described in quoted[1]
    assert not unanswered(result)


@pytest.mark.parametrize(
    "question",
    [
        "Can clients write to the exported directories?",
        "Are exported directories writable for clients?",
    ],
)
def test_a_yes_no_question_is_answered_by_the_sentence_that_says_yes_or_no(question: str) -> None:
    """A yes/no question is answered by a sentence that denies, limits or says what holds
    by default ("read-only by default"), which often shares fewer of its words than a
    sentence that only describes the thing asked about."""
    text = (
        "The server exports the directories listed in /etc/exports to its clients over "
        "the network. Clients can mount an exported directory like a local disk. "
        "Exported directories are read-only by default.\n"
    )
    sub_question = SubQuestion(id="q", text=question)

    ranked = ranked_sentences(sub_question, [passage(text)], {}, {}, HeadingsAt({}, None))

    assert ranked[0].sentence == "Exported directories are read-only by default."


def test_a_comparison_within_a_release_is_answered_by_its_point_releases(
    tmp_path: Path,
) -> None:
    """ "Which came first in Apache 2.4, A or B?" compares two things within the 2.4
    series: each side's point release answers ("Available in Apache 2.4.21 and later"),
    though the question names only 2.4 (as every page's "Apache HTTP Server Version
    2.4" does); and the series is no side of its own, so the side no name names (the
    health-check module) gets its line beside the Redis one."""
    write(
        tmp_path / "corpus",
        "mod_proxy_hcheck.md",
        "Apache HTTP Server Version 2.4\n\n# Apache Module mod_proxy_hcheck\n\n"
        "This module provides for dynamic health "
        "checking of balancer members.\n\nCompatibility: Available in Apache 2.4.21 and "
        "later.\n",
    )
    write(
        tmp_path / "corpus",
        "mod_socache_redis.md",
        "Apache HTTP Server Version 2.4\n\n# Apache Module mod_socache_redis\n\n"
        "This module is a Redis based shared object "
        "cache provider.\n\nCompatibility: Available in Apache 2.4.39 and later.\n",
    )
    question = (
        "Which came first in Apache 2.4, the proxy health-check module or the Redis "
        "socache provider?"
    )
    result = ask(tmp_path, question, max_rounds=0)

    answer = result.report.split("## Answer\n\n", 1)[1].split("\n## ", 1)[0]
    assert "Available in Apache 2.4.21 and later" in answer
    assert "Available in Apache 2.4.39 and later" in answer


def test_what_only_the_scene_names_need_not_be_named_by_the_quotes(tmp_path: Path) -> None:
    """The scene a question sets before it asks ("Quick one: if a worker sets FOO, …")
    is context: a sentence that answers need not name its names, as the gap check reads
    it, so the report is not left without findings when no passage names them."""
    write(
        tmp_path / "corpus",
        "worker_threads.md",
        "# Worker threads\n\nA worker thread sets FOO as the main thread would set it.\n",
    )
    write(
        tmp_path / "corpus",
        "environment.md",
        "# Environment\n\nEach worker thread has its own copy of the environment "
        "variables. Changes to one copy are not visible in other threads.\n",
    )
    result = ask(
        tmp_path,
        "Quick one: if a worker thread sets the variable FOO, does the main thread see "
        "the new value?",
    )

    assert "Changes to one copy are not visible in other threads." in result.report
