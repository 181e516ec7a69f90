"""Files to documents: the text a source is quoted from, its title and its date.

`.md` and `.txt` keep the file's own text, unchanged, so a quote can be found in the
file itself; HTML keeps headings, lists and tables (version numbers and dates often
live only in headings); a `.jsonl` file holds one document per line.
"""

from __future__ import annotations

import io
import json
import re
from dataclasses import dataclass
from pathlib import Path

import trafilatura
from lxml.html import HtmlElement
from pypdf import PdfReader

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
_FRONT_MATTER = re.compile(r"\A---\r?\n(.*?)\r?\n---\r?\n", re.DOTALL)
_TITLE_SEPARATOR = re.compile(r"\s+[—–|·-]\s+|\s+::\s+")
_WORD = re.compile(r"[^\W_]+")


@dataclass(frozen=True)
class Document:
    location: str
    title: str
    text: str
    published: str | None = None
    author: str | None = None


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


def _decode(data: bytes, location: str) -> str:
    if b"\x00" in data[:8192]:
        raise UnreadableDocument(location, "binary content in a text file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="strict")


def _read_text(path: Path, location: str) -> Document:
    return text_document(_decode(path.read_bytes(), location), location, path.stem)


def _read_html(path: Path, location: str) -> Document:
    return html_document(_decode(path.read_bytes(), location), location, path.stem)


def _read_pdf(path: Path, location: str) -> Document:
    return pdf_document(path, location, path.stem)


def text_document(text: str, location: str, fallback_title: str) -> Document:
    """Plain text or markdown, kept as it is (a file's or a web page's)."""
    if not text.strip():
        raise UnreadableDocument(location, "empty file")
    return Document(location, _title_of_text(text, fallback_title), text, _date_in_text(text))


def html_document(html: str, location: str, fallback_title: str) -> Document:
    """HTML to markdown text (headings, lists and tables kept) with its metadata."""
    tree = trafilatura.load_html(html)  # parsed once, for the text and the metadata
    head_title = _head_title(tree) if tree is not None else ""
    text = trafilatura.extract(
        _framed(_loose_text_in_paragraphs(_terms_as_headings(tree))) if tree is not None else html,
        output_format="markdown",
        include_tables=True,
        include_formatting=True,
        include_comments=False,
        favor_recall=True,
    ) or trafilatura.html2txt(html)
    if not text or not text.strip():
        raise UnreadableDocument(location, "no text in HTML")
    metadata = trafilatura.extract_metadata(tree if tree is not None else html)
    title = _page_title(
        metadata.title if metadata and metadata.title else "", head_title
    ) or _title_of_text(text, fallback_title)
    published = metadata.date if metadata and metadata.date else _date_in_text(text)
    author = metadata.author if metadata and metadata.author else None
    return Document(location, title, text, published, author)


def _terms_as_headings(tree: HtmlElement) -> HtmlElement:
    """Definition lists as what they mean: each term (a setting, a function's signature,
    a command's option) a heading over its description. trafilatura would render term and
    description as two list items, and a passage cut between them loses what "The
    default is 1 GB." is the default of; as headings, the term is in the heading path of
    its description. Terms in a row (`-a`, `--all`) become one heading."""
    for term in list(tree.iter("dt")):
        previous = term.getprevious()
        if previous is not None and previous.tag == "h6" and previous.get("data-term"):
            separator = previous.makeelement("span", {})
            separator.text, separator.tail = ", ", term.text
            previous.append(separator)
            for child in list(term):
                previous.append(child)
            term.drop_tree()
            continue
        term.tag = "h6"
        term.set("data-term", "1")
    for element in list(tree.iter("dl", "dd")):
        element.tag = "div"
    return tree


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
    unless it is mostly links (a navigation bar)."""
    for box in list(tree.iter("div", "dd", "section", "article", "blockquote", "li", "td")):
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


def _head_title(tree: HtmlElement) -> str:
    element = tree.find(".//head/title")
    return " ".join(element.text_content().split()) if element is not None else ""


def _page_title(found: str, head: str) -> str:
    """trafilatura's title (the page's h1 or meta title) unless the <title> tells it is
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
    documents: list[Document] = []
    problems: list[UnreadableDocument] = []
    text = _decode(path.read_bytes(), location)
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{location}:{number}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            problems.append(UnreadableDocument(where, f"invalid JSON: {error.msg}"))
            continue
        if not isinstance(record, dict) or not str(record.get("text") or "").strip():
            problems.append(UnreadableDocument(where, "a JSONL document needs a 'text'"))
            continue
        if not str(record.get("id") or "").strip():
            problems.append(UnreadableDocument(where, "a JSONL document needs an 'id'"))
            continue
        documents.append(
            Document(
                location=str(record["id"]),
                title=str(record.get("title") or record["id"]),
                text=str(record["text"]),
                published=str(record["date"]) if record.get("date") else None,
            )
        )
    return ReadResult(documents, problems)


def _title_of_text(text: str, fallback: str) -> str:
    front = _FRONT_MATTER.match(text)
    if front:
        for line in front.group(1).splitlines():
            key, _, value = line.partition(":")
            if key.strip().lower() == "title" and value.strip():
                return value.strip().strip("\"'")
    for line in text.splitlines():
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
