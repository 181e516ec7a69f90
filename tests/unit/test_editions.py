"""A page's edition: the release of its product it says, at its top, that it documents."""

from __future__ import annotations

import pytest

from grounded_research.text.answers import edition_of_release, filed_at, names_subject
from grounded_research.text.editions import edition_of, edition_releases


@pytest.mark.parametrize(
    ("text", "edition"),
    [
        (
            "# Bash Features\n\nThis text is a brief description of the features that are "
            "present in the Bash shell (version 5.2, 19 September 2022).",
            "Bash Reference Manual: This text is a brief description of the features that "
            "are present in the Bash shell (version 5.2, 19 September 2022).",
        ),
        (
            "# 1. Introduction\n\nExim is a mail transfer agent. This edition of the Exim\n"
            "specification applies to version 4.96 of Exim.",
            "Bash Reference Manual: This edition of the Exim specification applies to "
            "version 4.96 of Exim.",
        ),
        ("# zsh\n\n### Version 5.9\n\nThe Z shell.", "Bash Reference Manual: ### Version 5.9"),
        # a release the page mentions is none of its own
        ("# add_link_options\n\nNew in version 3.13. Add options to the link step.", ""),
        ("# Foreign keys\n\nThis document describes support introduced in version 3.6.19.", ""),
        ("# API\n\nThis document describes changes from version 2.2 to 2.4.", ""),
        ("# Filters\n\nThis document is applicable to both version 2.0 and version 2.2.", ""),
        ("# Building\n\nThis guide needs GNU make version 3.81 or newer.", ""),
        ("# Intro\n\nThe protocol changed in version 3.0 of the server.", ""),
    ],
)
def test_a_page_says_at_its_top_which_release_it_documents(text: str, edition: str) -> None:
    assert edition_of(text, "Bash Reference Manual") == edition


def test_an_edition_may_state_its_release_as_the_products_name_and_number() -> None:
    """A guide says which release it documents as its product's name and a number, with
    no "version" before it: the name must be the title's, the release one."""
    title = "Debian GNU/Linux Installation Guide"
    text = (
        f"# {title}\n\nThis document contains installation instructions for the Debian "
        "GNU/Linux 12 system (codename “bookworm”), for the 64-bit PC (“amd64”) architecture."
    )
    edition = edition_of(text, title)
    assert edition.startswith(f"{title}: This document contains")
    assert edition_releases(edition) == ["12"]
    assert edition_of_release(edition, ["Debian"], "12")
    assert not edition_of_release(edition, ["Debian"], "13")
    # a product the title does not name, or two releases, state no edition
    assert edition_of(text.replace("Debian GNU/Linux 12", "Ubuntu 22"), title) == ""
    assert edition_of(text.replace("12 system", "11 and Debian 12 systems"), title) == ""


def test_an_edition_said_after_the_top_of_a_page_is_none() -> None:
    text = "# Manual\n\n" + "Words of the page. " * 200 + "This manual is for version 5.2."
    assert edition_of(text, "Manual") == ""


def test_an_edition_is_of_its_release_and_of_the_series_it_belongs_to() -> None:
    exim = "1. Introduction: This edition of the Exim specification applies to version 4.96."
    assert edition_releases(exim) == ["4.96"]
    assert edition_of_release(exim, ["Exim"], "4.96")
    assert edition_of_release(exim, ["exim"], "4")
    assert not edition_of_release(exim, ["Exim"], "4.9")  # 4.96 is not of the 4.9 series
    assert not edition_of_release(exim, ["Exim"], "4.97")
    assert not edition_of_release(exim, ["Postfix"], "4.96")  # another product's release


def test_a_sources_place_is_read_back_as_its_location_collection_and_edition() -> None:
    assert filed_at("a/b.html") == ("a/b.html", "", "")
    assert filed_at("a/b.html\nThe Manual") == ("a/b.html", "The Manual", "")
    assert filed_at("a/b.html\n\nzsh: Version 5.9") == ("a/b.html", "", "zsh: Version 5.9")


def test_a_page_of_an_edition_names_its_release_when_asked_what_holds_in_it() -> None:
    """Bash's manual says it is of Bash 5.2 once, at its top; asked whether Bash 5.2 can
    export arrays, its page on arrays answers, though it never says "5.2". Asked when
    Bash 5.2 came (no series), the edition says nothing of that."""
    subject = ({"bash"}, ["Bash 5.2"])
    text = "Array variables may not (yet) be exported."
    edition = "Bash Reference Manual: This is Edition 5.2, for `Bash`, Version 5.2."
    place = f"bash-doc/bashref.html\n\n{edition}"
    assert names_subject(text, subject, "Arrays", place, series=True)
    assert not names_subject(text, subject, "Arrays", place)
    assert not names_subject(text, subject, "Arrays", "bash-doc/bashref.html", series=True)
    assert not names_subject(text, ({"bash"}, ["Bash 5.3"]), "Arrays", place, series=True)
