"""One way to compare texts: whitespace collapsed, case folded."""

from __future__ import annotations


def normalize(text: str) -> str:
    return " ".join(text.split()).casefold()
