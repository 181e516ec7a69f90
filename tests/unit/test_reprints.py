from __future__ import annotations

import numpy as np
import pytest

from grounded_research.retrieval.snapshots import sha256_text
from grounded_research.selection import reprints
from grounded_research.selection.reprints import find_reprints
from grounded_research.state import Source
from grounded_research.text.dates import date_key

ARTICLE = (
    "Aurora Cellworks today opened its first solid-state battery pilot line in Lund, Sweden. "
    "The pilot line has an annual capacity of 0.8 GWh and will produce the Aurora A1 cell. "
    "The opening ceremony was attended by representatives of automotive partners and the "
    "regional government. Construction of the line started in March 2023 and took fourteen "
    "months. The company plans to start series production in 2025 and is studying sites in "
    "Sweden and Finland for a larger factory. Aurora Cellworks was founded in 2019."
)
REPRINT = "# Syndicated copy\n\n" + ARTICLE + " EV Wire could not verify the figures."
OTHER = "Norvik Cells signed a supply agreement with Halvard Automotive for its N2 cell. " * 3


def sources_of(texts: dict[str, tuple[str, str | None]]) -> tuple[list[Source], dict[str, str]]:
    by_hash: dict[str, str] = {}
    sources = []
    for location, (text, published) in texts.items():
        digest = sha256_text(text)
        by_hash[digest] = text
        sources.append(
            Source(
                id=location, location=location, status="fetched", sha256=digest, published=published
            )
        )
    return sources, by_hash


def test_later_near_copy_is_a_duplicate_of_the_earlier_original() -> None:
    sources, texts = sources_of(
        {
            "syndicated/copy.md": (REPRINT, "2024-05-23"),
            "press/original.md": (ARTICLE, "2024-05-21"),
            "other.md": (OTHER, "2024-01-01"),
        }
    )
    assert find_reprints(sources, texts.__getitem__) == {"syndicated/copy.md": "press/original.md"}


def test_identical_text_is_a_duplicate_and_different_text_is_not() -> None:
    sources, texts = sources_of({"a.md": (ARTICLE, None), "b.md": (ARTICLE, None)})
    assert find_reprints(sources, texts.__getitem__) == {"b.md": "a.md"}
    sources, texts = sources_of({"a.md": (ARTICLE, None), "c.md": (OTHER, None)})
    assert find_reprints(sources, texts.__getitem__) == {}


def test_the_signature_cache_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    kept = reprints._Signatures(2)
    monkeypatch.setattr(reprints, "_SIGNATURES", kept)
    sources, texts = sources_of(
        {
            "syndicated/copy.md": (REPRINT, "2024-05-23"),
            "press/original.md": (ARTICLE, "2024-05-21"),
            "other.md": (OTHER, "2024-01-01"),
        }
    )
    read: list[str] = []

    def text_of(sha256: str) -> str:
        read.append(sha256)
        return texts[sha256]

    for _ in range(2):
        assert find_reprints(sources, text_of) == {"syndicated/copy.md": "press/original.md"}
        assert len(kept) == 2
    assert len(read) > len(set(read)), "what fell out of the cache is computed again"


def test_dates_written_in_common_forms_sort() -> None:
    assert date_key("2024-05-21") == "2024-05-21"
    assert date_key("March 2024") == "2024-03-00"
    assert date_key("21 May 2024") == "2024-05-21"
    assert date_key("May 21, 2024") == "2024-05-21"
    assert date_key(None) == ""


@pytest.mark.parametrize(("added", "reprint"), [(45, True), (70, False)])
def test_the_verdict_is_the_exact_similarity_not_the_estimate(added: int, reprint: bool) -> None:
    """198 shared shingles: with 45 more words the copy is at 0.81 (a reprint), with 70
    at 0.74 (not); an estimate near 0.8 would fall either way by chance."""
    article = " ".join(f"word{i}" for i in range(200))
    copy = article + " " + " ".join(f"note{i}" for i in range(added))
    texts = {sha256_text(article): article, sha256_text(copy): copy}
    sources = [
        Source(id="a", location="a.md", status="fetched", sha256=sha256_text(article)),
        Source(id="b", location="b.md", status="fetched", sha256=sha256_text(copy)),
    ]

    assert (find_reprints(sources, texts.__getitem__) == {"b": "a"}) is reprint


# Values datasketch 2.0's MinHash(num_perm=128) gives for these shingle sets (its default
# affine32 scheme), which `signature` reproduces without datasketch and scipy.
DATASKETCH_SIGNATURES = [
    (["aurora cellworks today"], [89183053, 2832290118, 955029140, 2879122261, 4150445397]),
    (
        ["aurora cellworks today", "cellworks today opened", "today opened its"],
        [89183053, 2832290118, 955029140, 1977898130, 2887466856],
    ),
]


@pytest.mark.parametrize(("items", "first"), DATASKETCH_SIGNATURES)
def test_signatures_are_datasketch_s_to_the_bit(items: list[str], first: list[int]) -> None:
    computed = reprints.signature(items)
    assert computed.dtype == np.uint32 and computed.shape == (reprints.PERMUTATIONS,)
    assert computed[:5].tolist() == first
    assert computed[-2:].tolist() == [429969478, 318463798]
    assert np.array_equal(reprints.signature(reversed(items)), computed)  # a set: no order


def test_one_equal_band_makes_a_candidate_and_none_does_not() -> None:
    bands = reprints._Bands()
    stored = np.arange(reprints.PERMUTATIONS, dtype=np.uint32)
    bands.insert("stored", stored)
    one_band_equal = stored + 1
    one_band_equal[reprints.ROWS * 3 : reprints.ROWS * 4] = stored[
        reprints.ROWS * 3 : reprints.ROWS * 4
    ]
    almost = stored.copy()
    almost[:: reprints.ROWS] += 1  # one value off in every band
    assert bands.query(one_band_equal) == {"stored"}
    assert bands.query(almost) == set()
