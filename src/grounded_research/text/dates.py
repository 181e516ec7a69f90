"""Dates as written in sources, made sortable."""

from __future__ import annotations

import re

# The names of the months and the weekdays, declared once.
MONTHS = (
    "january", "february", "march", "april", "may", "june",
    "july", "august", "september", "october", "november", "december",
)  # fmt: skip
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")

_ISO = re.compile(r"(\d{4})-(\d{2})(?:-(\d{2}))?")
_MONTHS = {month[:3]: number for number, month in enumerate(MONTHS, 1)}
_WRITTEN = re.compile(r"(?:(\d{1,2})\s+)?([A-Za-z]{3})[a-z]*\.?\s+(?:(\d{1,2}),?\s+)?(\d{4})")


def date_key(published: str | None) -> str:
    """A sortable YYYY-MM-DD (parts unknown as 00) from the common ways dates are written."""
    if not published:
        return ""
    iso = _ISO.search(published)
    if iso:
        return f"{iso.group(1)}-{iso.group(2)}-{iso.group(3) or '00'}"
    written = _WRITTEN.search(published)
    if written and written.group(2).lower()[:3] in _MONTHS:
        day = written.group(1) or written.group(3) or "0"
        month = _MONTHS[written.group(2).lower()[:3]]
        return f"{written.group(4)}-{month:02d}-{int(day):02d}"
    year = re.search(r"\b(19|20)\d\d\b", published)
    return f"{year.group(0)}-00-00" if year else ""
