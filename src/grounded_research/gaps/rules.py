"""The rules, no model: a sub-question with no evidence; with no passage that names what
it asks about and gives an answer of the asked kind; with fewer independent sources
than required; whose terms the best passages do not cover (the usual sign of a second
hop: the passage that names the bridge entity does not hold the answer); with a figure
only one source gives; and sources that disagree. Each gap carries follow-up queries
aimed at exactly what is missing.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence

from grounded_research.configuration import Context
from grounded_research.gaps.conflicts import Statement, find_disagreements, frame, statements
from grounded_research.gaps.headings import HeadingsAt
from grounded_research.state import ConflictSide, Evidence, Gap, GapKind, State, SubQuestion
from grounded_research.text.answers import (
    Asked,
    asked_kind,
    compared_sides,
    distinctive_numbers,
    filed_names,
    head_word,
    key_phrases,
    kind_words,
    mentions_number,
    mentions_number_with,
    mentions_point_release,
    names_one_of,
    passage_names,
    phrase_as_written,
    releases_asked_in,
    said_anywhere,
    says_word,
    scene_names,
    scene_releases_asked,
    scene_subjects,
    subjects,
    supposed_measures,
)
from grounded_research.text.chunking import (
    LINE_MARKER,
    Span,
    inside,
    sentences,
    sentences_with_lead,
)
from grounded_research.text.facets import COMPARISON, facets_of
from grounded_research.text.facts import (
    name_phrases,
    named_terms,
    names_as_written,
    opening_as_written,
    quantities,
    releases_as_written,
)
from grounded_research.text.tokenize import tokenize

TOP_PASSAGES_FOR_FACETS = 3
SUPPORTING_SCORE = 0.3
FIGURE_GAPS_PER_SUB_QUESTION = 2

# A gap's detail, by kind, where it has parts a report words for its reader
# (`detail_parts`); the other kinds' details are a reason in words already.
DETAILS: dict[GapKind, str] = {
    "facet": "not covered: {terms}",
    "few_sources": "{found} independent source(s), {required} required",
    "uncorroborated": "{subject} ({unit}): given by {found} independent source(s)",
}


# Why a sub-question is not answered (`why_unanswered`), by reason: {what} is what is
# missing (names, numbers, the asked noun, the kind of answer as `kind_words` says it).
UNANSWERED: dict[str, str] = {
    "unnamed": "no passage names {what}",
    "unsaid": "no passage mentions {what}",
    "unheaded": "no passage about it mentions {what}",
    "no_kind": "no passage about it gives {what}",
}


def detail_parts(gap: Gap) -> dict[str, str]:
    """The parts of a gap's detail as `DETAILS` wrote them, or for an unanswered gap as
    `UNANSWERED` did (with its "reason"); none when it holds none (a gap of another kind,
    or written before its kind had a format)."""
    if gap.kind == "unanswered":
        return unanswered_parts(gap.detail)
    template = DETAILS.get(gap.kind)
    return _parts(template, gap.detail) if template else {}


def unanswered_parts(detail: str) -> dict[str, str]:
    """An unanswered gap's "reason" (a key of `UNANSWERED`) and "what" is missing."""
    for reason, template in UNANSWERED.items():
        if parts := _parts(template, detail):
            return {"reason": reason, **parts}
    return {}


def _parts(template: str, detail: str) -> dict[str, str]:
    pattern = re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>.+?)", re.escape(template))
    found = re.fullmatch(pattern, detail)
    return found.groupdict() if found else {}


def coverage_gaps(
    state: State,
    sub_question: SubQuestion,
    selected: list[Evidence],
    context: Context,
    headings_at: HeadingsAt | None = None,
) -> list[Gap]:
    """`headings_at`: the headings each sentence lies under, read off its snapshot."""
    ranked = sorted(selected, key=lambda e: -e.score)
    sub_question = as_sources_write_it(sub_question, [*ranked, *state.found_for(sub_question.id)])
    facets = sub_question.facets or facets_of(sub_question.text)
    if not ranked:
        keywords = " ".join(facets)
        return [
            new_gap(
                state,
                sub_question,
                "no_evidence",
                "no evidence found",
                [q for q in (keywords, *facets[:2]) if q][: context.follow_up_queries],
            )
        ]
    gaps: list[Gap] = []
    missing = uncovered(sub_question, [e.text for e in ranked[:TOP_PASSAGES_FOR_FACETS]])
    supporting = [e.id for e in ranked if e.score >= SUPPORTING_SCORE]
    independent = state.independent_sources(supporting)
    follow_ups = bridge_queries(sub_question, ranked, missing or facets, context.follow_up_queries)
    unnamed = unnamed_subjects(state, sub_question, ranked, headings_at)
    unanswered = why_unanswered(state, sub_question, ranked, unnamed, headings_at)
    if unanswered:  # search for what is missing: a subject, else a number the question gives
        missing_subjects = unnamed or [
            (set(), [number]) for number in unsaid_numbers(state, sub_question, ranked)
        ]
        if not missing_subjects and asked_kind(sub_question.text) == "comparison":
            # Both sides named, a value to compare missing: each side's own page holds
            # its date or version, not a page about a name the first passages mention.
            missing_subjects = subjects(sub_question.text)[-2:]
        queries = subject_queries(sub_question, missing_subjects)[: context.follow_up_queries]
        gaps.append(new_gap(state, sub_question, "unanswered", unanswered, queries or follow_ups))
    if missing:
        gaps.append(
            new_gap(
                state,
                sub_question,
                "facet",
                DETAILS["facet"].format(terms=", ".join(missing)),
                follow_ups,
            )
        )
    if len(independent) < context.min_independent_sources:
        detail = DETAILS["few_sources"].format(
            found=len(independent), required=context.min_independent_sources
        )
        gaps.append(new_gap(state, sub_question, "few_sources", detail, follow_ups))
    gaps.extend(uncorroborated_figures(state, sub_question, ranked, context))
    return gaps


def as_sources_write_it(sub_question: SubQuestion, records: Sequence[Evidence]) -> SubQuestion:
    """The sub-question, and the queries it was searched with, with the opening word in
    lower case where only its place capitalises it (`opening_as_written`) and a name
    before its release number capitalised where the sources capitalise it
    (`releases_as_written`), read against these passages (best what its searches found,
    selected or not, as the selected few may not say the word at all): what the question
    names is what a passage must name."""
    texts = [record.text for record in records]

    def as_written(text: str) -> str:
        return releases_as_written(opening_as_written(text, texts), texts)

    return sub_question.model_copy(
        update={
            "text": as_written(sub_question.text),
            "queries": [as_written(query) for query in sub_question.queries],
        }
    )


def scene_only_names(
    sub_question: SubQuestion,
    records: Sequence[Evidence],
    places: Iterable[str],
    shelves: Iterable[str] = (),
) -> set[str]:
    """The names only the scene the sub-question sets before it asks gives
    (`scene_names`), as it or a query that found these passages writes them, that the
    corpus files no documents under (`filed_names`): context, as `unnamed_subjects`
    reads them, not a name a passage must be about."""
    filed = filed_names(sub_question.text, places, pages=True, shelves=shelves)
    queried = {sub_question.text, *(record.query for record in records)}
    return set().union(*map(scene_names, queried)) - filed


def searched_names(records: Sequence[Evidence]) -> dict[str, set[str]]:
    """The names each query that found these passages named, its opening word read as
    the passages write it (`opening_as_written`): once per query, not per passage."""
    texts = [record.text for record in records]
    queries = {record.query for record in records}
    return {query: named_terms(opening_as_written(query, texts)) for query in queries}


def why_unanswered(
    state: State,
    sub_question: SubQuestion,
    ranked: list[Evidence],
    unnamed: list[tuple[set[str], list[str]]] | None = None,
    headings_at: HeadingsAt | None = None,
) -> str:
    """Why the selected evidence does not answer the sub-question, or "" when it does.
    It answers when every subject the question names is named, all its names together
    (a name with a number as that exact phrase: "PostgreSQL 17" is not "17.3"), by a
    passage or its source's title; and a selected passage that mentions what a "what X"
    question asks about holds a sentence with an answer of the asked kind (a date, a
    version, a number, a name) sharing a word with the question ("released").
    `unnamed`: the sub-question's `unnamed_subjects`, when the caller has them;
    `headings_at`: the headings each sentence lies under (the passage's own path, read
    for every sentence of it, when not given)."""
    asked = Asked.of(sub_question.text)
    kind = asked.kind
    if unnamed is None:
        unnamed = unnamed_subjects(state, sub_question, ranked, headings_at)
    for names, phrases in unnamed[:1]:  # as the question writes them: "ReiserFS, Debian"
        alone = {n for n in names if not _in_any(n, phrases)}
        written = [phrase_as_written(p, sub_question.text) for p in phrases]
        shown = ", ".join([*written, *names_as_written(alone, sub_question.text).split()])
        return UNANSWERED["unnamed"].format(what=shown)
    unsaid = unsaid_numbers(state, sub_question, ranked)
    if unsaid:  # "Who was elected Debian Project Leader in 2024?" in a book of 2022
        return UNANSWERED["unsaid"].format(what=", ".join(unsaid))
    # The answer may sit in a passage about a name the first passages led to (the second
    # hop of a question), so any selected passage may hold it; not one about another
    # product, when the corpus files documents under the names the question gives.
    places = (s.place for s in state.sources.values())
    filed = filed_names(sub_question.text, places, shelves=state.shelves)
    holding = [e for e in ranked if not filed or names_any(state, e, filed)]
    # A release's date or version is given where the release is named (asked which
    # release of a series, a point release of it counts): "On what date was Sphinx 3.5.5
    # released?" is not answered by a date in a page on the release process.
    releases = [s for s in subjects(sub_question.text) if s[1]]
    if kind in ("date", "version") and releases:
        holding = [
            e
            for e in holding
            if any(_names_release(state, e, s, kind == "version") for s in releases)
        ]
    # Everything the searches found for the sub-question, selected or not: a passage
    # left out of the evidence still shows that the corpus has the thing asked about.
    found = [*ranked, *state.found_for(sub_question.id)]
    head = head_word(sub_question.text) if kind != "comparison" else ""
    if head:  # "What warranty …": when nothing found says warranty, the corpus has none
        token = tokenize(head)[0]
        if not any(token in tokenize(framed(state, e)) for e in found):
            return UNANSWERED["unheaded"].format(what=head)
    if asked.featured:  # "the git replay command": the answer is on a page that says "replay"
        if not any(_says(state, e, asked.featured) for e in found):
            return UNANSWERED["unsaid"].format(what=asked.featured)
        holding = [e for e in holding if _says(state, e, asked.featured)]
    at = headings_at or HeadingsAt(state.sources, None)

    def answers(record: Evidence, start: int, end: int, lead: str) -> bool:
        sentence = LINE_MARKER.sub("", record.text[start:end])
        above = _frame(state, record, at(record, start))
        # a page filed under another product names this one in passing ("A FlaskGroup
        # Click group can be nested" in Flask's changelog): its other sentences are not
        # about it ("Add --env-file option to the flask CLI" is not Click's)
        if filed and not names_one_of(filed, f"{lead}{sentence}", above, _place(state, record)):
            return False
        return asked.answered_by(sentence, above, lead)

    if not any(
        answers(record, start, end, lead)
        for record in holding
        for start, end, lead in _may_answer(record, asked, at.code_blocks(record))
    ):
        return UNANSWERED["no_kind"].format(what=kind_words(kind))
    return ""


def unsaid_numbers(state: State, sub_question: SubQuestion, ranked: list[Evidence]) -> list[str]:
    """The years, versions and figures the sub-question gives (`distinctive_numbers`)
    that no selected passage, its title, headings or place says: a year or a release
    ("sqlite 3.40", one a name carries) anywhere (`said_anywhere`), any other number
    beside a word the question says it with (`mentions_number_with`)."""
    supposed = supposed_measures(sub_question.text)
    asked_in = releases_asked_in(sub_question.text)  # not a scene's, set before it
    numbers = [n for n in distinctive_numbers(asked_in) if n not in supposed]
    words = set(tokenize(sub_question.text)) - set(tokenize(" ".join(numbers)))
    phrases = key_phrases(sub_question.text)
    released = set(tokenize(" ".join(phrases)))
    asked = Asked.of(sub_question.text)
    # asked which release of a series, or which of two came first within it: a point
    # release of it says it ("3.7.9" for "the Postfix 3.7 branch")
    series = phrases if asked.series is not None or asked.within else []

    def said(record: Evidence, number: str) -> bool:
        text = _in_place(state, record)
        if any(p.endswith(f" {number}") and mentions_point_release(text, p) for p in series):
            return True
        if number in released or said_anywhere(number):
            return mentions_number(text, number)
        return mentions_number_with(text, number, words)

    # a release of the reader's setting: any page found naming it (`unnamed_subjects`)
    settings = setting_releases(sub_question.text)
    found = [*ranked, *state.found_for(sub_question.id)] if settings else ranked

    def said_in(number: str) -> list[Evidence]:
        return found if any(p.endswith(f" {number}") for p in settings) else ranked

    return [number for number in numbers if not any(said(e, number) for e in said_in(number))]


def unnamed_subjects(
    state: State,
    sub_question: SubQuestion,
    ranked: list[Evidence],
    headings_at: HeadingsAt | None = None,
) -> list[tuple[set[str], list[str]]]:
    """The subjects of the sub-question that no selected passage names. A subject with a
    name the corpus names documents by, a folder or a file ("SQLite's RETURNING clause",
    "Aurora A1" in aurora-pilot-line.md), must be named by one passage, all its names
    together; the names of a subject the corpus names nothing by ("Lady Mary-Gaye Curzon
    stars with Douglas Smith") may each be named by a passage of its own: a multi-hop
    question's entities lie on several pages. A passage is read under its own heading
    path and the one it starts under (`headings_at`): it may open with the last lines of
    the entry before ("New in version 3.9." of functools.cache, in a passage filed under
    functools.cached_property)."""
    at = headings_at or HeadingsAt(state.sources, None)
    opening = {e.id: at(e, 0) for e in ranked}
    places = [s.place for s in state.sources.values()]
    filed = filed_names(sub_question.text, places, pages=True, shelves=state.shelves)
    # Asked what holds in a release, not when it came, which release of a series ("Which
    # Django 3.2 release fixed …") or which of two came first within it ("On the Postfix
    # 3.7 branch, A or B?"): its point releases' docs are of it.
    asked = Asked.of(sub_question.text)
    series = (
        asked.kind not in ("date", "version", "comparison")
        or asked.series is not None
        or asked.within
    )
    # The scene a question sets before the clause that asks ("Using AES-GCM through the
    # EVP interface: what IV length does OpenSSL assume?") is context: of its subjects,
    # only the products the corpus files documents under and the releases count; not
    # those releases when the clause names the ones it asks of ("pytest kept a 4.6 branch
    # for Python 2 users. Which came first, pytest 4.6.11 or pytest 5.4.3?").
    scene = scene_subjects(sub_question.text)
    scene_releases = scene_releases_asked(sub_question.text)
    settings = set(setting_releases(sub_question.text))
    found = [*ranked, *state.found_for(sub_question.id)]
    unnamed: list[tuple[set[str], list[str]]] = []
    for subject in subjects(sub_question.text):
        names, phrases = subject
        # A release the scene gives ("Our relay runs Postfix 3.7 with …", "on a Debian 11
        # server") is the reader's setting, not what is asked of: docs that reach it, any
        # page found naming it or a point release of it, answer for it; docs that
        # predate it do not ("Moving to OpenSSL 3.4: …" of OpenSSL 3.0's pages).
        setting = bool(phrases) and set(phrases) <= settings
        if subject in scene:
            names = names & filed
            phrases = phrases if scene_releases else []
            if not names and not phrases:
                continue
            subject = (names, phrases)
        parts = (
            [subject]
            if names & filed
            else [({n}, []) for n in names] + [(set(), [phrase]) for phrase in phrases]
        )
        if setting:
            named = all(any(_names_subject(state, e, part, True) for e in found) for part in parts)
        else:
            named = all(
                any(_names_subject(state, e, part, series, opening[e.id]) for e in ranked)
                for part in parts
            )
        if not named:
            unnamed.append(subject)
    return unnamed


def setting_releases(question: str) -> list[str]:
    """The releases the scene a question sets before it asks gives, as phrases ("Our
    relay runs Postfix 3.7 with …", "… on a Debian 11 server."): the reader's setting,
    when the clause that asks names no release of its own and asks for no date, version
    or order of releases."""
    if asked_kind(question) in ("date", "version", "comparison"):
        return []
    if not scene_releases_asked(question):
        return []  # it sets no scene, or its clause names releases of its own
    return [phrase for _, phrases in scene_subjects(question) for phrase in phrases]


def subject_queries(
    sub_question: SubQuestion, unnamed: list[tuple[set[str], list[str]]]
) -> list[str]:
    """Searches for exactly what is missing: each subject no passage names, as the
    question writes it ("Python 3.9"), with the question's words that name no subject
    ("release"; a comparison's "first" is its form, `facets_of`) and the change it asks
    the date or version of when the question leaves it unsaid ("Which came first,
    SSL_CONF_cmd() or SSL_read_ex()?" asks when each was added): the other side of a
    comparison, the product a first search did not reach."""
    question = sub_question.text
    subject_words = {
        token
        for names, phrases in subjects(question)
        for token in tokenize(" ".join([*names, *phrases]))
    }
    rest = [
        facet
        for facet in sub_question.facets or facets_of(question)
        if not set(tokenize(facet)) & subject_words and not any(c.isdigit() for c in facet)
    ]
    said_rest = set(tokenize(" ".join(rest)))
    events = [e for e in sorted(Asked.of(question).events) if not set(tokenize(e)) & said_rest]
    sides = compared_sides(question) if COMPARISON.search(question) else None
    queries: list[str] = []
    settings = set(setting_releases(question))
    for names, phrases in unnamed:
        if phrases and set(phrases) <= settings:  # a page that names the release at all
            queries.extend(phrases)
            continue
        alone = {n for n in names if not _in_any(n, phrases)}
        said = " ".join([*phrases, names_as_written(alone, question) if alone else ""])
        queries.append(" ".join([said.strip(), *_own_side(rest, said, sides), *events]).strip())
    return [q for q in dict.fromkeys(queries) if q]


def _own_side(words: list[str], subject: str, sides: tuple[str, str] | None) -> list[str]:
    """Of a comparison's words, those of the side the subject stands on or of neither:
    the search for SQLite's RETURNING clause does not carry the MERGE command's
    "command" ("SQLite RETURNING clause command added" finds SQLite's release notes on
    commands). All of them for a question that compares nothing."""
    if sides is None:
        return words
    named = set(tokenize(subject))
    left, right = (set(tokenize(side)) for side in sides)
    if not named & (left | right):
        return words  # the subject stands on neither side as written
    other_only = right - left if named & left else left - right
    return [w for w in words if not set(tokenize(w)) & other_only]


def _may_answer(record: Evidence, asked: Asked, blocks: list[Span]) -> list[tuple[int, int, str]]:
    """The sentences of a passage that may hold its answer, each with the text before it
    in its paragraph (read with it, as the answer line reads it), and a label with the
    entry it heads (`Asked.entry_labelled`): not code (`blocks`, the passage's code
    blocks), unless a command is asked for."""
    spans = sentences_with_lead(record.text, titled=record.opens_source)
    labels = [
        (start, entry_end, lead)
        for at, (start, _, lead) in enumerate(spans)
        if (entry_end := asked.entry_labelled(record.text, spans, at)) >= 0
    ]
    spans = [*spans, *labels]  # a label read with the entry it heads as well
    if asked.answered_in_code or not blocks:
        return spans
    return [(start, end, lead) for start, end, lead in spans if not inside(blocks, start)]


def _frame(state: State, record: Evidence, headings: Sequence[str] | None = None) -> str:
    """The title of the record's source and the headings it (or one of its sentences:
    `headings`) lies under."""
    source = state.sources.get(record.source_id)
    return frame(source.title if source else "", record.headings if headings is None else headings)


def _says(state: State, record: Evidence, word: str) -> bool:
    """Whether the passage or its frame says the word (`says_word`)."""
    return says_word(framed(state, record), word)


def framed(state: State, record: Evidence) -> str:
    """The passage under its frame: what a reader sees of what it is about."""
    return f"{_frame(state, record)}\n{record.text}"


def _place(state: State, record: Evidence) -> str:
    source = state.sources.get(record.source_id)
    return source.place if source else ""


def _in_place(state: State, record: Evidence) -> str:
    """The passage with its title, headings and place: all that says what it is of."""
    return f"{framed(state, record)}\n{_place(state, record)}"


def _names_subject(
    state: State,
    record: Evidence,
    subject: tuple[set[str], list[str]],
    series: bool = False,
    opening: Sequence[str] = (),
) -> bool:
    """`opening`: the headings the passage starts under, when not its own."""
    above = _frame(state, record)
    if opening and list(opening) != list(record.headings):
        above = f"{above}\n{frame('', opening)}"
    return passage_names(record.text, subject, above, _place(state, record), series)


def _names_release(
    state: State, record: Evidence, subject: tuple[set[str], list[str]], series: bool
) -> bool:
    """Whether the passage names the subject's release; `series`: or a point release of
    it (asked which release of a series)."""
    if _names_subject(state, record, subject):
        return True
    text = framed(state, record)
    return series and any(mentions_point_release(text, phrase) for phrase in subject[1])


def names_any(state: State, record: Evidence, names: set[str]) -> bool:
    """Whether a passage, its source's title, its headings or its place (packaged docs
    name their product in the path, a manual in its collection's name) name one of
    these names."""
    return names_one_of(names, record.text, _frame(state, record), _place(state, record))


def _in_any(name: str, phrases: list[str]) -> bool:
    return any(name in phrase.lower().split() for phrase in phrases)


def uncovered(sub_question: SubQuestion, texts: list[str]) -> list[str]:
    """The sub-question's facets that none of these texts mentions."""
    covered = set(tokenize(" ".join(texts)))
    facets = sub_question.facets or facets_of(sub_question.text)
    return [f for f in facets if not set(tokenize(f)) <= covered]


def uncorroborated_figures(
    state: State, sub_question: SubQuestion, ranked: list[Evidence], context: Context
) -> list[Gap]:
    """A figure about the asked subject that only one independent source in the whole
    context gives: search for the subject with the figure's unit, where a second source
    (agreeing or not) is most likely to be phrased differently from the question."""
    names = named_terms(" ".join([sub_question.text, *sub_question.queries]))
    if not names or context.min_independent_sources < 2:
        return []
    in_context = state.selected_evidence()
    gaps: list[Gap] = []
    for unit, subject in figures_about(names, ranked)[:FIGURE_GAPS_PER_SUB_QUESTION]:
        giving = [
            e.id
            for e in in_context
            if any(q.unit == unit for q in quantities(e.text)) and names & named_terms(e.text)
        ]
        found = len(state.independent_sources(giving))
        if found < context.min_independent_sources:
            gaps.append(
                new_gap(
                    state,
                    sub_question,
                    "uncorroborated",
                    DETAILS["uncorroborated"].format(subject=subject, unit=unit, found=found),
                    [f"{subject} {unit}"],
                )
            )
    return gaps


def figures_about(names: set[str], ranked: list[Evidence]) -> list[tuple[str, str]]:
    """(unit, subject as written) of figures in sentences naming the subject, best
    passages first, each unit once."""
    figures: dict[str, str] = {}
    for record in ranked:
        for start, end in sentences(record.text):
            sentence = record.text[start:end]
            shared = names & named_terms(sentence)
            for quantity in quantities(sentence) if shared else []:
                figures.setdefault(quantity.unit, names_as_written(shared, sentence))
    return list(figures.items())


def bridge_queries(
    sub_question: SubQuestion, ranked: list[Evidence], focus: list[str], most: int
) -> list[str]:
    """Queries that pair what is still missing with names the best passages introduced:
    the second hop usually starts from an entity the first hop found. The best passage's
    names come before the next's, each read within its sentence ("Bishop Gorman High
    School", not "Bishop Gorman High School. He"); of one passage's names, one that is
    what the question describes comes first ("Bishop Gorman High School" for "the high
    school located in what city"), then the others in order of appearance."""
    asked = sub_question.text.lower()
    relation = relation_words(sub_question.text)
    order: dict[str, tuple[int, int]] = {}  # name -> (passage rank, -question words)
    for rank, record in enumerate(ranked[:TOP_PASSAGES_FOR_FACETS]):
        for start, end in sentences(record.text):
            for name in name_phrases(record.text[start:end]):
                if name.lower() not in asked and name not in order:
                    order[name] = (rank, -len(relation & set(tokenize(name))))
    names = sorted(order, key=lambda name: order[name])  # stable: first seen first
    focus_text = " ".join(focus[:6])
    queries = [f"{name} {focus_text}".strip() for name in names[:most]]
    return queries or [focus_text]


def relation_words(question: str) -> set[str]:
    """The question's words (as `tokenize` gives them) outside its names and numbers:
    the nouns and verbs that say what it asks of what it names ("high", "school",
    "located" in "the high school located in what Nevada city")."""
    named = {token for term in named_terms(question) for token in tokenize(term)}
    return {w for w in tokenize(question) if w not in named and not w[:1].isdigit()}


def conflict_gaps(state: State) -> list[Gap]:
    selected: list[tuple[str, str, str, str]] = []
    for ids in state.context.values():
        for evidence_id in ids:
            record = state.record(evidence_id)
            independent = next(iter(state.independent_sources([evidence_id])), record.source_id)
            selected.append((evidence_id, independent, record.text, _frame(state, record)))
    by_id = {sq.id: sq for sq in state.sub_questions}
    gaps: list[Gap] = []
    for disagreement in find_disagreements(statements(selected)):
        first: Statement = disagreement.sides[0][0]
        sub_question = by_id[state.filed_under(first.evidence_id)]
        values = " vs ".join(value for _, value in disagreement.sides)
        gap = new_gap(
            state,
            sub_question,
            disagreement.kind,
            f"sources disagree on {disagreement.subject}: {values}",
            [f"{disagreement.names} {disagreement.detail}", f"{disagreement.names} latest"],
        )
        gap.subject = disagreement.subject
        gap.sides = [
            ConflictSide(evidence_id=s.evidence_id, value=value, sentence=s.sentence)
            for s, value in disagreement.sides
        ]
        gaps.append(gap)
    return gaps


def new_gap(
    state: State, sub_question: SubQuestion, kind: GapKind, detail: str, queries: list[str]
) -> Gap:
    """A gap of this round, its id stable for the same sub-question, kind and detail."""
    digest = hashlib.sha1(f"{sub_question.id}|{kind}|{detail}".encode()).hexdigest()[:8]
    return Gap(
        id=f"{sub_question.id}:{kind}:{digest}:r{state.round}",
        sub_question_id=sub_question.id,
        kind=kind,
        detail=detail,
        follow_up_queries=queries,
        round=state.round,
    )
