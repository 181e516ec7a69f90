"""write_atomic: the target holds the old bytes or the new ones, never a part."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from grounded_research.files import write_atomic


def test_writes_text_and_bytes_and_creates_the_folder(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "report.md"
    write_atomic(target, "héllo\r\n")
    assert target.read_bytes() == "héllo\r\n".encode()
    write_atomic(target, b"\x00\x01")
    assert target.read_bytes() == b"\x00\x01"
    assert os.listdir(target.parent) == ["report.md"]


def test_a_failed_write_keeps_the_old_file_and_leaves_no_part(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "evidence.json"
    target.write_text("old")

    def full_disk(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(OSError, match="No space"):
        write_atomic(target, "new")
    assert target.read_text() == "old"
    assert os.listdir(tmp_path) == ["evidence.json"]
