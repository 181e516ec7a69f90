"""Each rule of the extractive gap checker, on hand-made state."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from langgraph.runtime import Runtime

from grounded_research.configuration import Context
from grounded_research.gaps.check import next_research
from grounded_research.gaps.conflicts import find_disagreements, statements
from grounded_research.nodes.check_gaps import check_gaps
from grounded_research.retrieval.snapshots import SnapshotStore
from grounded_research.state import Evidence, Gap, Selection, Source, State, SubQuestion
from grounded_research.text.answers import names_subject
from grounded_research.text.facts import name_phrases, statuses

QUESTION = "What energy density does the Aurora A1 cell reach?"


def state_with(passages: list[tuple[str, str, str | None]], **extra: Any) -> State:
    """passages: (source id, text, published)."""
    sources: dict[str, Source] = {}
    evidence: dict[str, Evidence] = {}
    for number, (source_id, text, published) in enumerate(passages):
        sources.setdefault(
            source_id,
            Source(
                id=source_id,
                location=f"{source_id}.md",
                status="fetched",
                sha256=source_id,
                published=published,
            ),
        )
        evidence[f"e{number}"] = Evidence(
            id=f"e{number}",
            source_id=source_id,
            sub_question_id="q0",
            text=text,
            start=0,
            end=len(text),
            score=1.0 - number * 0.1,
        )
    sub_question = SubQuestion(
        id="q0",
        text=QUESTION,
        queries=[QUESTION],
        facets=["energy", "density", "aurora", "a1", "cell"],
    )
    return State(
        question=QUESTION,
        sub_questions=[sub_question],
        sources=sources,
        evidence=evidence,
        selections=[Selection(context={"q0": list(evidence)})],
        **extra,
    )


def gaps_of(state: State, **options: Any) -> list[Gap]:
    update = asyncio.run(check_gaps(state, Runtime(context=Context(**options))))
    return list(update["gaps"])


def unanswered(question: str, *passages: tuple[str, str, str | None]) -> list[str]:
    """Why the passages do not answer the question, as the gap check says it."""
    state = state_with(list(passages))
    state.sub_questions[0] = SubQuestion(id="q0", text=question, queries=[question])
    return [g.detail for g in gaps_of(state) if g.kind == "unanswered"]


def unanswered_found_then_not(state: State, question: str) -> tuple[list[str], list[str]]:
    """Why the first passage alone does not answer the question, as the gap check says
    it: while the second passage was found by the searches but not selected, then when
    it was never found."""
    state.sub_questions[0] = SubQuestion(id="q0", text=question, queries=[question])
    state.selections = [Selection(context={"q0": ["e0"]})]  # the second was not selected
    found = [g.detail for g in gaps_of(state) if g.kind == "unanswered"]
    del state.evidence["e1"]
    return found, [g.detail for g in gaps_of(state) if g.kind == "unanswered"]


def kinds(gaps: list[Gap]) -> set[str]:
    return {gap.kind for gap in gaps}


def test_no_evidence_is_a_gap_with_keyword_follow_ups() -> None:
    state = state_with([])
    [gap] = gaps_of(state)
    assert gap.kind == "no_evidence"
    assert gap.follow_up_queries and all(gap.follow_up_queries)


def test_one_source_is_too_few_when_two_are_required() -> None:
    text = "The Aurora A1 cell reaches an energy density of 450 Wh/kg."
    state = state_with([("s1", text, None)])
    assert "few_sources" in kinds(gaps_of(state, min_independent_sources=2))
    assert "few_sources" not in kinds(gaps_of(state, min_independent_sources=1))


def test_a_reprint_does_not_count_as_a_second_source() -> None:
    text = "The Aurora A1 cell reaches an energy density of 450 Wh/kg."
    state = state_with([("s1", text, None), ("s2", text, None)])
    state.selection.reprints["s2"] = "s1"
    assert "few_sources" in kinds(gaps_of(state, min_independent_sources=2))


def test_uncovered_facets_are_a_gap_pointing_at_new_names() -> None:
    state = state_with(
        [("s1", "The Aurora A1 cell was developed with Meridian Motors in Lund.", None)]
    )
    [facet] = [g for g in gaps_of(state) if g.kind == "facet"]
    assert "energy" in facet.detail and "density" in facet.detail
    assert any("Meridian Motors" in q for q in facet.follow_up_queries)


def test_the_second_hop_starts_from_the_name_of_what_the_question_describes() -> None:
    """The name with "High School" in it answers to "the high school", not the passage's
    first name; and a name ends with its sentence."""
    question = (
        "Randall Cunningham II was a multi-sport athlete at the high school located in "
        "what Nevada city?"
    )
    passage = (
        "Randall Cunningham II is an American high jumper for the USC Trojans. He was a "
        "quarterback at Bishop Gorman High School. He is a five-time state champion."
    )
    state = state_with([("s1", passage, None)])
    state.sub_questions[0] = SubQuestion(id="q0", text=question, queries=[question])
    [facet] = [g for g in gaps_of(state) if g.kind == "facet"]
    assert facet.follow_up_queries[0].startswith("Bishop Gorman High School ")
    assert not any(". He" in query for query in facet.follow_up_queries)


def test_a_weekday_or_a_month_is_no_name_to_search_on() -> None:
    text = "The awards were held on Monday, July 28, 2014 in Los Angeles, California."
    assert name_phrases(text) == ["Los Angeles", "California"]


def test_sources_that_disagree_on_a_number_conflict() -> None:
    state = state_with(
        [
            ("press", "The Aurora A1 cell reaches 450 Wh/kg at the cell level.", "2024-05-21"),
            ("lab", "In our tests, the Aurora A1 cell delivers 390 Wh/kg.", "2026-01-10"),
        ]
    )
    [conflict] = [g for g in gaps_of(state) if g.kind == "conflict"]
    assert {side.value for side in conflict.sides} == {"450 Wh/kg", "390 Wh/kg"}
    assert "Aurora A1" in conflict.subject


def test_agreeing_numbers_and_different_subjects_do_not_conflict() -> None:
    agreeing = state_with(
        [
            ("press", "The Aurora A1 cell reaches 450 Wh/kg.", None),
            ("lab", "Tests confirm the Aurora A1 cell delivers 450 Wh/kg.", None),
        ]
    )
    assert "conflict" not in kinds(gaps_of(agreeing))
    different = state_with(
        [
            ("a", "The Pellam Energy cell reaches 160 Wh/kg.", None),
            ("b", "The Qinglan New Energy cell reaches 300 Wh/kg.", None),
        ]
    )
    assert "conflict" not in kinds(gaps_of(different))


def test_two_measures_or_doings_of_one_subject_do_not_conflict() -> None:
    """Sentences that name the same subject and share no other word are about two
    things of it: a majority of votes and a share of web servers are not one figure;
    a project's plans and what it shipped are not one event."""
    measures = state_with(
        [
            ("rules", "Debian requires a majority of three quarters (75%) of votes.", None),
            ("intro", "Around 10% of the web servers on the Internet run Debian.", None),
        ]
    )
    assert not [g for g in gaps_of(measures) if "conflict" in g.kind]
    doings = state_with(
        [
            ("plans", "Debian plans to focus on a few topics in each release.", None),
            ("history", "Debian shipped Wayland as the GNOME default.", None),
        ]
    )
    assert not [g for g in gaps_of(doings) if "conflict" in g.kind]


def test_sources_that_disagree_on_a_year_conflict() -> None:
    state = state_with(
        [
            ("old", "Aurora Cellworks will begin shipping Aurora A1 cells in 2025.", "2023-03-14"),
            (
                "new",
                "The start of series production of the Aurora A1 slipped to 2027.",
                "2026-02-10",
            ),
        ]
    )
    [conflict] = [g for g in gaps_of(state) if g.kind == "conflict"]
    assert {side.value for side in conflict.sides} == {"2025", "2027"}


def test_status_words_that_cannot_both_hold_conflict() -> None:
    state = state_with(
        [
            ("plan", "The Norvik N2 cell is planned for series production in 2026.", "2024-09-03"),
            ("news", "Norvik shipped the first Norvik N2 cells in 2026.", "2026-03-18"),
        ]
    )
    [conflict] = [g for g in gaps_of(state) if g.kind == "status_conflict"]
    assert {side.value for side in conflict.sides} == {"planned", "done"}


def test_negated_delivery_conflicts_with_delivery() -> None:
    state = state_with(
        [
            ("a", "Aurora Cellworks delivered Aurora A1 samples to automakers.", None),
            ("b", "Aurora Cellworks has not yet delivered any Aurora A1 cells.", None),
        ]
    )
    assert "status_conflict" in kinds(gaps_of(state))


def test_next_research_only_for_sub_questions_with_new_follow_ups() -> None:
    context = Context(max_rounds=2)
    q0 = SubQuestion(id="q0", text="a")
    q1 = SubQuestion(id="q1", text="b")
    gaps = [
        Gap(
            id="g",
            sub_question_id="q1",
            kind="facet",
            detail="x",
            follow_up_queries=["new query", "old query"],
            round=0,
        )
    ]
    [task] = next_research([q0, q1], gaps, ["q1\told query"], 0, context)
    assert task.sub_question.id == "q1" and task.queries == ["new query"] and task.round == 1
    assert next_research([q0, q1], gaps, [], 2, context) == []
    assert next_research([q0, q1], gaps, ["q1\tnew query", "q1\told query"], 0, context) == []


def test_final_check_moves_open_gaps_to_unresolved() -> None:
    state = state_with([("s1", "The Aurora A1 cell reaches 450 Wh/kg.", None)], round=1)
    update = asyncio.run(check_gaps(state, Runtime(context=Context(max_rounds=1))))
    assert update["unresolved"] == update["gaps"] and update["gaps"]


def test_the_router_follows_the_gap_checks_decision() -> None:
    from grounded_research.graph import research_gaps_or_write

    state = state_with([("s1", "The Aurora A1 cell reaches 450 Wh/kg.", None)])
    update = asyncio.run(check_gaps(state, Runtime(context=Context(max_rounds=1))))
    assert update["follow_ups"] and "unresolved" not in update
    state.follow_ups = update["follow_ups"]
    sends = research_gaps_or_write(state)
    assert isinstance(sends, list) and [s.arg for s in sends] == update["follow_ups"]
    state.follow_ups = []
    assert research_gaps_or_write(state) == "write_report"


def test_a_question_split_in_parts_is_unanswered_only_when_no_part_is_answered() -> None:
    from grounded_research.gaps.check import whole_answered_by_parts

    state = State(
        question="When did A ship, and what does B cost?",
        sub_questions=[
            SubQuestion(id="q0", text="When did A ship, and what does B cost?"),
            SubQuestion(id="q1", text="When did A ship"),
            SubQuestion(id="q2", text="what does B cost?"),
        ],
    )

    def gap(sub_question_id: str, kind: Any = "unanswered") -> Gap:
        return Gap(
            id=f"{sub_question_id}:{kind}",
            sub_question_id=sub_question_id,
            kind=kind,
            detail=sub_question_id,
        )

    one_open = whole_answered_by_parts(state, {"q0": [gap("q0")], "q1": [], "q2": [gap("q2")]})
    assert one_open["q0"] == [] and one_open["q2"] == [gap("q2")]

    all_open = whole_answered_by_parts(
        state, {"q0": [gap("q0", "facet")], "q1": [gap("q1")], "q2": [gap("q2")]}
    )
    assert [(g.kind, g.detail) for g in all_open["q0"]] == [
        ("facet", "q0"),
        ("unanswered", "q1; q2"),
    ]


def titled(state: State, **titles: str) -> State:
    for source_id, title in titles.items():
        state.sources[source_id].title = title
    return state


def test_a_table_row_conflicts_with_prose_when_the_title_names_the_subject() -> None:
    """A datasheet gives the value as a row, the product named only in its title."""
    state = state_with(
        [
            ("sheet", "| Gravimetric energy density | 390 Wh/kg |", None),
            ("press", "The Aurora A1 cell reaches an energy density of 450 Wh/kg.", None),
        ]
    )
    titled(state, sheet="Aurora A1 datasheet")
    [conflict] = [g for g in gaps_of(state) if g.kind == "conflict"]
    assert {side.value for side in conflict.sides} == {"390 Wh/kg", "450 Wh/kg"}
    assert "Aurora A1" in conflict.subject


def test_a_title_shared_is_not_enough_for_two_different_attributes() -> None:
    state = state_with(
        [
            ("sheet", "| Charging power | 350 kW |", None),
            ("press", "The Aurora A1 pack's motor delivers 250 kW.", None),
        ]
    )
    titled(state, sheet="Aurora A1 datasheet")
    assert "conflict" not in kinds(gaps_of(state))


def test_pages_on_two_code_names_sharing_title_words_do_not_conflict() -> None:
    """The pages of two modules share "Apache Module" in their titles, not a subject."""
    state = state_with(
        [
            ("deflate", "The compressed response is delivered to the client.", None),
            ("http2", "The pushed resource is expected to be delivered to the client.", None),
        ]
    )
    titled(state, deflate="Apache Module mod_deflate", http2="Apache Module mod_http2")
    assert "status_conflict" not in kinds(gaps_of(state))
    titled(state, http2="Apache Module mod_deflate")
    assert "status_conflict" in kinds(gaps_of(state))


def test_versions_that_disagree_on_a_change_conflict() -> None:
    state = state_with(
        [
            ("docs", "The `tomllib` module was added in Python 3.11.", None),
            ("blog", "`tomllib` was added in Python 3.12 to read TOML files.", None),
        ]
    )
    [conflict] = [g for g in gaps_of(state) if g.kind == "conflict"]
    assert {side.value for side in conflict.sides} == {"3.11", "3.12"}
    assert conflict.subject == "tomllib (version added)"


def test_different_features_added_in_different_versions_do_not_conflict() -> None:
    state = state_with(
        [
            ("a", "The `zoneinfo` module was added in Python 3.9.", None),
            ("b", "The `tomllib` module was added in Python 3.11.", None),
            ("c", "PostgreSQL 15 added the MERGE command.", None),
            ("d", "PostgreSQL 16 added the `pg_stat_io` view.", None),
        ]
    )
    assert "conflict" not in kinds(gaps_of(state))


def test_a_date_under_a_title_that_shares_the_asked_word_answers() -> None:
    """Release notes give the date as a line of its own; the title says what it dates."""
    question = "When was the Django 3.2.5 security release published?"
    state = state_with(
        [("notes", "*July 1, 2021*\n\nDjango 3.2.5 fixes two security issues in 3.2.4.", None)]
    )
    titled(state, notes="Django 3.2.5 release notes")
    state.sub_questions[0] = SubQuestion(id="q0", text=question, queries=[question])
    assert "unanswered" not in kinds(gaps_of(state))
    asked = "When did Django 3.2.5 come out?"  # in other words: released
    state.sub_questions[0] = SubQuestion(id="q0", text=asked, queries=[asked])
    assert "unanswered" not in kinds(gaps_of(state))
    titled(state, notes="Django 3.2.5 changelog")  # the title no longer says "release"
    assert "unanswered" in kinds(gaps_of(state))


def test_a_sentence_under_another_release_does_not_answer() -> None:
    """ "MySQL 5.0" in Django 1.8's release notes says nothing of Django 5.0."""
    question = "Which Python versions does Django 5.0 support?"
    state = state_with(
        [
            ("timeline", "These features will be removed in Django 5.0.", None),
            ("notes", "Support for MySQL 5.0 ended; Django supports Python 3.4.", None),
        ]
    )
    titled(state, timeline="Django deprecation timeline", notes="Django 1.8 release notes")
    state.sub_questions[0] = SubQuestion(id="q0", text=question, queries=[question])
    assert "unanswered" in kinds(gaps_of(state))
    titled(state, notes="Django 5.0 release notes")
    assert "unanswered" not in kinds(gaps_of(state))


def test_the_notes_of_a_point_release_name_the_series_a_question_asks_within() -> None:
    """ "Which Django 3.2 release fixed …" is answered in "Django 3.2.4 release notes",
    which the other release in its title would otherwise make about 3.2.4, not 3.2."""
    question = "Which Django 3.2 release fixed the system check crash on an abstract model?"
    fixed = "Fixed a bug in Django 3.2 where a system check would crash on an abstract model."
    state = state_with([("notes", fixed, None)])
    titled(state, notes="Django 3.2.4 release notes")
    state.sub_questions[0] = SubQuestion(id="q0", text=question, queries=[question])
    assert not any("names" in detail for detail in unanswered_details(state))
    titled(state, notes="Django 1.8.4 release notes")  # another series: not 3.2's
    assert any("names Django 3.2" in detail for detail in unanswered_details(state))


def unanswered_details(state: State) -> list[str]:
    return [g.detail for g in gaps_of(state) if g.kind == "unanswered"]


def test_the_thing_asked_about_is_looked_for_in_everything_found() -> None:
    """ "What warranty …": when nothing the searches found says warranty, the corpus has
    none; a passage that does, left out of the evidence, is enough to look on."""
    question = "What warranty does Halvard offer on the Estra battery pack?"
    state = state_with(
        [
            ("estra", "Halvard offers the Estra battery pack from 2026 on.", None),
            ("terms", "Halvard gives a warranty of 8 years on the Estra battery pack.", None),
        ]
    )
    found, never_found = unanswered_found_then_not(state, question)
    assert not any("mentions warranty" in d for d in found)
    assert never_found == ["no passage about it mentions warranty"]


def test_the_feature_a_question_names_in_lower_case_must_be_said_where_it_is_answered() -> None:
    """ "the git replay command": a version in a page that never says "replay" (a bisect
    example's v2.6.13-rc2) does not date it, though another page says the word; a page
    that tells of the replay command does."""
    question = "Which Git version added the git replay command?"
    bisect = ("bisect", "The bug was known not to be in Git version v2.6.13-rc2.", None)
    rebase = ("rebase", "Rebase will replay the commits on top of the new base.", None)
    added = ("replay", "The git replay command was added in Git version 2.44.0.", None)

    assert unanswered(question, bisect, rebase) == ["no passage about it gives a version"]
    assert unanswered(question, bisect) == ["no passage mentions replay"]
    assert unanswered(question, bisect, added) == []


def test_a_keyword_in_capitals_the_question_names_must_be_said_where_it_is_answered() -> None:
    """ "a RETURNING clause to MERGE": a release named on a page of optimizer hints,
    which never says RETURNING, does not date it, though the page on MERGE names both;
    a release note that tells of it does."""
    question = "Which PostgreSQL version added a RETURNING clause to MERGE?"
    merge = ("merge", "PostgreSQL has no RETURNING clause with MERGE.", None)
    hints = (
        "hints",
        "More PostgreSQL clauses might be added later. These are the ones that PostgreSQL "
        "release 15.20 understands.",
        None,
    )
    added = ("notes", "PostgreSQL version 17 added a RETURNING clause to MERGE.", None)

    assert unanswered(question, merge, hints) == ["no passage about it gives a version"]
    assert unanswered(question, merge, hints, added) == []


def test_a_feature_word_is_said_by_its_markdown_escaped_spelling() -> None:
    """Extracted pages escape underscores: "include\\_patterns" says include_patterns."""
    question = "Which Sphinx version added the include_patterns setting?"
    conf = ("conf", "The include\\_patterns setting was added in Sphinx 5.1.", None)
    assert unanswered(question, conf) == []


def test_a_term_is_not_called_missing_when_the_path_names_the_product() -> None:
    """Packaged docs name their product in the path: a passage of
    postgresql-doc-15/… is about PostgreSQL though its text never says so."""
    question = "In PostgreSQL 15, what did pg_start_backup() become?"
    text = "Functions pg_start_backup() and pg_stop_backup() have been renamed."
    state = state_with([("release", text, None)])
    state.sources["release"].location = "postgresql-doc-15/html/release-15.html"
    state.sub_questions[0] = SubQuestion(id="q0", text=question, queries=[question])
    update = asyncio.run(check_gaps(state, Runtime(context=Context(max_rounds=0))))
    facet_gaps = [g for g in update["unresolved"] if g.kind == "facet"]
    assert all("backup" not in g.detail for g in facet_gaps)
    state.sources["release"].location = "notes/release-15.html"
    update = asyncio.run(check_gaps(state, Runtime(context=Context(max_rounds=0))))
    assert any("backup" in g.detail for g in update["unresolved"] if g.kind == "facet")


def test_a_term_the_title_of_a_selected_source_says_is_not_called_unmentioned() -> None:
    """The report says "No source found mentions “15.9”" only when none does: a passage
    of the page titled "Release 15.9" mentions it, though its sentence does not."""
    question = "PostgreSQL 15.9: what day was it released?"
    text = "Release date: 2024-11-14. This release contains a variety of fixes."
    state = state_with([("notes", text, None)])
    state.sub_questions[0] = SubQuestion(id="q0", text=question, queries=[question])
    state.sources["notes"].location = "postgresql-doc-15/html/release-15-9.html"
    state.sources["notes"].title = "E.10. Release 15.9"
    update = asyncio.run(check_gaps(state, Runtime(context=Context(max_rounds=0))))
    assert not [g for g in update["unresolved"] if g.kind == "facet" and "15.9" in g.detail]
    state.sources["notes"].title = "E.10. Release notes"
    update = asyncio.run(check_gaps(state, Runtime(context=Context(max_rounds=0))))
    assert [g for g in update["unresolved"] if g.kind == "facet" and "15.9" in g.detail]


def test_a_term_a_found_passage_says_is_not_called_unmentioned_though_not_selected() -> None:
    """ "No source found mentions “web”" is said only when no passage found about the
    subject says it, whether the selection kept that passage or not."""
    question = "What is the default port of the Aurora A1 web console?"
    console = ("console", "The Aurora A1 console listens on port 8080 by default.", None)
    web = ("guide", "The Aurora A1 web interface is optional.", None)

    def open_terms(*passages: tuple[str, str, str | None]) -> list[str]:
        state = state_with(list(passages))
        state.sub_questions[0] = SubQuestion(id="q0", text=question, queries=[question])
        state.selections = [Selection(context={"q0": ["e0"]})]  # the second not selected
        update = asyncio.run(check_gaps(state, Runtime(context=Context(max_rounds=0))))
        return [g.detail for g in update["unresolved"] if g.kind == "facet"]

    assert not [d for d in open_terms(console, web) if "web" in d]
    assert [d for d in open_terms(console) if "web" in d]


def test_a_passage_about_another_product_does_not_answer_where_the_corpus_files_by_product() -> (
    None
):
    """Git's docs lie under git-doc/, Django's under python-django-doc/: a Django page's
    release numbers do not answer a Git question, though it shares the question's words;
    where no folder names the product, any passage may (a second hop)."""
    question = "In which Git version does main become the default name of the initial branch?"
    state = state_with(
        [
            ("git", "Git creates a branch named master by default.", None),
            ("django", "The main branch becomes the default in release 5.1.", None),
        ]
    )
    state.sources["git"].location = "git-doc/git-init.html"
    state.sources["django"].location = "python-django-doc/internals/release-process.html"
    state.sub_questions[0] = SubQuestion(id="q0", text=question, queries=[question])
    assert "unanswered" in kinds(gaps_of(state))
    state.sources["git"].location = "docs/init.html"
    state.sources["django"].location = "docs/branches.html"
    assert "unanswered" not in kinds(gaps_of(state))


def test_a_product_documented_elsewhere_is_not_answered_by_another_products_page() -> None:
    """ "In which Click version was the --env-file option added?": Flask's changelog adds
    one to Flask's CLI and names Click in another item. Click's docs lie on their own
    shelf (python-click-doc/), which no search reached: the corpus has them, so a
    sentence about Click must be filed there or name Click itself."""
    question = "In which Click version was the --env-file option added?"
    notes = "- A FlaskGroup Click group can be nested.\n- Add `--env-file` option in 2.2.0."
    state = state_with([("flask", notes, None)])
    state.sources["flask"].location = "python-flask-doc/html/changes.html"
    state.sub_questions[0] = SubQuestion(id="q0", text=question, queries=[question])
    assert "unanswered" not in kinds(gaps_of(state))  # no Click shelf known: any page may
    state.shelves = ["python-click-doc/html", "python-flask-doc/html"]
    assert "unanswered" in kinds(gaps_of(state))
    state.evidence[next(iter(state.evidence))].text = "- Click 8.1 adds `--env-file` in 2.2.0."
    assert "unanswered" not in kinds(gaps_of(state))


def test_a_name_inside_another_word_is_not_named() -> None:
    """ "See the quick-start section" does not name QUIC; "Multi-Arch" names multiarch
    and "macOS" a Mac, as a plural names its singular, and a name the text capitalises
    the shorter name a question writes."""
    question = "In which OpenSSL version was QUIC client support added?"
    state = state_with([("tls", "OpenSSL 1.1.0 is needed: see the quick-start section.", None)])
    state.sources["tls"].location = "postfix-doc/html/FORWARD_SECRECY_README.html"
    state.sub_questions[0] = SubQuestion(id="q0", text=question, queries=[question])
    assert any("QUIC" in g.detail for g in gaps_of(state) if g.kind == "unanswered")
    for passage, name in [
        ("Since Debian 7 Wheezy, Multi-Arch: same packages coexist.", "multiarch"),
        ("On macOS Monterey the port is taken.", "mac"),
        ("The tollgates at Brooks Bar were removed.", "brook"),
        ("The Livesey Hall War Memorial stands in Sidcup.", "hal"),  # misspelt in a question
        ("可以使用apt-cacher-ng作为代理。", "apt-cacher-ng"),  # Chinese puts no space around it
    ]:
        assert names_subject(passage, ({name}, []))
    assert not names_subject("Note: a digit.", ({"git"}, []))


def test_a_release_named_only_in_passing_is_not_what_a_passage_is_about() -> None:
    """ "… removed in Python 3.13" in the notes of 3.11 says nothing of what 3.13
    brings; the notes titled with 3.13 do, and so does a page about no release."""
    question = "What new features does Python 3.13 introduce?"
    state = state_with(
        [("notes", "Of the new features, `imp` is deprecated and removed in Python 3.13.", None)]
    )
    titled(state, notes="What's New In Python 3.11")
    state.sub_questions[0] = SubQuestion(id="q0", text=question, queries=[question])
    assert "unanswered" in kinds(gaps_of(state))
    titled(state, notes="What's New In Python 3.13")
    assert "unanswered" not in kinds(gaps_of(state))
    titled(state, notes="Deprecations")
    assert "unanswered" not in kinds(gaps_of(state))


def test_a_subject_no_passage_names_is_searched_for_as_the_question_writes_it() -> None:
    """Comparing two releases when only one was found: the next search is for the
    other, with the question's other words (not "first", the comparison's form), not
    for names the found passages bring."""
    question = "Which release came first, Django 3.1 or Python 3.9?"
    state = state_with(
        [
            (
                "notes",
                "Django 3.1 was released on August 4, 2020. See the Upgrading Django notes.",
                None,
            )
        ]
    )
    titled(state, notes="Django 3.1 release notes")
    state.sub_questions[0] = SubQuestion(id="q0", text=question, queries=[question])
    gap = next(g for g in gaps_of(state) if g.kind == "unanswered")
    assert gap.detail == "no passage names Python 3.9"
    assert gap.follow_up_queries == ["Python 3.9 release"]


def test_the_other_side_of_a_comparison_is_searched_for_with_the_change_it_asks_of() -> None:
    """ "Which came first, A or B?" of two functions asks when each was added, though it
    does not say so: the search for the side no passage names says it."""
    question = "Which came first in OpenSSL, SSL_CONF_cmd() or SSL_read_ex()?"
    state = state_with([("conf", "The SSL_CONF_cmd() function was added in OpenSSL 1.0.2.", None)])
    state.sub_questions[0] = SubQuestion(id="q0", text=question, queries=[question])
    gap = next(g for g in gaps_of(state) if g.kind == "unanswered")
    assert gap.follow_up_queries == ["ssl_read_ex added"]


def test_the_search_for_one_side_of_a_comparison_carries_only_that_side_s_words() -> None:
    """ "Which came first: SQLite's RETURNING clause or PostgreSQL's MERGE command?": the
    search for SQLite's side says "clause", not the other side's "command" ("SQLite
    RETURNING clause command added" finds SQLite's release notes on commands); the
    change it asks of ("added") goes with both."""
    question = "Which came first: SQLite's RETURNING clause or PostgreSQL's MERGE command?"
    state = state_with([("notes", "Nothing here about either of them, 2020.", None)])
    state.sub_questions[0] = SubQuestion(id="q0", text=question, queries=[question])
    gap = next(g for g in gaps_of(state) if g.kind == "unanswered")
    assert gap.follow_up_queries == [
        "SQLite RETURNING clause added",
        "PostgreSQL MERGE command added",
    ]


def test_a_comparison_without_a_value_to_compare_searches_each_side() -> None:
    """Both sides named, neither dated: the next searches are for each side with the
    question's words, not for the names the passages happen to mention ("True")."""
    question = "Which was added to Python first, math.isqrt() or functools.cache()?"
    state = state_with(
        [
            ("math", "Return the integer square root of n in Python: math.isqrt().", None),
            ("functools", "True: Python's functools.cache() is a lightweight cache.", None),
        ]
    )
    state.sub_questions[0] = SubQuestion(id="q0", text=question, queries=[question])
    gap = next(g for g in gaps_of(state) if g.kind == "unanswered")
    assert gap.follow_up_queries == ["math.isqrt added", "functools.cache added"]


def test_a_year_no_passage_mentions_is_searched_for_with_the_question_s_words() -> None:
    """The founding year a multi-hop question gives is on the page of the place, which the
    first search found but did not keep: the next search asks for it."""
    question = "Which city founded in 1838 has a school opened in 1961 by Robert Menzies?"
    state = state_with(
        [("school", "Westminster School in Marion was opened in 1961 by Robert Menzies.", None)]
    )
    state.sub_questions[0] = SubQuestion(id="q0", text=question, queries=[question])
    gap = next(g for g in gaps_of(state) if g.kind == "unanswered")
    assert gap.detail == "no passage mentions 1838"
    assert gap.follow_up_queries[0].startswith("1838 ")


def test_the_entities_of_a_multi_hop_clause_may_be_named_on_pages_of_their_own() -> None:
    """ "The daughter of Mary Curzon stars with Douglas Smith in what film?": Curzon's page
    names her daughter, the film's page names Douglas Smith; no page names both. Where a
    name is a product the corpus files documents under, its names must stand together."""
    question = "The daughter of Mary Curzon stars with Douglas Smith in what film?"
    state = state_with(
        [
            ("p1", "Mary Curzon has a daughter, the actress Lucy Boynton.", None),
            ("p2", "The film stars Douglas Smith and Lucy Boynton in 2017.", None),
        ]
    )
    state.sub_questions[0] = SubQuestion(id="q0", text=question, queries=[question])
    assert "unanswered" not in kinds(gaps_of(state))
    state.sources["p1"].location = "curzon-docs/daughter.html"  # a product's folder
    assert "unanswered" in kinds(gaps_of(state))


FUNCTOOLS = (
    "# functools\n\n## functools.cache(user_function)\n\nSimple lightweight unbounded "
    "function cache.\n\nNew in version 3.9.\n\n## functools.cached_property(func)\n\nTransform a "
    "method of a class into a property whose value is computed once and then cached as a "
    "normal attribute for the life of the instance, like property() with caching."
)


def test_a_sentence_is_read_under_the_heading_its_source_puts_it_under(tmp_path: Path) -> None:
    """A passage opens with the last line of functools.cache's entry and is mostly the
    next entry's, whose path is the passage's own: read off the snapshot, "New in
    version 3.9." stands under functools.cache and answers since when it exists."""
    sha256 = SnapshotStore.in_cache(tmp_path).put(FUNCTOOLS)
    start = FUNCTOOLS.index("New in version 3.9.")
    question = "Since which version does functools have cache()?"
    state = state_with([("functools", FUNCTOOLS[start:], None)])
    state.sources["functools"] = state.sources["functools"].model_copy(update={"sha256": sha256})
    state.evidence["e0"] = state.evidence["e0"].model_copy(
        update={
            "start": start,
            "end": len(FUNCTOOLS),
            "headings": ["functools", "functools.cached_property(func)"],
        }
    )
    state.sub_questions[0] = SubQuestion(id="q0", text=question, queries=[question])

    assert "unanswered" not in kinds(gaps_of(state, cache_dir=str(tmp_path)))
    assert "unanswered" in kinds(gaps_of(state, cache_dir=str(tmp_path / "elsewhere")))


def test_a_question_word_heading_two_sections_is_not_a_shared_subject() -> None:
    """ "What is GNU/Linux?" and "What is Debian?" head two sections on two things: the
    question word opening them is no name they share, so their years do not conflict."""
    found = statements(
        [
            ("e1", "a", "What became GNU/Linux began in 1984.", "1.3. What is GNU/Linux?"),
            ("e2", "b", "The Debian Project began in 1993.", "1.1. What is Debian?"),
        ]
    )
    assert find_disagreements(found) == []


@pytest.mark.parametrize(
    "notice",
    [
        "Copyright {years} The OpenSSL Project Authors. All Rights Reserved.",
        "© Copyright {years}, the Sphinx developers.",
        "(C) {years} The OpenSSL Project Authors.",
        "版权所有 {years} The OpenSSL Project Authors。",
    ],
)
def test_copyright_notices_of_two_pages_do_not_conflict(notice: str) -> None:
    """Each manual page carries its own copyright years: a notice states nothing about
    what the pages document. The same years stated as a fact still conflict."""
    found = statements(
        [
            ("e1", "a", notice.format(years="2000-2021"), "SSL_CTX_new"),
            ("e2", "b", notice.format(years="2002-2016"), "SSL_read"),
        ]
    )
    assert find_disagreements(found) == []
    stated = statements(
        [
            ("e1", "a", "The OpenSSL Project Authors began the project in 2000.", ""),
            ("e2", "b", "The OpenSSL Project Authors began the project in 2002.", ""),
        ]
    )
    assert find_disagreements(stated)


def test_chinese_status_words_are_read_as_statuses_only_where_they_are_ones() -> None:
    """ "Debian 计划" is the Debian Project and "已经更新" any "already updated": neither
    is a plan nor a delivery."""
    assert statuses("Debian 计划在每次发布新版本时都尽量专注于几个主题。") == set()
    assert statuses("我已经更新了 Debian 参考手册来处理新的话题。") == set()
    assert statuses("Norvik 公司计划于 2026 年量产 N2 电芯。") == {"planned"}
    assert statuses("公司计划2027年量产！") == {"planned"}
    assert statuses("Norvik 公司已经开始量产 N2 电芯。") == {"done"}


def test_chinese_sentences_on_one_subject_share_their_short_words() -> None:
    """Chinese words are mostly two characters ("公司", "量产", "电芯"): they are what two
    sentences on Norvik share besides its name, so a plan and a start of production
    conflict, as they do in English."""
    found = statements(
        [
            ("e1", "a", "Norvik 公司计划于 2026 年量产 N2 电芯。", ""),
            ("e2", "b", "Norvik 公司已经开始量产 N2 电芯。", ""),
        ]
    )
    [conflict] = find_disagreements(found)
    assert {value for _, value in conflict.sides} == {"planned", "done"}


def test_titles_opening_with_the_same_word_share_no_subject() -> None:
    """ "List of islands of Tasmania" and "List of rulers of the Kingdom of the Isles"
    open with a capital because a title does: two areas on those pages are of two
    places, not two figures for one."""
    found = statements(
        [
            (
                "e1",
                "a",
                "They have a total land area of over 8300 km2.",
                "List of rulers of the Isles",
            ),
            ("e2", "b", "It has 64,103 km2 of the total land area.", "List of islands of Tasmania"),
        ]
    )
    assert find_disagreements(found) == []
    same = statements(
        [
            ("e1", "a", "They have a total land area of over 8300 km2.", "Tasmania"),
            ("e2", "b", "It has 64,103 km2 of the total land area.", "List of islands of Tasmania"),
        ]
    )
    assert find_disagreements(same) != []


def test_an_opening_word_is_read_as_everything_found_writes_it() -> None:
    """ "Unless told otherwise …": the few selected passages may not say "unless" at
    all; a passage the searches found besides writes it in lower case, so it is no name
    that a passage must give."""
    question = "Unless told otherwise what encoding does Sphinx assume for source files?"
    state = state_with(
        [
            (
                "conf",
                "source_encoding: The encoding of all source files. Default: 'utf-8-sig'.",
                None,
            ),
            ("other", "It is read as UTF-8 unless a file says otherwise.", None),
        ]
    )
    titled(state, conf="Sphinx configuration")
    found, never_found = unanswered_found_then_not(state, question)
    assert not any("Unless" in d for d in found)
    assert never_found == ["no passage names Unless, Sphinx"]


def unanswered_titled(question: str, text: str, title: str) -> list[str]:
    """Why one passage, in a source of this title, does not answer the question, as the
    gap check says it when the searches found nothing else."""
    state = state_with([("page", text, None), ("other", "Nothing else.", None)])
    titled(state, page=title)
    return unanswered_found_then_not(state, question)[1]


def test_the_scene_a_question_sets_first_needs_only_its_products_and_releases() -> None:
    """ "Using AES-GCM through the EVP interface: what IV length …": the clause that asks
    names what a passage must be about; the scene before it is context, of which only a
    product the corpus files documents under and a release must be named."""
    text = "For GCM AES and OCB AES the default IV length is 12 (i.e. 96 bits)."
    asked = "what IV length does OpenSSL assume by default?"

    def unanswered(question: str) -> list[str]:
        return unanswered_titled(question, text, "EVP_EncryptInit - OpenSSL")

    assert unanswered(f"Using AES-GCM through the EVP interface: {asked}") == []
    assert unanswered(f"Through EVP, {asked}") == []
    assert unanswered(f"Moving to OpenSSL 3.4: {asked}") == ["no passage names OpenSSL 3.4"]
    assert unanswered("What IV length does OpenSSL assume for AES-GCM by default?") != []


def test_the_scene_s_release_is_context_when_the_clause_names_the_releases_asked_of() -> None:
    """ "pytest kept a 4.6 branch for Python 2 users. Which was released first, pytest
    4.6.11 or pytest 5.4.3?": the clause names the releases it asks of, and the one the
    scene names ("Python 2") is context, not one a passage must name; with no release of
    its own in the clause, the scene's still must ("Moving to OpenSSL 3.4: …", above)."""
    notes = "pytest 5.4.3 (2020-06-02)\n\nBug fixes.\n\npytest 4.6.11 (2020-06-04)\n\nFixes."
    question = "Which was released first, pytest 4.6.11 or pytest 5.4.3?"

    def unanswered(asked: str) -> list[str]:
        return unanswered_titled(asked, notes, "Changelog - pytest documentation")

    assert unanswered(f"pytest kept a 4.6 branch for Python 2 users. {question}") == []
    scene = "pytest kept a 4.6 branch for Python 2 users. Which release came first?"
    assert unanswered(scene) == ["no passage names Python 2"]


def test_a_comparison_within_a_release_is_answered_by_its_point_releases() -> None:
    """ "On the Postfix 3.7 branch, which came in the earlier patch release: A or B?" asks
    within the series: "3.7.6" and "3.7.9" name it and say its number, also in a list of
    the releases a change came in, after others ("Postfix 3.9, 3.8.1, 3.7.6 and later");
    without them, the series is not there."""
    question = (
        "On the Postfix 3.7 stable branch, which protection arrived in the earlier patch "
        "release: smtpd_forbid_unauth_pipelining or smtpd_forbid_bare_newline?"
    )
    entries = (
        "smtpd_forbid_unauth_pipelining is available in Postfix 3.9, 3.8.1, 3.7.6 and "
        "later.\n\nsmtpd_forbid_bare_newline is available in Postfix 3.9, 3.8.4, 3.7.9 and "
        "later."
    )

    def unanswered(text: str) -> list[str]:
        return unanswered_titled(question, text, "Postfix Configuration Parameters")

    assert unanswered(entries) == []
    assert unanswered(entries.replace("3.7.", "3.6.")) != []


def test_a_number_the_question_gives_is_said_beside_what_it_is_of() -> None:
    """A listing's line 14 says nothing of compat level 14; a release ("sqlite 3.40",
    written with a dot) is given by its docs' place or heading, away from the value."""
    listing = "13 Depends: ${misc:Depends}\n14 Suggests: file\n15 Description: a tool"
    level = "Which debhelper release introduced compat level 14?"
    assert unanswered(level, ("control", listing, None)) == ["no passage mentions 14"]
    said = "Compat level 14 was introduced in debhelper 13.1."
    assert unanswered(level, ("compat", said, None)) == []
    columns = "What is the default maximum number of columns in sqlite 3.40?"
    page = "Docs of release 3.40\n\nRead the notes of the release first, please.\n\n"
    limits = ("limits", f"{page}The default for SQLITE_MAX_COLUMN is 2000.", None)
    assert "no passage mentions 3.40" not in unanswered(columns, limits)


def test_a_release_the_scene_sets_is_named_by_any_page_found() -> None:
    """ "Our relay runs Postfix 3.7 …" sets the reader's release: docs that reach it (a
    page found, selected or not, names it) answer for it, though the page that answers
    never says 3.7; docs that never name it may predate it."""
    state = state_with(
        [
            (
                "postconf",
                "The default time after which a successful address probe expires from "
                "the verification cache is 31 days.",
                None,
            ),
            ("release", "Address verification is also available in Postfix 3.7.", None),
        ]
    )
    question = (
        "Our relay runs Postfix 3.7 with address probes. How long does a successful "
        "probe stay in the verification cache by default?"
    )
    found, never = unanswered_found_then_not(state, question)
    assert found == []
    assert never and "3.7" in never[0]
