"""Files to documents: the text a source is quoted from, its title and its date.

`.md` and `.txt` keep the file's own text, unchanged, so a quote can be found in the
file itself; HTML keeps headings, lists and tables (version numbers and dates often
live only in headings) and drops what a browser does not show (a page may hide
instructions meant for a model there); a `.jsonl` file holds one document per line.

Text is UTF-8. A file that is mostly UTF-8 but holds a stray byte keeps its text, the
stray byte shown as U+FFFD; a file with no UTF-8 in it is read as cp1252. Either way the
document's `note` says so, since a quote from it may not be the file's bytes.
"""

from __future__ import annotations

import copy
import io
import json
import re
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

# lxml, like trafilatura, is imported where HTML is first read: a run on an indexed corpus
# reads none.
if TYPE_CHECKING:
    from lxml.etree import XPath
    from lxml.html import HtmlElement

SUPPORTED_SUFFIXES = frozenset({".md", ".markdown", ".txt", ".html", ".htm", ".pdf", ".jsonl"})
MAX_FILE_BYTES = 64 * 1024 * 1024

_DATE_LINE = re.compile(
    r"^\W*(?:published|date|updated|posted|发布(?:时间|日期)?|日期)\s*[:：]\s*(.+?)\s*$",
    re.IGNORECASE | re.MULTILINE,
)
_MONTH_NAME = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*"
_FULL_DATE = re.compile(
    rf"\b\d{{4}}-\d{{2}}-\d{{2}}\b|\b\d{{1,2}} {_MONTH_NAME} \d{{4}}\b"
    rf"|\b{_MONTH_NAME} \d{{1,2}}, \d{{4}}\b"
)
_LABELLED_DATE = re.compile(
    r"(?:\b(?:published|posted|date)|发布(?:时间|日期)?|日期)\s*[:：]\s*"
    rf"(\d{{4}}-\d{{2}}-\d{{2}}\b|\d{{1,2}} {_MONTH_NAME} \d{{4}}\b|{_MONTH_NAME}"
    r"(?: \d{1,2},)? \d{4}\b|\d{4}年\d{1,2}月(?:\d{1,2}日)?)",
    re.IGNORECASE,
)
_FRONT_MATTER = re.compile(r"\A---\r?\n(.*?)\r?\n---\r?\n", re.DOTALL)
_TITLE_SEPARATOR = re.compile(r"\s+[—–|·-]\s+|\s+::\s+")
_WORD = re.compile(r"[^\W_]+")
# A well-formed UTF-8 sequence of two to four bytes (RFC 3629: no overlong forms, no
# surrogates, nothing above U+10FFFF).
_UTF8_SEQUENCE = re.compile(
    rb"[\xc2-\xdf][\x80-\xbf]|\xe0[\xa0-\xbf][\x80-\xbf]|[\xe1-\xec\xee\xef][\x80-\xbf]{2}"
    rb"|\xed[\x80-\x9f][\x80-\xbf]|\xf0[\x90-\xbf][\x80-\xbf]{2}|[\xf1-\xf3][\x80-\xbf]{3}"
    rb"|\xf4[\x80-\x8f][\x80-\xbf]{2}"
)
_ASCII = bytes(range(128))
# A declaration of an inline style that hides its element and what it holds.
_HIDING_STYLE = re.compile(
    r"(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*(?:hidden|collapse))\s*"
    r"(?:!\s*important\s*)?(?:;|$)",
    re.IGNORECASE,
)
_JSON_TYPES = {dict: "an object", list: "an array", bool: "a boolean", int: "a number"}


@dataclass(frozen=True)
class Document:
    location: str
    title: str
    text: str
    published: str | None = None
    author: str | None = None
    note: str = ""  # how the text was decoded, when the file was not plain UTF-8
    collection: str = ""  # the manual or site it belongs to, as the page declares it
    line: int = 0  # the line of a .jsonl file it was read from (0: the whole file)


class UnreadableDocument(Exception):
    """A file, or a line of a .jsonl file, that yields no usable document."""

    def __init__(self, location: str, reason: str) -> None:
        super().__init__(reason)
        self.location = location
        self.reason = reason


@dataclass(frozen=True)
class ReadResult:
    documents: list[Document]
    problems: list[UnreadableDocument]


def read_documents(path: Path, location: str) -> ReadResult:
    """Documents in one file; a .jsonl line that cannot be read is a problem of its own."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise UnreadableDocument(location, f"file too large ({size} bytes)")
        suffix = path.suffix.lower()
        if suffix == ".jsonl":
            return _read_jsonl(path, location)
        if suffix == ".pdf":
            return ReadResult([_read_pdf(path, location)], [])
        if suffix in {".html", ".htm"}:
            return ReadResult([_read_html(path, location)], [])
        return ReadResult([_read_text(path, location)], [])
    except UnreadableDocument as problem:
        return ReadResult([], [problem])
    except Exception as error:  # any parser failure makes this one file a failed source
        return ReadResult([], [UnreadableDocument(location, f"{type(error).__name__}: {error}")])


def _decode(data: bytes, location: str) -> tuple[str, str]:
    """The text of a file, and a note when it was not plain UTF-8."""
    _refuse_binary(data, location)
    return _decode_text(data)


def _refuse_binary(data: bytes, location: str) -> None:
    if b"\x00" in data[:8192]:
        raise UnreadableDocument(location, "binary content in a text file")


def _decode_text(data: bytes) -> tuple[str, str]:
    """UTF-8 when it is: one stray byte must not turn every "ü" of a UTF-8 file into
    "Ã¼" in quotes that claim to be verbatim. Mostly UTF-8 (at least as many well-formed
    multi-byte characters as stray bytes): UTF-8 with U+FFFD for each stray run. No UTF-8
    at all: cp1252, the usual encoding of an old Western text file."""
    try:
        return data.decode("utf-8"), ""
    except UnicodeDecodeError as error:
        first = error.start
    sequences = _UTF8_SEQUENCE.findall(data)
    stray = len(data.translate(None, _ASCII)) - sum(len(s) for s in sequences)
    replaced = f"not valid UTF-8 from byte {first}: {stray} stray byte(s) shown as U+FFFD"
    if len(sequences) >= stray:
        return data.decode("utf-8", errors="replace"), replaced
    try:
        return data.decode("cp1252"), "not valid UTF-8: read as cp1252"
    except UnicodeDecodeError:
        return data.decode("utf-8", errors="replace"), replaced


def _read_text(path: Path, location: str) -> Document:
    text, note = _decode(path.read_bytes(), location)
    return replace(text_document(text, location, path.stem), note=note)


def _read_html(path: Path, location: str) -> Document:
    text, note = _decode(path.read_bytes(), location)
    return replace(html_document(text, location, path.stem), note=note)


def _read_pdf(path: Path, location: str) -> Document:
    return pdf_document(path, location, path.stem)


def text_document(text: str, location: str, fallback_title: str) -> Document:
    """Plain text or markdown, kept as it is (a file's or a web page's)."""
    if not text.strip():
        raise UnreadableDocument(location, "empty file")
    return Document(location, _title_of_text(text, fallback_title), text, _date_in_text(text))


def html_document(
    html: str, location: str, fallback_title: str, *, search_metadata: bool = False
) -> Document:
    """HTML to markdown text (headings, lists and tables kept) with its metadata.

    The title, date and author are what the page declares (`_declared_metadata`): a
    local file is read this way. `search_metadata` has trafilatura search the page for
    them instead, guessing the date from its text (htmldate) and the author from its
    bylines: a web page often gives its date only there, and the report orders
    disagreeing sources by date; that search costs about as much CPU as the text
    extraction."""
    import trafilatura  # here: a run on an indexed corpus reads no HTML (~6 MiB, 0.05 s)

    html = _CGI_HEADER.sub("", html, count=1)
    tree = trafilatura.load_html(html)  # parsed once, for the text and the metadata
    head_title = _head_title(tree) if tree is not None else ""
    home = (_home(tree) or _manual_volume(tree)) if tree is not None else ""
    if tree is not None:
        tree = _shown(tree)
        tree = _terms_as_headings(_headings_unwrapped(_preformatted_as_code(tree)))
        tree = _anchored_terms_as_headings(tree)
        tree = _framed(_loose_text_in_paragraphs(_sections_kept(_labels(tree))))
    text = trafilatura.extract(
        tree if tree is not None else html,
        output_format="markdown",
        include_tables=True,
        include_formatting=True,
        include_comments=False,
        favor_recall=True,
    ) or trafilatura.html2txt(tree if tree is not None else html)
    if not text or not text.strip():
        raise UnreadableDocument(location, "no text in HTML")
    if search_metadata:
        metadata = _searched_metadata(tree if tree is not None else html)
    else:
        metadata = _declared_metadata(tree) if tree is not None else _Metadata()
    title = _page_title(metadata.title, head_title) or _title_of_text(text, fallback_title)
    published = metadata.date or _date_in_text(text)
    collection = home or _site_of(head_title, title)
    return Document(location, title, text, published, metadata.author, collection=collection)


# The header lines a CGI program writes before a page ("Content-type: text/html;
# charset=UTF-8" and a blank line), which man2html leaves in the pages it converts
# (bash's manual page): before the document, they make the parser read it as a fragment,
# and trafilatura then drops every heading of it, its options' terms with them.
_CGI_HEADER = re.compile(r"\A\s*(?:[A-Za-z][\w-]*:[^\n<]*\r?\n)+\r?\n(?=\s*<)")

_MAYBE_HIDDEN = "//*[@hidden or @aria-hidden or @style] | //template"


@cache
def _xpath(expression: str) -> XPath:
    """`expression` compiled once a process."""
    from lxml.etree import XPath

    return XPath(expression)


def _shown(tree: HtmlElement) -> HtmlElement:
    """The page without what a browser does not show: elements marked `hidden`,
    `aria-hidden="true"`, an inline style of `display: none` or `visibility: hidden`, and
    templates. A page can carry instructions for a model there, read by no one else;
    trafilatura drops some such elements but puts them back when the page would lose too
    much text. Text revealed by the browser's find (`hidden="until-found"`) is shown.
    Style sheets are not read: a class that hides text keeps it."""
    for element in _xpath(_MAYBE_HIDDEN)(tree):  # far fewer than all elements: 6% of the CPU
        if element.getparent() is None:
            continue
        hidden = element.get("hidden")
        if (
            element.tag == "template"
            or (hidden is not None and hidden.strip().lower() != "until-found")
            or element.get("aria-hidden", "").strip().lower() == "true"
            or _HIDING_STYLE.search(element.get("style", ""))
        ):
            element.drop_tree()
    return tree


_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")


def _headings_unwrapped(tree: HtmlElement) -> HtmlElement:
    """Each heading lifted out of the boxes that hold nothing else: DocBook writes a
    section title as `<div class="titlepage"><div><div><h2>`, and trafilatura drops a
    heading nested that deep, so the git user manual lost all of its 122 section titles
    and the Debian manuals most of theirs; a passage then lay under no heading, or under
    the last definition term above it."""
    for heading in list(tree.iter(*_HEADINGS)):
        box = heading.getparent()
        while (
            box is not None
            and box.tag == "div"
            and box.getparent() is not None
            and len(box) == 1
            and not (box.text or "").strip()
            and not (heading.tail or "").strip()
        ):
            heading.tail = box.tail
            box.getparent().replace(box, heading)
            box = heading.getparent()
    return tree


def _preformatted_as_code(tree: HtmlElement) -> HtmlElement:
    """Each preformatted block as code: trafilatura fences `<pre><code>` but writes a bare
    `<pre>` (a shell session, a DocBook screen) as plain lines, and a comment line in it
    ("# Ignore objects and archives.") was then read as a heading over the rest of the
    page. Prose set in fixed columns in a bare block is prose, a paragraph each
    (`_prose_as_paragraphs`): a plain-text manual shown as HTML (HAProxy's configuration
    manual, a licence) says everything in such blocks, and code is never quoted as an
    answer. A block element inside a block is part of its text: Sphinx's source listings
    wrap each entry in a <div> (with a "[docs]" link back to its documentation, no line of
    the code), and the fence ended at the first, the rest of the code read as prose."""
    for block in list(tree.iter("pre")):
        for inner in list(block.iter("div", "p")):
            inner.drop_tag()  # Sphinx's viewcode wraps each entry in a div: no end of the code
        for link in list(block.iter("a")):
            if "viewcode-back" in str(link.get("class") or ""):
                link.drop_tree()  # its "[docs]" link back to the entry is no line of code
        if next(block.iter("code"), None) is not None:
            continue
        if _prose_as_paragraphs(block):
            continue
        code = block.makeelement("code", {})
        code.text, block.text = block.text, None
        for child in list(block):
            code.append(child)  # its tail goes with it
        block.append(code)
    return tree


def _prose_as_paragraphs(block: HtmlElement) -> bool:
    """Replaces a bare preformatted block that holds prose by its paragraphs, and says
    whether it did: each run of lines between blank lines that reads as prose
    (`_reads_as_prose`) a paragraph, its lines joined; the runs between them code, as
    they were set. Not a block a highlighter set, nor one that marks words in bold or
    italics (a manual page's, which trafilatura writes as marked text, not as code)."""
    if _highlighted(block) or next(block.iter("b", "i", "strong", "em"), None) is not None:
        return False
    text = _preformatted_text(block)
    runs = [run for run in re.split(r"\n[ \t]*\n", text) if run.strip()]
    prose = [_reads_as_prose(run) for run in runs]
    parent = block.getparent()
    if not any(prose) or parent is None:
        return False
    at = parent.index(block)
    elements = []
    for run, is_prose in zip(runs, prose, strict=True):
        if is_prose:
            element = block.makeelement("p", {})
            element.text = " ".join(run.split())
        else:
            element = block.makeelement("pre", {})
            code = element.makeelement("code", {})
            code.text = f"{run.strip(chr(10))}\n"
            element.append(code)
        elements.append(element)
    elements[-1].tail = block.tail  # the text after the block follows its last run
    parent.remove(block)
    for offset, element in enumerate(elements):
        parent.insert(at + offset, element)
    return True


def _preformatted_text(block: HtmlElement) -> str:
    """A preformatted block's text as it is set: without the lists a page's script shows
    as menus inside it (HAProxy's "This keyword is available in sections : …" beside
    each keyword it names), which are no lines of it."""
    shown = copy.deepcopy(block)
    for menu in list(shown.iter("ul", "ol")):
        menu.drop_tree()  # its tail stays
    return str(shown.text_content())


def _highlighted(block: HtmlElement) -> bool:
    """Whether a block is source code set by a syntax highlighter (Pygments' `<div
    class="highlight"><pre>`, Sphinx's highlighted modules): code, its docstrings too."""
    return any("highlight" in str(e.get("class") or "") for e in block.iterancestors()) or (
        "highlight" in str(block.get("class") or "")
    )


def _reads_as_prose(run: str) -> bool:
    """Whether lines set in fixed columns are prose: a sentence or more, in words, with
    hardly a sign that code, a shell session or a listing uses (no prompt, comment or
    definition opening a line; brackets, equals signs and the like under 2% of its
    characters)."""
    lines = [line.strip() for line in run.splitlines() if line.strip()]
    if not lines or any(_CODE_LINE.match(line) for line in lines):
        return False
    words = _PROSE_WORD.findall(run)
    printed = sum(not c.isspace() for c in run)
    return (
        len(words) >= PROSE_WORDS
        and _PROSE_SENTENCE_END.search(run) is not None
        and len(_CODE_SIGN.findall(run)) <= PROSE_SIGNS * len(run)
        and sum(len(word) for word in words) >= PROSE_LETTERS * printed
    )


PROSE_WORDS = 6  # fewer words are a label or a value, not prose
PROSE_SIGNS = 0.02  # at most this share of a prose run's characters are `_CODE_SIGN`s
PROSE_LETTERS = 0.8  # at least this share of its printed characters are words' letters
_CODE_LINE = re.compile(r"(?:[$%#>@]|//|--|/\*|def\s|class\s|import\s|from\s+\S+\s+import)")
_CODE_SIGN = re.compile(r"[{}\[\]();=<>$|\\`*#/_]")
_PROSE_WORD = re.compile(r"[A-Za-z][a-z]+")
_PROSE_SENTENCE_END = re.compile(r"[a-z)][.!?](?:\s|$)")


def _terms_as_headings(tree: HtmlElement) -> HtmlElement:
    """Definition lists as what they mean: each term (a setting, a function's signature,
    a command's option) a heading over its description. trafilatura would render term and
    description as two list items, and a passage cut between them loses what "The
    default is 1 GB." is the default of; as headings, the term is in the heading path of
    its description. Terms in a row (`-a`, `--all`) become one heading. A term whose
    description holds terms of its own (a function and its arguments, a class and its
    methods) is a heading a level above them, so that theirs lie under it: `TIMEOUT`
    under `matlab_add_unit_test`, not beside it; so are the other terms of its list."""
    terms = list(tree.iter("dt"))
    nesting = {dl: _holds_terms(dl) for dl in {term.getparent() for term in terms}}
    level = {term: "h5" if nesting[term.getparent()] else "h6" for term in terms}
    for term in terms:
        previous = term.getprevious()
        if previous is not None and previous.get("data-term"):
            separator = previous.makeelement("span", {})
            separator.text, separator.tail = ", ", term.text
            previous.append(separator)
            for child in list(term):
                previous.append(child)
            term.drop_tree()
            continue
        term.tag = level[term]
        term.set("data-term", "1")
    for element in list(tree.iter("dl", "dd")):
        element.tag = "div"
    return tree


# The longest a line may be to be an entry's term with its arguments ("tune.http.maxhdr
# <number>"), not a paragraph that opens in bold
_TERM_LINE_CHARS = 120


def _anchored_terms_as_headings(tree: HtmlElement) -> HtmlElement:
    """A line that is a term in bold anchored by its own name, with the arguments after
    it, as the heading of what follows: the entry of a keyword on a page of them, written
    without a definition list (HAProxy's configuration manual: "tune.http.maxhdr
    <number>" over "Sets the maximum number of headers in a request."). As a paragraph, a
    passage cut after it loses what its "The default value is 101" is the default of;
    as a heading, the term is in the heading path of its description, as a <dt> is
    (`_terms_as_headings`). A bold run that opens a paragraph and is no anchor's name
    ("**Note**") stays as it is."""
    for line in list(tree.iter("div", "p")):
        children = [child for child in line if isinstance(child.tag, str)]
        if not children or children[0].tag not in ("b", "strong"):
            continue
        if (line.text and line.text.strip()) or any(c.tag not in _INLINE for c in children):
            continue
        term = children[0].text_content().strip()
        anchors = {a.get("name") or a.get("id") for a in children[0].iter("a")}
        if term and term in anchors and len(line.text_content().strip()) <= _TERM_LINE_CHARS:
            line.tag = "h6"
    return tree


def _holds_terms(definitions: HtmlElement | None) -> bool:
    """Whether a description of this definition list holds terms of its own."""
    if definitions is None:
        return False
    return any(next(item.iter("dt"), None) is not None for item in definitions.iterchildren("dd"))


_INLINE = frozenset(
    [
        "a",
        "abbr",
        "b",
        "br",
        "cite",
        "code",
        "em",
        "i",
        "kbd",
        "mark",
        "q",
        "samp",
        "small",
        "span",
        "strong",
        "sub",
        "sup",
        "tt",
        "var",
    ]
)


def _loose_text_in_paragraphs(tree: HtmlElement) -> HtmlElement:
    """Text that sits loose in a box beside paragraphs, put in paragraphs of its own.
    trafilatura drops such text: Sphinx writes "Changed in Django 3.1:" as a bare <span>
    before the <p> that says what changed, and the version, the answer to "in which
    version", was lost (9 of 15 such notes on Django's settings page). A <div> of text
    alone ("New in Django 3.2." after a setting's heading) becomes a paragraph too,
    unless it is mostly links (a navigation bar). So does text loose in the page's body
    itself, as older generators write it: the zsh FAQ's "are split into words when
    passed to a command or used in a" after a <pre> was lost."""
    boxes = ("body", "div", "dd", "section", "article", "blockquote", "li", "td")
    for box in list(tree.iter(*boxes)):
        children = list(box)
        inline = [isinstance(c.tag, str) and c.tag in _INLINE for c in children]
        loose = bool(box.text and box.text.strip()) or any(inline)
        if not loose or (all(inline) and (box.tag != "div" or _mostly_links(box))):
            continue  # a paragraph-like box already, or a bar of links
        boxed: list[HtmlElement] = []
        run: HtmlElement | None = None
        if box.text and box.text.strip():
            run = box.makeelement("p", {})
            run.text = box.text
        box.text = None
        for child, is_inline in zip(children, inline, strict=True):
            box.remove(child)
            if is_inline:
                run = box.makeelement("p", {}) if run is None else run
                run.append(child)  # its tail goes with it
                continue
            if run is not None:
                boxed.append(run)
                run = None
            tail, child.tail = child.tail, None
            boxed.append(child)
            if tail and tail.strip():
                run = box.makeelement("p", {})
                run.text = tail
        if run is not None:
            boxed.append(run)
        box.extend(boxed)
    return tree


def _labels(tree: HtmlElement) -> HtmlElement:
    """Each <summary> as a paragraph: trafilatura makes it a heading of the second
    level, so the label of a box that opens ("Changelog" over a Click function's notes)
    became a section of the page's title, and the notes, and every entry after them,
    lay under it instead of under the function's heading."""
    for label in tree.iter("summary"):
        label.tag = "p"
    return tree


def _sections_kept(tree: HtmlElement) -> HtmlElement:
    """The sections that trafilatura would drop as boilerplate for their id, or take for
    the page's main frame, kept as sections: its rules are a news site's (a box with
    "cookie", "shared", "menu" or "related" in its id is a banner or a list of links, one
    with "main" or "content" the article), and documentation gives each section an id
    made of its title's words. Flask's "Cookies" and "Set-Cookie options", CMake's
    BUILD_SHARED_LIBS entry on a page of variables and pytest's "Sharing test data" were
    lost. The id that is the anchor of the section's own heading (`_anchor_of_its_title`)
    is taken off a box with no class."""
    for box in tree.iter(*_BOXES):
        if box.get("id") and not box.get("class") and _anchor_of_its_title(box):
            del box.attrib["id"]
    return tree


def _anchor_of_its_title(box: HtmlElement) -> bool:
    """Whether the box's id is made of the words of the heading it opens with
    ("set-cookie-options" of "Set-Cookie options¶"): the anchor of a section, which
    names what the section is about, not what part of a page it is."""
    anchor = _WORDS.findall(box.get("id", "").lower())
    heading = next((child for child in box if child.tag in _HEADINGS), None)
    if not anchor or heading is None:
        return False
    return set(anchor) <= set(_WORDS.findall(heading.text_content().lower()))


_BOXES = frozenset({"div", "section"})
_WORDS = re.compile(r"[^\W_]+")


def _mostly_links(box: HtmlElement) -> bool:
    text = " ".join(box.text_content().split())
    linked = sum(len(" ".join(a.text_content().split())) for a in box.iter("a"))
    return not text or linked * 2 >= len(text)


def _framed(tree: HtmlElement) -> HtmlElement:
    """The page with its body in an <article> when trafilatura would find no main frame
    in it: without one it only recovers loose paragraphs and drops every heading (the
    DocBook pages of PostgreSQL, SQLite's pages)."""
    body = tree.find("body")
    if body is None or len(body) == 0 or _has_frame(tree):
        return tree
    article = body.makeelement("article", {})
    article.text, body.text = body.text, None
    for child in list(body):
        article.append(child)
    body.append(article)
    return tree


def _has_frame(tree: HtmlElement) -> bool:
    try:
        from trafilatura.xpaths import BODY_XPATH
    except ImportError:  # pragma: no cover - another trafilatura: leave the page as it is
        return True
    return any(expression(tree) for expression in BODY_XPATH)


@dataclass(frozen=True)
class _Metadata:
    title: str = ""
    date: str | None = None
    author: str | None = None


def _searched_metadata(page: HtmlElement | str) -> _Metadata:
    """trafilatura's metadata search: meta tags, JSON-LD, bylines, and htmldate's date,
    which it guesses from the text when the page declares none."""
    import trafilatura

    found = trafilatura.extract_metadata(page)
    if found is None:
        return _Metadata()
    return _Metadata(found.title or "", found.date or None, found.author or None)


# The names under which a page declares its title, date and author in a <meta>
# (name=, property= or itemprop=): Open Graph, Twitter, Dublin Core, Highwire (citation_),
# schema.org microdata. The dates of first publication come before the last change's.
_META_TITLE = frozenset(
    [
        "og:title",
        "twitter:title",
        "title",
        "dc.title",
        "dcterms.title",
        "citation_title",
        "headline",
    ]
)
_META_PUBLISHED = (
    "article:published_time",
    "og:published_time",
    "datepublished",
    "citation_publication_date",
    "citation_date",
    "dc.date.issued",
    "dcterms.issued",
    "dc.date.created",
    "dcterms.created",
    "dc.date",
    "dcterms.date",
    "date",
    "pubdate",
    "publishdate",
)
_META_MODIFIED = ("article:modified_time", "og:updated_time", "datemodified", "dcterms.modified")
_META_AUTHOR = frozenset(
    ["author", "article:author", "dc.creator", "dcterms.creator", "citation_author"]
)
_TITLED_HEADING = (
    "//*[self::h1 or self::h2 or self::h3][contains(@class, 'title') or contains(@id, 'title')"
    " or contains(@class, 'headline') or contains(@id, 'headline')]"
)
_HEAD_PARTS = re.compile(r"^(.+)\s[–•·—|⁄*⋆~‹«<›»>:-]\s(.+)$")  # at its last separator
_INVISIBLE = dict.fromkeys(map(ord, "\u00ad\u200b\u200c\u200d\u2060\ufeff"))
_ISO_DATETIME = re.compile(r"^(\d{4}-\d{2}-\d{2})[T ]\d{2}:\d{2}")


def _declared_metadata(tree: HtmlElement) -> _Metadata:
    """The title, date and author a page declares, in one pass over its <meta> tags.

    The title: a <meta> title, else the heading or <title> part `_heading_title` finds,
    in the order of trafilatura's search (the same title on 3,428 of the 3,439 Debian
    docs pages; the others differ by the spaces trafilatura put around inline tags:
    "( JIT )"). The date: a <meta> date, else a `<time>` marked as the publication date
    (`itemprop="datePublished"`, `pubdate`), else the page's only `<time datetime>` (of
    several, none tells which dates the page), else a date labelled as such near the top
    of the page (`_labelled_date`). No date is guessed from the text: htmldate took the
    version in "Django 3.2.25 documentation" for 3 February 2025 on every Django page,
    the footer "Last updated on May 12, 2026" (the Debian package's build date) for the
    date of Python 3.11.2's documentation, a date in an SQL example for an UPDATE page's
    and a copyright year for an article's; and that search cost as much CPU as
    extracting the text."""
    declared: dict[str, str] = {}
    for meta in tree.iterfind(".//meta[@content]"):
        key = meta.get("property") or meta.get("name") or meta.get("itemprop") or ""
        content = " ".join(meta.get("content", "").split())
        if content:
            declared.setdefault(key.strip().lower(), content)
    title = next((declared[k] for k in declared if k in _META_TITLE), "")
    if not title:
        title = _heading_title(tree)
    date = next((declared[k] for k in (*_META_PUBLISHED, *_META_MODIFIED) if k in declared), None)
    if date is None:
        date = _time_declared(tree) or _labelled_date(tree)
    if date is not None:
        iso = _ISO_DATETIME.match(date)
        date = iso.group(1) if iso else date
    author = next((declared[k] for k in declared if k in _META_AUTHOR), None)
    if author is not None and author.startswith(("http://", "https://")):
        author = None  # article:author is often the author's page, not a name
    return _Metadata(title, date, author)


def _heading_title(tree: HtmlElement) -> str:
    """The title a page shows, in the order of trafilatura's search: its only <h1>; a
    heading named a title (`<h2 class="title">`, DocBook's); the <title>'s part before
    its last separator, the part after it or the whole, the first of them without a "."
    (a site's domain or a version, "Django 3.2.25 documentation", is not the page's
    title); its first <h1>; its first <h2>."""
    headings = [_shown_text(h) for h in tree.iter("h1")]
    if len(headings) == 1 and headings[0]:
        return headings[0]
    for element in _xpath(_TITLED_HEADING)(tree):
        text = _shown_text(element)
        if 2 < len(text) < 200:
            return text
    head = _head_title(tree)
    parts = _HEAD_PARTS.match(head)
    for part in (*(parts.groups() if parts else ()), head):
        if part.strip() and "." not in part:
            return part.strip()
    return next((h for h in headings if h), "") or next(
        (_shown_text(h) for h in tree.iter("h2")), ""
    )


def _shown_text(element: HtmlElement) -> str:
    """An element's text on one line, without the invisible characters that mark where a
    long word may break (PostgreSQL writes a zero-width space after each "_" of a
    long name)."""
    return " ".join(element.text_content().translate(_INVISIBLE).split())


def _time_declared(tree: HtmlElement) -> str | None:
    times = [(t, str(t.get("datetime") or "").strip()) for t in tree.iter("time")]
    times = [(t, value) for t, value in times if value]
    for element, value in times:
        if element.get("itemprop", "").lower() == "datepublished" or "pubdate" in element.attrib:
            return value
    return times[0][1] if len(times) == 1 else None


def _labelled_date(tree: HtmlElement) -> str | None:
    """A date the page labels as its own ("Published: 2026-01-20", "Release date:
    2025-05-08", "发布时间：2024年5月1日") in the first 4,000 characters of its text: a
    byline that trafilatura leaves out of the text. "Last updated" is not such a label:
    generated documentation writes its build date there."""
    body = tree.find("body")
    if body is None:
        return None
    pieces: list[str] = []
    size = 0
    for piece in body.itertext():
        pieces.append(piece)
        size += len(piece)
        if size > 4000:
            break
    found = _LABELLED_DATE.search(" ".join(pieces)[:4000])
    return found.group(1) if found else None


def _home(tree: HtmlElement) -> str:
    """The manual or site the page belongs to, as its head declares it: the title of its
    link to the collection's first page (`<link rel="home" title="Debian GNU/Linux
    Installation Guide">`, DocBook's and others'; `start` and `top` are older names of
    it). A manual names its product there and seldom on its pages ("6.3. Using
    Individual Components" is a page of the Debian installation guide)."""
    for link in tree.iterfind(".//head/link"):
        if set(str(link.get("rel") or "").lower().split()) & _COLLECTION_LINKS:
            title = " ".join(str(link.get("title") or "").split())
            if title:
                return title
    return ""


_COLLECTION_LINKS = frozenset({"home", "start", "top"})


def _manual_volume(tree: HtmlElement) -> str:
    """The manual a man page belongs to, as mandoc's HTML heads it: the centre cell of
    its header line (`<td class="head-vol">OpenSSL</td>`, "Linux Programmer's Manual").
    A man page names its product there and often nowhere in its text."""
    for cell in tree.iterfind(".//table[@class='head']//td[@class='head-vol']"):
        volume = " ".join(cell.text_content().split())
        if volume:
            return volume
    return ""


def _site_of(head: str, title: str) -> str:
    """The site or manual a <title> names after the page's own title, at its last
    separator: "mod_proxy_hcheck - Apache HTTP Server Version 2.4" on the page titled
    "Apache Module mod_proxy_hcheck", "math — Mathematical functions — Python 3.11.2
    documentation"; "" when the <title> is the page's title alone."""
    parts = _HEAD_PARTS.match(head)
    if parts is None:
        return ""
    page, site = parts.group(1).strip(), parts.group(2).strip()
    said = set(_WORD.findall(title.lower()))
    if not said or not set(_WORD.findall(page.lower())) <= said or site.lower() in title.lower():
        return ""
    return site


def _head_title(tree: HtmlElement) -> str:
    element = tree.find(".//head/title")
    return " ".join(element.text_content().split()) if element is not None else ""


def _page_title(found: str, head: str) -> str:
    """The title found (the page's h1 or meta title) unless the <title> tells it is
    wrong: the site's name ("Django 3.2.25 documentation" on every page of a site whose
    <title> is "<page> — <site>") or no word of the <title> at all (the heading of a
    warning box)."""
    found = found.strip().rstrip("¶").strip()
    if not found or not head:
        return found or head
    segments = [s.strip() for s in _TITLE_SEPARATOR.split(head)]
    if len(segments) > 1 and found.strip() == segments[-1]:
        return head
    if not set(_WORD.findall(found.lower())) & set(_WORD.findall(head.lower())):
        return head
    return found


def pdf_document(data: Path | bytes, location: str, fallback_title: str) -> Document:
    """A PDF's text layer, from a file or from downloaded bytes."""
    from pypdf import PdfReader  # 16 MiB and 0.2 s CPU: loaded only for a PDF

    reader = PdfReader(str(data) if isinstance(data, Path) else io.BytesIO(data))
    pages = [(page.extract_text() or "").strip() for page in reader.pages]
    text = "\n\n".join(page for page in pages if page)
    if not text:
        raise UnreadableDocument(location, "no extractable text in PDF (scanned?)")
    title = ""
    if reader.metadata and reader.metadata.title:
        title = str(reader.metadata.title)
    author = str(reader.metadata.author) if reader.metadata and reader.metadata.author else None
    return Document(
        location, title or _title_of_text(text, fallback_title), text, _date_in_text(text), author
    )


def _read_jsonl(path: Path, location: str) -> ReadResult:
    """One document a line. Lines end at "\n" only (a U+2028 inside a JSON string is
    text) and are decoded one by one, so a stray byte is noted on its own document. A
    line that would make a document whose text is not what the line holds (a second
    document under an id, a number or a list printed as text) is a problem, with its line
    number."""
    documents: list[Document] = []
    problems: list[UnreadableDocument] = []
    data = path.read_bytes()
    _refuse_binary(data, location)
    first_line: dict[str, int] = {}
    for number, raw in enumerate(data.split(b"\n"), start=1):
        line, note = _decode_text(raw)
        if not line.strip():
            continue
        where = f"{location}:{number}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            problems.append(UnreadableDocument(where, f"invalid JSON: {error.msg}"))
            continue
        except RecursionError:  # the other lines are still documents
            problems.append(UnreadableDocument(where, "invalid JSON: nested too deeply"))
            continue
        reason = _jsonl_problem(record)
        if reason is None and record["id"] in first_line:
            reason = f"duplicate id {record['id']!r} (line {first_line[record['id']]} has it)"
        if reason is not None:
            problems.append(UnreadableDocument(where, reason))
            continue
        first_line[record["id"]] = number
        documents.append(
            Document(
                location=record["id"],
                title=record.get("title") or record["id"],
                text=record["text"],
                published=record.get("date") or None,
                note=note,
                line=number,
            )
        )
    return ReadResult(documents, problems)


def _jsonl_problem(record: object) -> str | None:
    """Why a JSONL record makes no document, if it does not."""
    if not isinstance(record, dict):
        return "a JSONL line must be an object with an 'id' and a 'text'"
    for key in ("id", "text", "title", "date"):
        value = record.get(key)
        if value is not None and not isinstance(value, str):
            return f"{key!r} must be a string, not {_JSON_TYPES.get(type(value), 'a number')}"
    if not (record.get("text") or "").strip():
        return "a JSONL document needs a 'text'"
    if not (record.get("id") or "").strip():
        return "a JSONL document needs an 'id'"
    return None


def _title_of_text(text: str, fallback: str) -> str:
    """The front matter's title, else the first line after it (Jekyll, Hugo and MkDocs
    pages open with a YAML block that may give only a date)."""
    front = _FRONT_MATTER.match(text)
    if front:
        for line in front.group(1).splitlines():
            key, _, value = line.partition(":")
            if key.strip().lower() == "title" and value.strip():
                return value.strip().strip("\"'")
    for line in text[front.end() if front else 0 :].splitlines():
        stripped = line.strip().lstrip("#").strip()
        if stripped and stripped != "---":
            return stripped[:160] if len(stripped) <= 160 else fallback
    return fallback


def _date_in_text(text: str) -> str | None:
    head = text[:1500]
    front = _FRONT_MATTER.match(head)
    if front:
        for line in front.group(1).splitlines():
            key, _, value = line.partition(":")
            if key.strip().lower() in {"date", "published"} and value.strip():
                return value.strip().strip("\"'")
    match = _DATE_LINE.search(head)
    if match:
        return match.group(1)
    dateline = _FULL_DATE.search(text[:400])  # "Lund, Sweden, 2024-05-21" under a title
    return dateline.group(0) if dateline else None
