"""Faults of the disk under a run on a local corpus: a snapshot folder that cannot be
written, a disk that fills while the index is written, a corpus file that goes away
after it was indexed. Each run finishes with the fault recorded; outcomes go to
docs/reliability.md (`tests/reliability.py`)."""

from __future__ import annotations

import errno
from pathlib import Path
from typing import Any

import pytest

from grounded_research.api import ResearchResult, research
from grounded_research.errors import GroundedResearchError
from grounded_research.retrieval import local
from grounded_research.retrieval.snapshots import SnapshotStore
from tests.conftest import write
from tests.reliability import observed, plain

QUESTION = "What energy density does the Aurora A1 cell reach?"


def make_corpus(root: Path) -> None:
    write(
        root, "a.md", "# Aurora A1\n\nThe Aurora A1 cell reaches an energy density of 450 Wh/kg.\n"
    )
    write(root, "b.md", "# Review\n\nIndependent tests confirm the Aurora A1 energy density.\n")


def run(root: Path, cache: Path, **options: Any) -> ResearchResult:
    settings = {"selection_strategy": "keyword", "embeddings": "none", "max_rounds": 0}
    return research(
        QUESTION, corpus=str(root), cache_dir=str(cache), checkpointer="none", **settings | options
    )


def summary(result: ResearchResult, *folders: Path) -> str:
    failed = sorted(
        f"{s.location}: {s.error}" for s in result.sources.values() if s.status != "fetched"
    )
    cited = sorted({r.location for r in result.references})
    text = (
        f"status {result.status}. cited: {', '.join(cited) or 'nothing'}. "
        f"failed sources: {'; '.join(failed) or 'none'}"
    )
    return plain(text, *folders)


def test_a_snapshot_folder_that_cannot_be_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, cache = tmp_path / "corpus", tmp_path / "cache"
    make_corpus(root)

    def refuse(self: SnapshotStore, text: str) -> str:  # as a read-only folder does (root
        raise PermissionError(errno.EACCES, "Permission denied", str(self.root))  # ignores chmod)

    monkeypatch.setattr(SnapshotStore, "put", refuse)
    try:
        outcome = summary(run(root, cache), tmp_path)
    except GroundedResearchError as error:
        outcome = plain(f"exit {error.exit_code}: {error}", tmp_path)
    observed("storage.snapshots_readonly", outcome)


def test_a_full_disk_while_the_index_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    root, cache = tmp_path / "corpus", tmp_path / "cache"
    make_corpus(root)
    original = local.write_atomic

    def full(path: Path, data: str | bytes) -> None:
        if path.name == local.TOKENS_FILE:
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        original(path, data)

    monkeypatch.setattr(local, "write_atomic", full)
    try:
        outcome = summary(run(root, cache), tmp_path)
    except GroundedResearchError as error:
        outcome = plain(f"exit {error.exit_code}: {error}", tmp_path)
    said = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    observed("storage.index_disk_full", outcome + ". stderr: " + plain("; ".join(said), tmp_path))


def test_a_corpus_file_removed_after_indexing_is_quoted_from_its_snapshot(
    tmp_path: Path,
) -> None:
    root, cache = tmp_path / "corpus", tmp_path / "cache"
    make_corpus(root)
    corpus = local.open_corpus(str(root), str(cache), 600)
    (root / "a.md").unlink()  # after the index, before the search reads it
    hits = corpus.search_sync("Aurora energy density Wh/kg", 3)
    store = SnapshotStore.in_cache(cache)
    assert all(store.get(hit.sha256)[hit.start : hit.end] == hit.text for hit in hits)
    observed(
        "storage.file_vanishes",
        f"the search still quotes it from its snapshot: {', '.join(h.location for h in hits)}; "
        + summary(run(root, cache), tmp_path)
        + " (the next run's refresh drops it)",
    )


def test_a_corpus_file_and_its_snapshot_removed_after_indexing(tmp_path: Path) -> None:
    root, cache = tmp_path / "corpus", tmp_path / "cache"
    make_corpus(root)
    corpus = local.open_corpus(str(root), str(cache), 600)
    [first] = corpus.search_sync("450 Wh/kg", 1)
    corpus._texts.clear()  # what a new process opening the index holds
    SnapshotStore.in_cache(cache).path(first.sha256).unlink()
    (root / "a.md").unlink()
    assert corpus.search_sync("450 Wh/kg", 3) == []  # never quoted from nothing
    problems = [f"{p.location} {p.status}: {p.error}" for p in corpus.problems()]
    observed(
        "storage.file_and_snapshot_vanish",
        "the search skips it and it becomes a source " + "; ".join(problems),
    )
