"""Gathering makes the source records: what a retriever found becomes a `Source` whose
location and title can be shown on one line of a report, a table or a prompt."""

from __future__ import annotations

from grounded_research.gathering import gather, printable, source_id
from grounded_research.retrieval.base import SearchHit, SourceProblem
from grounded_research.state import SubQuestion

ODD_NAME = "notes/a\nb\x1b[31m\u202e.md"
ODD_TITLE = "First line\r\nsecond\tline"


class OddNames:
    name = "local"

    async def search(self, query: str, k: int) -> list[SearchHit]:
        return [SearchHit(ODD_NAME, ODD_TITLE, "abc", 2, 9, "Oslo is\n", 1.0, "local")]

    def problems(self) -> list[SourceProblem]:
        return [SourceProblem("bad\x00name.pdf", "failed", "broken PDF", "local")]


def test_control_characters_are_spelt_out_and_nothing_else_changes() -> None:
    assert printable(ODD_NAME) == "notes/a\\nb\\x1b[31m\\u202e.md"
    assert printable(ODD_TITLE) == "First line\\r\\nsecond\\tline"
    assert printable("caf\udce9.md") == "caf\\udce9.md"  # a Latin-1 byte in a file name
    for plain in ("docs/Zürich notes (v2).md", "青岚/基地.md", "a\\b.md", "https://x.example/?q=1"):
        assert printable(plain) == plain


async def test_a_file_name_with_a_newline_is_one_line_on_its_source() -> None:
    question = SubQuestion(id="q0", text="a", queries=["a"])
    gathered = await gather([OddNames()], question, ["a"], 3, 0)
    found = gathered.sources[source_id("local", ODD_NAME)]  # the id: from the real name
    assert found.location == "notes/a\\nb\\x1b[31m\\u202e.md"
    assert found.title == "First line\\r\\nsecond\\tline"
    failed = gathered.sources[source_id("local", "bad\x00name.pdf")]
    assert failed.location == "bad\\x00name.pdf" and failed.status == "failed"
    [evidence] = gathered.evidence.values()
    assert (evidence.text, evidence.start, evidence.end) == ("Oslo is\n", 2, 9)  # verbatim
