"""Ways to compare texts: whitespace collapsed and case folded; Markdown's escapes undone."""

from __future__ import annotations

import re

_MARKDOWN_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")  # a backslash before ASCII punctuation


def normalize(text: str) -> str:
    return " ".join(text.split()).casefold()


def unescaped(text: str) -> str:
    """The text with Markdown's backslash escapes undone, as a name in it is read: a page's
    heading "include\\_patterns" names the setting include_patterns."""
    return _MARKDOWN_ESCAPE.sub(r"\1", text)
