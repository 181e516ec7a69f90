"""A damaged cache is never trusted: index files are checked against the manifest when
the index is opened and rebuilt when they fail, with one line said about it; a snapshot
is checked against its hash when read and extracted again from its file, or its source
is recorded as failed. Every case here once made runs fail or quote the wrong text."""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest

from grounded_research.retrieval.local import LocalCorpus
from grounded_research.retrieval.snapshots import SnapshotStore
from tests.conftest import write

NORVIK = "Norvik Cells ships the N2 cell to Halvard Automotive."


def make_corpus(root: Path) -> None:
    write(root, "a.md", "# Aurora\n\nThe Aurora A1 cell reaches 450 Wh/kg.\n")
    write(root, "sub/b.txt", NORVIK + "\n")
    write(root, "notes.jsonl", '{"id": "notes/x", "title": "Sodium", "text": "Sodium-ion."}\n')


def index_file(cache_dir: str, name: str) -> Path:
    """A file of the saved index, wherever the index version keeps it."""
    found = sorted(Path(cache_dir, "index").glob(f"*/**/{name}"))
    assert found, name
    return found[0]


def cut_in_half(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def flip_bytes(path: Path) -> None:
    data = bytearray(path.read_bytes())
    middle = len(data) // 2
    data[middle : middle + 8] = b"\xff\xff\xff\x7f\xff\xff\xff\x7f"
    path.write_bytes(bytes(data))


def shorten_vocabulary(path: Path) -> None:
    meta = json.loads(path.read_text(encoding="utf-8"))
    meta["vocabulary"] = meta["vocabulary"][:3]
    path.write_text(json.dumps(meta), encoding="utf-8")


DAMAGE: dict[str, tuple[str, Callable[[Path], None]]] = {
    "truncated array": ("body.rows.npy", cut_in_half),
    "changed bytes in an array": ("body.indptr.npy", flip_bytes),
    "truncated vocabulary": ("meta.json", cut_in_half),
    "vocabulary that still parses": ("meta.json", shorten_vocabulary),
    "damaged manifest": ("manifest.json", flip_bytes),
}


@pytest.mark.parametrize("case", DAMAGE)
def test_a_damaged_index_is_rebuilt_and_said_once(
    tmp_path: Path, cache_dir: str, case: str, caplog: pytest.LogCaptureFixture
) -> None:
    root = tmp_path / "corpus"
    make_corpus(root)
    LocalCorpus(root, Path(cache_dir), 600).refresh()
    name, damage = DAMAGE[case]
    damage(index_file(cache_dir, name))

    with caplog.at_level(logging.WARNING):
        reopened = LocalCorpus(root, Path(cache_dir), 600)
        assert reopened.refresh().rebuilt
    assert reopened.search_sync("Norvik Halvard", 1)[0].text == NORVIK
    said = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(said) == 1 and "\n" not in said[0], said

    caplog.clear()
    again = LocalCorpus(root, Path(cache_dir), 600)  # the rebuilt index is whole
    assert not again.refresh().rebuilt and not caplog.records
    assert again.search_sync("Norvik Halvard", 1)[0].text == NORVIK


def test_damaged_saved_tokens_are_tokenized_again(
    tmp_path: Path, cache_dir: str, caplog: pytest.LogCaptureFixture
) -> None:
    root = tmp_path / "corpus"
    make_corpus(root)
    LocalCorpus(root, Path(cache_dir), 600).refresh()
    cut_in_half(index_file(cache_dir, "tokens.npz"))
    write(root, "a.md", "# Aurora\n\nThe Aurora A1 cell now reaches 470 Wh/kg.\n")

    with caplog.at_level(logging.WARNING):
        reopened = LocalCorpus(root, Path(cache_dir), 600)
        assert reopened.refresh().extracted == 1  # used to fail every run: BadZipFile
    assert reopened.search_sync("Norvik Halvard", 1)[0].text == NORVIK
    assert "470 Wh/kg" in reopened.search_sync("Aurora Wh/kg", 1)[0].text
    assert any("tokens" in r.getMessage() for r in caplog.records)


def snapshot_of(cache_dir: str, text: str) -> Path:
    store = SnapshotStore.in_cache(cache_dir)
    return store.path(store.put(text))


@pytest.mark.parametrize("damage", [cut_in_half, flip_bytes, Path.unlink])
def test_a_damaged_snapshot_is_extracted_again_from_its_file(
    tmp_path: Path, cache_dir: str, damage: Callable[[Path], None], caplog: pytest.LogCaptureFixture
) -> None:
    root = tmp_path / "corpus"
    make_corpus(root)
    LocalCorpus(root, Path(cache_dir), 600).refresh()
    snapshot = snapshot_of(cache_dir, NORVIK + "\n")
    damage(snapshot)

    with caplog.at_level(logging.WARNING):
        reopened = LocalCorpus(root, Path(cache_dir), 600)
        reopened.refresh()
        hits = reopened.search_sync("Norvik Halvard", 1)
    assert hits[0].location == "sub/b.txt" and hits[0].text == NORVIK
    assert snapshot.read_text(encoding="utf-8") == NORVIK + "\n"  # repaired on disk
    assert not reopened.problems()
    assert len([r for r in caplog.records if r.levelno >= logging.WARNING]) == 1


def test_a_damaged_snapshot_of_a_changed_file_is_a_failed_source(
    tmp_path: Path, cache_dir: str
) -> None:
    root = tmp_path / "corpus"
    make_corpus(root)
    LocalCorpus(root, Path(cache_dir), 600).refresh()
    flip_bytes(snapshot_of(cache_dir, NORVIK + "\n"))
    # The file changes but keeps its size and time, so the index still counts it as seen.
    path = root / "sub" / "b.txt"
    stat = path.stat()
    path.write_text(NORVIK.replace("N2", "N9") + "\n", encoding="utf-8")
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))

    reopened = LocalCorpus(root, Path(cache_dir), 600)
    reopened.refresh()
    assert [h.location for h in reopened.search_sync("Norvik Halvard", 3)] == []
    problems = {p.location: p for p in reopened.problems()}
    assert problems["sub/b.txt"].status == "failed"
    assert "damaged" in problems["sub/b.txt"].error
    assert reopened.search_sync("Aurora Wh/kg", 1)[0].location == "a.md"  # the rest goes on

    time.sleep(0.01)
    write(root, "sub/b.txt", NORVIK.replace("N2", "N3") + "\n")  # a real change: read again
    fresh = LocalCorpus(root, Path(cache_dir), 600)
    assert fresh.refresh().extracted == 1
    assert fresh.search_sync("Norvik Halvard", 1)[0].text == NORVIK.replace("N2", "N3")
    assert not fresh.problems()


def test_an_index_of_an_older_version_is_rebuilt_cleanly(tmp_path: Path, cache_dir: str) -> None:
    root = tmp_path / "corpus"
    make_corpus(root)
    corpus = LocalCorpus(root, Path(cache_dir), 600)
    corpus.index_dir.mkdir(parents=True)
    (corpus.index_dir / "manifest.json").write_text(json.dumps({"version": 3, "files": {}}))
    (corpus.index_dir / "bm25f").mkdir()
    (corpus.index_dir / "bm25f" / "idf.npy").write_bytes(b"old")
    (corpus.index_dir / "tokens.npz").write_bytes(b"old")

    stats = corpus.refresh()
    assert stats.extracted == 3 and stats.rebuilt
    assert corpus.search_sync("Norvik Halvard", 1)[0].text == NORVIK
    left = {p.name for p in corpus.index_dir.iterdir()}
    assert "bm25f" not in left and "tokens.npz" not in left


def test_the_snapshot_store_refuses_and_rewrites_a_damaged_snapshot(cache_dir: str) -> None:
    from grounded_research.retrieval.snapshots import SnapshotDamaged

    store = SnapshotStore.in_cache(cache_dir)
    digest = store.put("Verbatim text.")
    flip_bytes(store.path(digest))
    with pytest.raises(SnapshotDamaged, match="damaged"):
        store.get(digest)
    assert store.put("Verbatim text.") == digest  # a whole copy is written over it
    assert store.get(digest) == "Verbatim text."


def test_a_cached_page_with_a_damaged_snapshot_is_fetched_again(cache_dir: str) -> None:
    from grounded_research.retrieval.web import PageCache, WebPage

    store = SnapshotStore.in_cache(cache_dir)
    cache = PageCache(Path(cache_dir), store)
    text = "The Zorbit gizmo costs 40 euros."
    page = WebPage(
        url="https://example.org/z",
        status="fetched",
        location="https://example.org/z",
        title="Zorbit",
        sha256=store.put(text),
        text=text,
        fetched_at=datetime.now(UTC).isoformat(),
    )
    cache.put(page)
    assert cache.get(page.url, 7.0) is not None
    cut_in_half(store.path(page.sha256))
    assert cache.get(page.url, 7.0) is None  # not a torso of the page: fetched again


def test_a_build_that_fails_half_way_leaves_the_previous_index(
    tmp_path: Path,
    cache_dir: str,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    from grounded_research.retrieval import local

    root = tmp_path / "corpus"
    make_corpus(root)
    LocalCorpus(root, Path(cache_dir), 600).refresh()
    time.sleep(0.01)
    write(root, "a.md", "# Aurora\n\nThe Aurora A1 cell now reaches 470 Wh/kg.\n")

    def disk_full(target: Path, data: bytes | str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(local, "write_atomic", disk_full)  # the manifest is not written
    with caplog.at_level(logging.WARNING):
        unsaved = LocalCorpus(root, Path(cache_dir), 600)
        unsaved.refresh()  # the run goes on with the index it built, in memory
    assert "index not saved (No space left on device)" in caplog.text
    assert "470 Wh/kg" in unsaved.search_sync("Aurora Wh/kg", 1)[0].text
    monkeypatch.undo()
    caplog.clear()

    with caplog.at_level(logging.WARNING):
        reopened = LocalCorpus(root, Path(cache_dir), 600)
        assert reopened.refresh().extracted == 1  # the previous index, whole: no warning
    assert not caplog.records
    assert "470 Wh/kg" in reopened.search_sync("Aurora Wh/kg", 1)[0].text
    [index] = Path(cache_dir, "index").iterdir()
    assert len(list(index.glob("bm25f-*"))) == 1  # the failed build's folder is gone


def test_a_snapshot_name_that_is_no_digest_reads_no_file(tmp_path: Path, cache_dir: str) -> None:
    """A source's `sha256` comes from the state, which a server's caller may edit: a path
    in it must not reach a file outside the store, even one whose hash would not match."""
    store = SnapshotStore.in_cache(cache_dir)
    outside = write(tmp_path, "outside.txt", "secret")
    name = os.path.relpath(outside.with_suffix(""), store.root.parent)  # "../outside"

    assert (store.root / name[:2] / f"{name}.txt").resolve() == outside.resolve()
    with pytest.raises(FileNotFoundError, match="no snapshot is named"):
        store.get(name)
    assert name not in store
    assert store.get(store.put("kept")) == "kept"
