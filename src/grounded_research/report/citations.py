"""How a report cites, and how its claims are read back: one place for both sides.

A claim is a sentence of the report's body or of a section that holds claims (see
`sections`); its citations are the `[n]` markers it carries.

A quote shows a page's text, and a page may carry markup (`<evidence id=…>`, a link, an
image) or markers that look like the report's own (`[3]`). The report shows such
characters escaped (`escaped`): Markdown renders them as text and the verifier reads no
citation in them; a claim is compared with its evidence with the escapes of both undone
(`plain`), so a quote is still word for word what its evidence says. Code spans are shown
as they are (Markdown renders their content as text) and hold no citations either.

A quote is shown as a reader reads its page (`displayed`): a table row as its cells ("Cell
mass: 0.55 kg"), without list markers, without the backslashes a page's Markdown needs
and the report's does not (`to_thread`). Claim and evidence are compared read the same
way (`comparable`), so a quote shown so still verifies, and the evidence keeps its text
verbatim.

A number cites a document: every passage of one source the report quotes shares its
number, and the references list each document once with its cited spans.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

from grounded_research.report.sections import AFTER_CLAIMS, CONFLICTS_HEADING
from grounded_research.state import Evidence, State, Verdict
from grounded_research.text.chunking import LINE_MARKER, sentences
from grounded_research.text.facts import checkable_content, contains_content
from grounded_research.text.normalize import normalize

CITATION = re.compile(r"\[(\d+(?:\s*[,;]\s*\d+)*)\]")
# What Markdown reads as text whatever it holds, left to right: a code span, a run of
# backticks that opens none, a backslash escape.
_AS_TEXT = r"(?<!`)(?P<ticks>`+)(?!`).+?(?<!`)(?P=ticks)(?!`)|`+|\\."
_CITATION_READ = re.compile(_AS_TEXT + r"|(?P<citation>" + CITATION.pattern + ")")
_MARKUP = re.compile(_AS_TEXT + r"|(?P<markup>[\[\]<])")
_ESCAPE = re.compile(r"\\([\\\[\]<])")
_NOTE = re.compile(r"^\s*_[^_].*_\s*$")
_LINE_MARKUP = re.compile(r"^\s*(?:[-*+•]\s+|\d+[.)]\s+|>\s*)")
_EMPHASIS = re.compile(r"\*\*|__|`")
# A list item that is one quotation and its citations: the report's quote of a passage
_QUOTE_LINE = re.compile(r"^\s*[-*+•]\s+“.*”\s*(?:\[[\d,; ]+\]\s*)+$")
_TABLE_ROW = re.compile(r"^\|(.*)\|$")
_CLAUSE_END = (".", ";", ":", "!", "?", "。", "；", "：", "！", "？")
_CELL_BREAK = re.compile(r"(?<!\\)\|")
# Backslash escapes a quote needs not keep: of punctuation that starts no markup in the
# middle of a line (an underscore only inside a word). `*`, `` ` ``, `~`, `&` and the
# escapes `escaped` writes stay.
_NEEDLESS_ESCAPE = re.compile(
    _AS_TEXT.removesuffix(r"|\\.")
    + r"|(?<=\w)\\(?P<needless>_)(?=\w)|\\(?P<needless_mark>[!\"#$%'()+,\-./:;=?@^{|}>])|\\."
)
UNSUPPORTED_FLAG = "⚠ unsupported by its citations"
_FLAGGED = re.compile(r"\s*" + re.escape(UNSUPPORTED_FLAG) + r"\s*\(\w+\)")


@dataclass
class Citations:
    """Documents numbered in the order the report first cites them, each cited evidence
    id with its document's number (`source_of` names an id's source; without it, each id
    is a document of its own)."""

    source_of: Callable[[str], str] | None = None
    numbers: dict[str, int] = field(default_factory=dict)  # cited evidence id -> number
    documents: dict[str, int] = field(default_factory=dict)  # cited source id -> number

    @classmethod
    def of(cls, state: State) -> Citations:
        return cls(source_of=lambda evidence_id: state.record(evidence_id).source_id)

    def __call__(self, evidence_id: str) -> int:
        if evidence_id not in self.numbers:
            source = self.source_of(evidence_id) if self.source_of else evidence_id
            self.numbers[evidence_id] = self.documents.setdefault(source, len(self.documents) + 1)
        return self.numbers[evidence_id]


@dataclass(frozen=True)
class ReportClaim:
    text: str  # without markup and citation markers
    citations: list[int]
    under: str = ""  # the headings the report shows above it (a note line), plain text


def note(text: str) -> str:
    """A line about the report itself (not a claim about the world): the verifier skips it."""
    return f"_{text}_"


def cite(numbers: list[int]) -> str:
    return "".join(f"[{n}]" for n in numbers)


def escaped(text: str) -> str:
    """A page's text as the report shows it: every `[`, `]` and `<` that would start
    markup or a citation backslash-escaped, outside code spans and unless already
    escaped (text extracted from HTML comes escaped)."""
    return _MARKUP.sub(lambda m: "\\" + m[0] if m["markup"] else m[0], text)


def displayed(text: str) -> str:
    """A page's text as a quote shows it: `readable`, on one line, markup escaped."""
    return escaped(readable(text))


def readable(text: str, unmarked: bool = False) -> str:
    """A page's text as its reader sees it, on one line: a table row as its cells
    ("| Cell mass | 0.55 kg |" as "Cell mass: 0.55 kg"; a rule row left out), a list
    item, a quotation or a heading without its marker, lines joined (two rows or items
    with "; ", a hard-wrapped item's lines with a space), backslash escapes that only
    Markdown needed undone. `unmarked`: bold and code marks taken off too, from each
    line after its marker is read, so that a hard-wrapped line "`10`.  The value …"
    stays the text it is and is not read as list item 10."""
    pieces: list[str] = []
    item = False  # the lines before are a table row or a list item
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            item = False  # a blank line ends an item
            continue
        row = line.startswith("|") or (line.endswith("|") and not line.endswith("\\|"))
        marked = LINE_MARKER.match(line)
        if row:  # a whole row, or a piece of one a sentence break cut ("| | The tip…")
            cells = [c.strip() for c in _CELL_BREAK.split(line)]
            cells = [c for c in cells if c]
            if all(set(c) <= set("-: ") for c in cells):
                continue  # a table's rule
            line = cells[0] + (": " + ", ".join(cells[1:]) if len(cells) > 1 else "")
        elif marked:
            line = line[marked.end() :]
        if unmarked:
            line = _EMPHASIS.sub("", line)
        if not line:
            continue
        starts_item = bool(row or marked)
        if (
            pieces
            and item
            and starts_item
            and not pieces[-1].endswith(_CLAUSE_END)
            and not pieces[-1].endswith("\\")  # "\;" would read as an escaped ";"
        ):
            pieces[-1] += ";"
        pieces.append(line)
        item = item or starts_item
    flat = " ".join(" ".join(pieces).split())
    return _NEEDLESS_ESCAPE.sub(lambda m: m["needless"] or m["needless_mark"] or m[0], flat)


def as_shown(text: str) -> str:
    """A page's text as a quote of it reads in the report, escapes undone: what a
    claim's numbers and names are looked for in. A claim is read off the report without
    the bold and code marks its quote carried (`split_claims`), so the page is read
    without them too (`readable`'s `unmarked`): "`foo`3.0" names no "foo3" on either
    side."""
    return plain(readable(text, unmarked=True))


def plain(text: str) -> str:
    """Text with the escapes `escaped` may have written undone, as a claim and its
    evidence (which may hold such escapes itself: HTML comes escaped) are compared. Undo
    them once: `\\\\[` is a backslash before a bracket."""
    return _ESCAPE.sub(r"\1", text)


def citations_in(text: str) -> list[int]:
    """The numbers of the citations in a piece of the report: markers not escaped and not
    inside a code span, where a quote keeps what its page wrote."""
    groups = [m["citation"] for m in _CITATION_READ.finditer(text) if m["citation"]]
    return [int(n) for group in groups for n in re.split(r"[,;]", group[1:-1])]


def without_citations(text: str) -> str:
    return _CITATION_READ.sub(lambda m: "" if m["citation"] else m[0], text)


def unflagged(report: str) -> str:
    """The report as written, before the verifier appended its flags."""
    return _FLAGGED.sub("", report)


def split_claims(report: str) -> list[ReportClaim]:
    """The sentences of the report that state something, with their citations and the
    headings shown above them (a note line starts a group of quotes; a blank line or a
    section heading ends it): those before the first section that holds no claims, the
    verifier's flags left out (a flag after the citation marker would otherwise be read
    as a claim of its own), the tables of the Conflicts section too (they set out the
    values the quotes under them state). A fragment of prose is no claim; a cited
    quote line is one however short ("“**Default:** `2`.” [1]"): the report states it,
    and it is checked as any other."""
    cut = AFTER_CLAIMS.search(report)
    body = report[: cut.start()] if cut else report
    claims: list[ReportClaim] = []
    under = ""
    conflicts = False  # under the report's own Conflicts heading
    for line in unflagged(body).splitlines():
        if line.lstrip().startswith("#") and not line.lstrip().startswith("###"):
            conflicts = bool(CONFLICTS_HEADING.match(line.strip()))
        if not line.strip() or line.lstrip().startswith("#"):
            under = ""
            continue
        if conflicts and _TABLE_ROW.match(line.strip()):
            continue  # the values side by side: the quotes below them are the claims
        if _NOTE.match(line):
            under = plain(_EMPHASIS.sub("", line.strip()[1:-1]))
            continue
        quote = _QUOTE_LINE.match(line) is not None
        spans = [(0, len(line))] if quote else sentences(line)
        for start, end in spans:  # a quote of several sentences is one claim
            sentence = line[start:end]
            numbers = citations_in(sentence)
            text = _unquoted(_EMPHASIS.sub("", _LINE_MARKUP.sub("", without_citations(sentence))))
            if not text and numbers and claims:
                # "… end of a quote.” [3]": the marker belongs to the sentence before it
                last = claims[-1]
                claims[-1] = ReportClaim(last.text, last.citations + numbers, last.under)
            elif len(text.split()) >= 3 or len(text) >= 12 or (quote and text and numbers):
                claims.append(ReportClaim(text, numbers, under))  # a cited quote, however short
    return claims


def _unquoted(text: str) -> str:
    """The claim without the quotation marks the report put around it (a quote inside
    the claim stays: it is part of what the source says)."""
    text = text.strip(" :").removeprefix("“").removesuffix("”")
    if text.count('"') % 2:  # an unbalanced straight quote is the report's own
        text = text[1:] if text.startswith('"') else text.removesuffix('"')
    return text.strip()


class Judged(NamedTuple):
    verdict: Verdict
    note: str
    verbatim: bool = False  # the claim stands word for word in a cited passage


def judge(claim_text: str, cited: list[Evidence]) -> Judged:
    """Extractive check: verbatim inside a cited passage is supported; its checkable
    content (numbers, names) all inside one is partial; anything else unsupported."""
    if not cited:
        return Judged("unsupported", "no citation")
    wanted = comparable(claim_text)
    if any(wanted in comparable(e.text) for e in cited):
        return Judged("supported", "verbatim in cited evidence", verbatim=True)
    content = checkable_content(plain(claim_text))
    if content and any(contains_content(as_shown(e.text), content) for e in cited):
        return Judged("partial", "numbers and names found in cited evidence, wording differs")
    return Judged("unsupported", "not found in cited evidence")


def comparable(text: str) -> str:
    """Text as a claim is compared with its evidence: both read as a quote shows them
    (`readable`: a table row as its cells); a claim is read off the report without the
    bold and code marks its quote carried (`split_claims`), so the evidence is read
    without them too (an escape in a code span is kept as written, and the claim's code
    span is gone); on both, escapes are undone."""
    return normalize(as_shown(text))


def quoted_span(claim_text: str, evidence: Evidence) -> str | None:
    """The evidence's own text that a quote shows (`displayed`: a table row as its
    cells), found by reading its runs of sentences as a quote reads them; None when the
    quote is not verbatim in it. What the report states, as its source wrote it."""
    wanted = comparable(claim_text)
    if not wanted or wanted not in comparable(evidence.text):
        return None
    spans = sentences(evidence.text)
    for first, (start, _) in enumerate(spans):
        for _, end in spans[first:]:
            read = comparable(evidence.text[start:end])
            if read == wanted:
                return evidence.text[start:end]
            if len(read) > len(wanted):
                break
    return None


def citation_valid(claim_text: str, evidence: Evidence) -> bool:
    """The evaluation's rule: the evidence holds every number, date and named term of the
    sentence (or, when it has none, the sentence itself)."""
    content = checkable_content(plain(claim_text))
    if not content:
        return comparable(claim_text) in comparable(evidence.text)
    return contains_content(as_shown(evidence.text), content)
