"""Retrieval that reads document structure: fields, heading paths, exact versions, names."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from grounded_research.retrieval import fields
from grounded_research.retrieval.fields import (
    coined_names,
    path_tokens,
    query_names,
    split_title,
    title_tokens,
)
from grounded_research.retrieval.local import open_corpus
from grounded_research.text.tokenize import tokenize
from tests.conftest import write


def test_title_fields_drop_section_numbers_and_the_site_name() -> None:
    assert split_title("Django 3.2.6 release notes — Django 3.2.25 documentation") == (
        "Django 3.2.6 release notes",
        "Django 3.2.25 documentation",
    )
    assert title_tokens("E.21. Release 15") == ["releas", "15"]
    assert title_tokens("Chapter 23. Managing Databases") == ["manag", "databas"]
    assert "15.15" in path_tokens("postgresql-doc-15/html/release-15-15.html")
    assert "3.5.3" in path_tokens("sqlite3-doc/releaselog/3_5_3.html")


def test_names_of_the_query() -> None:
    assert query_names("In which PostgreSQL release was the MERGE command added?") == {
        "postgresql",
        "merg",
    }
    assert query_names("What is new in PostgreSQL 15?") == {"postgresql", "15"}
    assert query_names("What energy density do solid-state cells reach?") == set()
    assert query_names("Django 3.2 and work_mem") == {"3.2", "work", "mem"}


def test_coined_names_are_written_in_mixed_case() -> None:
    # what a top folder may be named by: not a plain word, an acronym or a version
    question = "Does the Server header of Apache 2.4 over HTTP name PostgreSQL's or CMake's?"
    assert coined_names(question) == {"postgresql", "cmake"}


def test_release_15_is_not_release_15_15(tmp_path: Path, cache_dir: str) -> None:
    root = tmp_path / "corpus"
    write(
        root,
        "release-15.md",
        "# Release 15\n\nRelease date: 2022-10-13\n\nThis release adds the MERGE command.\n",
    )
    write(
        root,
        "release-15-15.md",
        "# Release 15.15\n\nRelease date: 2025-11-13\n\nThis release contains a variety of "
        "fixes from 15.14. For new features in major release 15, see release 15.\n",
    )
    corpus = open_corpus(str(root), cache_dir, 600)
    assert corpus.search_sync("When was release 15 released?", 2)[0].location == "release-15.md"
    assert corpus.search_sync("release 15.15 date", 2)[0].location == "release-15-15.md"


def test_the_heading_path_says_which_release_a_passage_is_in(
    tmp_path: Path, cache_dir: str
) -> None:
    root = tmp_path / "corpus"
    notes = "Partitioned tables prune partitions faster when the planner sees many of them."
    write(
        root,
        "notes.md",
        f"# Release notes\n\n## Release 15\n\n### Server\n\n{notes}\n\n"
        f"## Release 14\n\n### Server\n\n{notes}\n",
    )
    corpus = open_corpus(str(root), cache_dir, 60)
    for asked, other in (("14", "15"), ("15", "14")):
        hits = corpus.search_sync(f"partitions in release {asked}", 5)
        hit = next(h for h in hits if h.text == notes)
        text = corpus.text(hit.sha256)
        assert text.rfind(f"## Release {asked}", 0, hit.start) > text.rfind(
            f"## Release {other}", 0, hit.start
        )


def test_a_named_product_outranks_pages_of_another_that_mention_it(
    tmp_path: Path, cache_dir: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """(A product of a real corpus spans many documents, this one's a few.)"""
    monkeypatch.setattr(fields, "NAME_MIN_DOCUMENTS", 1)
    root = tmp_path / "corpus"
    write(
        root,
        "postgresql/sql-merge.md",
        "# MERGE\n\nMERGE — conditionally insert, update, or delete rows of a table.\n",
    )
    write(
        root,
        "django/databases.md",
        "# Databases\n\nDjango supports PostgreSQL. On PostgreSQL, Django can insert or "
        "update rows of a table in one query; PostgreSQL notes below.\n",
    )
    for name in ("cache", "forms", "admin", "templates"):
        write(root, f"django/{name}.md", f"# {name}\n\nDjango {name} work with every backend.\n")
    corpus = open_corpus(str(root), cache_dir, 600)
    hits = corpus.search_sync("Which PostgreSQL command can insert or update rows?", 2)
    assert hits[0].location == "postgresql/sql-merge.md"


def test_a_product_every_page_of_a_top_folder_names_is_read_as_that_folders_name(
    tmp_path: Path, cache_dir: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """libssl-doc's manual pages all say "OpenSSL" (their footers), none of their paths
    does; a mail server's page that mentions OpenSSL in passing shares more of the
    question's words. Not when the folder is too small to tell, nor when the other
    folders say the name as often."""
    monkeypatch.setattr(fields, "NAME_MIN_DOCUMENTS", 1)
    monkeypatch.setattr(fields, "FOLDER_MIN_DOCUMENTS", 3)
    root = tmp_path / "corpus"
    write(
        root,
        "libssl-doc/SSL_CTX_set_verify.md",
        "# SSL_CTX_set_verify\n\nThe default verification depth limit is 100.\n\n"
        "Copyright The OpenSSL Project Authors.\n",
    )
    for name in ("BIO_read", "EVP_Digest", "RAND_bytes"):
        write(root, f"libssl-doc/{name}.md", f"# {name}\n\n{name} reads. Copyright OpenSSL.\n")
    write(
        root,
        "postfix-doc/TLS_README.md",
        "# Certificate verification depth\n\nThe certificate verification depth "
        "is 9 when Postfix is built with OpenSSL.\n",
    )
    for number in range(9):
        write(root, f"postfix-doc/README_{number}.md", f"# README {number}\n\nPostfix notes.\n")
    question = "What is the default certificate verification depth limit in OpenSSL?"

    corpus = open_corpus(str(root), cache_dir, 600)
    assert corpus.search_sync(question, 1)[0].location == "libssl-doc/SSL_CTX_set_verify.md"

    monkeypatch.setattr(fields, "FOLDER_MIN_DOCUMENTS", 5)  # four pages tell nothing
    assert corpus.search_sync(question, 1)[0].location == "postfix-doc/TLS_README.md"
    monkeypatch.setattr(fields, "FOLDER_MIN_DOCUMENTS", 3)
    monkeypatch.setattr(fields, "FOLDER_OTHERS_SHARE", 0.0)  # Postfix says it once too
    assert corpus.search_sync(question, 1)[0].location == "postfix-doc/TLS_README.md"


def test_an_option_named_whole_is_found_among_pages_full_of_its_words(
    tmp_path: Path, cache_dir: str
) -> None:
    """ "--napi-modules" among pages on napi_module_register and napi modules: its entry,
    though its words are common here, holds the name whole."""
    root = tmp_path / "corpus"
    for name in ("n-api", "addons", "modules"):
        write(
            root,
            f"{name}.md",
            f"# {name}\n\nNode-API modules call napi_module_register; napi modules "
            "register with NAPI_MODULE. A napi module exports napi values.\n",
        )
    write(
        root,
        "cli.md",
        "# Command-line API\n\n## `--max-http-header-size=size`\n\nSpecify the maximum "
        "size, in bytes, of HTTP headers. Defaults to 16 KiB.\n\n## `--napi-modules`\n\n"
        "This option is a no-op. It is kept for compatibility.\n",
    )
    corpus = open_corpus(str(root), cache_dir, 600)
    [hit] = corpus.search_sync("Does the --napi-modules flag still do anything?", 1)
    assert hit.location == "cli.md"


def test_bm25f_of_the_text_alone_ranks_as_bm25_and_survives_a_reload(tmp_path: Path) -> None:
    import bm25s
    import numpy as np

    from grounded_research.retrieval import bm25f

    rows = [
        "solid state cells reach 450 Wh/kg in the lab",
        "sodium ion cells are cheap and cells last long",
        "the pilot line in Lund makes solid cells",
        "recycling recovers lithium from old cells",
    ]
    tokens = [tokenize(r) for r in rows]
    vocabulary = sorted({t for row in tokens for t in row})
    number = {t: i for i, t in enumerate(vocabulary)}
    ids = np.array([number[t] for row in tokens for t in row], dtype=np.int32)
    lengths = np.array([len(row) for row in tokens], dtype=np.int64)
    empty = (np.zeros(0, dtype=np.int32), np.zeros(4, dtype=np.int64))
    no_titles = (np.zeros(0, dtype=np.int32), np.zeros(4, dtype=np.int64))
    index = bm25f.build(
        vocabulary,
        {"body": (ids, lengths), "heading": empty, "title": no_titles},
        np.arange(4, dtype=np.int32),
    )
    reference = bm25s.BM25(k1=bm25f.K1, b=bm25f.B["body"])
    reference.index(tokens, show_progress=False)
    query = tokenize("solid cells from Lund")
    ours = index.scores(dict.fromkeys(query, 1.0), {"body": 1.0})
    theirs = reference.get_scores(query)
    assert list(np.argsort(-ours, kind="stable")) == list(np.argsort(-theirs, kind="stable"))
    assert np.allclose(ours, theirs * (bm25f.K1 + 1), rtol=1e-5)
    bm25f.save(index, tmp_path / "index")
    again = bm25f.load(tmp_path / "index")
    assert np.allclose(again.scores(dict.fromkeys(query, 1.0), {"body": 1.0}), ours)


def test_web_passages_get_the_same_fields(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fields, "NAME_MIN_DOCUMENTS", 1)
    from grounded_research.retrieval.passages import rank_passages
    from grounded_research.retrieval.web import WebPage

    def page(url: str, title: str, text: str) -> WebPage:
        return WebPage(url=url, status="fetched", location=url, title=title, sha256=url, text=text)

    pages = [
        page(
            "https://docs.example.org/django/databases.html",
            "Databases",
            "Django supports PostgreSQL. On PostgreSQL, Django can insert or update rows of "
            "a table in one query; PostgreSQL notes below.",
        ),
        page(
            "https://www.postgresql.org/docs/15/sql-merge.html",
            "MERGE",
            "MERGE — conditionally insert, update, or delete rows of a table.",
        ),
    ]
    hits = rank_passages(pages, "Which PostgreSQL command can insert or update rows?", 2, 600)
    assert hits[0].location.endswith("sql-merge.html")


def test_a_name_few_documents_hold_is_no_category() -> None:
    """A company in five file names of a small corpus is a subject, not a part of the
    corpus: its passages get no boost beyond what BM25F gives them."""
    import numpy as np

    scores = np.array([1.0, 2.0, 3.0, 4.0], dtype=np.float32)
    held = [np.array([True, True, False, False])]
    assert (fields.name_boost(scores, held, np.array([0, 1, 2, 3])) == scores).all()


def test_a_passage_whose_headings_name_the_code_name_whole_is_lifted() -> None:
    """work_mem's own entry rises above its namesakes, which share all its words."""
    headings = ["Memory\n`autovacuum_work_mem` (`integer`)", "Memory\n`work_mem` (`integer`)", "x"]
    scores = np.array([3.0, 2.0, 1.0], dtype=np.float32)

    heading_of = headings.__getitem__
    lifted = fields.code_boost(scores, "default value of work_mem?", 1, heading_of)
    assert lifted.tolist() == [3.0, 4.0, 1.0]
    assert fields.code_boost(scores, "default value of work mem?", 1, heading_of) is scores


def test_which_version_finds_the_release_that_lists_the_change(
    tmp_path: Path, cache_dir: str
) -> None:
    """A changelog lists a change under "Release 3.39.0" and never says "version": the
    question's "version" searches for "release" too, at half its weight."""
    root = tmp_path / "corpus"
    write(
        root,
        "select.md",
        "# SELECT\n\nA RIGHT JOIN or a FULL OUTER JOIN in SQLite adds rows to the output: "
        "the RIGHT OUTER JOIN adds a row for each unmatched right row, the FULL JOIN for "
        "each unmatched row of either side of the join.\n",
    )
    write(
        root,
        "releaselog/3_39_0.md",
        "# SQLite Release 3.39.0 On 2022-06-25\n\n1. Add (long overdue) support for RIGHT "
        "and FULL OUTER JOIN.\n2. Add new binary comparison operators IS NOT DISTINCT FROM "
        "and IS DISTINCT FROM.\n3. Allow virtual table methods to be called from other "
        "threads.\n",
    )
    corpus = open_corpus(str(root), cache_dir, 600)
    hits = corpus.search_sync("Which SQLite version added RIGHT and FULL OUTER JOIN?", 2)
    assert hits[0].location == "releaselog/3_39_0.md"


@pytest.mark.parametrize(
    ("question", "other", "answering"),
    [
        (
            "How big can an SQLite database get?",
            "# Copying an SQLite database\n\nA big SQLite database file can be copied, or "
            "attached to another database, as any other file can.\n",
            "# Limits In SQLite\n\nMaximum database size: every SQLite database has a maximum "
            "size of about 281 terabytes.\n",
        ),
        (
            "How big can an SQLite database get?",
            "# Notes\n\nThe 4-byte big-endian integer at offset 28 of the SQLite database "
            "header holds the big-endian page count, big-endian as every field of the header.\n",
            "# Reference\n\nEvery SQLite database has a maximum size of about 281 terabytes.\n",
        ),
        (
            "How long does the server wait for a client?",
            "# Notes\n\nLong lines from a client are split; the server keeps long headers whole.\n",
            "# Reference\n\nThe server waits for a client until its timeout of 300 seconds has "
            "passed.\n",
        ),
        (  # asked in the dimension otherwise: "how much time"
            "How much time does the runner give test discovery?",
            "# Runner\n\nThe runner prints each test that discovery finds.\n",
            "# Discovery timeout\n\nThe discovery of tests times out after 5 seconds.\n",
        ),
    ],
)
def test_the_word_after_how_searches_for_its_dimension_not_itself(
    tmp_path: Path, cache_dir: str, question: str, other: str, answering: str
) -> None:
    """ "How big can a database get?", "how long does it wait?": the word names the
    dimension asked, which documentation writes as "maximum size" or "timeout", and its
    own word is another's ("big-endian", "long lines")."""
    root = tmp_path / "corpus"
    write(root, "other.md", other)
    write(root, "answering.md", answering)
    corpus = open_corpus(str(root), cache_dir, 600)
    assert corpus.search_sync(question, 1)[0].location == "answering.md"


def test_a_release_asked_in_everyday_words_is_searched_as_release_notes_word_it(
    tmp_path: Path, cache_dir: str
) -> None:
    """ "When did Foo 2.0 come out?" searches for "released", the word the notes use;
    "come" is another sentence's ("How come …")."""
    root = tmp_path / "corpus"
    write(
        root,
        "faq.md",
        "# Foo FAQ\n\nHow come Foo 2.0 does not run on old kernels? It needs features that came "
        "out later, so it does not come with a fallback.\n",
    )
    write(
        root,
        "whatsnew.md",
        "# What's new in Foo 2.0\n\nA new version of Foo, 2.0, was released on October 16, "
        "2000. It adds list comprehensions and garbage collection of cycles.\n",
    )
    corpus = open_corpus(str(root), cache_dir, 600)
    assert corpus.search_sync("When did Foo 2.0 come out?", 1)[0].location == "whatsnew.md"
