"""Search tokens: versions and releases match exactly."""

from __future__ import annotations

from grounded_research.text.tokenize import tokenize


def test_a_dotted_version_is_one_token() -> None:
    assert tokenize("PostgreSQL 15.15 and 15") == ["postgresql", "15.15", "15"]
    assert tokenize("new in Python 3.11, never 3.11.0") == [
        "new",
        "python",
        "3.11",
        "never",
        "3.11.0",
    ]
    assert tokenize("python3.11 and v2.1") == ["python", "3.11", "2.1"]
    assert tokenize("It shipped in 2019. Then 3.5 GWh.") == ["ship", "2019", "3.5", "gwh"]


def test_content_words_keep_versions_whole_and_words_keep_their_rule() -> None:
    """Facets (content words) are checked against search tokens, so they share the
    rule; words (the reprint check's shingles) are what they were."""
    from grounded_research.text.tokenize import content_words, words

    assert content_words("Release 15.15 of PostgreSQL") == ["release", "15.15", "postgresql"]
    assert words("Python 3.11 ships") == ["python", "3", "11", "ships"]
