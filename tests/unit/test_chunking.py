from __future__ import annotations

import random

import pytest

from grounded_research.text.chunking import (
    chunk_text,
    code_blocks,
    header_at,
    header_rows,
    heading_paths,
    opens_in_block,
    paragraphs,
    path_at,
    sentences,
    sentences_with_lead,
    table_headers,
    with_rows_read,
)

TEXT = """# Aurora A1 (v2.1)

Aurora Cellworks said on 3 March 2024 that the A1 reaches 450 Wh/kg. Mass production,
e.g. in Lund, is planned for 2025! It is not yet delivered.

- item one with 3.5 GWh
- item two

固态电池的能量密度达到每公斤450瓦时。公司计划2027年量产！
"""


def test_sentences_are_exact_spans_and_respect_abbreviations_and_decimals() -> None:
    found = [TEXT[s:e] for s, e in sentences(TEXT)]
    assert "# Aurora A1 (v2.1)" in found
    assert "Mass production,\ne.g. in Lund, is planned for 2025!" in found
    assert "- item one with 3.5 GWh" in found
    assert "固态电池的能量密度达到每公斤450瓦时。" in found
    assert "公司计划2027年量产！" in found


def test_a_title_or_rank_before_or_after_a_name_ends_no_sentence() -> None:
    """An encyclopedia's opening sentence names its subject with a rank and a suffix:
    cut at them, the sentence that says what the page is about loses its name."""
    text = (
        "Rear Adm. J. Edward Snyder, USN (Ret.)  (October 23, 1924 – November 4, 2007) "
        "was the captain of the battleship. Gen. Smith and Martin Luther King Jr. met "
        "Prof. Lee. They talked."
    )
    found = [text[s:e] for s, e in sentences(text)]
    assert found == [
        text[: text.index(" Gen.")],
        "Gen. Smith and Martin Luther King Jr. met Prof. Lee.",
        "They talked.",
    ]


@pytest.mark.parametrize("size", [40, 120, 600])
def test_chunks_are_exact_slices_on_sentence_bounds(size: int) -> None:
    sentence_ends = {e for _, e in sentences(TEXT)}
    chunks = chunk_text(TEXT, size)
    assert chunks
    for chunk in chunks:
        assert chunk.end in sentence_ends
        assert TEXT[chunk.start : chunk.end] == TEXT[chunk.start : chunk.end].strip()
    assert chunks[-1].heading == "Aurora A1 (v2.1)"


def test_chunks_cover_every_sentence_once() -> None:
    spans = sentences(TEXT)
    chunks = chunk_text(TEXT, 100)
    for start, end in spans:
        holders = [c for c in chunks if c.start <= start and end <= c.end]
        assert len(holders) == 1, TEXT[start:end]


def test_random_texts_keep_offsets_exact() -> None:
    rng = random.Random(7)
    words = ["alpha", "beta.", "Gamma", "3.5", "kWh.", "\n", "\n\n", "不", "是。", "e.g.", "No."]
    for _ in range(200):
        text = " ".join(rng.choice(words) for _ in range(rng.randint(0, 80)))
        for chunk in chunk_text(text, rng.choice([20, 60, 200])):
            piece = text[chunk.start : chunk.end]
            assert piece and piece == piece.strip()


def test_paragraphs_split_on_blank_lines() -> None:
    assert [TEXT[s:e][:6] for s, e in paragraphs(TEXT)] == [
        "# Auro",
        "Aurora",
        "- item",
        "固态电池的能",
    ]


def test_a_very_long_sentence_is_cut_at_spaces() -> None:
    text = " ".join(["word"] * 500)
    chunks = chunk_text(text, 100)
    assert len(chunks) > 5
    assert all(chunk.end - chunk.start <= 200 for chunk in chunks)


def test_chunks_record_their_whole_heading_path() -> None:
    text = (
        "# Release notes\n\n## Release 15\n\n### Server\n\nFaster sorting.\n\n"
        "### Client\n\nNew psql options.\n\n## Release 14\n\nOlder notes.\n"
    )
    chunks = {text[c.start : c.end]: c for c in chunk_text(text, 20)}
    assert chunks["Faster sorting."].headings == ("Release notes", "Release 15", "Server")
    assert chunks["New psql options."].headings == ("Release notes", "Release 15", "Client")
    assert chunks["Older notes."].headings == ("Release notes", "Release 14")
    assert chunks["Older notes."].heading == "Release 14"


def test_a_tables_rows_lie_under_its_header_row() -> None:
    """The rows of a table with a header row (a rule under its first row) lie under that
    row; the header itself, the text around it and a table with no header lie under
    none. A pipe escaped in a cell is no cell break."""
    text = (
        "Requirements:\n\n| Install Type | RAM (minimum) | A \\| B |\n|---|:--:|---|\n"
        "| No desktop | 256 megabytes | 4 |\n| With Desktop | 1 gigabytes | 10 |\n\n"
        "After the table.\n\n| a1 | b1 |\n| a2 | b2 |\n"
    )
    tables = table_headers(text)
    header = "Install Type | RAM (minimum) | A \\| B"
    assert header_at(tables, text.index("| No desktop")) == header
    assert header_at(tables, text.index("With Desktop")) == header
    for elsewhere in ("Requirements", "| Install Type", "After the table", "a2"):
        assert header_at(tables, text.index(elsewhere)) == ""
    [(start, end)] = header_rows(text)
    assert text[start:end] == "| Install Type | RAM (minimum) | A \\| B |"
    labels = "| Description: | Bandwidth limits |\n|---|---|\n| Status: | Extension |\n"
    assert table_headers(labels) == [] and header_rows(labels) == []  # labels and values


def test_a_tables_row_is_read_as_its_first_cell_under_its_columns_name() -> None:
    """A row is about its first cell, which its column's name says what it is: "9" under
    "Node-API version" is Node-API version 9. Its other cells say what holds of it
    ("3.8+" in a row about April 2023 is no Python 3.8). A table of labels and values
    has no header to read a row with; an empty first cell names nothing."""
    text = (
        "| Node-API version | Supported In |\n|---|---|\n| 9 | v18.17.0+, 20.3.0+ |\n"
        "| 8 | v12.22.0+ |\n|  | v10.0.0 |\n\nAfter.\n\n"
        "| Date | Ubuntu | Python |\n| --- | --- | --- |\n| April 2023 | 20.04 LTS | 3.8+ |\n"
    )
    assert with_rows_read(text).split("\n")[-3:] == [
        "Node-API version 9",
        "Node-API version 8",
        "Date April 2023",
    ]
    assert with_rows_read(text).startswith(text)
    labels = "| Description: | Bandwidth limits |\n|---|---|\n| Status: | Extension |\n"
    assert with_rows_read(labels) == labels


def test_a_comment_line_in_a_code_fence_is_no_heading() -> None:
    # a Python or shell comment in a page's example code: the headings after the code
    # stay under the page's own title, not under "The decorator ..."
    text = (
        "# What's New\n\n## Typing\n\n```\n# The decorator is defined by a library.\n"
        "def create_model(cls): ...\n```\n\n## Improved Modules\n\n"
        "Added the TaskGroup class.\n"
    )
    assert [path for _, path in heading_paths(text)] == [
        ("What's New",),
        ("What's New", "Typing"),
        ("What's New", "Improved Modules"),
    ]
    chunks = {text[c.start : c.end]: c for c in chunk_text(text, 20)}
    assert chunks["Added the TaskGroup class."].headings == ("What's New", "Improved Modules")


def test_a_fence_opened_after_text_pairs_with_the_next_one() -> None:
    # trafilatura fences an inline code span that breaks a line where it stands, after
    # the text before it; read from the next line's fence, every heading after it would
    # be taken for code (Django's Forms API page lost 57 of its 76 headings)
    text = (
        "# Forms API\n\nErrors added using ```\nForm.add_error(None,\n'...')\n```\n.\n\n"
        "## Behavior of unbound forms\n\nText.\n\n```\n# a comment\n```\n\n## Initial values\n"
    )
    assert [path[-1] for _, path in heading_paths(text)] == [
        "Forms API",
        "Behavior of unbound forms",
        "Initial values",
    ]


def test_three_backticks_with_text_after_them_on_their_line_open_no_fence() -> None:
    # the Bash manual writes the old command substitution as inline code holding
    # backticks; read as a fence, it turned the rest of the manual into code, and 4.2's
    # headings (`readarray`, `source`, …) lay under "3.5.4 Command Substitution"
    text = (
        "### 3.5.4 Command Substitution\n\n`$(``command`)\nor\n\n`` ` ```command``\n"
        "Bash performs the expansion.\n\n### 4.2 Bash Builtin Commands\n\n```\n# code\n```\n\n"
        "###### `readarray` ¶\n\nA synonym for `mapfile`.\n"
    )
    assert [path[-1] for _, path in heading_paths(text)] == [
        "3.5.4 Command Substitution",
        "4.2 Bash Builtin Commands",
        "`readarray`",
    ]


def test_a_passage_lies_under_the_path_of_its_first_words() -> None:
    """A passage that starts with headings carries the path of the words after them; a
    heading inside it is read where it stands (`path_at`)."""
    text = (
        "## Checkpoints\n\n###### checkpoint_timeout\n\nMaximum time between checkpoints. "
        "The default is five minutes.\n\n###### max_wal_size\n\nThe default is 1 GB.\n"
    )
    [chunk] = chunk_text(text, 600)
    assert chunk.headings == ("Checkpoints", "checkpoint_timeout")
    paths = heading_paths(text)
    assert path_at(paths, text.index("The default is 1 GB.")) == ("Checkpoints", "max_wal_size")
    assert path_at(paths, 0) == ("Checkpoints",)
    assert path_at(heading_paths("Intro line.\n\n# Title\n"), 0) == ()


def test_a_bold_label_ending_with_a_colon_heads_the_items_of_its_list_only() -> None:
    # a release's notes list another release's changes under a bold label: the item
    # says what changed, only the label says in which version
    text = (
        "## SQLite Release 3.39.2 On 2022-07-21\n\n"
        "**Changes in version 3.39.0 (2022-06-25):**\n\n"
        "1. Add (long overdue) support for RIGHT and FULL OUTER JOIN.\n2. Add IS DISTINCT FROM.\n\n"
        "Prose after the list.\n\n**Bold, no colon**\n\n- An item.\n\n"
        "**Label with no list:**\n\nProse.\n"
    )
    paths = heading_paths(text)
    release = ("SQLite Release 3.39.2 On 2022-07-21",)
    labelled = (*release, "Changes in version 3.39.0 (2022-06-25)")
    assert path_at(paths, text.index("Add (long overdue)")) == labelled
    assert path_at(paths, text.index("Add IS DISTINCT")) == labelled
    assert path_at(paths, text.index("Prose after")) == release
    assert path_at(paths, text.index("An item.")) == release
    assert path_at(paths, text.index("Prose.")) == release
    [item] = [c for c in chunk_text(text, 80) if "Add (long overdue)" in text[c.start : c.end]]
    assert item.headings == labelled


def test_a_passage_lies_under_the_path_most_of_its_words_are_under() -> None:
    """A passage that ends one setting's entry and holds most of the next one's is found
    by the next one's heading."""
    text = (
        "## Memory\n\n###### max_prepared_transactions\n\nSet it on the standby too.\n\n"
        "###### work_mem\n\nSets the base maximum amount of memory to be used by a query "
        "operation before writing to temporary disk files. The default value is four "
        "megabytes.\n"
    )
    [chunk] = chunk_text(text, 600)
    assert chunk.headings == ("Memory", "work_mem")


def test_a_passage_that_opens_with_a_wrapped_list_item_keeps_it_one_sentence() -> None:
    # a passage starts anywhere in its page: its first line is a plain-text file's title
    # only when it is not a list item
    text = (
        "- Added a new function `math.isqrt()` for computing accurate integer square\n"
        "roots without conversion to floating point.  It supports large integers."
    )
    assert [text[start:end] for start, end in sentences(text)] == [
        "- Added a new function `math.isqrt()` for computing accurate integer square\n"
        "roots without conversion to floating point.",
        "It supports large integers.",
    ]


def test_a_short_line_ending_with_a_function_word_is_wrapped_prose() -> None:
    """Docs indent and wrap prose at short widths; a line ending with "in" or "the" never
    ends a sentence, a title or a list item, even at the start of a passage."""
    text = (
        "If jsonlog is included in\n        `log_destination`, log entries are output in\n"
        "        JSON format.\nWhere to Log\nShort line one"
    )
    assert [text[a:b].split()[0] for a, b in sentences(text)] == ["If", "Where", "Short"]


def test_a_short_line_going_on_in_lowercase_is_wrapped_prose_outside_code() -> None:
    """HTML manuals wrap their prose around inline code: "The `MaxKeepAliveRequests`
    directive" is no sentence of its own, the line after it opens in lowercase. A code
    block's short lines stay statements of their own, and a bold term is no prose."""
    text = (
        "The `MaxKeepAliveRequests` directive\n"
        "    limits the number of requests allowed per connection when\n"
        "    `KeepAlive` is on. If it is\n    set to `0`, unlimited requests will be allowed.\n"
        "```\nimport sys\nimport os\n```\n**SEE ALSO**\npostmap(1), lookup table maintenance\n"
    )
    assert [text[a:b].split()[:2] for a, b in sentences(text, titled=False)] == [
        ["The", "`MaxKeepAliveRequests`"],
        ["If", "it"],
        ["```"],
        ["import", "sys"],
        ["import", "os"],
        ["```"],
        ["**SEE", "ALSO**"],
        ["postmap(1),", "lookup"],
    ]


def test_a_manual_page_setting_is_one_sentence_with_its_term_line() -> None:
    """A manual page's setting: the term line holds the name and the default, the lines
    indented under it say what it is; a short term line is no sentence of its own."""
    text = (
        "       **queue_minfree (0)**\n"
        "              The minimal amount of free space in bytes in the queue file sys-\n"
        "              tem that is needed to receive mail.\n"
        "       **smtpd_recipient_limit (1000)**\n"
        "              The  maximal  number  of recipients that the Postfix SMTP server\n"
        "              accepts per message delivery request.\n"
        "       Available in Postfix version 2.1 and later:\n"
        "              More lines.\n"
    )
    spans = sentences(text, titled=False)
    assert [text[a:b].split()[0] for a, b in spans] == [
        "**queue_minfree",
        "**smtpd_recipient_limit",
        "Available",
        "More",
    ]
    assert text[spans[1][0] : spans[1][1]].endswith("request.")


def test_a_passage_cut_from_further_on_has_no_title_line() -> None:
    """A plain-text document's first line is its title; a passage's first line is a
    wrapped line like the others."""
    text = (
        "The configuration files that removed packages left behind can\nbe purged with one command."
    )
    assert len(sentences(text)) == 2  # a document: its title, then a line
    assert [text[a:b] for a, b in sentences(text, titled=False)] == [text]


def test_a_sentence_in_a_list_item_leads_with_its_own_item_not_the_items_before_it() -> None:
    """Each option of a list has its own "**Default:**": the one of `blockSize` must not
    read as if `cost`'s description led it."""
    text = (
        "- `options` <Object>\n"
        "  - `cost` <number> CPU/memory cost parameter. Must be a power of two greater\n"
        "than one. **Default:** `16384`.\n"
        "  - `blockSize` <number> Block size parameter. **Default:** `8`.\n"
    )
    leads = {text[s:e]: lead for s, e, lead in sentences_with_lead(text)}
    assert leads["Must be a power of two greater\nthan one. **Default:** `16384`."] == (
        "  - `cost` <number> CPU/memory cost parameter. "
    )
    assert leads["- `blockSize` <number> Block size parameter. **Default:** `8`."] == "  "
    prose = "The cost is a power of two. The default is 16384.\n"
    leads = {prose[s:e]: lead for s, e, lead in sentences_with_lead(prose)}
    assert leads == {"The cost is a power of two.": "", "The default is 16384.": prose[:28]}


def test_a_code_blocks_lines_may_lead_with_the_paragraph_that_introduces_it() -> None:
    text = "To compute the checksum of an image, use\n\n```\nsha256sum filename.iso\n```\n"
    [command] = [lead for s, _, lead in sentences_with_lead(text) if text[s] == "s"]
    [introduced] = [lead for s, _, lead in sentences_with_lead(text, True) if text[s] == "s"]
    assert command == "```\n"
    assert introduced == "To compute the checksum of an image, use\n\n```\n"


def test_a_passage_cut_from_inside_a_code_block_opens_in_code() -> None:
    """A listing cut in two at a blank line: the second passage's first lines are code,
    and the fence that closes them opens no block over the prose after it."""
    page = "Run:\n\n```\nimport copy\n\n__all__ = ['FloatField']\n```\n\nThe fields.\n"
    cut = page.index("__all__")
    passage = page[cut:]
    [block] = code_blocks(page)

    assert opens_in_block([block], cut)
    assert not opens_in_block([block], block[0])  # the passage starts with the fence
    assert code_blocks(passage, opens_in_code=True) == [(0, passage.index("\n\nThe"))]
    assert code_blocks(passage) == [(passage.index("```"), len(passage))]  # read as if opened
