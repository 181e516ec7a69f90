"""What a corpus file's reading leaves on its source record: a decode note when its bytes
were not clean UTF-8, and one location per document however many .jsonl files a folder
holds."""

from __future__ import annotations

from pathlib import Path

from grounded_research.gathering import gather, source_id
from grounded_research.retrieval.local import LocalCorpus, open_corpus
from grounded_research.state import SubQuestion
from tests.conftest import write
from tests.reliability import observed


def test_a_decode_note_reaches_the_hit_and_the_source(tmp_path: Path, cache_dir: str) -> None:
    root = tmp_path / "corpus"
    write(root, "clean.md", "# Clean\n\nThe Norvik N2 cell ships in 2026.\n")
    stray_byte = "# Zürich\n\nThe Aurora A1 cell reaches 450 Wh/kg in Zürich.".encode() + b"\xff\n"
    (root / "stray.md").write_bytes(stray_byte)
    corpus = open_corpus(str(root), cache_dir, 600)
    [hit] = corpus.search_sync("Aurora Wh/kg", 1)
    assert hit.location == "stray.md"
    assert hit.note.startswith("not valid UTF-8 from byte")
    assert corpus.search_sync("Norvik N2", 1)[0].note == ""

    reopened = LocalCorpus(root, Path(cache_dir), 600)  # read back from the saved index
    assert not reopened.refresh().rebuilt
    assert reopened.search_sync("Aurora Wh/kg", 1)[0].note == hit.note


async def test_a_decode_note_is_the_source_records_error(tmp_path: Path, cache_dir: str) -> None:
    root = tmp_path / "corpus"
    root.mkdir()
    (root / "old.txt").write_bytes("Caf\xe9 Aurora sells 450 Wh/kg cells.\n".encode("cp1252"))
    corpus = open_corpus(str(root), cache_dir, 600)
    question = SubQuestion(id="q0", text="Aurora", queries=["Aurora cells"])
    gathered = await gather([corpus], question, ["Aurora cells"], 3, 0)
    source = gathered.sources[source_id("local", "old.txt")]
    assert source.status == "fetched"
    assert source.error == "not valid UTF-8: read as cp1252"
    observed("corpus.decode_note", f"source {source.status}, error {source.error!r}")


def test_the_same_jsonl_id_in_two_files_is_one_document_and_one_failed_source(
    tmp_path: Path, cache_dir: str
) -> None:
    root = tmp_path / "corpus"
    write(root, "a.jsonl", '{"id": "doc-1", "text": "Aurora A1 cells reach 450 Wh/kg."}\n')
    write(root, "b.jsonl", '{"id": "doc-1", "text": "Norvik N2 cells ship in 2026."}\n')
    corpus = open_corpus(str(root), cache_dir, 600)
    assert corpus.search_sync("Aurora Wh/kg", 1)[0].location == "doc-1"
    assert corpus.search_sync("Norvik ship", 1) == []  # never quoted under a.jsonl's id
    problems = {p.location: p for p in corpus.problems()}
    assert problems["b.jsonl:1"].status == "failed"
    assert problems["b.jsonl:1"].error == "'doc-1' is already the location of a document of a.jsonl"

    reopened = LocalCorpus(root, Path(cache_dir), 600)  # the same from the saved index
    assert not reopened.refresh().rebuilt
    assert reopened.search_sync("Norvik ship", 1) == []
    assert {p.location for p in reopened.problems()} == {"b.jsonl:1"}
    failed = problems["b.jsonl:1"]
    observed(
        "corpus.id_clash",
        f"a.jsonl's document is indexed; b.jsonl:1 is a {failed.status} source: {failed.error}",
    )


def test_a_jsonl_id_equal_to_a_files_path_is_a_failed_source(
    tmp_path: Path, cache_dir: str
) -> None:
    root = tmp_path / "corpus"
    write(root, "notes/a.md", "# Aurora\n\nAurora A1 cells reach 450 Wh/kg.\n")
    write(root, "z.jsonl", '{"id": "notes/a.md", "text": "Norvik N2 cells ship in 2026."}\n')
    corpus = open_corpus(str(root), cache_dir, 600)
    assert corpus.search_sync("Aurora Wh/kg", 1)[0].location == "notes/a.md"
    assert corpus.search_sync("Norvik ship", 1) == []
    problems = {p.location: p for p in corpus.problems()}
    assert (
        problems["z.jsonl:1"].error
        == "'notes/a.md' is already the location of a document of notes/a.md"
    )


def test_a_file_path_is_kept_when_an_earlier_jsonl_took_it(tmp_path: Path, cache_dir: str) -> None:
    """The later file in path order is the one refused, whichever kind it is; and once
    the earlier one is gone, the later one is a document again."""
    root = tmp_path / "corpus"
    write(root, "a.jsonl", '{"id": "z.md", "text": "Aurora A1 cells reach 450 Wh/kg."}\n')
    write(root, "z.md", "# Norvik\n\nNorvik N2 cells ship in 2026.\n")
    corpus = open_corpus(str(root), cache_dir, 600)
    assert corpus.search_sync("Norvik ship", 1) == []
    problems = {p.location: p for p in corpus.problems()}
    assert problems["z.md"].error == "'z.md' is already the location of a document of a.jsonl"

    (root / "a.jsonl").unlink()
    reopened = LocalCorpus(root, Path(cache_dir), 600)
    reopened.refresh()
    assert reopened.search_sync("Norvik ship", 1)[0].location == "z.md"
    assert reopened.problems() == []
