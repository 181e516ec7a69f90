"""Content-addressed snapshots of extracted source text.

A snapshot is stored once under the sha256 of its UTF-8 text, so the same text found
twice costs nothing and evidence offsets stay valid as long as the hash does.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class SnapshotStore:
    def __init__(self, root: Path) -> None:
        self.root = root

    @classmethod
    def in_cache(cls, cache_dir: str | Path) -> SnapshotStore:
        return cls(Path(cache_dir) / "snapshots")

    def path(self, sha256: str) -> Path:
        return self.root / sha256[:2] / f"{sha256}.txt"

    def put(self, text: str) -> str:
        digest = sha256_text(text)
        target = self.path(digest)
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=target.parent, suffix=".part")
            with os.fdopen(handle, "w", encoding="utf-8", newline="") as out:
                out.write(text)
            os.replace(temporary, target)
        return digest

    def get(self, sha256: str) -> str:
        with self.path(sha256).open(encoding="utf-8", newline="") as snapshot:
            return snapshot.read()

    def __contains__(self, sha256: str) -> bool:
        return self.path(sha256).exists()
