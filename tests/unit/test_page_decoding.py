"""A web page whose bytes are not clean in its charset says so on its source, as a
corpus file does: a quote from it is not the page's bytes."""

from __future__ import annotations

from grounded_research.retrieval.web import _document

PAGE = (
    b"<html><body><p>Aurora A1 cells reach 450 Wh/kg in twenty tests run in Lund.</p></body></html>"
)


def test_bytes_not_in_the_named_charset_are_noted() -> None:
    damaged = PAGE.replace(b"twenty", b"tw\xff\xfenty")
    document = _document(damaged, "html", "https://x.example/a", "utf-8")
    assert "tw\ufffd\ufffdnty" in document.text
    first = damaged.index(b"\xff")
    assert document.note == f"not valid utf-8 from byte {first}: shown as U+FFFD"
    assert _document(PAGE, "html", "https://x.example/a", "utf-8").note == ""


def test_a_page_without_a_charset_read_as_cp1252_says_so() -> None:
    text = "Caf\xe9 Aurora: 450 Wh/kg.".encode("cp1252")
    document = _document(text, "text", "https://x.example/b", None)
    assert document.text == "Café Aurora: 450 Wh/kg."
    assert document.note == "not valid UTF-8 from byte 3: read as cp1252"


def test_a_sequence_cut_by_the_byte_cap_is_dropped_without_a_note() -> None:
    cut = "Aurora A1 cells, tested in Zü".encode()[:-1]  # the cap fell inside "ü"
    document = _document(cut, "text", "https://x.example/c", "utf-8")
    assert document.text == "Aurora A1 cells, tested in Z" and document.note == ""
