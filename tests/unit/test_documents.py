from __future__ import annotations

from pathlib import Path

from grounded_research.retrieval import web
from grounded_research.retrieval.documents import html_document, read_documents
from grounded_research.text.chunking import heading_paths
from tests.conftest import write

HTML = """<html><head><title>Release notes</title></head><body>
<nav><a href="/">Home</a> | <a href="/about">About</a></nav>
<article>
<h1>Aurora A1 release notes</h1>
<h2>Version 2.1 (2025-06-01)</h2>
<p>The Aurora A1 cell now reaches 450 Wh/kg in the lab, according to the company's own tests
of twelve cells made on the pilot line.</p>
<ul><li>Faster charging to 80 percent in 15 minutes</li><li>New sulfide electrolyte</li></ul>
<table><tr><th>Test</th><th>Result</th></tr><tr><td>Cycle life</td><td>800 cycles</td></tr></table>
<p>Series production is not yet scheduled and depends on the validation by partners.</p>
</article>
<footer>Copyright 2025 Example Corp. All rights reserved.</footer>
</body></html>"""


def minimal_pdf(text: str) -> bytes:
    """A one-page PDF with a text stream, written by hand (xref offsets included)."""
    stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


def test_markdown_and_text_keep_the_files_own_text(tmp_path: Path) -> None:
    raw = "---\ntitle: Front title\ndate: 2024-01-02\n---\n# Heading\r\n\r\nBody text.\r\n"
    (tmp_path / "a.md").write_bytes(raw.encode())
    [document] = read_documents(tmp_path / "a.md", "a.md").documents
    assert document.text == raw
    assert document.title == "Front title"
    assert document.published == "2024-01-02"


def test_front_matter_without_a_title_is_not_the_title(tmp_path: Path) -> None:
    """A Jekyll or Hugo page's YAML block may give only a date: the title is the first
    line after it."""
    raw = "---\ndate: 2026-01-20\nlayout: post\n---\n\n# Aurora ships\n\nBody text.\n"
    (tmp_path / "a.md").write_text(raw)
    [document] = read_documents(tmp_path / "a.md", "a.md").documents
    assert document.title == "Aurora ships"
    assert document.published == "2026-01-20"
    assert document.text == raw


def test_html_keeps_headings_lists_and_tables_and_drops_boilerplate(tmp_path: Path) -> None:
    path = write(tmp_path, "page.html", HTML)
    [document] = read_documents(path, "page.html").documents
    assert "Version 2.1 (2025-06-01)" in document.text
    assert "450 Wh/kg" in document.text
    assert "800 cycles" in document.text
    assert "Faster charging" in document.text
    assert "not yet scheduled" in document.text
    assert "All rights reserved" not in document.text
    assert document.title == "Aurora A1 release notes"  # the h1 beats the <title>


def test_pdf_text_is_extracted(tmp_path: Path) -> None:
    (tmp_path / "doc.pdf").write_bytes(minimal_pdf("Solid state cells ship in 2027"))
    [document] = read_documents(tmp_path / "doc.pdf", "doc.pdf").documents
    assert "Solid state cells ship in 2027" in document.text


def test_jsonl_lines_are_documents_located_by_id_and_bad_lines_are_problems(
    tmp_path: Path,
) -> None:
    path = write(
        tmp_path,
        "notes.jsonl",
        '{"id": "n/1", "title": "One", "text": "First note."}\n'
        "not json\n"
        '{"id": "n/2", "text": ""}\n'
        '{"title": "no id", "text": "x"}\n'
        '{"id": "n/3", "title": "Three", "text": "Third note.", "url": "http://x"}\n',
    )
    result = read_documents(path, "notes.jsonl")
    assert [d.location for d in result.documents] == ["n/1", "n/3"]
    assert [p.location for p in result.problems] == [
        "notes.jsonl:2",
        "notes.jsonl:3",
        "notes.jsonl:4",
    ]


def test_unreadable_files_are_problems_not_exceptions(tmp_path: Path) -> None:
    (tmp_path / "binary.txt").write_bytes(b"\x00\x01\x02 binary")
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.4 this is not a pdf")
    (tmp_path / "empty.md").write_text("  \n", encoding="utf-8")
    for name in ("binary.txt", "broken.pdf", "empty.md"):
        result = read_documents(tmp_path / name, name)
        assert result.documents == []
        assert result.problems and result.problems[0].location == name


def test_pages_without_a_main_frame_keep_their_headings_and_title(tmp_path: Path) -> None:
    """DocBook pages (PostgreSQL's) nest each heading in divs trafilatura would drop."""
    paragraph = "<p>" + "The server sorts faster in memory and on disk than before. " * 4 + "</p>"
    html = (
        '<html><head><title>E.21. Release 15</title></head><body><div class="navheader">'
        '<a href="index.html">Home</a></div><div class="sect1"><div class="titlepage"><div>'
        '<div><h2 class="title">E.21. Release 15</h2></div></div></div>'
        f'{paragraph}<div class="sect2"><div class="titlepage"><div><div>'
        f'<h3 class="title">E.21.1. Overview</h3></div></div></div>{paragraph}</div>'
        '<div class="sect2"><div class="titlepage"><div><div><h3 class="title">Warning</h3>'
        f"</div></div></div>{paragraph}</div></div></body></html>"
    )
    path = write(tmp_path, "release-15.html", html)
    [document] = read_documents(path, "release-15.html").documents
    assert "## E.21. Release 15" in document.text
    assert "### E.21.1. Overview" in document.text
    assert document.title == "E.21. Release 15"


def test_headings_nested_in_bare_boxes_inside_a_main_frame_are_kept(tmp_path: Path) -> None:
    """DocBook's section titles sit three bare divs deep; inside a page's main frame
    trafilatura dropped them (the git user manual kept none of its 122) and a passage
    lay under the definition term above it instead of its section."""
    paragraph = "<p>" + "Suppose version 2.6.18 of your project worked, but master crashed. " * 4

    def section(title: str) -> str:
        return (
            '<div class="section"><div class="titlepage"><div><div><h2 class="title">'
            f'<a name="x"></a>{title}</h2></div></div></div>{paragraph}</p>{paragraph}</p></div>'
        )

    html = (
        "<html><head><title>Git User Manual</title></head><body><main><dl><dt><code>"
        "git switch -c &lt;new&gt;</code></dt><dd><p>create a new branch.</p></dd></dl>"
        f"{section('Examining an old version')}{section('Finding a regression')}"
        "</main></body></html>"
    )
    path = write(tmp_path, "user-manual.html", html)
    [document] = read_documents(path, "user-manual.html").documents
    titles = [path[-1] for _, path in heading_paths(document.text)]
    assert titles == ["`git switch -c <new>`", "Examining an old version", "Finding a regression"]


def test_a_comment_in_preformatted_text_is_code_not_a_heading(tmp_path: Path) -> None:
    """A bare <pre> (a shell session) is fenced like <pre><code>, so its "# comment"
    lines are not read as headings over the rest of the page."""
    paragraph = "<p>" + "Ignore the files a build writes with a pattern file here. " * 3 + "</p>"
    html = (
        "<html><head><title>gitignore</title></head><body><article><h2>EXAMPLES</h2>"
        f'{paragraph}<pre class="screen">$ cat .gitignore\n# Ignore objects and archives.\n'
        f"*.[oa]</pre>{paragraph}<h2>NOTES</h2>{paragraph}</article></body></html>"
    )
    path = write(tmp_path, "gitignore.html", html)
    [document] = read_documents(path, "gitignore.html").documents
    assert "```\n$ cat .gitignore\n# Ignore objects and archives.\n*.[oa]\n```" in document.text
    titles = [path[-1] for _, path in heading_paths(document.text)]
    assert titles == ["EXAMPLES", "NOTES"]


def test_a_highlighted_source_page_is_one_block_of_code(tmp_path: Path) -> None:
    """Sphinx's viewcode pages wrap each entry of the source in a <div> inside the <pre>,
    with a "[docs]" link back to its documentation: the whole listing is one block of
    code, without the links, and its "# comment" lines are no headings."""
    html = (
        "<html><head><title>Source code for sphinx.builders.html</title></head><body>"
        '<article><h1>Source code for sphinx.builders.html</h1><div class="highlight"><pre>'
        '<span class="kn">import</span> <span class="nn">os</span>\n\n'
        '<div class="viewcode-block" id="Builder"><a class="viewcode-back" '
        'href="../index.html#Builder">[docs]</a><span class="k">class</span> Builder:\n'
        "    # get default sidebars settings from alabaster\n"
        "    sidebars = None\n</div></pre></div></article></body></html>"
    )
    path = write(tmp_path, "html.html", html)
    [document] = read_documents(path, "_modules/sphinx/builders/html.html").documents

    assert "[docs]" not in document.text
    assert document.text.count("```") == 2
    assert "class Builder:\n    # get default sidebars" in document.text
    titles = [path[-1] for _, path in heading_paths(document.text)]
    assert titles == ["Source code for sphinx.builders.html"]


def test_prose_set_in_a_preformatted_block_is_prose_and_its_examples_code(
    tmp_path: Path,
) -> None:
    """A plain-text manual shown as HTML (HAProxy's) sets its prose in <pre> blocks, in
    80 columns, with examples among it: each paragraph of prose is a paragraph, its
    lines joined, and each example stays code; a highlighter's block is code throughout,
    its docstrings too."""
    prose = (
        "It is very common that two nodes share the same configuration modulo a few\n"
        "addresses. This started in version 1.5 where only addresses were allowed to\n"
        "include environment variables, and 1.6 goes further."
    )
    html = (
        "<html><head><title>Management Guide</title></head><body><article><h2>10. Tricks</h2>"
        f"<pre>{prose}\n\n  $ cat site1.env\n  LISTEN=192.168.1.1\n</pre>"
        '<div class="highlight"><pre>def f():\n    """Return the answer. It is given here.\n'
        '    The caller reads it."""\n</pre></div></article></body></html>'
    )
    path = write(tmp_path, "management.html", html)
    [document] = read_documents(path, "management.html").documents
    joined = " ".join(prose.split())
    assert f"\n{joined}\n" in document.text and f"```\n{joined}" not in document.text
    assert "```\n  $ cat site1.env\n  LISTEN=192.168.1.1\n```" in document.text
    assert '```\ndef f():\n    """Return the answer. It is given here.' in document.text


def test_text_loose_in_the_body_after_a_preformatted_block_is_kept(tmp_path: Path) -> None:
    """Older generators write a page's text straight into <body> (the zsh FAQ): the text
    after a <pre> block, up to the next element, was lost, and with it what the FAQ
    answers."""
    html = (
        "<html><head><title>FAQ</title></head><body><h2>3.1: Why?</h2>\n"
        'In most shells, multiple-word variables such as\n<pre>\n    var="foo bar"\n'
        "</pre>\n  are split into words when passed to a command or used in a <code>for "
        "foo in $var</code> loop. By default, zsh does not have that behaviour.\n"
        "<p>For example, defining the function args shows it.</p></body></html>"
    )
    path = write(tmp_path, "FAQ03.html", html)
    [document] = read_documents(path, "FAQ03.html").documents
    assert "are split into words when passed to a command or used in a" in document.text
    assert "By default, zsh does not have that behaviour." in document.text


def test_definition_terms_become_headings_over_their_descriptions(tmp_path: Path) -> None:
    """A setting's or an option's description stays under its term, which becomes part
    of its heading path; terms in a row are one heading."""
    html = (
        "<html><head><title>git-commit(1)</title></head><body><article><h2>OPTIONS</h2><dl>"
        "<dt>-a</dt><dt>--all</dt><dd><p>Tell the command to automatically stage files "
        "that have been modified and deleted.</p></dd>"
        "<dt><code>max_wal_size</code> (<code>integer</code>)</dt>"
        "<dd><p>Maximum size to let the WAL grow. The default is 1 GB.</p></dd>"
        "</dl></article></body></html>"
    )
    path = write(tmp_path, "git-commit.html", html)
    [document] = read_documents(path, "git-commit.html").documents
    assert "###### -a, --all\n\nTell the command" in document.text
    assert "###### `max_wal_size` (`integer`)\n\nMaximum size" in document.text


def test_a_cgi_header_before_the_page_is_no_part_of_it(tmp_path: Path) -> None:
    """man2html leaves the header a CGI program writes ("Content-type: text/html" and a
    blank line) before the page it converts (bash's manual page). Read with it, the page
    parsed as a fragment and lost every heading, its options' terms with them."""
    page = (
        '<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN">\n<HTML><HEAD>'
        "<TITLE>Man page of BASH</TITLE></HEAD><BODY><H1>BASH</H1>\n<H2>OPTIONS</H2>\n"
        "Bash interprets the following options when it is invoked:\n<DL COMPACT>\n"
        "<DT><B>-c</B>\n<DD>If the <B>-c</B> option is present, then commands are read "
        "from the first non-option argument.\n<DT><B>-i</B>\n<DD>If the <B>-i</B> option "
        "is present, the shell is interactive.\n</DL>\n</BODY></HTML>\n"
    )
    for header in ("", "Content-type: text/html; charset=UTF-8\n\n"):
        path = write(tmp_path, "bash.html", header + page)
        [document] = read_documents(path, "bash.html").documents
        assert "## OPTIONS" in document.text
        assert "###### **-c**\n\nIf the **-c** option is present" in document.text
        assert "Content-type" not in document.text


def test_a_bold_term_anchored_by_its_own_name_heads_its_entry(tmp_path: Path) -> None:
    """HAProxy writes each keyword as a line of its own, a bold term anchored by its name
    and its arguments, over the description: the term becomes its heading, so "The
    default value is 101" lies under tune.http.maxhdr. A paragraph that opens in bold
    with no anchor of that name ("Note") stays a paragraph."""
    html = (
        "<html><head><title>HAProxy Configuration Manual</title></head><body><article>"
        "<h3>3.2. Performance tuning</h3>"
        '<div class="keyword"><b><a class="anchor" name="tune.http.maxhdr"></a>'
        '<a href="#3.2-tune.http.maxhdr">tune.http.maxhdr</a></b> <span>&lt;number&gt;</span>'
        "</div><p>Sets the maximum number of headers in a request. The default value is "
        "101, which is enough for all usages.</p>"
        "<p><b>Note</b> this limit applies to requests and responses alike.</p>"
        "</article></body></html>"
    )
    path = write(tmp_path, "configuration.html", html)
    [document] = read_documents(path, "configuration.html").documents
    paths = {tuple(path) for _, path in heading_paths(document.text)}
    assert any(path[-1].startswith("**tune.http.maxhdr**") for path in paths)
    assert "\\<number>\n\nSets the maximum number of headers" in document.text
    assert "**Note** this limit applies" in document.text
    assert not any("Note" in path[-1] for path in paths)


def test_terms_inside_a_description_lie_under_its_term(tmp_path: Path) -> None:
    """A function's arguments are terms inside its description: their headings lie under
    the function's, which is a level above them; a term with none stays at the lowest."""
    html = (
        "<html><head><title>FindMatlab</title></head><body><article><h2>Reference</h2><dl>"
        "<dt>matlab_add_unit_test</dt><dd><p>Adds a Matlab unit test.</p><dl>"
        "<dt><code>NAME</code></dt><dd><p>name of the unittest in ctest.</p></dd>"
        "<dt><code>TIMEOUT</code></dt><dd><p>Defaults to 180 seconds.</p></dd></dl></dd>"
        "<dt>matlab_add_mex</dt><dd><p>Adds a MEX file.</p></dd>"
        "</dl></article></body></html>"
    )
    path = write(tmp_path, "FindMatlab.html", html)
    [document] = read_documents(path, "FindMatlab.html").documents
    paths = {tuple(path) for _, path in heading_paths(document.text)}
    assert ("Reference", r"matlab\_add\_unit\_test", "`TIMEOUT`") in paths
    assert ("Reference", r"matlab\_add\_mex") in paths


def test_text_loose_beside_paragraphs_is_kept() -> None:
    """Sphinx's version notes are a bare span in a div ("New in Django 3.2." under a
    setting's heading); the version is the answer to "in which version", so it must
    survive extraction. The page is one section of Django's real settings page."""
    path = Path(__file__).parents[1] / "data" / "html" / "django-default-auto-field.html"
    [document] = read_documents(path, "settings.html").documents
    assert "### `DEFAULT_AUTO_FIELD`¶\n\nNew in Django 3.2.\n\nDefault:" in document.text


def test_one_bad_byte_in_a_utf8_file_is_replaced_and_noted_not_read_as_cp1252(
    tmp_path: Path,
) -> None:
    text = "# Zürich\n\nDie Zelle erreicht 450 Wh/kg – laut Hersteller.\n"
    raw = text.encode("utf-8")
    broken = raw[:20] + b"\xff" + raw[20:]
    (tmp_path / "a.md").write_bytes(broken)
    [document] = read_documents(tmp_path / "a.md", "a.md").documents
    assert document.text == broken.decode("utf-8", errors="replace")
    assert "Zürich" in document.text and "–" in document.text  # no mojibake ("ZÃ¼rich")
    assert "not valid UTF-8" in document.note and "byte 20" in document.note


def test_a_cp1252_file_is_still_read_and_says_so(tmp_path: Path) -> None:
    (tmp_path / "old.txt").write_bytes("Café crème – 12 €\n".encode("cp1252"))
    [document] = read_documents(tmp_path / "old.txt", "old.txt").documents
    assert document.text == "Café crème – 12 €\n"
    assert "cp1252" in document.note
    (tmp_path / "new.txt").write_bytes("Café crème\n".encode())
    [clean] = read_documents(tmp_path / "new.txt", "new.txt").documents
    assert clean.note == ""


def test_jsonl_duplicate_ids_and_non_string_fields_are_failed_lines(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "notes.jsonl",
        '{"id": "n/1", "text": "First note."}\n'
        '{"id": "n/1", "text": "Another first note."}\n'
        '{"id": 7, "text": "A numbered note."}\n'
        '{"id": "n/2", "text": ["a", "list"]}\n'
        '{"id": "n/3", "title": {"x": 1}, "text": "Third note."}\n'
        '{"id": "n/4", "text": "Fourth note.", "date": null}\n',
    )
    result = read_documents(path, "notes.jsonl")
    assert [(d.location, d.text) for d in result.documents] == [
        ("n/1", "First note."),
        ("n/4", "Fourth note."),
    ]
    problems = {p.location: p.reason for p in result.problems}
    assert problems == {
        "notes.jsonl:2": "duplicate id 'n/1' (line 1 has it)",
        "notes.jsonl:3": "'id' must be a string, not a number",
        "notes.jsonl:4": "'text' must be a string, not an array",
        "notes.jsonl:5": "'title' must be a string, not an object",
    }


def test_jsonl_lines_are_split_on_newlines_only_and_decoded_one_by_one(tmp_path: Path) -> None:
    line_separator = '{"id": "n/1", "text": "One\u2028line."}\n'.encode()
    bad_byte = b'{"id": "n/2", "text": "Z\xc3\xbcrich \xff"}\r\n'
    (tmp_path / "notes.jsonl").write_bytes(line_separator + bad_byte)
    first, second = read_documents(tmp_path / "notes.jsonl", "notes.jsonl").documents
    assert first.text == "One\u2028line." and first.note == ""
    assert second.text == "Zürich \ufffd" and "not valid UTF-8" in second.note


EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "solid-state"
PARAGRAPH = "<p>" + "The cell keeps 80 percent of its capacity after 800 cycles. " * 4 + "</p>"


def page(head: str, body: str) -> str:
    return f"<html><head>{head}</head><body><article>{body}{PARAGRAPH}</article></body></html>"


def test_a_local_page_has_the_title_date_and_author_it_declares() -> None:
    html = page(
        '<title>Cell review | Voltmark Labs</title><meta property="og:title" content="Cell '
        'review: Aurora A1"><meta property="article:published_time" '
        'content="2024-05-21T10:00:00+02:00"><meta name="author" content="Ada Lovelace">',
        "<h1>Review</h1><h1>Other</h1>",
    )
    document = html_document(html, "r.html", "r")
    assert (document.title, document.published, document.author) == (
        "Cell review: Aurora A1",
        "2024-05-21",
        "Ada Lovelace",
    )


def test_a_page_belongs_to_the_collection_its_home_link_names() -> None:
    """DocBook manuals link each page to their first page, with the manual's title: the
    product a page seldom names itself ("6.3. Using Individual Components")."""

    def collection(head: str) -> str:
        return html_document(page(head, "<h1>6.3. Components</h1>"), "c.html", "c").collection

    home = '<link rel="home" href="index.html" title="Debian GNU/Linux  Installation Guide">'
    assert collection(home) == "Debian GNU/Linux Installation Guide"
    assert collection('<link rel="start" href="i.html" title="Bash Reference">') == (
        "Bash Reference"
    )
    assert collection('<link rel="up" href="ch06.html" title="Chapter 6">') == ""
    assert collection('<link rel="home" href="index.html">') == ""
    # without such a link, the site a <title> names after the page's own title
    assert collection("<title>6.3. Components - Installer Manual 2.4</title>") == (
        "Installer Manual 2.4"
    )
    assert collection("<title>6.3. Components</title>") == ""


def test_a_man_page_belongs_to_the_manual_its_header_line_names() -> None:
    """mandoc's HTML heads a man page with its name, its manual and its name again: the
    manual ("OpenSSL") is the product, which the page's text often never names."""
    header = (
        '<table class="head"><tr><td class="head-ltitle">SSL_CTX_SET_NUM_TICKETS(3SSL)</td>'
        '<td class="head-vol">OpenSSL</td><td class="head-rtitle">SSL_CTX_SET_NUM_TICKETS'
        "(3SSL)</td></tr></table>"
    )
    body = f"{header}<h1>DESCRIPTION</h1>"
    head = "<title>SSL_CTX_SET_NUM_TICKETS(3SSL)</title>"
    assert html_document(page(head, body), "m.html", "m").collection == "OpenSSL"
    assert html_document(page(head, body.replace("OpenSSL", " ")), "m.html", "m").collection == ""
    assert html_document(page(head, "<h1>DESCRIPTION</h1>"), "m.html", "m").collection == ""


def test_a_page_date_is_its_meta_date_else_its_marked_or_only_time_element() -> None:
    def date(head: str, body: str) -> str | None:
        return html_document(page(head, body), "d.html", "d").published

    assert date('<meta name="dc.date" content="2023-02-01">', "<h1>A</h1>") == "2023-02-01"
    assert date("", '<h1>A</h1><time datetime="2022-03-04">4 March</time>') == "2022-03-04"
    several = '<time datetime="2021-01-01">then</time><time datetime="2022-01-01">later</time>'
    assert date("", f"<h1>A</h1><p>{several}</p>") is None  # none tells which dates the page
    marked = '<time datetime="2020-06-30" itemprop="datePublished">30 June</time>'
    assert date("", f"<h1>A</h1><p>{several}{marked}</p>") == "2020-06-30"
    author_page = '<meta property="article:author" content="https://example.com/ada">'
    assert html_document(page(author_page, "<h1>A</h1>"), "a.html", "a").author is None


def test_no_date_is_guessed_from_a_local_page_s_text_but_a_web_page_s_is_searched() -> None:
    """A "Last updated" footer is the Debian package's build date, not the content's; the
    text fallback reads a date line at the top only. A web page keeps htmldate's search."""
    html = page(
        "<title>sqlite3 — DB-API 2.0 interface</title>",
        "<h1>sqlite3 — DB-API 2.0 interface</h1>",
    ).replace("</body>", "<footer><p>Last updated on May 12, 2026.</p></footer></body>")
    assert html_document(html, "s.html", "s").published is None
    assert html_document(html, "s.html", "s", search_metadata=True).published == "2026-05-12"
    web_page = web._document(html.encode(), "html", "https://docs.example/s.html", "utf-8")
    assert web_page.published == "2026-05-12"
    dateline = page("", "<h1>Django 3.0.6 release notes</h1><p><em>May 4, 2020</em></p>")
    assert html_document(dateline, "r.html", "r").published == "May 4, 2020"


def test_a_local_page_s_title_follows_trafilatura_s_order() -> None:
    def title(head: str, body: str) -> str:
        return html_document(page(head, body), "t.html", "t").title

    site = "<title>Django FAQ — Django 3.2.25 documentation</title>"
    assert title(site, "<h1>FAQ: General</h1>") == "FAQ: General"  # the only h1
    # two h1 (the site's and the page's): the <title> without the site's name
    assert title(site, "<h1>Django 3.2.25 documentation</h1><h1>Django FAQ</h1>") == "Django FAQ"
    docbook = '<h1>PostgreSQL</h1><h1>Manual</h1><h2 class="title">36.4. Using Host Variables</h2>'
    assert title("<title>36.4. Host Variables</title>", docbook) == "36.4. Using Host Variables"
    # a <title> part with a dot is a version or a domain; the first h1 then
    two = "<h1>The tutorial</h1><h1>Next</h1>"
    assert title("<title>tutorial.html</title>", two) == "The tutorial"
    wrapped = "<h1>37.4. administrable_role_\u200bauthorizations</h1>"
    assert title("", wrapped) == "37.4. administrable_role_authorizations"


def test_a_date_labelled_in_a_byline_is_the_page_s_date() -> None:
    """trafilatura leaves the review's byline out of its text; its labelled date is the
    page's (htmldate had guessed 2026-01-01 from the copyright line)."""
    path = EXAMPLES / "reviews" / "aurora-a1-independent-test.html"
    [document] = read_documents(path, "review.html").documents
    assert "Published: 2026-01-20" not in document.text
    assert document.published == "2026-01-20"
    tracker = EXAMPLES / "market" / "solid-state-tracker-2026.html"
    assert read_documents(tracker, "t.html").documents[0].published == "March 2026"
    prose = "".join(PARAGRAPH.replace("cell", f"cell {n}") for n in range(3))
    late = f"<h1>Cell test</h1>{prose}<p>Tested on 2026-01-20 in Lund.</p>"
    unlabelled = page("", late)  # a date in the prose, below the dateline a title may have
    assert html_document(unlabelled, "t.html", "t").published is None


ENTRY_PAGE = """<html><head><title>API</title></head><body>
<div class="body" role="main">
<h1>API</h1>
<section id="decorators"><h2>Decorators</h2>
<h3>click.version_option(version=None)</h3>
<p>Add a --version option which immediately prints the version number and exits.</p>
<details class="changelog"><summary>Changelog</summary>
<p>Changed in version 8.0: Add the package_name parameter.</p></details></section>
<section id="set-cookie-options"><h2>Set-Cookie options</h2>
<p>These options can be added to a Set-Cookie header to improve their security.</p></section>
<section id="testing"><h2>Testing</h2>
<p>The runner invokes a command and captures its output for the assertions of a test.</p>
<div id="cookie-consent"><p>We use cookies on this site to count the visits of each page.</p></div>
</section>
</div>
<div class="footer">Copyright 2022 the authors. Created using Sphinx 4.5.0.</div>
</body></html>"""


def test_a_section_whose_id_is_its_title_is_kept() -> None:
    """trafilatura drops a box whose id says "cookie", "shared" or "menu", a news site's
    banner: a section of documentation whose anchor is made of its title's words
    ("set-cookie-options") is kept; a box that is no section's anchor, and the footer,
    are still dropped."""
    text = html_document(ENTRY_PAGE, "api.html", "API").text

    assert "## Set-Cookie options\n\nThese options can be added" in text
    for dropped in ("We use cookies", "Sphinx 4.5.0"):
        assert dropped not in text


def test_a_summary_is_a_label_not_a_heading_over_what_follows() -> None:
    """A function's changelog opens under the label "Changelog", which trafilatura made a
    heading of the second level: the note lay under it instead of under the function.
    The label is a line of the function's entry."""
    text = html_document(ENTRY_PAGE, "api.html", "API").text
    at = text.index("Changed in version 8.0")

    [path] = [p for start, p in heading_paths(text) if start < at][-1:]
    assert path[-1] == "click.version\\_option(version=None)"
    assert "\nChangelog\n" in text
