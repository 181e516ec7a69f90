"""A question that starts with a capitalised question word ("What", "Which", "Does")
behaves like its lowercase form: those words are not names the answer must contain."""

from __future__ import annotations

from pathlib import Path

import pytest

from grounded_research.api import research
from grounded_research.text.facets import facets_of
from grounded_research.text.facts import named_terms, opening_as_written, releases_as_written
from tests.conftest import write


def one_round(tmp_path: Path) -> dict[str, str | int]:
    """Options for a run over tmp_path/corpus: one round, keyword selection."""
    return {
        "corpus": str(tmp_path / "corpus"),
        "cache_dir": str(tmp_path / "cache"),
        "selection_strategy": "keyword",
        "max_rounds": 0,
        "checkpointer": "none",
    }


@pytest.mark.parametrize(
    "question",
    [
        "What energy density do solid-state cells reach?",
        "Which came first, Python 3.11 or PostgreSQL 15?",
        "How does Git store objects?",
        "Does Norvik Cells make sodium-ion cells?",
        "Is the N2 cell made in Oslo?",
    ],
)
def test_question_words_are_not_names(question: str) -> None:
    lowered = question[0].lower() + question[1:]

    assert named_terms(question) == named_terms(lowered)


def test_words_written_in_capitals_stay_names() -> None:
    assert named_terms("Is IT in charge of the US office?") == {"it", "us"}


def test_a_name_written_against_chinese_words_is_a_name() -> None:
    """Chinese writes a name against its words, with no space."""
    sentence = "Intel无线网卡是 firmware-iwlwifi，Qualcomm Atheros 无线网卡是 firmware-atheros"
    assert named_terms(sentence) == {"intel", "qualcomm", "atheros"}
    assert named_terms("安装Debian系统之后") == {"debian"}


def test_a_lower_case_word_joined_to_a_name_is_not_part_of_it() -> None:
    """A page on "NumPy and Google style docstrings" is about what a question on
    "NumPy-style docstrings" names; "X-Forwarded-For" and "UTF-8" stay whole."""
    assert named_terms("Google- and NumPy-style docstrings, GPL-compatible") == {
        "google",
        "numpy",
        "gpl",
    }
    assert named_terms("X-Forwarded-For in UTF-8") == {"x-forwarded-for", "utf-8"}


def test_a_name_keeps_the_version_written_into_it() -> None:
    """ "TLSv1.4" is not "TLSv1.2": the version written into a name is part of it (a
    sentence's final full stop is not)."""
    assert named_terms("Can SSLProtocol enable TLSv1.4?") == {"sslprotocol", "tlsv1.4"}
    assert named_terms("It speaks TLSv1.") == {"tlsv1"}


def test_a_capitalised_question_gets_the_findings_of_its_lowercase_form(tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    write(root, "a.md", "# Cells\n\nSolid-state cells reach an energy density of 400 Wh/kg.\n")
    write(root, "b.md", "# Sodium\n\nSodium-ion cells are cheaper than lithium-ion cells.\n")
    options = one_round(tmp_path)

    upper = research("What energy density do solid-state cells reach?", **options)
    lower = research("what energy density do solid-state cells reach?", **options)

    assert "400 Wh/kg" in upper.report
    assert [c.text for c in upper.claims] == [c.text for c in lower.claims]


def test_a_first_word_is_a_name_only_where_the_sources_write_it_as_one() -> None:
    """Any word may open a question ("Considered …", "Per the table, …"): capitalised
    there, it is a name when the sources write it capitalised inside a sentence, not
    when they write it in lower case; with no sight of it, it stays as written."""
    sources = [
        "The 1999 Odisha cyclone was considered the strongest recorded cyclone.",
        "It uses 2 GB per core. Debian 12 was released in May 2023.",
    ]
    considered = "Considered the strongest recorded cyclone, which cyclone had a film?"
    per = "Per the requirements table, how much RAM does Debian 12 need?"

    assert opening_as_written(considered, sources) == "c" + considered[1:]
    assert opening_as_written(per, sources) == "p" + per[1:]
    assert "considered" in named_terms(considered)
    assert "considered" not in named_terms(opening_as_written(considered, sources))
    for named in ("May a Go compiler reject it?", "Debian 12 needs how much RAM?"):
        assert opening_as_written(named, sources) == named  # "in May 2023": a name
    assert opening_as_written("Born in 1937, who is he?", sources) == "Born in 1937, who is he?"
    chinese = "Recommends 里的软件包会被默认安装吗？"  # Latin letters in Chinese: a name
    assert opening_as_written(chinese, ["apt recommends it"]) == chinese


def test_a_first_word_no_source_writes_is_no_name_before_a_determiner() -> None:
    """A question may set the scene with a verb ("Suppose the channel …", "Consider a
    table …"); no source need write "suppose" for it to be one: a determiner or a
    pronoun after it says it is no name. A name unseen stays one ("Redis listens …")."""
    suppose = "Suppose the channel were buffered: would it still print hello?"
    consider = "Consider a table with two columns: which index is used?"
    assert opening_as_written(suppose, []) == "s" + suppose[1:]
    assert opening_as_written(consider, []) == "c" + consider[1:]
    assert "suppose" not in named_terms(opening_as_written(suppose, []))
    for named in ("Redis listens on which port?", "Kubernetes 1.28 added what?"):
        assert opening_as_written(named, []) == named


def test_each_sentence_of_a_question_opens_with_a_word_read_as_the_sources_write_it() -> None:
    """A question that sets the scene first has a second opening ("Our relay runs
    Postfix 3.6. Starting with which …"); a participle opening it sets the scene ("Using
    AES-GCM through the EVP interface: …") though no source writes it; a name the
    sources capitalise inside a sentence stays one, wherever it opens."""
    sources = ["Postfix 3.6 was released.", "Lines starting with a dot are quoted."]
    scene = "Our relay runs Postfix 3.6. Starting with which 3.6 patch is it there?"
    assert opening_as_written(scene, sources) == scene.replace("Starting", "starting")
    moved = "Our relay runs it. Now Postfix 3.6 needs what?"
    assert opening_as_written(moved, sources) == moved  # "Postfix" is written as a name
    using = "Using AES-GCM through the EVP interface: what IV length is assumed?"
    assert opening_as_written(using, []) == "u" + using[1:]
    assert opening_as_written("Beijing hosted it when?", ["It moved to Beijing."]) == (
        "Beijing hosted it when?"
    )


def test_an_opening_word_the_sources_write_in_lower_case_filters_nothing(
    tmp_path: Path,
) -> None:
    """ "Considered the strongest …, which cyclone …" names no "Considered": the page
    that writes "was considered the strongest" is quoted, not only a page that happens
    to open a sentence with the word."""
    root = tmp_path / "corpus"
    write(
        root,
        "odisha.md",
        "# Odisha cyclone\n\nThe 1999 Odisha cyclone was considered the strongest "
        "recorded tropical cyclone of the North Indian Ocean.\n",
    )
    write(
        root,
        "films.md",
        "# Films\n\nConsidered lost for decades, a film about a tropical cyclone "
        "was restored in 2007.\n",
    )
    options = one_round(tmp_path)

    result = research(
        "Considered the strongest recorded tropical cyclone, which cyclone was it?", **options
    )

    assert "The 1999 Odisha cyclone was considered the strongest" in result.report


def test_since_which_asks_as_in_which_does(tmp_path: Path) -> None:
    """ "Since which release …" asks when, as "In which release …" does: "since" is the
    question's form, not a word its answer says, and "Deprecated since version 1.8"
    under a page that shares the question's words does not answer when the extension
    came. Elsewhere "since" stays a word the answer may say."""
    question = (
        "Since which Sphinx release is the extension for Google- and NumPy-style "
        "docstrings bundled?"
    )
    assert "since" not in facets_of(question)
    assert "since" in facets_of("Which Django version deprecated it since 4.0?")
    root = tmp_path / "corpus"
    write(
        root,
        "napoleon.md",
        "# napoleon – NumPy and Google style docstrings\n\nNew in version 1.3.\n",
    )
    write(
        root, "setup.md", "# Sphinx docstrings extension setup\n\nDeprecated since version 1.8.\n"
    )

    result = research(question, **one_round(tmp_path))

    answer = result.report.split("## Answer\n\n", 1)[1].split("\n\n", 1)[0]
    assert "1.3" in answer and "1.8" not in answer


def test_a_comparisons_order_word_is_its_form_not_a_term_to_find(tmp_path: Path) -> None:
    """ "Which was added first, A or B?" is answered by each side's date or version; no
    source says "first", and the report must not list it as missing. Outside a
    comparison "first" stays a word the answer may say ("the first release")."""
    question = "Which was added to Python first, math.isqrt() or functools.cache()?"
    assert "first" not in facets_of(question)
    assert "first" in facets_of("When was the first release of Python made?")
    root = tmp_path / "corpus"
    write(
        root,
        "math.md",
        "# math.isqrt(n)\n\nReturn the integer square root.\n\nNew in version 3.8.\n",
    )
    write(
        root,
        "functools.md",
        "# functools.cache(user_function)\n\nA cache.\n\nNew in version 3.9.\n",
    )

    result = research(question, **one_round(tmp_path))

    assert "first" not in result.report.split("## Unresolved", 1)[-1]


def test_a_chinese_question_s_facets_are_the_dictionary_s_words() -> None:
    """What an answer must touch, in Chinese: whole words ("服务器", not also its part
    "务器"), and no guess at a word the dictionary lacks ("名是" of "设备名是什么"),
    which no passage says and a follow-up search would look for."""
    facets = facets_of("用 MS-DOS 分区表时，第一块硬盘上的第一个逻辑分区设备名是什么？")
    assert "设备" in facets and "名是" not in facets
    facets = facets_of("服务器不想开机进图形界面，怎么改成命令行的多用户模式？")
    assert "服务器" in facets and "务器" not in facets


def test_a_lower_case_name_before_its_release_is_written_as_the_sources_write_it() -> None:
    """ "sphinx 1.0 release date": the docs write Sphinx with a capital in their sentences
    (and "sphinx-build", "sphinx.ext" as commands and modules), so it is the name of what
    the question asks about; "port 7000" stays a port."""
    sources = [
        "Sphinx 1.0 was released in 2010. Run sphinx-build to build; sphinx.ext.autodoc loads.",
        "With Sphinx, the server listens on port 8000 unless a port is given.",
    ]
    assert releases_as_written("sphinx 1.0 release date", sources) == "Sphinx 1.0 release date"
    assert "sphinx" in named_terms(releases_as_written("when was sphinx 1.0 out", sources))
    port = "Which process listens on port 7000?"
    assert releases_as_written(port, sources) == port
    chinese = "apt 3.0 新增了哪些子命令？"
    assert releases_as_written(chinese, ["Apt 3.0 adds commands. Apt is APT."]) == chinese


def test_a_name_the_sources_write_before_a_release_is_one_however_common_the_word() -> None:
    """ "requests 2.26.0 release date": Requests' docs say "requests" as a common word
    ("HTTP requests") more often than "Requests" as a name, yet they write "Requests
    2.27.x" before a release number, which only a name stands before."""
    sources = [
        "Requests allows you to send HTTP requests. Make requests with ease.",
        "The requests are sent; requests time out; retry requests; pool requests.",
        "Requests 2.27.x is likely to be the last release series providing support.",
    ]
    question = "requests 2.26.0 release date"
    assert releases_as_written(question, sources) == "Requests 2.26.0 release date"
    assert releases_as_written(question, sources[:2]) == question


def test_a_word_that_opens_the_question_s_form_is_no_name() -> None:
    """ "Starting with which version of Git …" was declared open: "no passage names
    Starting"."""
    question = "Starting with which version of Git does fetch reject tag updates?"
    assert "starting" not in named_terms(opening_as_written(question, ["Starting Git"]))


def test_a_request_after_a_question_is_no_part_of_its_own() -> None:
    """ "… come out? Exact date please." asks one thing: a part that asks nothing of its
    own qualifies the question before it (as a part, anything answered it)."""
    from grounded_research.nodes.planner import question_parts

    assert question_parts("When did Flask 2.3 come out? Exact date please.") == []
    assert question_parts("When did CMake 3.25 come out? I need the date.") == []
    assert question_parts("Which port does Apache use? And which user does it run as?") == [
        "Which port does Apache use",
        "And which user does it run as",
    ]
    assert len(question_parts("apt 3.0 新增了哪些子命令？dpkg 1.22 加了哪些新功能？")) == 2


def test_a_stopword_contracted_is_no_facet_but_a_possessive_names_its_name() -> None:
    """ "I'm", "what’s" and "don't" are stopwords however they are written; a report
    saying "No source found mentions “i'm”" tells the reader nothing."""
    question = (
        "I'm on Django's 4.2 docs: what’s the default port, and shouldn't it be 80? Don't guess."
    )
    facets = facets_of(question)
    assert not {"i'm", "what’s", "shouldn't", "don't"} & {f.lower() for f in facets}
    assert "django's" in [f.lower() for f in facets] and "port" in facets
