from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from grounded_research.errors import CorpusError
from grounded_research.retrieval.local import LocalCorpus, open_corpus
from grounded_research.retrieval.snapshots import SnapshotStore
from tests.conftest import write


def make_corpus(root: Path) -> None:
    write(root, "a.md", "# Aurora\n\nThe Aurora A1 cell reaches 450 Wh/kg.\n")
    write(root, "sub/b.txt", "Norvik Cells ships the N2 cell to Halvard Automotive.\n")
    write(
        root,
        "zh/c.md",
        "# 青岚新能源\n\n青岚新能源在合肥建设固态电池基地，一期产能8 GWh，计划2027年投产。\n",
    )
    write(
        root,
        "notes.jsonl",
        '{"id": "notes/x", "title": "Sodium", "text": "Sodium-ion cells are cheap."}\n',
    )
    write(root, "ignored.csv", "a,b\n")


def test_search_returns_exact_spans_of_snapshots(tmp_path: Path, cache_dir: str) -> None:
    make_corpus(tmp_path / "corpus")
    corpus = open_corpus(str(tmp_path / "corpus"), cache_dir, 600)
    hits = corpus.search_sync("Aurora A1 energy Wh/kg", 5)
    assert hits[0].location == "a.md"
    store = SnapshotStore.in_cache(cache_dir)
    for hit in hits:
        assert store.get(hit.sha256)[hit.start : hit.end] == hit.text
    assert corpus.search_sync("Sodium-ion", 3)[0].location == "notes/x"
    assert corpus.search_sync("zzzz qqqq", 3) == []
    assert hits[0].headings == ("Aurora",)  # the heading path its words lie under


def test_the_corpus_lists_the_folders_and_collections_it_files_documents_under(
    tmp_path: Path, cache_dir: str
) -> None:
    """Which products the corpus documents, whether or not a search reaches them: each
    document's folder (a .jsonl line's as its id writes it, "notes/x", as a source's
    place is read), and the collection an HTML page declares."""
    make_corpus(tmp_path / "corpus")
    write(
        tmp_path / "corpus",
        "python-click-doc/html/options.html",
        '<html><head><title>Options</title><link rel="home" href="index.html" '
        'title="Click Documentation (8.1.x)"></head><body><p>Options.</p></body></html>',
    )
    corpus = open_corpus(str(tmp_path / "corpus"), cache_dir, 600)

    assert corpus.shelves() == [
        "Click",  # the product "Click Documentation (8.1.x)" documents
        "notes",
        "python-click-doc/html",
        "sub",
        "zh",
    ]
    write(tmp_path / "corpus", "python-flask-doc/html/cli.md", "# CLI\n\nThe flask command.\n")
    corpus.refresh()  # a new build: its shelves, not the last one's
    assert "python-flask-doc/html" in corpus.shelves()


def test_a_manuals_pages_are_of_the_edition_its_front_page_states(
    tmp_path: Path, cache_dir: str
) -> None:
    """Exim's specification says which release it documents in its introduction only;
    its other chapters, filed beside it, are of that release too. Release notes, each
    of a release of its own, lend none to the pages beside them."""
    root = tmp_path / "corpus"
    write(
        root,
        "exim/spec/intro.md",
        "# Introduction\n\nThis edition of the Exim specification applies to version 4.96 "
        "of Exim.\n",
    )
    write(root, "exim/spec/routers.md", "# Routers\n\nThe accept router accepts quokka.\n")
    write(root, "pg/release-15-1.md", "# Release 15.1\n\nFixes.\n")
    write(root, "pg/release-15-2.md", "# Release 15.2\n\nMore fixes.\n")
    write(root, "pg/tables.md", "# Tables\n\nA quokka table.\n")
    corpus = open_corpus(str(root), cache_dir, 600)

    editions = {hit.location: hit.edition for hit in corpus.search_sync("quokka fixes", 10)}
    exim = "Introduction: This edition of the Exim specification applies to version 4.96 of Exim."
    assert editions["exim/spec/routers.md"] == exim
    assert editions["pg/release-15-1.md"] == "Release 15.1: # Release 15.1"
    assert editions["pg/tables.md"] == ""


def test_chinese_question_finds_chinese_passage(tmp_path: Path, cache_dir: str) -> None:
    make_corpus(tmp_path / "corpus")
    corpus = open_corpus(str(tmp_path / "corpus"), cache_dir, 600)
    hits = corpus.search_sync("青岚新能源的合肥基地产能是多少？", 3)
    assert hits and hits[0].location == "zh/c.md"
    assert "8 GWh" in hits[0].text


def test_index_is_persisted_and_only_changed_files_are_extracted(
    tmp_path: Path, cache_dir: str
) -> None:
    root = tmp_path / "corpus"
    make_corpus(root)
    first = LocalCorpus(root, Path(cache_dir), 600).refresh()
    assert first.extracted == 4 and first.rebuilt

    reopened = LocalCorpus(root, Path(cache_dir), 600)
    unchanged = reopened.refresh()
    assert unchanged.extracted == 0 and not unchanged.rebuilt
    assert reopened.search_sync("Norvik Halvard", 2)[0].location == "sub/b.txt"

    time.sleep(0.01)
    write(root, "sub/b.txt", "Norvik Cells now ships the N3 cell to Halvard Automotive.\n")
    os.remove(root / "notes.jsonl")
    changed = LocalCorpus(root, Path(cache_dir), 600).refresh()
    assert (changed.extracted, changed.removed, changed.documents) == (1, 1, 3)
    reopened.refresh()  # an index opened before the change catches up too
    assert reopened.search_sync("Norvik N3", 1)[0].text.startswith("Norvik Cells now ships")


def test_an_index_built_with_other_library_releases_is_built_again(
    tmp_path: Path, cache_dir: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pages' text and their words' stems are the libraries' output: an index built
    when another trafilatura or PyStemmer was installed holds what that one made, and
    is built again, as one of an older INDEX_VERSION is."""
    from grounded_research.retrieval import local

    root = tmp_path / "corpus"
    make_corpus(root)
    assert LocalCorpus(root, Path(cache_dir), 600).refresh().rebuilt

    unchanged = LocalCorpus(root, Path(cache_dir), 600).refresh()
    releases = {**local.index_libraries(), "trafilatura": "0.0.1"}
    monkeypatch.setattr(local, "index_libraries", lambda: releases)
    upgraded = LocalCorpus(root, Path(cache_dir), 600).refresh()

    assert (unchanged.extracted, unchanged.rebuilt) == (0, False)
    assert (upgraded.extracted, upgraded.rebuilt) == (4, True)


def test_unreadable_file_is_a_failed_source_and_outside_link_is_blocked(
    tmp_path: Path, cache_dir: str
) -> None:
    root = tmp_path / "corpus"
    make_corpus(root)
    (root / "broken.pdf").write_bytes(b"%PDF-1.4 nonsense")
    outside = write(tmp_path, "secret.md", "# Secret\n\nOutside the corpus.\n")
    (root / "link.md").symlink_to(outside)
    corpus = open_corpus(str(root), cache_dir, 600)
    problems = {p.location: p for p in corpus.problems()}
    assert problems["broken.pdf"].status == "failed"
    assert problems["link.md"].status == "blocked"
    assert corpus.search_sync("Secret outside", 3) == []


def test_a_single_jsonl_file_is_a_corpus(tmp_path: Path, cache_dir: str) -> None:
    path = write(
        tmp_path, "c.jsonl", '{"id": "p1", "title": "Kiss and Tell", "text": "A 1945 film."}\n'
    )
    hits = open_corpus(str(path), cache_dir, 600).search_sync("Kiss and Tell film", 1)
    assert hits[0].location == "p1"


def test_missing_corpus_is_a_clear_error(tmp_path: Path, cache_dir: str) -> None:
    with pytest.raises(CorpusError, match="corpus not found"):
        open_corpus(str(tmp_path / "nope"), cache_dir, 600)
    write(tmp_path, "file.txt", "x")
    with pytest.raises(CorpusError, match=r"folder or a \.jsonl"):
        open_corpus(str(tmp_path / "file.txt"), cache_dir, 600)


def test_a_rebuild_tokenizes_only_the_changed_files(
    tmp_path: Path, cache_dir: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from grounded_research.retrieval import local

    root = tmp_path / "corpus"
    make_corpus(root)
    LocalCorpus(root, Path(cache_dir), 600).refresh()
    time.sleep(0.01)
    write(root, "sub/b.txt", "Norvik Cells now ships the N3 cell to Halvard Automotive.\n")

    tokenized: list[str] = []
    original = local._tokenize_chunks

    def counting(document: local.IndexedDocument, text: str) -> list[list[str]]:
        tokenized.append(document.location)
        return original(document, text)

    monkeypatch.setattr(local, "_tokenize_chunks", counting)
    reopened = LocalCorpus(root, Path(cache_dir), 600)
    assert reopened.refresh().extracted == 1
    assert tokenized == ["sub/b.txt"]
    assert reopened.search_sync("Aurora Wh/kg", 1)[0].location == "a.md"
    assert reopened.search_sync("Norvik N3", 1)[0].location == "sub/b.txt"


def test_a_symlink_loop_is_a_failed_source_and_the_scan_goes_on(
    tmp_path: Path, cache_dir: str
) -> None:
    root = tmp_path / "corpus"
    make_corpus(root)
    (root / "loop-a.md").symlink_to(root / "loop-b.md")
    (root / "loop-b.md").symlink_to(root / "loop-a.md")
    (root / "sub" / "self.md").symlink_to(root / "sub" / "self.md")
    corpus = open_corpus(str(root), cache_dir, 600)  # RuntimeError on Python 3.11 before
    problems = {p.location: p for p in corpus.problems()}
    for location in ("loop-a.md", "loop-b.md", "sub/self.md"):
        assert problems[location].status == "failed"
        assert problems[location].error == "symbolic link loop"
    assert corpus.search_sync("Norvik Halvard", 1)[0].location == "sub/b.txt"
    assert not LocalCorpus(root, Path(cache_dir), 600).refresh().rebuilt  # kept as seen


def test_an_unreadable_folder_is_a_failed_source_and_the_scan_goes_on(
    tmp_path: Path, cache_dir: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "corpus"
    make_corpus(root)
    write(root, "locked/secret.md", "# Locked\n\nNobody reads this.\n")
    listing = os.scandir

    def scandir(path: str) -> object:  # as chmod 000 does, even for root
        if Path(path).name == "locked":
            raise PermissionError(13, "Permission denied", path)
        return listing(path)

    monkeypatch.setattr(os, "scandir", scandir)
    corpus = open_corpus(str(root), cache_dir, 600)
    problems = {p.location: p for p in corpus.problems()}
    assert problems["locked/"].status == "failed"
    assert problems["locked/"].error == "folder cannot be read: Permission denied"
    assert corpus.search_sync("Norvik Halvard", 1)[0].location == "sub/b.txt"

    monkeypatch.setattr(os, "scandir", listing)  # readable again: its files are indexed
    reopened = LocalCorpus(root, Path(cache_dir), 600)
    assert reopened.refresh().extracted == 1
    assert reopened.search_sync("Nobody reads", 1)[0].location == "locked/secret.md"
    assert "locked/" not in {p.location for p in reopened.problems()}


def test_a_second_refresh_waits_for_the_first_and_reads_its_index(
    tmp_path: Path, cache_dir: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two runs on one fresh cache: the second waits for the first's build, then reads
    it instead of extracting the corpus again over it (threads here, processes in
    tests/integration/test_shared_cache.py)."""
    import threading

    from grounded_research.retrieval import local

    root = tmp_path / "corpus"
    make_corpus(root)
    extracting = threading.Event()
    original = local._extract_file

    def slow(job: tuple[str, str, int]) -> object:
        extracting.set()
        time.sleep(0.05)
        return original(job)

    monkeypatch.setattr(local, "_extract_file", slow)
    results: dict[str, local.RefreshStats] = {}
    first = threading.Thread(
        target=lambda: results.setdefault(
            "first", LocalCorpus(root, Path(cache_dir), 600).refresh()
        )
    )
    first.start()
    assert extracting.wait(5)
    second = LocalCorpus(root, Path(cache_dir), 600).refresh()
    first.join()
    assert results["first"].extracted == 4
    assert (second.extracted, second.rebuilt, second.documents) == (0, False, 4)


# What the index holds of the committed real pages, digested, for each INDEX_VERSION since
# this guard came, and the library releases it was recorded with
# (`test_what_the_index_holds_changes_only_with_its_version`).
HELD_AT_VERSION = {
    34: "5487ce4dcf60cef4a91520cee02e251f35acb088a0334cd7670653bd8f79979b",
    35: "5487ce4dcf60cef4a91520cee02e251f35acb088a0334cd7670653bd8f79979b",
    36: "5487ce4dcf60cef4a91520cee02e251f35acb088a0334cd7670653bd8f79979b",
}
HELD_WITH = {"trafilatura": "2.3.1", "lxml": "6.2.0", "PyStemmer": "3.1.0", "jieba": "0.42.1"}


def held_digest() -> str:
    """A digest of what the index stores of every committed real page: each document's
    title, text, chunks and their tokens, field by field, and its edition and collection
    where it has them, as `_extract_file` gives them."""
    import hashlib
    import json
    from dataclasses import asdict

    from grounded_research.retrieval.local import _extract_file

    root = Path(__file__).parents[1] / "data"
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.suffix in {".html", ".htm", ".md"}):
        documents, problems = _extract_file((str(path), str(path.relative_to(root)), 600))
        for document, text, tokens in documents:
            held = [document.title, document.chunks, text, asdict(tokens), problems]
            held += [document.edition] if document.edition else []
            held += [document.collection] if document.collection else []
            digest.update(json.dumps(held, ensure_ascii=False).encode())
    return digest.hexdigest()


def test_what_the_index_holds_changes_only_with_its_version() -> None:
    """A built index is kept while INDEX_VERSION stands. A change to how pages are read,
    chunked or tokenized that leaves it as it is leaves every index built before with
    what the old code made, and one question ranks otherwise on a machine with an older
    cache than on a fresh one. What the index would hold of the committed real pages is
    compared with what was recorded for the current version: such a change fails here
    until INDEX_VERSION is raised and its digest recorded.
    Other library releases may read the pages otherwise (an index records them and is
    built again under others): the digest is then not comparable."""
    from grounded_research.retrieval.local import INDEX_VERSION, index_libraries

    if index_libraries() != HELD_WITH:
        pytest.skip(f"recorded with {HELD_WITH}, installed {index_libraries()}")
    assert HELD_AT_VERSION.get(INDEX_VERSION) == held_digest(), (
        "what the index holds changed: raise INDEX_VERSION and record its digest"
    )


def _wiki(tmp_path: Path, cache_dir: str, *pages: tuple[str, str]) -> LocalCorpus:
    """A corpus of one .jsonl file of titled pages."""
    return open_corpus(str(write(tmp_path, "wiki.jsonl", _pages(*pages))), cache_dir, 600)


def _pages(*pages: tuple[str, str]) -> str:
    return "".join(
        json.dumps({"id": title.lower().replace(" ", "-"), "title": title, "text": text}) + "\n"
        for title, text in pages
    )


def test_a_page_the_best_hit_names_by_its_title_is_followed(tmp_path: Path, cache_dir: str) -> None:
    """The second hop: Ernest Foot's page names Albert Ball, whose page holds the answer
    but ranks below other pilots' pages on the question's words."""
    pilots = [(f"Pilot {n}", f"Pilot {n} was a fighter pilot with victories.") for n in "ABCD"]
    corpus = _wiki(
        tmp_path,
        cache_dir,
        ("Ernest Foot", "Ernest Foot was a flying ace. He was the best friend of Albert Ball."),
        ("Albert Ball", "Albert Ball was an English pilot with 44 victories."),
        ("Cecil Lewis", "Cecil Lewis was an English writer."),
        *pilots,
    )
    question = "Ernest Foot was the best friend of the fighter pilot who had how many victories?"
    hits = [hit.title for hit in corpus.search_sync(question, 3)]
    assert hits[0] == "Ernest Foot"
    assert "Albert Ball" in hits[3:]  # followed, after the hits the search ranked
    # from a page the query does not name, no link is followed
    assert "Albert Ball" not in [h.title for h in corpus.search_sync("best friend victories", 1)]


def test_a_link_is_a_title_of_two_words_few_pages_share_that_shares_a_query_word(
    tmp_path: Path, cache_dir: str
) -> None:
    manuals = [("Release Notes", f"Notes of release {n}: fixes to the parser.") for n in range(4)]
    corpus = _wiki(
        tmp_path,
        cache_dir,
        ("Ernest Foot", "Ernest Foot read the Release Notes and met Cecil Lewis and Lewis."),
        ("Cecil Lewis", "Cecil Lewis was an English writer."),
        ("Lewis", "Lewis is a surname; the Lewis gun was a machine gun."),
        *manuals,
    )
    titles = [hit.title for hit in corpus.search_sync("Ernest Foot read writer", 1)]
    assert titles == ["Ernest Foot", "Cecil Lewis"]  # two words, one page, shares "writer"
    assert "Lewis" not in titles  # one word: no link
    assert "Release Notes" not in titles  # four pages share it, and no query word
    assert "Cecil Lewis" not in [h.title for h in corpus.search_sync("Ernest Foot gun", 5)]


def test_a_page_the_query_names_by_its_title_is_found_though_its_words_score_nothing(
    tmp_path: Path, cache_dir: str
) -> None:
    """ "The Thing of It Is..." is all stop words: no score finds its page, the title
    the question writes does; the pages it names are followed as from a hit."""
    corpus = _wiki(
        tmp_path,
        cache_dir,
        ("The Thing of It Is", "A 1967 novel by William Goldman."),
        ("William Goldman", "William Goldman was an American novelist."),
        ("A Thing of Beauty", "A novel whose author is A. J. Cronin."),
        ("Creacionismo", "A movement whose author and nationality were Chilean."),
    )
    question = "The author of The Thing of It Is... is what Nationality?"
    titles = [hit.title for hit in corpus.search_sync(question, 1)]
    # after the hit the search ranked; then the page it names, which shares no word
    # with the question: the second hop
    assert titles[1:] == ["The Thing of It Is", "William Goldman"]
    # written otherwise than its title, the page is not named
    assert "The Thing of It Is" not in [
        h.title for h in corpus.search_sync("the author of the thing of it is", 1)
    ]
