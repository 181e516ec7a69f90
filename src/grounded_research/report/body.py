"""The report's body: a section per sub-question, every statement a cited quote.

Extractive mode quotes the evidence sentences that best answer each sub-question. With a
model, the model writes the body from the same selected evidence, which it receives
quoted with short ids (E1, E2, …); the ids it cites become the numbered references, and
a cited id that does not exist is removed and reported as a warning. A model that fails,
or cites nothing, gets the extractive body instead.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import NamedTuple

from grounded_research.gaps.conflicts import frame
from grounded_research.gaps.headings import HeadingsAt
from grounded_research.gaps.kinds import ABSTAINING_KINDS, CONFLICT_KINDS
from grounded_research.gaps.rules import as_sources_write_it, scene_only_names, searched_names
from grounded_research.models import ModelFailure, NodeModel
from grounded_research.prompts import Found, Section, language_of, writer_messages
from grounded_research.report.citations import (
    Citations,
    cite,
    displayed,
    note,
)
from grounded_research.report.sections import REPORT_OWN
from grounded_research.report.unresolved import reason_in_words
from grounded_research.state import (
    WHOLE_QUESTION_ID,
    ConflictSide,
    Evidence,
    Gap,
    Source,
    State,
    SubQuestion,
)
from grounded_research.text.answers import (
    STATEMENT_KINDS,
    Asked,
    filed_names,
    mentions_identifier,
    named_in_location,
    names_one_of,
    names_subject,
    passage_names,
    says_word,
    states_verdict,
    subjects,
)
from grounded_research.text.chunking import (
    HEADING_LINE,
    LINE_MARKER,
    LIST_ITEM,
    below_rule,
    header_rows,
    heading_named,
    inside,
    is_list_label,
    sentences,
    sentences_with_lead,
)
from grounded_research.text.dates import date_key
from grounded_research.text.facets import facets_of
from grounded_research.text.facts import name_phrases, named_terms
from grounded_research.text.normalize import normalize, unaccented, unescaped
from grounded_research.text.tokenize import has_cjk, tokenize

SENTENCES_PER_SUB_QUESTION = 10
HOP_QUOTES = 3  # the best-ranked quotes whose pages named are a question's second hop
# A quote's new question words against its rank, both as shares: one that adds a third
# of the question's words outweighs a whole ranked list above it.
COVERAGE_WEIGHT = 3.0
MIN_RELEVANCE = 0.2
ANSWER_BONUS = 0.15
ANSWER_WORDS = 40
JOINED_WORDS = 60  # about three sentences: a quote read at a glance
FRAGMENT_WORDS = 5  # fewer words than the shortest statement: "The default is 1 GB."
MIN_QUOTE_WORDS = 3
COMMAND_WORDS = 2  # a command in a code block: "sha256sum filename.iso"
CJK_CHARACTERS_PER_WORD = 2
# A section's number and title run into the text: an entry of a table of contents
# flattened into a line ("…, 7.4. 什么是 Debian 控制文件？"), no statement.
_ENTRY = r"\d+(?:\.\d+)+\.\s+\S"  # a section's number and the title after it
_CONTENTS_ENTRY = re.compile(rf"[,，;\s]*{_ENTRY}")
_LISTED_ENTRY = re.compile(rf"[,，]\s*{_ENTRY}")  # ", 7.4. 什么是…" in a list of them
_CITATION_GROUP = re.compile(r"\s?[\[【]([^\[\]【】\n]{1,120})[\]】](?!\()")
_CITATION_TOKEN = re.compile(r"(?:E\d+|ev-[0-9a-f]{6,}|\d+)", re.IGNORECASE)


class Quote(NamedTuple):
    record: Evidence
    sentence: str
    headings: tuple[str, ...]  # the headings the sentence lies under in its source
    lead: str = ""  # the sentences before it in its paragraph, which may name its subject
    in_code: bool = False  # a line of a code block
    header: str = ""  # a table row's header row, shown above it with its headings
    titled: bool = False  # an answer whose value only its source's title gives: shown above


class Frame(NamedTuple):
    """What the title and headings above a sentence say: their names, their search
    terms, and whether they name a code name the question asks about."""

    names: set[str]
    terms: set[str]
    code: bool


def extractive_body(
    state: State, labels: dict[str, str], text_of: Callable[[str], str] | None = None
) -> tuple[str, Citations]:
    """One section per sub-question quoting the evidence sentences that answer it best,
    after a one-line answer: the quote that holds what the question asks for (a date, a
    version, a number, a name; when the sources disagree on it, each side's quote, the
    most recent first), or, when the gap check found no answer, a note saying so and
    why, the quotes below then being the closest material found. Above a group of
    quotes, the headings they lie under in their source, when they say more than the
    title: a reader sees which release, setting or section a quote belongs to."""
    number = Citations.of(state)
    titles = {source.id: source.title for source in state.sources.values()}
    places = {source.id: source.place for source in state.sources.values()}
    headings_at = HeadingsAt(state.sources, text_of)
    not_answered = why_not_answered(state)
    ranked = {
        sq.id: ranked_sentences(
            sq,
            state.selected_for(sq.id),
            titles,
            places,
            headings_at,
            closest=bool(not_answered) and sq.id == WHOLE_QUESTION_ID,
            found=state.found_for(sq.id),
            shelves=state.shelves,
        )
        for sq in state.sub_questions
    }
    answering: list[Quote] = []
    if not not_answered:  # the answer may be any candidate, not only one of the best quoted
        candidates = ranked.get(WHOLE_QUESTION_ID, [])
        answering = answer_lines(
            question_as_written(state),
            candidates,
            titles,
            places,
            headings_at,
            state.shelves,
            state.selected_for(WHOLE_QUESTION_ID),
        )
    disagreeing = disagreement_answered(state, answering)
    if disagreeing is not None:
        answering = [
            Quote(
                record,
                side.sentence,
                headings_at(record, at := max(0, record.text.find(side.sentence))),
                header=headings_at.header(record, at),
            )
            for _, side, record, _ in sides_latest_first(state, disagreeing)
        ]
    quoted = {normalize(line.sentence) for line in answering}
    chosen = {
        sq.id: joined(
            with_antecedent(
                with_subject(
                    best_sentences(
                        ranked[sq.id],
                        quoted,
                        wanted_terms(sq.text, sq.facets),
                        hop_pages(ranked[sq.id], titles, answering),
                    ),
                    titles,
                )
            )
        )
        for sq in state.sub_questions
    }

    def quotes(picked: list[Quote]) -> str:
        """Quote lines, grouped under the headings they lie under, shown above each group
        where they change (a blank line closes a group)."""
        lines: list[str] = []
        shown: str | None = None
        for quote in picked:
            record, header = quote.record, quote.header
            above = (*quote.headings, header) if header else quote.headings
            title = titles.get(record.source_id, "")
            if quote.titled and all(normalize(h) != normalize(title) for h in above):
                above = (title, *above)
            under = shown_headings(above, "" if quote.titled else title)
            if under != shown:
                if lines:
                    lines.append("")  # a blank line closes the group above
                if under:
                    lines.append(note(under))
                shown = under
            lines.append(f"- “{displayed(quote.sentence)}” {cite([number(record.id)])}")
        return "\n".join(lines)

    parts: list[str] = []
    if not_answered:  # quoting the closest material, if anything comes close
        said = "not_answered" if any(chosen.values()) else "not_answered_unquoted"
        answer = note(labels[said].format(why=reason_in_words(not_answered, labels)))
        parts.append(f"## {labels['answer']}\n\n{answer}\n")
    elif answering:
        said = f"{note(labels['disagree'])}\n\n" if disagreeing is not None else ""
        parts.append(f"## {labels['answer']}\n\n{said}{quotes(answering)}\n")
    for sub_question in state.sub_questions:
        whole = sub_question.id == WHOLE_QUESTION_ID
        heading = sub_question.text
        if whole:
            heading = labels["closest" if not_answered else "findings"]
        lines = quotes(chosen[sub_question.id])
        if not whole or lines:
            parts.append(f"## {heading}\n\n" + (lines or note(labels["no_direct"])) + "\n")
    return "\n".join(parts), number


def question_as_written(state: State) -> str:
    """The question as the gap check and the ranking read it (`as_sources_write_it`): a
    product written in lower case before its release number ("requests 2.26.0 release
    date") is the name the sources capitalise, so the answer line, as they do, takes
    only a date or version of that release."""
    whole = next((sq for sq in state.sub_questions if sq.id == WHOLE_QUESTION_ID), None)
    if whole is None or whole.text != state.question:
        return state.question
    found = [*state.selected_for(whole.id), *state.found_for(whole.id)]
    return as_sources_write_it(whole, found).text


def disagreement_answered(state: State, answering: list[Quote]) -> Gap | None:
    """The disagreement the gap check found whose side the answer line quotes ("plans
    to start series production … in 2025" against the later "delays series production
    … to 2027"): the answer is then every side's quote, the most recent first."""
    for gap in state.open_gaps():
        if gap.kind not in CONFLICT_KINDS:
            continue
        sides = {(side.evidence_id, normalize(side.sentence)) for side in gap.sides}
        if any(
            evidence_id == line.record.id and sentence in normalize(line.sentence)
            for line in answering
            for evidence_id, sentence in sides
        ):
            return gap
    return None


def sides_latest_first(state: State, gap: Gap) -> list[tuple[str, ConflictSide, Evidence, Source]]:
    """A disagreement's sides, each with its record, its source and that source's date
    (as `date_key` sorts it), the most recent first and the undated last."""
    dated = []
    for side in gap.sides:
        record = state.record(side.evidence_id)
        source = state.sources[record.source_id]
        dated.append((date_key(source.published), side, record, source))
    return sorted(dated, key=lambda d: d[0], reverse=True)


def shown_headings(headings: tuple[str, ...], title: str) -> str:
    """The heading path of a quote as a reader needs it beside the quote: "Release 15.1 ›
    Migration to Version 15.1"; the headings that only repeat the title (shown in the
    references) left out."""
    path = [h for h in headings if normalize(h) != normalize(title)]
    return " › ".join(displayed(h) for h in path)


def why_not_answered(state: State) -> str:
    """Why the run could not answer the whole question, from the gaps left open: ""
    when it could."""
    return next(
        (
            gap.detail
            for gap in state.unresolved
            if gap.sub_question_id == WHOLE_QUESTION_ID and gap.kind in ABSTAINING_KINDS
        ),
        "",
    )


def answer_lines(
    question: str,
    chosen: list[Quote],
    titles: dict[str, str],
    places: dict[str, str],
    headings_at: HeadingsAt,
    shelves: Sequence[str] = (),
    selected: Sequence[Evidence] = (),
) -> list[Quote]:
    """The quotes that answer what the question asks for: the best one (`answer_line`);
    for a comparison ("which came first, A or B"), the best for each side, a quote that
    names it, so the reader has both dates or versions side by side (asked within a
    release, "in Apache 2.4, A or B", the release is no side, and a side no name names
    is answered by the quotes that do not name the other); none for an open
    question ("how do I …"), whose answer is the findings as a whole. A quote whose
    value only its heading gives comes after that heading's line (`heading_line`,
    from the evidence `selected`)."""
    asked = Asked.of(question)

    def lined(quote: Quote) -> Quote | None:
        return heading_line(quote, asked, selected, titles, headings_at)

    if asked.kind == "any":
        return []
    if asked.kind == "procedure":
        instructions = instruction_lines(question, chosen, headings_at)
        return instructions or (option_lines(chosen[0], headings_at) if chosen else [])
    filed = filed_names(question, places.values(), shelves=shelves)
    if filed:  # as the gap check: not a passage about another product
        chosen = [q for q in chosen if _names_filed(q, filed, titles, places)]
    if asked.featured:  # as the gap check: "the zoneinfo module" is what a passage says
        chosen = [q for q in chosen if _says_featured(q, asked.featured, titles)]
    named = subjects(question)
    releases = [subject for subject in named if subject[1]]
    if asked.kind in ("date", "version") and releases:
        # as the gap check: a release's date or version is given where it is named
        records = {quote.record.id: quote.record for quote in chosen}
        of_release = {
            record_id
            for record_id, record in records.items()
            if any(_names_release(record, s, titles, places) for s in releases)
        }
        chosen = sorted(chosen, key=lambda q: q.record.id not in of_release)
    sides = named[-2:] if asked.kind == "comparison" else []
    if asked.within:  # the release compared within is no side ("in Apache 2.4, A or B")
        sides = [side for side in named if not side[1]][-2:]
    groups = [[q for q in chosen if _names_side(q, side, titles, places)] for side in sides]
    if asked.within and len(groups) == 1:  # the other side is named by no name: the rest
        groups.append([q for q in chosen if q not in groups[0]])
    lines: list[Quote] = []
    for naming in groups if len(groups) == 2 else [chosen]:
        line = answer_line(asked, naming, titles, lined)
        if line is None or line in lines:
            continue
        heading = lined(line)
        lines += [heading, line] if heading is not None and heading not in lines else [line]
    return lines


def heading_line(
    quote: Quote,
    asked: Asked,
    records: Sequence[Evidence],
    titles: dict[str, str],
    headings_at: HeadingsAt,
) -> Quote | None:
    """For a quote that leaves the value asked for to the heading above it, that
    heading's line, quoted from a record of its source under the headings above it: the
    value then stands in the answer, cited, not only beside it. The heading of a release
    notes' item ("#9987: Added support for hidden configuration file …" under "pytest
    7.2.0 (2022-10-23)", `Asked.release_above`; or its list's label, "**Changes in
    version 3.38.0 (2022-02-22):**"), which selection brings in for such a passage
    (`Assembler.fit`); an entry's heading that assigns the number asked for
    (`Asked.value_above`: "max_form_parts = 1000"); asked which setting does a thing,
    the entry's heading that names it in code ("tune.http.maxhdr <number>" over "Sets
    the maximum number of headers in a request.", `Asked.entry_named`). None when the quote
    holds its value itself, or no record holds the line."""
    entry = asked.entry_named(quote.headings)
    if entry:  # asked which setting: the quote under its entry does not say its name
        if entry.lower() in unescaped(quote.sentence).lower():
            return None
        leaned_on = entry
    else:
        if asked.holds(quote.sentence):
            return None
        above = frame(titles.get(quote.record.source_id, ""), quote.headings)
        leaned_on = asked.release_above(quote.sentence, above) or asked.value_above(
            quote.sentence, above
        )
    if not leaned_on:
        return None
    return quoted_heading(
        [record for record in records if record.source_id == quote.record.source_id],
        headings_at,
        lambda text: (
            bool(HEADING_LINE.match(text) or is_list_label(text)) and heading_named(leaned_on)(text)
        ),
    )


def quoted_heading(
    records: Sequence[Evidence], headings_at: HeadingsAt, sought: Callable[[str], bool]
) -> Quote | None:
    """The first line of these records that is the heading sought (`sought` reads the
    line as written), quoted as its words (`_unmarked`) under the headings above it: the
    line a quote leans on, which the answer shows with it."""
    for record in records:
        for start, end in sentences(record.text):
            text = record.text[start:end]
            if sought(text):
                return Quote(record, _unmarked(text), headings_at(record, start)[:-1])
    return None


def instruction_lines(question: str, chosen: list[Quote], headings_at: HeadingsAt) -> list[Quote]:
    """A "how do I" question's answer: a sentence that introduces a command ("If you
    use apt, you can hold a package with the following command:"), then the first line
    of the code block right after it, each quoted as written. Of those, the one whose
    own words and command share most words with the question: the best ranked may owe
    its rank to its headings ("The command, if run with -h, will show the available
    options:" under "Creating virtual environments"), where another says what is asked
    ("Creation of virtual environments is done by executing the command venv:"); of
    those that say as much of it, the one that says least else: "Port 7000 on IP address
    127.0.0.1:" answers "run the server on port 7000", where "Port 7000 on IPv6 address
    2001:…:" adds what was not asked."""
    wanted = wanted_terms(question)
    best: tuple[tuple[int, int], list[Quote]] | None = None
    for quote in chosen:
        text = quote.record.text
        at = text.find(quote.sentence)
        blocks = headings_at.code_blocks(quote.record)
        if at < 0 or "```" in quote.sentence or inside(blocks, at):
            continue
        if not quote.sentence.rstrip().endswith((":", "：")):
            continue
        after = at + len(quote.sentence)
        block = next((b for b in blocks if b[0] >= after), None)
        if block is None or text[after : block[0]].strip():
            continue  # no code right after it
        lines = text[block[0] : block[1]].split("\n")[1:]
        command = next((line.strip() for line in lines if line.strip("` \t")), "")
        if not command or len(command.split()) > ANSWER_WORDS:
            continue
        said = set(tokenize(f"{quote.sentence} {command}"))
        fit = (len(said & wanted), -len(said - wanted))
        if best is None or fit > best[0]:  # ties: the better ranked
            best = (fit, [quote, quote._replace(sentence=command, lead="")])
    return best[1] if best else []


def option_lines(best: Quote, headings_at: HeadingsAt) -> list[Quote]:
    """A "how do I" question's answer when no sentence introduces a command: the option
    whose entry holds the best quote ("-j N" over "If `auto` argument is given, Sphinx
    uses the number of CPUs as *N*."), its heading's line quoted from the passage, then
    the quote. A reference lists what to type as its entries' headings, and says what
    each does below."""
    option = _unmarked(best.headings[-1]) if best.headings else ""
    if not _OPTION_HEADING.match(option):
        return []
    heading = quoted_heading(
        [best.record],
        headings_at,
        lambda text: bool(HEADING_LINE.match(text)) and _unmarked(text) == option,
    )
    if heading is None:
        return []
    return [heading, best]


def _unmarked(line: str) -> str:
    """A heading's line as its words: without its line marker and the permalink sign a
    documentation page ends it with ("-j N¶")."""
    return LINE_MARKER.sub("", line).strip().rstrip("¶").strip()


_OPTION_HEADING = re.compile(r"[`*]*--?[A-Za-z]")  # "-j N", "--autostash", "`-W`"


def _names_filed(
    quote: Quote, filed: set[str], titles: dict[str, str], places: dict[str, str]
) -> bool:
    """Whether the quote, the sentences before it, its headings or its place name a
    product the corpus files documents under, as the gap check asks of a sentence."""
    source = quote.record.source_id
    above = frame(titles.get(source, ""), quote.headings)
    return names_one_of(filed, f"{quote.lead}{quote.sentence}", above, places.get(source, ""))


def _says_featured(quote: Quote, word: str, titles: dict[str, str]) -> bool:
    above = frame(titles.get(quote.record.source_id, ""), quote.headings)
    return says_word(f"{above}\n{quote.record.text}", word)


def _names_side(
    quote: Quote,
    side: tuple[set[str], list[str]],
    titles: dict[str, str],
    places: dict[str, str],
) -> bool:
    source = quote.record.source_id
    above = frame(titles.get(source, ""), quote.headings)
    return names_subject(f"{quote.lead}{quote.sentence}", side, above, places.get(source, ""))


def _names_release(
    record: Evidence,
    release: tuple[set[str], list[str]],
    titles: dict[str, str],
    places: dict[str, str],
) -> bool:
    """Whether the passage names the release, as the gap check asks (`passage_names`)."""
    source = record.source_id
    above = frame(titles.get(source, ""), record.headings)
    return passage_names(record.text, release, above, places.get(source, ""))


def answer_line(
    asked: Asked,
    chosen: list[Quote],
    titles: dict[str, str],
    lined: Callable[[Quote], Quote | None] = lambda quote: None,
) -> Quote | None:
    """The best quote that answers what the question asks for (`Asked.answered_by`, the
    gap check's test) and reads at a glance (a code listing that happens to hold a
    number is not an answer line); the best that states what is asked as such, if any
    does: a default as the default, a version as the one a change dates to
    (`Asked.states_the_kind`), and of those, one that tells what the value is of
    (`Asked.tells_event`): "New in version 1.3" dates the extension asked of, "Changed in
    version 3.5: Do preprocess the Google style docstrings also." another change to it.
    When only its source's title gives the value ("Added a new function math.isqrt()" in
    "What’s New In Python 3.8"), the title is shown above it with its headings. An item
    of a release's notes that tells the change asked of states its version when the
    line of its release's heading is at hand to quote with it (`lined`), as a quote
    under the entry of the setting asked for does ("`readarray`" over "A synonym for
    `mapfile`.")."""
    best = stated = fallback = None
    if asked.codes and asked.kind in ("date", "version", "comparison"):
        # asked when a code name came: its own entry's line dates it, an entry inside it
        # (a module's directive) dates that one; a default may be an argument's, inside
        chosen = sorted(chosen, key=lambda q: not _in_own_entry(q, asked.codes))
    for quote in chosen:
        if len(quote.sentence.split()) > ANSWER_WORDS:
            continue
        above = frame(titles.get(quote.record.source_id, ""), quote.headings)
        if not asked.answered_by(quote.sentence, above, quote.lead):
            continue
        if quote.in_code and not asked.answered_in_code:
            continue
        if asked.states_the_kind(quote.sentence, above) or lined(quote):
            if not asked.events or asked.tells_event(f"{quote.lead}{quote.sentence}"):
                best = quote
                break
            stated = stated or quote
        fallback = fallback or quote
    picked = best or stated or fallback
    if picked is None:
        return None
    line = with_lead(with_trail(picked, asked), asked)
    title = titles.get(line.record.source_id, "")
    if not (asked.holds(line.sentence) or asked.entry_named(line.headings)) and asked.holds(title):
        line = line._replace(titled=True)  # "3.8" of "What’s New In Python 3.8"
    return line


def _in_own_entry(quote: Quote, codes: set[str]) -> bool:
    """Whether the quote stands in the entry of a code name asked of: its innermost
    heading names it ("math.isqrt(n)", "Apache Module mod_http2"), not another entry
    inside its page ("H2ProxyRequests Directive") or a release's list ("math")."""
    innermost = quote.headings[-1] if quote.headings else ""
    return any(mentions_identifier(innermost, code) for code in codes)


def with_trail(quote: Quote, asked: Asked) -> Quote:
    """A bare value or a label ("April 6, 2021", "Changed in Django 3.1:") quoted with the
    sentence after it when that one holds words or names of the question it lacks ("…
    Welcome to Django 3.2!", "… The max_length increased from 30 to 150 characters."):
    the value is read with what it is the value of. Verbatim, within its passage, never
    across a heading, within `ANSWER_WORDS`."""
    sentence, text = quote.sentence, quote.record.text
    words = len(sentence.split())
    if not sentence.endswith((":", "：")) and not too_short(sentence, FRAGMENT_WORDS):
        return quote
    at = text.find(sentence)
    after = sentences(text, at + len(sentence)) if at >= 0 else []
    if not after or HEADING_LINE.match(text, after[0][0]):
        return quote
    start, end = after[0]
    wanted = asked.words | asked.names | set(tokenize(" ".join(asked.phrases)))
    if not (wanted & set(tokenize(text[start:end]))) - set(tokenize(sentence)):
        return quote
    if words + len(text[start:end].split()) > ANSWER_WORDS or "```" in text[at:end]:
        return quote  # too long, or would quote a code block inside a line of prose
    return quote._replace(sentence=text[at:end])


def with_lead(quote: Quote, asked: Asked) -> Quote:
    """The answer quoted with the sentences before it in its paragraph when they hold
    words of the question that it lacks ("Maximum time between automatic WAL
    checkpoints. … The default is five minutes."): a bare value is then read with what
    it is the value of; and always when they open its list item, whose later sentences
    go on about the item's term ("`nofail` lets the boot go on without the device. …").
    As many as fit in `ANSWER_WORDS`, nearest first, verbatim."""
    lead = quote.lead
    if not LIST_ITEM.match(lead) and not (asked.words & set(tokenize(lead))) - set(
        tokenize(quote.sentence)
    ):
        return quote
    room = ANSWER_WORDS - len(quote.sentence.split())
    begin = len(lead)
    for start, _ in reversed(sentences(lead)):
        if len(lead[start:].split()) > room:
            break
        begin = start
    quoted = lead[begin:] + quote.sentence
    if begin == len(lead) or quoted not in quote.record.text or "```" in quoted:
        return quote  # a list item keeps to itself; a code block is not read into a line
    return quote._replace(sentence=quoted, lead=lead[:begin])


def ranked_sentences(
    sub_question: SubQuestion,
    records: list[Evidence],
    titles: dict[str, str],
    places: dict[str, str],
    headings_at: HeadingsAt,
    closest: bool = False,
    found: Sequence[Evidence] = (),
    shelves: Sequence[str] = (),
) -> list[Quote]:
    """The evidence sentences that may answer the sub-question, best first: those sharing
    most terms with it, the words of its source's title and of the headings it lies under
    counting half ("The default is 1 GB." under "max_wal_size" answers "the default
    max_wal_size"); a sentence that holds an answer of the asked kind (a date for "when", a
    version for "in which version", a number for "how many") counts extra. When the
    question, or the follow-up query that found the passage, names something, a sentence
    must be about it (the passage it stands in, its headings, its source's title or
    place name it: packaged docs name their product in the path, a manual in its
    collection's name; a manual's section names it once, not in every sentence): the
    second hop of a question is about a name the first hop found, not one the question
    gave. The sentences before a sentence in its paragraph count like its headings: they
    often name what it is about ("When there are more than this many loose objects, git
    gc --auto packs them. … The default value is 6700."). `closest`, for a question the
    evidence does not answer: when no sentence is about what it names (no passage names
    it: that is often why), the sentences that would be but for the names, the nearest
    the evidence comes. `found`: what its searches found besides, read for how the corpus
    writes the question's opening word (`as_sources_write_it`)."""
    sub_question = as_sources_write_it(sub_question, [*records, *found])
    wanted = wanted_terms(sub_question.text, sub_question.facets)
    asked = Asked.of(sub_question.text)
    kind = asked.kind
    names = named_terms(" ".join([sub_question.text, *sub_question.queries]))
    scene = scene_only_names(sub_question, records, places.values(), shelves)
    names -= scene
    searched = searched_names(records)
    code_names = asked.codes
    code_led = kind == "procedure" or asked.answered_in_code
    scored: list[tuple[float, int, Quote]] = []
    elsewhere: list[tuple[float, int, Quote]] = []  # about nothing the question names
    read: dict[str, Frame] = {}  # a passage's sentences mostly share one frame: read it once

    def read_frame(text: str) -> Frame:
        if text not in read:
            code = any(mentions_identifier(text, n) for n in code_names)
            read[text] = Frame(named_terms(unaccented(text)), set(tokenize(text)), code)
        return read[text]

    names |= bridged_names(names, records, titles, places)
    generic = generic_words(sub_question.text, records, titles)
    generic |= untold_by_best(names, records, titles, places)
    for order, record in enumerate(records):
        title = titles.get(record.source_id, "")
        about = {unaccented(name) for name in (names | searched[record.query]) - generic - scene}
        in_path = named_in_location(about, places.get(record.source_id, ""))
        in_passage = named_terms(unaccented(record.text)) | in_path
        blocks = headings_at.code_blocks(record)
        table_heads = header_rows(record.text)
        spans = sentences_with_lead(record.text, code_led, record.opens_source)
        for at, (start, end, lead) in enumerate(spans):
            sentence = LINE_MARKER.sub("", record.text[start:end]).strip()
            headings = headings_at(record, start)
            coded = inside(blocks, start)  # "# dpkg-reconfigure …" in code is a command
            holds = kind not in STATEMENT_KINDS and asked.holds_value(sentence)
            if HEADING_LINE.match(record.text, start) and not coded:
                # A heading is shown beside the quotes under it, not quoted; unless it
                # holds what is asked: changelogs date a release in its heading
                # ("Release 1.0 (Jul 23, 2010)"). Then it stands under its parents.
                if not asked.heads_answer(sentence):
                    continue
                headings, lead = headings[:-1], ""
            elif inside(table_heads, start) and not coded:
                continue  # a table's header row: shown above the rows it heads
            elif too_short(sentence, COMMAND_WORDS if coded or holds else MIN_QUOTE_WORDS):
                continue  # a fragment, unless a command or the value asked for: "Default: `0`"
            elif (_CONTENTS_ENTRY.match(sentence) or _in_contents(lead)) and not coded:
                continue  # "…, 7.4. 什么是 Debian 控制文件？": a table of contents
            header = headings_at.header(record, start)
            if header:  # a table's row: its header row is shown above it, not quoted with it
                lead = below_rule(lead)
            trail = told_after(record.text, spans, at) if holds else ""
            above = read_frame(f"{frame(title, headings)}\n{header}\n{lead}\n{trail}")
            named = not about or bool(about & (in_passage | above.names))
            if not (named or closest):
                continue
            if code_names and not (
                above.code or any(mentions_identifier(sentence, n) for n in code_names)
            ):
                entry_end = asked.entry_labelled(record.text, spans, at)
                if entry_end < 0 or len(record.text[start:entry_end].split()) > ANSWER_WORDS:
                    continue  # max_wal_size asked: a sentence on max_slot_wal_keep_size is not it
                sentence = LINE_MARKER.sub("", record.text[start:entry_end]).strip()
            terms = set(tokenize(sentence))
            shared = len(terms & wanted) + 0.5 * len((above.terms - terms) & wanted)
            relevance = shared / max(1, len(wanted))
            if holds:
                relevance += ANSWER_BONUS
            elif kind == "procedure" and (coded or "`" in sentence):
                relevance += ANSWER_BONUS  # "how do I" is answered with a command
            elif kind == "yes_no" and states_verdict(sentence):
                relevance += ANSWER_BONUS  # "Postfix does not support BINARYMIME"
            if relevance >= MIN_RELEVANCE:
                (scored if named else elsewhere).append(
                    (
                        relevance + 0.2 * record.score,
                        order,
                        Quote(record, sentence, headings, lead, coded, header),
                    )
                )
    return [quote for _, _, quote in sorted(scored or elsewhere, key=lambda s: (-s[0], s[1]))]


def _in_contents(lead: str) -> bool:
    """Whether the paragraph before a sentence is a table of contents flattened into
    one line (", 7.14. 如何从源码包构建二进制包？, 7.15. …"): the sentence is its tail ("Debian
    软件包管理工具 8.1."), though it opens with no section number of its own."""
    return len(_LISTED_ENTRY.findall(lead)) >= 2


def told_after(text: str, spans: Sequence[tuple[int, int, str]], at: int) -> str:
    """The sentence after a bare value ("August 2019"), which `with_trail` quotes with it
    and which says what the value is of ("Sam Hartman (Debian Project Leader)"): read
    with the value as its headings are. Not across a heading; "" after a statement."""
    start, end, _ = spans[at]
    if not too_short(text[start:end], FRAGMENT_WORDS) or at + 1 >= len(spans):
        return ""
    after, last, _ = spans[at + 1]
    return "" if HEADING_LINE.match(text, after) else text[after:last]


def untold_by_best(
    names: set[str], records: list[Evidence], titles: dict[str, str], places: dict[str, str]
) -> set[str]:
    """The question's names, when the best passage of its first search names none of
    them (in its text, headings, title or place): that passage shows what the sources
    call what is asked about, and the names qualify it in words the sources do not
    repeat ("the Linux quota system": the handbook's Quotas section never says Linux). A
    quote need not name them then. When it names one, a multi-hop question's other
    names are another hop's, and stay."""
    if not records:
        return set()
    earliest = min(record.round for record in records)
    best = max((r for r in records if r.round == earliest), key=lambda record: record.score)
    above = frame(titles.get(best.source_id, ""), best.headings)
    place = places.get(best.source_id, "")
    return set() if names_one_of(names, best.text, above, place) else names


def generic_words(question: str, records: list[Evidence], titles: dict[str, str]) -> set[str]:
    """The words of a name of several words that the titles of three or more other pages
    share ("Pavilion" of "Darling's Waterfront Pavilion", beside "Concord Pavilion",
    "Bajing Pavilion" and "Kertha Gosa Pavilion"): a sentence about one of those is not
    about the name. Its other words still say what a sentence must be about."""
    pages = [named_terms(title) for title in {titles.get(r.source_id, "") for r in records}]
    generic: set[str] = set()
    for phrase in name_phrases(question):
        words = named_terms(phrase)
        if len(words) < 2:
            continue
        for word in words:
            others = words - {word}
            if sum(1 for page in pages if word in page and not others & page) >= 3:
                generic.add(word)
        if words <= generic:
            generic -= words
    return generic


def bridged_names(
    names: set[str], records: list[Evidence], titles: dict[str, str], places: dict[str, str]
) -> set[str]:
    """The names of the pages a question's second hop is about: a page whose title a
    passage naming the question's names names ("… in Sue Grafton's series" makes the page
    "Sue Grafton" about the question of '"Q" Is for Quarry''s author), and a page whose
    passage names them under a title of its own (the page "Nicki Minaj" names "Onika Tanya
    Maraj": a passage naming Nicki Minaj is about her)."""
    if not names:
        return set()
    bridged: set[str] = set()
    anchors = [
        record
        for record in records
        if names_one_of(
            names,
            record.text,
            titles.get(record.source_id, ""),
            places.get(record.source_id, ""),
        )
    ]
    for record in anchors:
        title = titles.get(record.source_id, "")
        if not names & named_terms(title):
            bridged |= named_terms(title)
    for source_id in {record.source_id for record in records}:
        page = page_name(titles.get(source_id, ""))
        if not page or not named_terms(page) or named_terms(page) <= names:
            continue
        pattern = re.compile(r"(?<!\w)" + re.escape(page) + r"(?!\w)")
        if any(record.source_id != source_id and pattern.search(record.text) for record in anchors):
            bridged |= named_terms(page)
    return bridged


def page_name(title: str) -> str:
    """What a page is named for: its title without the parenthesised words that tell it
    from namesakes ("Pilot (Will & Grace)" names "Pilot")."""
    return _PARENTHESISED.sub("", title).strip()


_PARENTHESISED = re.compile(r"\s*\([^()]*\)")


def hop_pages(ranked: list[Quote], titles: dict[str, str], answering: list[Quote]) -> set[str]:
    """The sources whose page the answer line or the `HOP_QUOTES` best-ranked quotes name
    by its title, in any inflection ("… the kingdoms of the Isles" names the page
    "Kingdom of the Isles"): the second hop of a question, whose sentences share few of
    its words and rank low."""
    naming = [
        (q.record.source_id, tokenize(q.sentence)) for q in [*answering, *ranked[:HOP_QUOTES]]
    ]
    hops: set[str] = set()
    for source_id in {quote.record.source_id for quote in ranked}:
        page = page_name(titles.get(source_id, ""))
        name = tokenize(page)
        if not name or not named_terms(page):
            continue
        if any(other != source_id and _holds_run(words, name) for other, words in naming):
            hops.add(source_id)
    return hops


def _holds_run(words: list[str], run: list[str]) -> bool:
    return any(words[i : i + len(run)] == run for i in range(len(words) - len(run) + 1))


def best_sentences(
    ranked: list[Quote], quoted: set[str], wanted: set[str], hops: set[str] | None = None
) -> list[Quote]:
    """`SENTENCES_PER_SUB_QUESTION` of a sub-question's ranked sentences that no section
    has quoted yet, alone or in a longer quote (the answer line's quote may hold the
    sentences before its answer); each sentence is quoted once in the report. Chosen one
    at a time, by rank and by the words of the question (`wanted`) a sentence says that
    the ones chosen before do not: the second half of a multi-hop question ("… the
    nickname of the city where X is located") is answered by a sentence that shares
    none of the first half's words. `hops`: sources whose best-ranked sentence is taken
    first (`hop_pages`), the page of that second half. Shown in rank order."""
    pool = [
        (rank, quote, set(tokenize(quote.sentence)) & wanted) for rank, quote in enumerate(ranked)
    ]
    chosen: list[tuple[int, Quote]] = []
    covered: set[str] = set()
    hopped = set(hops or ())  # each hop page's best sentence first
    while pool and len(chosen) < SENTENCES_PER_SUB_QUESTION:
        best = next(
            (i for i, (_, quote, _) in enumerate(pool) if quote.record.source_id in hopped),
            None,
        )
        if best is None:
            best = max(
                range(len(pool)),
                key=lambda i: (
                    COVERAGE_WEIGHT * len(pool[i][2] - covered) / max(1, len(wanted))
                    - pool[i][0] / len(ranked)
                ),
            )
        rank, quote, terms = pool.pop(best)
        hopped.discard(quote.record.source_id)
        text = normalize(quote.sentence)
        if any(text in said for said in quoted):
            continue
        quoted.add(text)
        chosen.append((rank, quote))
        covered |= terms
    return [quote for _, quote in sorted(chosen, key=lambda c: c[0])]


def with_subject(picked: list[Quote], titles: dict[str, str]) -> list[Quote]:
    """A quote that speaks of its page's subject without naming it ("The film stars
    Douglas Smith, …": which film?) quoted from the page's opening sentence on, when
    that one names it ("The Bye Bye Man is a 2017 American … film …") and both lie in
    the page's first paragraph within `JOINED_WORDS`: a reader learns what the quote is
    about from the source's own words, as from its title. Verbatim; not when another
    quote already says the opening sentence."""
    openings = {  # records whose opening sentence is quoted already
        q.record.id
        for q in picked
        if q.record.opens_source and q.record.text.lstrip().startswith(q.sentence)
    }
    named: list[Quote] = []
    for quote in picked:
        subject = page_name(titles.get(quote.record.source_id, ""))
        text = quote.record.text
        if (
            not subject
            or not quote.lead
            or quote.in_code
            or not quote.record.opens_source
            or quote.record.id in openings
            or not text.startswith(quote.lead)
            or _names(quote.sentence, subject)
        ):
            named.append(quote)
            continue
        opening = sentences(quote.lead)[:1]
        read = _read_from(quote, 0)
        if read is None or not any(_names(quote.lead[s:e], subject) for s, e in opening):
            named.append(quote)
            continue
        named.append(read)
    return named


# A sentence whose subject is a pronoun that points back: "This should be done whenever
# Exim's configuration file … is changed" says what only the sentence before it names.
_POINTS_BACK = re.compile(
    r"(?:This|That|These|Those|It)\s+(?:is|are|was|were|should|must|can|could|will|would|"
    r"may|might|has|have|had|does|do|did|means|also|only|then)\b"
)


def with_antecedent(picked: list[Quote]) -> list[Quote]:
    """A quote whose sentence opens with a pronoun that points back (`_POINTS_BACK`)
    quoted with the sentence before it in its paragraph, which says what the pronoun
    stands for ("The SIGHUP signal can be used to cause the daemon to re-execute
    itself. This should be done whenever Exim's configuration file … is changed"):
    verbatim, within `JOINED_WORDS`, never across a code block; not when another quote
    already says that sentence."""
    said = {normalize(q.sentence) for q in picked}
    pointed: list[Quote] = []
    for quote in picked:
        lead = quote.lead
        before = sentences(lead)[-1:] if lead and not quote.in_code else []
        if not before or not _POINTS_BACK.match(quote.sentence):
            pointed.append(quote)
            continue
        start = before[0][0]
        read = _read_from(quote, start)
        if read is None or normalize(lead[start:]) in said:
            pointed.append(quote)
            continue
        pointed.append(read)
    return pointed


def _read_from(quote: Quote, begin: int) -> Quote | None:
    """The quote read from `begin` in the sentences before it on (`Quote.lead`), the
    rest of them left its lead: verbatim, at a glance (`JOINED_WORDS`), never across a
    code block; None otherwise."""
    quoted = quote.lead[begin:] + quote.sentence
    if reading_words(quoted) > JOINED_WORDS or "```" in quoted or quoted not in quote.record.text:
        return None
    return quote._replace(sentence=quoted, lead=quote.lead[:begin])


def _names(sentence: str, subject: str) -> bool:
    return normalize(subject) in normalize(sentence)


def joined(picked: list[Quote]) -> list[Quote]:
    """Quotes that follow each other in one paragraph of their passage quoted as one,
    where the first of them ranks ("Returns the default highWaterMark used by streams.
    Defaults to `16384` (16 KiB), or `16` for `objectMode`." as one quote, not two):
    the reader reads a statement and its value as the source gives them, and one quote
    cites them once. Verbatim: the quotes are joined with the text between them, which is
    only the space (or a hard-wrapped line's break) between two sentences; never across
    a list item, a heading or a code line, nor beyond `JOINED_WORDS`: a paragraph
    quoted whole would bury the sentence that ranked."""
    runs: list[tuple[int, int, int, Quote]] = []  # (rank, start, end, quote)
    for rank, quote in enumerate(picked):
        text = quote.record.text
        at = text.find(quote.sentence)
        end = at + len(quote.sentence)
        if at < 0 or quote.in_code:
            runs.append((rank, at, end, quote))
            continue
        for i, (first, start, stop, run) in enumerate(runs):
            if run.in_code or run.record.id != quote.record.id:
                continue
            if reading_words(text[min(at, start) : max(end, stop)]) > JOINED_WORDS:
                continue
            if _adjoining(text, stop, at):
                runs[i] = (first, start, end, run._replace(sentence=text[start:end]))
                break
            if _adjoining(text, end, start):
                merged = quote._replace(sentence=text[at:stop], headings=run.headings)
                runs[i] = (first, at, stop, merged)
                break
        else:
            runs.append((rank, at, end, quote))
    return [quote for *_, quote in sorted(runs, key=lambda run: run[0])]


# Between two sentences of one paragraph: spaces, or the break of a hard-wrapped line
# that no list item, quotation or heading opens.
_SAME_PARAGRAPH = re.compile(r"[ \t]*(?:\n[ \t]*(?![-*+>#|`]|\d+[.)]\s))?")


def _adjoining(text: str, end: int, start: int) -> bool:
    """The sentence ending at `end` and the one starting at `start` are next to each
    other in one paragraph (read on the whole text: what opens the next line counts)."""
    between = _SAME_PARAGRAPH.match(text, end)
    return between is not None and between.end() == start


def wanted_terms(text: str, facets: Sequence[str] = ()) -> set[str]:
    """The search tokens of a question's facets (its own, or read off its text): what
    its quotes should say."""
    return set(tokenize(" ".join(facets or facets_of(text))))


def too_short(sentence: str, words: int = MIN_QUOTE_WORDS) -> bool:
    """A fragment or a table rule rather than a statement: fewer than `words` words
    (a Chinese sentence, unspaced, by its characters, about two to a word)."""
    if set(sentence) <= set("|-: "):
        return True
    if has_cjk(sentence):
        return reading_words(sentence) < words + 1
    return reading_words(sentence) < words


def reading_words(text: str) -> float:
    """How many words a reader reads in `text`: a Chinese text's by its characters."""
    if has_cjk(text):
        return len(text) / CJK_CHARACTERS_PER_WORD
    return len(text.split())


async def body_by_model(llm: NodeModel, state: State) -> tuple[str, Citations, list[str]]:
    """The model's body with its evidence ids turned into numbered citations."""
    aliases: dict[str, str] = {}
    sections: list[Section] = []
    for sub_question in state.sub_questions:
        shown = []
        for record in state.selected_for(sub_question.id):
            if record.id not in aliases.values():
                aliases[f"E{len(aliases) + 1}"] = record.id
                shown.append(_found(state, record, f"E{len(aliases)}"))
        sections.append(Section(heading=sub_question.text, evidence=shown))
    alias_of = {evidence_id: alias for alias, evidence_id in aliases.items()}
    conflicts = [
        f"{gap.subject}: "
        + " vs ".join(f"{side.value} [{alias_of[side.evidence_id]}]" for side in gap.sides)
        for gap in state.open_gaps()
        if gap.kind in CONFLICT_KINDS and all(side.evidence_id in alias_of for side in gap.sides)
    ]
    unresolved = [gap.detail for gap in state.unresolved if gap.kind not in CONFLICT_KINDS]
    language = language_of(state.question, chinese=has_cjk(state.question))
    text = await llm.text(
        writer_messages(state.question, language, sections, conflicts, unresolved, state.briefing)
    )
    number = Citations.of(state)
    body, problems = cite_evidence(own_body(text), aliases, number)
    if not number.numbers:
        raise ModelFailure("the report it wrote cites no evidence")
    return body, number, [f"write_report: {problem}" for problem in problems]


def own_body(text: str) -> str:
    """The model's text without a title of its own or sections the report adds itself."""
    lines = text.strip().splitlines()
    while lines and (not lines[0].strip() or re.match(r"^#\s", lines[0])):
        lines.pop(0)
    body = "\n".join(lines)
    cut = REPORT_OWN.search(body)
    return (body[: cut.start()] if cut else body).strip() + "\n"


def cite_evidence(text: str, aliases: dict[str, str], number: Citations) -> tuple[str, list[str]]:
    """Replace `[E3]` (or a real evidence id) with `[n]`; ids that name no evidence the
    writer was given are removed, each with a problem saying so."""
    known = set(aliases.values())
    problems: list[str] = []

    def replace(match: re.Match[str]) -> str:
        tokens = [t for t in re.split(r"[\s,;，；、]+", match.group(1)) if t]
        if not tokens or not all(_CITATION_TOKEN.fullmatch(t) for t in tokens):
            return match.group(0)  # brackets that are not a citation
        numbers: list[int] = []
        for token in tokens:
            evidence_id = aliases.get(token.upper()) or (token if token in known else None)
            if evidence_id is None:
                problems.append(f"removed citation [{token}]: no such evidence was given")
            elif number(evidence_id) not in numbers:
                numbers.append(number(evidence_id))
        return " " + cite(numbers) if numbers else ""

    cited = _CITATION_GROUP.sub(replace, text)
    cited = re.sub(r"\(\s*((?:\[\d+\]\s*)+)\)", lambda m: m.group(1).strip(), cited)
    cited = re.sub(r"[ \t]+([.,;:!?。，；：])", r"\1", cited)
    return cited, problems


def _found(state: State, record: Evidence, alias: str) -> Found:
    source = state.sources.get(record.source_id)
    return Found(
        id=alias,
        title=source.title if source else "",
        location=source.location if source else "",
        text=record.text,
        published=(source.published or "") if source else "",
    )
