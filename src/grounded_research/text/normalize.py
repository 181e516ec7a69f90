"""Ways to compare texts: whitespace collapsed and case folded; Markdown's escapes undone;
Latin letters without their accents."""

from __future__ import annotations

import re
import unicodedata

_MARKDOWN_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")  # a backslash before ASCII punctuation


def normalize(text: str) -> str:
    return " ".join(text.split()).casefold()


def unescaped(text: str) -> str:
    """The text with Markdown's backslash escapes undone, as a name in it is read: a page's
    heading "include\\_patterns" names the setting include_patterns."""
    return _MARKDOWN_ESCAPE.sub(r"\1", text)


_ACCENTED = re.compile(r"[\u00c0-\u024f\u1e00-\u1eff]")  # Latin letters that may carry one


def unaccented(text: str) -> str:
    """The text with the accents of Latin letters dropped, as a name is typed on a plain
    keyboard: "Malmo" names Malmö, "Aonghus Mor" Aonghus Mór. Other scripts are left as
    they are (a Japanese voiced mark is not an accent)."""
    return _ACCENTED.sub(_unaccent, text)


def _unaccent(match: re.Match[str]) -> str:
    letters = unicodedata.normalize("NFKD", match.group(0))
    return "".join(c for c in letters if not unicodedata.combining(c))
