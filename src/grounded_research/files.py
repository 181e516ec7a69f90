"""Writing files so that a reader never sees half of one.

Every file the program writes (report, evidence table, index parts, snapshots, caches) goes
through `write_atomic`: the bytes go to a temporary file in the target's own folder, are
flushed to disk, and the temporary file is renamed over the target, which POSIX makes
atomic. A crash, a kill or a full disk leaves the previous file or none, never a torso, and
no temporary file behind.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


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
