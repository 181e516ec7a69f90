"""Passages cut on paragraph and sentence bounds, as character spans of the snapshot.

Spans, not copies: `text[start:end]` is the passage, so evidence stays verbatim and can
always be traced back to (and expanded within) its snapshot.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise

from grounded_research.text.normalize import unescaped

Span = tuple[int, int]

_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n\s*")
# A sentence ends at . ! ? (optionally closed by a quote or bracket) before whitespace and
# a capital, digit, quote or bracket; or right after a CJK full stop.
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"'”’)\]]*\s+(?=[\"'“‘(\[A-Z0-9])|(?<=[。！？；])\s*")
_ABBREVIATION = re.compile(
    r"(?:\b(?:e\.g|i\.e|etc|vs|cf|al|approx|no|nos|fig|figs|inc|ltd|co|corp|dr|mr|mrs|ms|st|jan|"
    r"feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec|u\.s|u\.k|"
    # titles and ranks before a name, and what follows one ("Rear Adm. J. Edward Snyder,
    # USN (Ret.) (October 23, 1924 – …) was …", "Martin Luther King Jr. Day")
    r"adm|capt|cmdr|col|gen|gov|lt|maj|sgt|cpl|pvt|brig|prof|rev|hon|mt|jr|sr|ret|bros)"
    r"|\b[A-Z])\.$",
    re.IGNORECASE,
)
_ITEM_MARK = r"(?:[-*+•]|\d{1,3}[.)])\s"  # what opens a list item: "- ", "9. ", "2) "
_BLOCK_LINE = re.compile(
    rf"^\s*(?:#{{1,6}}\s|{_ITEM_MARK}|\||>|(?:By|Published|Updated|Posted|Date|Source)\b)"
)
_HEADING = re.compile(r"^[ \t]*(#{1,6})[ \t]+(.+?)[ \t#¶]*$", re.MULTILINE)
HEADING_LINE = re.compile(r"#{1,6}\s")  # a sentence span (`sentences`) that is a heading
# A line that opens an item of a list: the item's earlier sentences lead its later ones, not
# the items before it (each option of a list has its own "**Default:**").
LIST_ITEM = re.compile(rf"[ \t]*{_ITEM_MARK}")
# A paragraph that is one bold label ending with a colon (`list_labels`).
_LIST_LABEL = re.compile(r"\*\*(?P<label>[^*\n]{2,120}?)\s*(?:[:：]\*\*|\*\*[:：])")
# What opens a line of a list, a quote or a heading: not part of the sentence it holds
# ("9. Upgrade step by step" says no number).
LINE_MARKER = re.compile(rf"^(?:{_ITEM_MARK}\s*|>\s*|#{{1,6}}\s+)")
# A fenced code block; a fence may open after text on its line (an inline code span that
# breaks a line is fenced where it stands), but it ends its line, bar a language name:
# three backticks with more text after them on their line are inline code ("`` ` ```command``",
# the Bash manual's old-style command substitution), not a fence.
_CODE_FENCE = re.compile(r"```[\w+-]*[ \t]*(?:\n|\Z).*?(?:```|\Z)", re.DOTALL)

_RULE = r"[ \t]*\|(?:[ \t]*:?-+:?[ \t]*\|)+[ \t]*"  # the line under a table's header row
# A markdown table with a header row: the header, the rule under it, its body rows.
_TABLE = re.compile(
    rf"^[ \t]*(?P<header>\|.*\|)[ \t]*\n{_RULE}\n(?P<body>(?:[ \t]*\|.*(?:\n|\Z))*)",
    re.MULTILINE,
)
_RULE_LINE = re.compile(rf"^{_RULE}$", re.MULTILINE)
_CELL = re.compile(r"(?<!\\)\|")  # a cell break; "\|" is a pipe in a cell


@dataclass(frozen=True)
class Chunk:
    start: int
    end: int
    heading: str = ""  # the nearest heading above the passage
    headings: tuple[str, ...] = ()  # every enclosing heading, outermost first (h1 > h2 > h3)


def paragraphs(text: str) -> list[Span]:
    spans: list[Span] = []
    position = 0
    for match in _PARAGRAPH_BREAK.finditer(text):
        spans.extend(_trimmed(text, position, match.start()))
        position = match.end()
    spans.extend(_trimmed(text, position, len(text)))
    return spans


def sentences(text: str, start: int = 0, end: int | None = None, titled: bool = True) -> list[Span]:
    """Sentence spans inside `text[start:end]`; lines of lists, headings and tables and
    lines that end a sentence stand alone, hard-wrapped prose is joined. `titled`: the
    text starts a document, whose first line is its title (not a passage cut from it,
    whose first line is one like the others)."""
    end = len(text) if end is None else end
    return _split_lines(text, _logical_lines(text, start, end, titled))


def _split_lines(text: str, lines: list[Span]) -> list[Span]:
    """The sentence spans of these logical lines (`sentences`)."""
    spans: list[Span] = []
    for line_start, line_end in lines:
        position = line_start
        for match in _SENTENCE_END.finditer(text, line_start, line_end):
            if _ABBREVIATION.search(text[max(line_start, match.start() - 8) : match.start()]):
                continue
            spans.extend(_trimmed(text, position, match.start()))
            position = match.end()
        spans.extend(_trimmed(text, position, line_end))
    return spans


def sentences_with_lead(
    text: str, code_led: bool = False, titled: bool = True
) -> list[tuple[int, int, str]]:
    """Each sentence's span with the text before it in its paragraph (which often says
    what a bare value is the value of: a table's earlier rows, a setting's description),
    or in its list item when it stands in one ("`cost` <number> CPU/memory cost parameter.
    … **Default:** `16384`.": the items before it are other options).
    `code_led`: a code block's lines lead with the paragraph that introduces the block
    too, for a question a command answers: a command says nothing of what it does
    ("sha256sum filename.iso" after "To compute the checksum of a downloaded image,
    use")."""
    spans: list[tuple[int, int, str]] = []
    previous = -1  # where the paragraph before starts
    for para_start, para_end in paragraphs(text):
        lead_start = para_start
        if code_led and previous >= 0 and text.startswith("```", para_start):
            lead_start = para_start if HEADING_LINE.match(text, previous) else previous
        lines = _logical_lines(text, para_start, para_end, titled)
        items = [line_start for line_start, _ in lines if LIST_ITEM.match(text, line_start)]
        for start, end in _split_lines(text, lines):
            item = bisect_right(items, start) - 1
            spans.append((start, end, text[items[item] if item >= 0 else lead_start : start]))
        previous = para_start
    return spans


def chunk_text(text: str, chunk_size: int) -> list[Chunk]:
    """Greedy passages of whole sentences up to about `chunk_size` characters; small
    paragraphs share a passage, a sentence longer than twice the size is cut at spaces.
    A passage's heading path is the one its first words lie under (after the headings it
    may start with)."""
    headings = heading_paths(text)
    heading_starts = {position for position, _ in headings}
    pieces: list[Span] = []
    for para_start, para_end in paragraphs(text):
        para_sentences = sentences(text, para_start, para_end)
        for sentence in para_sentences:
            pieces.extend(_split_long(text, sentence, 2 * chunk_size))
        if pieces:
            pieces.append((-1, -1))  # paragraph mark
    chunks: list[Chunk] = []
    current: Span | None = None
    content = -1  # where the current passage's first words after its headings start
    for piece in pieces:
        if piece == (-1, -1):
            if current and current[1] - current[0] >= chunk_size // 2:
                chunks.append(_with_heading(current, content, headings))
                current = None
            continue
        is_heading = piece[0] in heading_starts
        if current is None:
            current, content = piece, -1
        elif piece[1] - current[0] <= chunk_size:
            current = (current[0], piece[1])
        else:
            chunks.append(_with_heading(current, content, headings))
            current, content = piece, -1
        if content == -1 and not is_heading:
            content = piece[0]
    if current:
        chunks.append(_with_heading(current, content, headings))
    return chunks


def _logical_lines(text: str, start: int, end: int, titled: bool) -> list[Span]:
    lines: list[Span] = []
    position = start
    while position < end:
        newline = text.find("\n", position, end)
        line_end = end if newline == -1 else newline
        lines.append((position, line_end))
        position = line_end + 1
    merged: list[Span] = []
    fenced = [(m.start(), m.end()) for m in _CODE_FENCE.finditer(text, start, end)]
    for line in lines:
        if merged and _continues(text, merged[-1], line, titled, inside(fenced, line[0])):
            merged[-1] = (merged[-1][0], line[1])
        else:
            merged.append(line)
    return merged


def _continues(text: str, previous: Span, line: Span, titled: bool, in_code: bool) -> bool:
    previous_text = text[previous[0] : previous[1]].rstrip()
    line_text = text[line[0] : line[1]]
    if not previous_text or not line_text.strip():
        return False
    if _BLOCK_LINE.match(line_text) or previous_text.lstrip().startswith(("#", "|")):
        return False
    if previous_text.rsplit(None, 1)[-1].lower() in _CONTINUING:
        return True
    title = titled and previous[0] == 0 and len(previous_text) < 120
    if title and not _BLOCK_LINE.match(previous_text):
        return False  # the first line of a plain-text file is its title; not a list item
    if previous_text[-1] in ".!?:;。！？；":
        return False
    if not in_code and _goes_on_in_lowercase(previous_text, line_text):
        return True
    return len(previous_text) >= 40 or _hangs_under(previous_text, line_text)


def _goes_on_in_lowercase(previous: str, line: str) -> bool:
    """Whether the line, opening with a lowercase letter after a line that ends no
    sentence, goes on with that sentence however short the line before it ("The
    `MaxKeepAliveRequests` directive" over "limits the number of requests …": docs wrap
    their prose around inline code). Asked only outside code blocks, whose short lines
    are statements of their own ("import sys", "import os"); not after a bold line, a
    term or a label whose description hangs under it (`_hangs_under`)."""
    opening = line.lstrip()[:1]
    return opening.isalpha() and opening.islower() and not previous.lstrip().startswith("**")


def _hangs_under(term: str, line: str) -> bool:
    """Whether `line` is indented deeper than the single line `term` above it, which
    opens in bold: a manual page's options and settings, whose term line holds the name
    and the default ("**smtpd_recipient_limit (1000)**") and whose indented lines say
    what it is. The two are one statement; a description quoted without its term says
    of nothing. (Code indents its lines too, but opens none in bold; a section's heading,
    "**SEE ALSO**", is in capitals.)"""
    if "\n" in term or not term.lstrip().startswith("**") or term.upper() == term:
        return False
    return len(line) - len(line.lstrip()) > len(term) - len(term.lstrip())


# Words no sentence, title or list item ends with: a line ending with one is hard-wrapped
# prose, however short ("If `jsonlog` is included in" / "`log_destination`, log …").
_CONTINUING = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "in",
        "on",
        "to",
        "for",
        "with",
        "by",
        "from",
        "into",
        "than",
        "and",
        "or",
        "nor",
        "that",
        "which",
        "is",
        "are",
        "was",
        "were",
        "be",
    ]
)


def _split_long(text: str, span: Span, limit: int) -> list[Span]:
    start, end = span
    parts: list[Span] = []
    while end - start > limit:
        cut = text.rfind(" ", start + limit // 2, start + limit)
        cut = start + limit if cut == -1 else cut
        parts.extend(_trimmed(text, start, cut))
        start = cut
    parts.extend(_trimmed(text, start, end))
    return parts


def _trimmed(text: str, start: int, end: int) -> list[Span]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return [(start, end)] if end > start else []


def heading_paths(text: str) -> list[tuple[int, tuple[str, ...]]]:
    """Each markdown heading's position (its first `#`) and its path: the heading with
    the nearest heading of every higher level above it ("Release 15", "Changes",
    "Server"). A `#` line inside a code fence is code (a shell or Python comment).
    A list's label (`list_labels`) heads the items of its list, one level below the
    heading above it: the path goes back to that heading where the list ends (a
    position past the list's last character, where no sentence starts; `heading_lines`
    leaves it out)."""
    out: list[tuple[int, tuple[str, ...]]] = []
    stack: list[tuple[int, str]] = []
    fences = code_blocks(text)
    for match in _HEADING.finditer(text):
        if fences and inside(fences, match.start()):
            continue  # a comment line of code ("# The decorator ..."), no heading
        level, title = len(match.group(1)), match.group(2).strip()
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, title))
        out.append((match.start(1), tuple(t for _, t in stack)))
    labelled: list[tuple[int, tuple[str, ...]]] = []
    for start, end, label in list_labels(text, fences):
        above = path_at(out, start)
        labelled += [(start, (*above, label)), (end, above)]
    return sorted(out + labelled, key=lambda entry: entry[0]) if labelled else out


def list_labels(text: str, fences: list[Span]) -> list[tuple[int, int, str]]:
    """Each list introduced by a label of its own, a paragraph that is all bold and ends
    with a colon ("**Changes in version 3.39.0 (2022-06-25):**" over the changes of a
    release's notes, "**Policy Changes:**"): where the label starts, where its list
    ends, and the label. The items say what changed; only the label says in which
    release, or of what."""
    if "**" not in text:  # most passages: no bold, no label (a hot path of the checks)
        return []
    spans = paragraphs(text)
    out: list[tuple[int, int, str]] = []
    for at, (start, end) in enumerate(spans):
        label = _LIST_LABEL.fullmatch(text, start, end)
        if label is None or at + 1 == len(spans) or (fences and inside(fences, start)):
            continue
        last = at
        while last + 1 < len(spans) and LIST_ITEM.match(text, spans[last + 1][0]):
            last += 1
        if last > at:
            out.append((start, spans[last][1], label["label"].strip()))
    return out


def is_list_label(line: str) -> bool:
    """Whether a line is a list's label (`list_labels`): "**Changes in version 3.39.0
    (2022-06-25):**"."""
    return _LIST_LABEL.fullmatch(line.strip()) is not None


def heading_named(name: str) -> Callable[[str], bool]:
    """A test that a heading's line is the heading of that name, its markup around it
    ("## pytest 7.2.0 (2022-10-23)¶", "**Changes in version 3.39.0 (2022-06-25):**",
    "##### $smtp\\_command\\_history", its underscores escaped)."""
    return lambda line: name in line or name in unescaped(line)


def table_headers(text: str) -> list[tuple[int, int, str]]:
    """Each markdown table with a header row: where its body rows start and end, and its
    header's cells ("Install Type | RAM (minimum) | RAM (recommended)"). A row quoted
    alone ("No desktop: 256 megabytes, 512 megabytes") says what its cells are only
    through the header; a table with no header row (no rule under its first row) has
    none to give."""
    return [(match.start("body"), match.end("body"), header) for match, header in _headed(text)]


def with_rows_read(text: str) -> str:
    """The text, then each body row of its headed tables as its first cell after its
    column's name ("Node-API version 9" of the row "| 9 | v18.17.0+ |" under "| Node-API
    version | Supported In |"), a line each: what a row is about, which the cell alone
    does not say. Not its other cells: they say what holds of it ("| April 2023 | 20.04
    LTS | 3.8+ |" is about a date, not Python 3.8)."""
    read = [text]
    for match, _ in _headed(text):
        name = _cells(match["header"])[0]
        for row in match["body"].splitlines():
            if row.strip() and (first := _cells(row)[0]):
                read.append(f"{name} {first}")
    return "\n".join(read)


def header_rows(text: str) -> list[Span]:
    """The header rows of the tables `table_headers` reads: shown above their rows, not
    quoted as a row of their own ("Test: Result")."""
    return [match.span("header") for match, _ in _headed(text)]


def _headed(text: str) -> list[tuple[re.Match[str], str]]:
    """Each markdown table with a header row, and its header's cells. Not a table of
    labels and values, every row's first cell a label ("| Description: | … |", "|
    Status: | Extension |"): a converter writes a rule under its first row because
    Markdown wants one, and that row is a row like the others."""
    out: list[tuple[re.Match[str], str]] = []
    for match in _TABLE.finditer(text):
        cells = _cells(match["header"])
        rows = [cells, *(_cells(row) for row in match["body"].splitlines() if row.strip())]
        if any(cells) and not all(row[0].endswith(":") for row in rows):
            out.append((match, " | ".join(cells)))
    return out


def _cells(row: str) -> list[str]:
    return [cell.strip() for cell in _CELL.split(row.strip().strip("|"))]


def below_rule(lead: str) -> str:
    """A table row's lead (the rows above it in its paragraph) from below the table's rule
    on: without the header row, which is shown above the rows, not read into one."""
    rules = list(_RULE_LINE.finditer(lead))
    return lead[rules[-1].end() :].lstrip("\n") if rules else lead


def header_at(tables: Sequence[tuple[int, int, str]], position: int) -> str:
    """The header of the table whose body rows hold the position (`table_headers`)."""
    at = bisect_right(tables, position, key=lambda t: t[0]) - 1
    return tables[at][2] if at >= 0 and position < tables[at][1] else ""


def code_blocks(text: str, opens_in_code: bool = False) -> list[Span]:
    """The fenced code blocks of a markdown text, in order. `opens_in_code`: the text is
    a passage cut from inside a block (`opens_in_block`), its first lines code that no
    fence opens, and the fence that closes them opens nothing."""
    if opens_in_code:
        return [(max(0, start - 4), end - 4) for start, end in code_blocks(f"```\n{text}")]
    return [(m.start(), m.end()) for m in _CODE_FENCE.finditer(text)] if "```" in text else []


def opens_in_block(blocks: Sequence[Span], position: int) -> bool:
    """Whether a passage starting at the position of a text with these code blocks
    starts inside one, past its opening fence."""
    at = bisect_right(blocks, position, key=lambda span: span[0]) - 1
    return at >= 0 and blocks[at][0] < position < blocks[at][1]


def inside(spans: list[Span], position: int) -> bool:
    """Whether the position lies in one of the sorted, disjoint spans."""
    at = bisect_right(spans, position, key=lambda span: span[0]) - 1
    return at >= 0 and position < spans[at][1]


def heading_lines(
    text: str, paths: Sequence[tuple[int, tuple[str, ...]]]
) -> list[tuple[int, tuple[str, ...]]]:
    """The entries of `heading_paths` that start a heading's line (a `#` heading or a
    list's label): not where a labelled list ends, which holds no heading."""
    return [(position, path) for position, path in paths if text[position : position + 1].strip()]


def path_at(paths: Sequence[tuple[int, tuple[str, ...]]], position: int) -> tuple[str, ...]:
    """The heading path at a position of the text `heading_paths` read."""
    above = bisect_right(paths, position, key=lambda p: p[0]) - 1
    return paths[above][1] if above >= 0 else ()


def _with_heading(span: Span, content: int, headings: list[tuple[int, tuple[str, ...]]]) -> Chunk:
    """The passage with the heading path most of its words are under, from its first
    words on (after the headings it starts with; its start if it is all headings): a
    passage holding the last lines of one setting's entry and most of the next one's is
    the next one's."""
    begin = content if content != -1 else span[0]
    first = bisect_right(headings, begin, key=lambda h: h[0])
    last = bisect_left(headings, span[1], key=lambda h: h[0])
    within = [position for position, _ in headings[first:last]]
    bounds = [begin, *within, span[1]]
    share: dict[tuple[str, ...], int] = {}
    for start, end in pairwise(bounds):
        path = path_at(headings, start)
        share[path] = share.get(path, 0) + end - start
    path = max(share, key=lambda p: share[p])  # the first of equals: dicts keep order
    return Chunk(span[0], span[1], path[-1] if path else "", path)
