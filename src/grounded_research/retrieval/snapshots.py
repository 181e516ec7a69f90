"""Content-addressed snapshots of extracted source text.

A snapshot is stored once under the sha256 of its UTF-8 text, so the same text found
twice costs nothing and evidence offsets stay valid as long as the hash does. The name
is also its checksum: `get` hashes what it reads and refuses a snapshot that no longer
matches it (cut short, a changed byte), so a damaged one is never quoted.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from grounded_research.files import write_atomic

DIGEST = re.compile(r"[0-9a-f]{64}")


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class SnapshotDamaged(ValueError):
    """A snapshot whose bytes no longer hash to its name."""


class SnapshotStore:
    def __init__(self, root: Path) -> None:
        self.root = root

    @classmethod
    def in_cache(cls, cache_dir: str | Path) -> SnapshotStore:
        return cls(Path(cache_dir) / "snapshots")

    def path(self, sha256: str) -> Path:
        """Where the snapshot of that digest lives. A name that is no digest (a state
        a caller of a server edited: `../../x`) names no snapshot, and no file is read."""
        if not DIGEST.fullmatch(sha256):
            raise FileNotFoundError(f"no snapshot is named {sha256[:80]!r}")
        return self.root / sha256[:2] / f"{sha256}.txt"

    def put(self, text: str) -> str:
        """Store `text` under its hash; a snapshot already there is kept if it is whole
        and written again if it is not."""
        payload = text.encode("utf-8")
        digest = hashlib.sha256(payload).hexdigest()
        target = self.path(digest)
        try:
            if target.stat().st_size == len(payload) and target.read_bytes() == payload:
                return digest
        except OSError:
            pass  # not there yet (or unreadable): written below
        write_atomic(target, payload)
        return digest

    def get(self, sha256: str) -> str:
        """The text stored under `sha256`; `SnapshotDamaged` if the file no longer holds
        it, FileNotFoundError if there is none."""
        payload = self.path(sha256).read_bytes()
        if hashlib.sha256(payload).hexdigest() != sha256:
            raise SnapshotDamaged(
                f"snapshot {sha256[:12]} is damaged ({len(payload)} bytes that do not match"
                " its hash)"
            )
        return payload.decode("utf-8")

    def __contains__(self, sha256: str) -> bool:
        return bool(DIGEST.fullmatch(sha256)) and self.path(sha256).exists()
