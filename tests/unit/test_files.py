"""write_atomic: the target holds the old bytes or the new ones, never a part."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from grounded_research.files import Fingerprint, damage, exclusive, write_atomic


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


def test_damage_names_what_changed_since_the_write(tmp_path: Path) -> None:
    target = tmp_path / "rows.npy"
    write_atomic(target, b"0123456789")
    written = Fingerprint.of(b"0123456789")
    assert damage(target, written) is None
    target.write_bytes(b"01234")
    assert damage(target, written) == "rows.npy has 5 bytes, 10 were written"
    target.write_bytes(b"0123456780")
    assert damage(target, written) == "rows.npy does not match its checksum"
    target.unlink()
    assert damage(target, written) == "rows.npy cannot be read: No such file or directory"


def test_exclusive_makes_a_second_holder_wait_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading
    import time

    from grounded_research import files

    monkeypatch.setattr(files, "WAIT_NOTICE_SECONDS", 0.05)
    lock = tmp_path / "index" / "refresh.lock"
    order: list[str] = []
    waited: list[bool] = []
    inside = threading.Event()

    def first() -> None:
        with exclusive(lock):
            inside.set()
            time.sleep(0.3)
            order.append("first done")

    thread = threading.Thread(target=first)
    thread.start()
    inside.wait(5)
    with exclusive(lock, on_wait=lambda: waited.append(True)):
        order.append("second in")
    thread.join()
    assert order == ["first done", "second in"] and waited == [True]
