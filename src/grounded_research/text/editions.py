"""A page's edition: the release of its product it says, at its top, that it documents.

Read when a page is indexed (`retrieval.local`), kept on its source (`Source.edition`),
and asked by the gap check and the answer line when a question asks what holds in a
release (`answers.names_subject`)."""

from __future__ import annotations

import re


def edition_of(text: str, title: str) -> str:
    """What a page says, near its top, of the release of its product it documents, under
    its title ("1. Introduction: This edition of the Exim specification applies to
    version 4.96 of Exim.", "Bash Reference Manual: This is Edition 5.2, … for `Bash`,
    Version 5.2.", a Texinfo title page's "The Z Shell Manual (zsh): Version 5.9", "This
    document contains installation instructions for the Debian GNU/Linux 12 system"
    under the title "Debian GNU/Linux Installation Guide"),
    whitespace collapsed; "" when it says none. A manual says so once, at its front, and
    its pages never again: asked what holds in Bash 5.2, the pages of Bash 5.2's manual
    answer (`LocalCorpus._editions_of` lends a folder's one edition to the pages filed beside it). A
    release the page only mentions is none ("New in version 3.20", "introduced in SQLite
    version 3.6.19", "from version 2.2 to 2.4", "version 3.81 or newer"), nor are two
    ("applicable to both version 2.0 and version 2.2")."""
    for sentence in _SENTENCE_END.split(text[:EDITION_WITHIN]):
        said = " ".join(sentence.split())
        if not _EDITION.search(said) or _MENTIONED_RELEASE.search(said):
            continue  # the releases are read only of a sentence that may state an edition
        if len(set(_releases_said(said, title))) == 1:
            return f"{title}: {said}"
    return ""


def edition_releases(edition: str) -> list[str]:
    """The release numbers an edition states ("4.96" of "… applies to version 4.96 of
    Exim.", "12" of "This document contains installation instructions for the Debian
    GNU/Linux 12 system" under the title "Debian GNU/Linux Installation Guide")."""
    title, _, said = edition.partition(": ")
    return _releases_said(said or title, title)


def _releases_said(said: str, title: str) -> list[str]:
    """The release numbers a sentence states: after "version", "release" or "edition";
    else after the name of the product the title names ("Debian GNU/Linux 12")."""
    releases = [m.group(1) for m in _EDITION_RELEASE.finditer(said)]
    if releases:
        return releases
    titled = set(title.lower().split())
    return [
        m.group(2)
        for m in _PRODUCT_RELEASE.finditer(said)
        if set(m.group(1).lower().split()) <= titled
    ]


EDITION_WITHIN = 3000  # characters from a page's top that its edition is looked for in
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n\s*\n|\n(?=#)")
_EDITION = re.compile(
    r"^\W*this\s+(?:is\s+)?(?:the\s+)?(?:edition|manual|document(?:ation)?|text|guide|book)\b"
    r"|\b(?:corresponds|applies)\s+to\b"
    r"|^\W*(?:version|release|edition)\s+v?\d+(?:\.\d+)+\W*(?:,\s*last\s+updated\b.*)?$",
    re.IGNORECASE,
)
_EDITION_RELEASE = re.compile(r"\b(?:version|release|edition)\s+v?(\d+(?:\.\d+)+)", re.IGNORECASE)
# A product's name and its release number: "Debian GNU/Linux 12", "PostgreSQL 15.4".
_PRODUCT_RELEASE = re.compile(
    r"\b((?:[A-Z][\w/+-]*\s+){0,3}[A-Z][\w/+-]*)\s+v?(\d+(?:\.\d+)*)(?![\w.-])"
)
_MENTIONED_RELEASE = re.compile(
    r"\b(?:since|from|introduced\s+in|added\s+in|new\s+in|changed\s+in|deprecated|removed"
    r"|as\s+of|before|after|until|prior\s+to)\s+(?:\w+\s+)?(?:version|release)\s+v?\d"
    r"|\b(?:version|release)\s+v?\d+(?:\.\d+)+(?:\+|\s+(?:or|and)\s+(?:later|newer|up|above))",
    re.IGNORECASE,
)
