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
    text = trafilatura.extract(
        html,
        output_format="markdown",
        include_tables=True,
        include_formatting=True,
        include_comments=False,
        favor_recall=True,
    ) or trafilatura.html2txt(html)
    if not text or not text.strip():
        raise UnreadableDocument(location, "no text in HTML")
    metadata = trafilatura.extract_metadata(html)
    title = (metadata.title if metadata and metadata.title else "") or _title_of_text(
        text, fallback_title
    )
    published = metadata.date if metadata and metadata.date else _date_in_text(text)
    author = metadata.author if metadata and metadata.author else None
    return Document(location, title, text, published, author)


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
