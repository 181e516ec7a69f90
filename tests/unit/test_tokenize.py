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


def test_an_option_is_searched_whole_as_well_as_by_its_words() -> None:
    """ "--napi-modules" is "napi" and "modul", and the option whole; words a dash joins in
    prose, versions, dates and single-letter flags are no option names."""
    from grounded_research.text.tokenize import option_names

    assert tokenize("the `--napi-modules` flag") == ["napi", "modul", "flag"]
    assert option_names("the `--napi-modules` flag, -max-old-space-size") == [
        "napi-modules",
        "max-old-space-size",
    ]
    assert option_names("A built-in from Jean-Paul, -f, --all, 3.11-2, 2021-11-27.") == []
