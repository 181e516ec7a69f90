"""Writing files so that a reader never sees half of one, and reading back only whole ones.

Every file the program writes (report, evidence table, index parts, snapshots, caches) goes
through `write_atomic`: the bytes go to a temporary file in the target's own folder, are
flushed to disk, and the temporary file is renamed over the target, which POSIX makes
atomic. A crash, a kill or a full disk leaves the previous file or none, never a torso, and
no temporary file behind.

A rename does not protect a file after it is written: a disk, a copy or a hand can still
truncate or change it. A file that is read back later (an index part, a cache entry) is
kept with its `Fingerprint`, its size and sha256 taken from the bytes written, and
`damage` says whether what is on disk now is still that.

Runs in several processes share one cache folder: `exclusive` is the lock a process holds
while it rebuilds something the others read, so that a second one waits for the first
instead of writing over it.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock, Timeout

WAIT_NOTICE_SECONDS = 2.0  # how long `exclusive` waits before it says it is waiting


def write_atomic(target: Path, data: bytes | str) -> None:
    """Replace `target` with `data` (str is written as UTF-8, newlines kept as given)."""
    payload = data.encode("utf-8") if isinstance(data, str) else data
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(
        dir=target.parent, prefix=f".{target.name}.", suffix=".part"
    )
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(payload)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


@dataclass(frozen=True)
class Fingerprint:
    """What a file held when it was written: its size and the sha256 of its bytes."""

    size: int
    sha256: str

    @classmethod
    def of(cls, data: bytes) -> Fingerprint:
        return cls(len(data), hashlib.sha256(data).hexdigest())


def damage(path: Path, expected: Fingerprint) -> str | None:
    """Why the file at `path` is no longer what was written (missing, cut short, grown,
    changed), or None when it is. The size is checked first: a torn file costs a stat."""
    try:
        size = path.stat().st_size
        if size != expected.size:
            return f"{path.name} has {size} bytes, {expected.size} were written"
        digest = hashlib.sha256()
        with path.open("rb") as handle:
            while block := handle.read(1 << 20):
                digest.update(block)
    except OSError as error:
        return f"{path.name} cannot be read: {error.strerror or error}"
    if digest.hexdigest() != expected.sha256:
        return f"{path.name} does not match its checksum"
    return None


@contextlib.contextmanager
def exclusive(lock_path: Path, on_wait: Callable[[], None] | None = None) -> Iterator[None]:
    """Hold the lock at `lock_path` against every other process (and thread) that asks
    for it; `on_wait` is called once if another holder keeps us waiting. The operating
    system releases it when its holder dies, even by kill -9."""
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    lock = FileLock(lock_path)
    try:
        lock.acquire(timeout=WAIT_NOTICE_SECONDS)
    except Timeout:
        if on_wait is not None:
            on_wait()
        lock.acquire()
    try:
        yield
    finally:
        lock.release()
