"""The graph's state and the records it carries.

Page contents never travel in the state: a source points at a content-addressed
snapshot (sha256) and evidence keeps `(source_id, start, end)` into it, plus the
verbatim slice so a reader can audit it without opening the store.

A thread answers one question after another (turns). The thread's research stays on it:
`sources` and `evidence` accumulate over its turns (an id keeps naming the same record),
and so do the records a selection made that a report cited (`cited`, so earlier
citations stay valid), `turns` and the research `memory`. Everything else, `selections`
too, is the current turn's, reset by `start_turn` (`next_turn`).

Each channel has one writer. Gathering (`initial_search`, `research`) alone writes
`sources` and `evidence`, as found; `select_context` alone writes `selections`, its
verdicts on them (reprints, what goes to the writer and in which tier, the records it
makes). Readers ask the state (`record`, `selected_for`, `independent_sources`) instead
of joining the two; `reported_sources`/`reported_evidence` give the joined view that the
evidence table shows.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import MISSING, dataclass, field, fields
from typing import Annotated, Any, Literal, TypeVar, get_args, get_origin, get_type_hints

from pydantic import BaseModel, Field

from grounded_research.text.dates import date_key

SourceStatus = Literal["fetched", "failed", "blocked", "duplicate"]
Origin = Literal["local", "web", "mcp"]
GapKind = Literal[
    "no_evidence",
    "unanswered",
    "few_sources",
    "uncorroborated",
    "conflict",
    "status_conflict",
    "facet",
    "judged",
]
Verdict = Literal["supported", "partial", "unsupported", "contradicted", "invalid_citation"]
RunStatus = Literal["pending", "ok", "no_sources"]
Limit = Literal["max_rounds", "max_searches", "max_pages", "run_deadline", "token_budget"]
Tier = Literal["full", "key_sentences", "listed"]
ConstraintKind = Literal["after", "since", "before", "exclude", "meant"]
WHOLE_QUESTION_ID = "q0"  # the sub-question that is the question as asked
T = TypeVar("T")


class SubQuestion(BaseModel):
    id: str
    text: str
    queries: list[str] = Field(default_factory=list)
    facets: list[str] = Field(default_factory=list, description="Terms the answer must cover.")


class Source(BaseModel):
    id: str
    location: str = Field(description="Path relative to the corpus root, JSONL id, or URL.")
    title: str = ""
    status: SourceStatus
    origin: Origin = "local"
    sha256: str = Field(default="", description="Snapshot of the extracted text.")
    error: str = ""
    duplicate_of: str | None = None
    published: str | None = None
    retrieved_at: str = ""
    collection: str = Field(
        default="",
        description="The manual or site the source belongs to, as it declares it "
        '(<link rel="home" title=…>): its pages seldom name it themselves.',
    )
    edition: str = Field(
        default="",
        description="What the page, or the front of its manual, says of the release it "
        'documents ("This edition of the Exim specification applies to version 4.96 of '
        'Exim."): its other pages never say it again.',
    )

    @property
    def place(self) -> str:
        """Where the source is filed: its location, its collection and its edition, one a
        line (`filed_at` reads them back), where a page of documentation names its
        product and release besides its text (postgresql-doc-15/…, "Debian GNU/Linux
        Installation Guide", "… applies to version 4.96 of Exim")."""
        return "\n".join([self.location, self.collection, self.edition]).rstrip("\n")


class Evidence(BaseModel):
    id: str
    source_id: str
    sub_question_id: str
    text: str = Field(description="Verbatim: snapshot_text[start:end].")
    start: int
    end: int
    score: float
    strategy: str = Field(
        default="bm25",
        description="What chose it: the retriever ('bm25') until a selection strategy "
        "(none, keyword, embeddings, hybrid) puts it in the writer's context (on the "
        "selection's copy: see `Selection.records`).",
    )
    tier: Tier = Field(
        default="full",
        description="How the writer gets it: the passage in full, cut to its key sentences, "
        "or listed (title and location only, under further sources); set by the selection.",
    )
    chunk_start: int | None = Field(
        default=None,
        description="Span of the chunk this passage was cut from or grown out of (a key "
        "sentence piece, a chunk with its neighbour), or brought in for (its section's "
        "answer a chunk away): snapshot[chunk_start:chunk_end].",
    )
    chunk_end: int | None = None
    round: int = 0
    query: str = ""
    headings: list[str] = Field(
        default_factory=list,
        description="The heading path the passage lies under in its source, outermost "
        'first ("Release 15.1" > "Migration to Version 15.1"): shown beside its quotes.',
    )

    @property
    def passage(self) -> tuple[str, int, int]:
        """The same passage found for two sub-questions is two records, one passage."""
        return (self.source_id, self.start, self.end)

    @property
    def opens_source(self) -> bool:
        """Whether the passage starts its source's text, whose first line may be its
        title; a passage cut from further on has no title line."""
        return self.start == 0


class Selection(BaseModel):
    """What one `select_context` made of what gathering found: its verdicts, kept apart
    from the records they are about."""

    round: int = Field(default=0, description="The round whose findings it selected from.")
    context: dict[str, list[str]] = Field(
        default_factory=dict,
        description="Selected evidence ids per sub-question, in the writer's order.",
    )
    further_sources: dict[str, list[str]] = Field(
        default_factory=dict,
        description="Evidence ids per sub-question that did not fit the token budget: "
        "the writer sees only their title and location.",
    )
    records: dict[str, Evidence] = Field(
        default_factory=dict,
        description="Every record in the context or listed, as selected: a found passage "
        "with the strategy that chose it and its tier, or a record the selection made (a "
        "passage grown by its neighbour, cut to key sentences, or listed) under its own id.",
    )
    reprints: dict[str, str] = Field(
        default_factory=dict,
        description="Reprint's source id: the id of the source it copies.",
    )

    def passages(self) -> int:
        """How many records the writer receives."""
        return sum(len(ids) for ids in self.context.values())


class ConflictSide(BaseModel):
    evidence_id: str
    value: str
    sentence: str


class Gap(BaseModel):
    id: str
    sub_question_id: str
    kind: GapKind
    detail: str
    follow_up_queries: list[str] = Field(default_factory=list)
    round: int = 0
    subject: str = ""
    sides: list[ConflictSide] = Field(default_factory=list)


class Reference(BaseModel):
    number: int
    evidence_id: str
    source_id: str
    location: str
    title: str
    origin: Origin
    start: int
    end: int


class Claim(BaseModel):
    id: str
    text: str
    citations: list[int] = Field(default_factory=list)
    evidence_ids: list[str] = Field(default_factory=list)
    verdict: Verdict
    note: str = ""
    verbatim: bool = Field(
        default=False,
        description="Word for word in a passage it cites (and every reference it cites "
        "exists): the verifier asks no model about it.",
    )


class LLMUsage(BaseModel):
    """One node's model calls: every request sent counts, tokens as the model reported."""

    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    retries: int = Field(default=0, description="Calls repeated after a timeout or bad output.")
    fallbacks: int = Field(default=0, description="Times the node fell back to extractive.")

    def __add__(self, other: LLMUsage) -> LLMUsage:
        return LLMUsage(
            calls=self.calls + other.calls,
            tokens_in=self.tokens_in + other.tokens_in,
            tokens_out=self.tokens_out + other.tokens_out,
            retries=self.retries + other.retries,
            fallbacks=self.fallbacks + other.fallbacks,
        )


class Usage(BaseModel):
    llm_calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    search_calls: int = Field(default=0, description="Search calls started.")
    searches_failed: int = Field(
        default=0, description="Search calls that failed (timeout, HTTP error, bad answer)."
    )
    fetches: int = 0
    embedded_texts: int = 0
    rounds: int = Field(default=0, description="Re-search rounds after the first search.")
    limits_reached: list[Limit] = Field(
        default_factory=list,
        description="The budgets that stopped or cut the run's work: max_rounds (gaps still "
        "asked for research when no round was left), max_searches and max_pages (a search "
        "or page refused), run_deadline (a search or fetch not started, or cut), "
        "token_budget (evidence listed by title only).",
    )
    seconds: dict[str, float] = Field(default_factory=dict, description="Wall seconds per node.")
    llm: dict[str, LLMUsage] = Field(default_factory=dict, description="Model calls per node.")

    def __add__(self, other: Usage) -> Usage:
        seconds = dict(self.seconds)
        for node, spent in other.seconds.items():
            seconds[node] = round(seconds.get(node, 0.0) + spent, 4)
        llm = dict(self.llm)
        for node, used in other.llm.items():
            llm[node] = llm[node] + used if node in llm else used
        return Usage(
            llm_calls=self.llm_calls + other.llm_calls,
            tokens_in=self.tokens_in + other.tokens_in,
            tokens_out=self.tokens_out + other.tokens_out,
            search_calls=self.search_calls + other.search_calls,
            searches_failed=self.searches_failed + other.searches_failed,
            fetches=self.fetches + other.fetches,
            embedded_texts=self.embedded_texts + other.embedded_texts,
            rounds=self.rounds + other.rounds,
            limits_reached=[
                limit for limit in _LIMITS if limit in self.limits_reached + other.limits_reached
            ],
            seconds=seconds,
            llm=llm,
        )


_LIMITS: tuple[Limit, ...] = get_args(Limit)


# The thread's research memory: structured records, rebuilt from the evidence each turn.


class Fact(BaseModel):
    """A statement the thread's research confirmed: the claim as the report made it, the
    evidence that says it, and what of it must stay exact."""

    claim: str
    evidence_ids: list[str]
    turn: int
    anchors: list[str] = Field(
        default_factory=list,
        description="Its numbers with units, dates, negations and conditions, as written: "
        "each must appear verbatim in its evidence (`memory/facts.py`).",
    )
    rebuilt: bool = Field(
        default=False, description="Rebuilt from its evidence after failing the check."
    )


class Constraint(BaseModel):
    """A condition the user put on the research ("only sources after 2023", "ignore
    vendor blogs", "I meant the 2026 model"), kept for every later turn."""

    text: str = Field(description="As the user wrote it.")
    kind: ConstraintKind
    value: str = Field(description="The year, the words to exclude, or the meant term.")
    turn: int
    replaces: str = Field(default="", description="The earlier statement it corrects.")
    replaces_turn: int = 0

    def admits(self, source: Source) -> bool:
        """Whether a source may be used under this constraint; a source without a date
        cannot be shown to meet a date constraint."""
        if self.kind == "exclude":
            about = f"{source.title} {source.location}".lower()
            return not all(word in about for word in self.value.lower().split())
        if self.kind == "meant":
            return True
        year = date_key(source.published)[:4]
        if not year:
            return False
        if self.kind == "after":
            return year > self.value
        if self.kind == "since":
            return year >= self.value
        return year < self.value


class OpenConflict(BaseModel):
    subject: str
    values: list[str]
    evidence_ids: list[str]
    turn: int


class OpenQuestion(BaseModel):
    question: str
    detail: str
    turn: int


class Memory(BaseModel):
    """What a careful analyst's notebook holds about one topic of the thread; a turn that
    drifts off the topic starts the next memory and the old one is kept."""

    topic: int = 0
    turns: list[int] = Field(default_factory=list)
    questions: list[str] = Field(default_factory=list)
    facts: list[Fact] = Field(default_factory=list)
    conflicts: list[OpenConflict] = Field(default_factory=list)
    unresolved: list[OpenQuestion] = Field(default_factory=list)
    constraints: list[Constraint] = Field(default_factory=list)
    queries: list[str] = Field(default_factory=list, description="Queries searched.")
    sources: list[str] = Field(default_factory=list, description="Source ids used.")
    found: list[str] = Field(
        default_factory=list, description="Evidence ids found in its turns: what it recalls."
    )

    def admits(self, source: Source) -> bool:
        return all(constraint.admits(source) for constraint in self.constraints)


class Turn(BaseModel):
    """One question on the thread, and how the thread's memory served it."""

    number: int
    question: str = Field(description="As the user asked it.")
    asked: str = Field(
        description="What the turn researched: constraints taken out, a bare correction's "
        "earlier question re-asked with it."
    )
    topic: int = 0
    overlap: float | None = Field(
        default=None, description="Share of its terms the memory knows (None: first turn)."
    )
    drifted: bool = False
    resumed: bool = Field(
        default=False, description="Drifted back to an earlier topic: its memory resumed."
    )
    from_memory: bool = Field(
        default=False, description="Answered from the thread's evidence: no search."
    )
    constraints: list[str] = Field(default_factory=list, description="Added by this turn.")
    replaced: list[str] = Field(
        default_factory=list, description="Earlier statements its corrections replace."
    )
    memory_tokens: int = Field(default=0, description="Tokens of the memory briefing.")
    pointers: int = Field(default=0, description="Facts shrunk to pointers in the briefing.")


# Reducers: parallel `Send` branches return partial updates that LangGraph merges
# with these, so a record found by two branches is kept once.


def merge_sources(left: dict[str, Source], right: dict[str, Source]) -> dict[str, Source]:
    """Sources with the same id: the newer find wins."""
    return {**left, **right}


def merge_evidence(left: dict[str, Evidence], right: dict[str, Evidence]) -> dict[str, Evidence]:
    """Evidence with the same id: the first find wins, so `round` says when it was found."""
    return {**left, **{k: v for k, v in right.items() if k not in left}}


def latest_per_id(left: dict[str, int], right: dict[str, int]) -> dict[str, int]:
    """Rounds per evidence id: the latest wins."""
    return {**left, **{k: max(v, left.get(k, v)) for k, v in right.items()}}


def merge_gaps(left: list[Gap], right: list[Gap]) -> list[Gap]:
    """Gaps accumulate over rounds; a gap with a known id replaces the old one in place."""
    position = {gap.id: i for i, gap in enumerate(left)}
    merged = list(left)
    for gap in right:
        if gap.id in position:
            merged[position[gap.id]] = gap
        else:
            position[gap.id] = len(merged)
            merged.append(gap)
    return merged


def merge_sub_questions(left: list[SubQuestion], right: list[SubQuestion]) -> list[SubQuestion]:
    """Sub-questions with the same id: the newer wins, keeping the original order."""
    by_id = {sq.id: sq for sq in left}
    order = [sq.id for sq in left]
    for sq in right:
        if sq.id not in by_id:
            order.append(sq.id)
        by_id[sq.id] = sq
    return [by_id[i] for i in order]


def merge_turns(left: list[Turn], right: list[Turn]) -> list[Turn]:
    """Turns by number: the newer record of a turn replaces the older, in place."""
    by_number = {turn.number: turn for turn in left}
    by_number.update((turn.number, turn) for turn in right)
    return [by_number[n] for n in sorted(by_number)]


def merge_recalled(left: dict[str, list[str]], right: dict[str, list[str]]) -> dict[str, list[str]]:
    return {**left, **right}


def union(left: list[str], right: list[str]) -> list[str]:
    """Order-preserving set union."""
    seen = set(left)
    return list(left) + [item for item in dict.fromkeys(right) if item not in seen]


def add_usage(left: Usage, right: Usage) -> Usage:
    return left + right


def latest_round(left: int, right: int) -> int:
    """Parallel research branches of one round all report it; the highest is current."""
    return max(left, right)


def append(left: list[T], right: list[T]) -> list[T]:
    return left + right


def searched_key(sub_question_id: str, query: str) -> str:
    """How `State.searched` remembers that a query already ran for a sub-question."""
    return f"{sub_question_id}\t{' '.join(query.lower().split())}"


@dataclass(kw_only=True)
class ResearchTask:
    """What one `research` branch receives through `Send`."""

    sub_question: SubQuestion
    queries: list[str]
    round: int = 0


@dataclass(kw_only=True)
class InputState:
    question: str


@dataclass(kw_only=True)
class OutputState:
    question: str
    status: RunStatus = "pending"
    report: str = ""
    references: list[Reference] = field(default_factory=list)
    sub_questions: Annotated[list[SubQuestion], merge_sub_questions] = field(default_factory=list)
    sources: Annotated[dict[str, Source], merge_sources] = field(
        default_factory=dict, metadata={"description": "Every source gathering found, as found."}
    )
    evidence: Annotated[dict[str, Evidence], merge_evidence] = field(
        default_factory=dict,
        metadata={"description": "Every passage gathering found, as first found."},
    )
    last_found: Annotated[dict[str, int], latest_per_id] = field(
        default_factory=dict,
        metadata={"description": "The latest round each passage was found in."},
    )
    selections: Annotated[list[Selection], append] = field(
        default_factory=list,
        metadata={"description": "Every selection of the run, in order: the last is current."},
    )
    gaps: Annotated[list[Gap], merge_gaps] = field(default_factory=list)
    unresolved: list[Gap] = field(default_factory=list)
    claims: list[Claim] = field(default_factory=list)
    usage: Annotated[Usage, add_usage] = field(default_factory=Usage)
    warnings: Annotated[list[str], append] = field(default_factory=list)
    cited: Annotated[dict[str, Evidence], merge_evidence] = field(
        default_factory=dict,
        metadata={
            "description": "Records a selection made (a passage grown by its neighbour, cut "
            "to key sentences) that a turn's report cited: kept for the thread, so that "
            "earlier turns' citations stay valid after later turns select anew."
        },
    )
    turns: Annotated[list[Turn], merge_turns] = field(
        default_factory=list, metadata={"description": "The thread's turns: the last is current."}
    )
    memory: Memory = field(
        default_factory=Memory,
        metadata={"description": "The research memory of the thread's current topic."},
    )

    @property
    def selection(self) -> Selection:
        """The latest selection's verdicts (none before the first selection)."""
        return self.selections[-1] if self.selections else Selection()

    @property
    def context(self) -> dict[str, list[str]]:
        """Selected evidence ids per sub-question, in the writer's order."""
        return self.selection.context

    @property
    def further_sources(self) -> dict[str, list[str]]:
        """Evidence ids per sub-question listed by title and location only."""
        return self.selection.further_sources

    def record(self, evidence_id: str) -> Evidence:
        """An evidence record as the run knows it: as first found or made (a record that
        selections make again keeps its first making), with the strategy and tier of the
        last step that had it: the latest selection that used it, or a search that found
        it again after that."""
        found = self.evidence.get(evidence_id) or self.cited.get(evidence_id)
        made = [s.records[evidence_id] for s in self.selections if evidence_id in s.records]
        if not made:
            if found is None:
                raise KeyError(evidence_id)
            return found
        rounds = [s.round for s in self.selections if evidence_id in s.records]
        first = found if found is not None and found.round <= rounds[0] else made[0]
        last = made[-1]
        if found is not None and self.last_found.get(evidence_id, -1) > rounds[-1]:
            last = found
        if (first.strategy, first.tier) == (last.strategy, last.tier):
            return first
        return first.model_copy(update={"strategy": last.strategy, "tier": last.tier})

    def selected_evidence(self) -> list[Evidence]:
        """The evidence the writer received, in context order."""
        return [self.record(i) for ids in self.context.values() for i in ids]

    def reported_sources(self) -> dict[str, Source]:
        """Sources as the evidence table shows them: a reprint has status `duplicate`
        and names the source it copies."""
        reprints = self.selection.reprints
        return {
            source_id: source.model_copy(
                update={"status": "duplicate", "duplicate_of": reprints[source_id]}
            )
            if source_id in reprints
            else source
            for source_id, source in self.sources.items()
        }

    def reported_evidence(self) -> dict[str, Evidence]:
        """Every record the run found or a selection made, as `record` gives it, in the
        order first found or made."""
        order: dict[str, None] = {}
        for round_number in sorted(
            {e.round for e in self.evidence.values()} | {s.round for s in self.selections}
        ):
            order.update((i, None) for i, e in self.evidence.items() if e.round == round_number)
            for selection in self.selections:
                if selection.round == round_number:
                    order.update((i, None) for i in selection.records if i not in order)
        order.update((i, None) for i in self.cited if i not in order)
        return {evidence_id: self.record(evidence_id) for evidence_id in order}

    @property
    def turn(self) -> Turn:
        """The current turn (number 0 before the first)."""
        return self.turns[-1] if self.turns else Turn(number=0, question="", asked="")


@dataclass(kw_only=True)
class State(OutputState):
    searched: Annotated[list[str], union] = field(default_factory=list)
    shelves: Annotated[list[str], union] = field(
        default_factory=list,
        metadata={
            "description": "The folders and collections the local corpus files its "
            "documents under: which products it has documentation of, found or not."
        },
    )
    round: Annotated[int, latest_round] = 0
    follow_ups: list[ResearchTask] = field(
        default_factory=list,
        metadata={"description": "The research the latest gap check asks for: none, write."},
    )
    recalled: Annotated[dict[str, list[str]], merge_recalled] = field(
        default_factory=dict,
        metadata={
            "description": "Evidence ids of the thread's earlier turns that this turn "
            "recalled, per sub-question: candidates for its selection beside what it finds."
        },
    )
    earlier_evidence: list[str] = field(
        default_factory=list,
        metadata={
            "description": "Ids of the evidence the thread held when this turn started: "
            "the turn selects from them only what it finds again or recalls."
        },
    )
    briefing: list[str] = field(
        default_factory=list,
        metadata={"description": "The memory as the turn's model prompts are shown it."},
    )
    earlier_memories: list[Memory] = field(
        default_factory=list,
        metadata={"description": "Memories of topics the thread drifted away from."},
    )

    @classmethod
    def fresh(cls, keep: Iterable[str] = (), **values: Any) -> dict[str, Any]:
        """The update that starts a thread over: these values, and every other channel
        back to its default (a field without a default is the input and is kept), but
        for the channels named in `keep`."""
        from langgraph.types import Overwrite  # here: the records load without LangGraph

        hints = get_type_hints(cls, include_extras=True)
        update: dict[str, Any] = {}
        kept = set(keep)
        for channel in fields(cls):
            if channel.name in kept:  # a value given for a kept channel merges as usual
                if channel.name in values:
                    update[channel.name] = values[channel.name]
                continue
            if channel.name in values:
                value = values[channel.name]
            elif channel.default_factory is not MISSING:
                value = channel.default_factory()
            elif channel.default is not MISSING:
                value = channel.default
            else:
                continue
            merged = get_origin(hints[channel.name]) is Annotated
            update[channel.name] = Overwrite(value) if merged else value
        return update

    @classmethod
    def next_turn(cls, **values: Any) -> dict[str, Any]:
        """The update that starts a turn: the thread's research kept, the rest reset."""
        return cls.fresh(keep=THREAD_CHANNELS, **values)

    def found_this_turn(self) -> list[Evidence]:
        """The evidence this turn's searches found: new to the thread, or found again."""
        earlier = set(self.earlier_evidence)
        return [e for i, e in self.evidence.items() if i not in earlier or i in self.last_found]

    def turn_candidates(self) -> list[tuple[str, Evidence]]:
        """What this turn may select from, with the sub-question each is filed under:
        what this turn's searches found, and what it recalled of the thread's research
        for each sub-question (a record recalled for two is filed under both, as a
        passage two searches found is); only from sources the constraints admit."""
        filed = [(e.sub_question_id, e) for e in self.found_this_turn()]
        seen = {(sub_question_id, e.id) for sub_question_id, e in filed}
        for sub_question_id, ids in self.recalled.items():
            for evidence_id in ids:
                if (sub_question_id, evidence_id) not in seen and evidence_id in self.evidence:
                    seen.add((sub_question_id, evidence_id))
                    filed.append((sub_question_id, self.evidence[evidence_id]))
        return [
            (sub_question_id, record)
            for sub_question_id, record in filed
            if record.source_id in self.sources
            and self.memory.admits(self.sources[record.source_id])
        ]

    def filed_under(self, evidence_id: str) -> str:
        """The sub-question of this turn a selected record answers."""
        for sub_question_id, ids in self.context.items():
            if evidence_id in ids:
                return sub_question_id
        return self.record(evidence_id).sub_question_id

    def open_gaps(self) -> list[Gap]:
        """The gaps found by the latest gap check."""
        return [gap for gap in self.gaps if gap.round == self.round]

    def found_for(self, sub_question_id: str) -> list[Evidence]:
        """Everything this turn's searches found for the sub-question, selected or not: a
        passage left out of the evidence still shows how the corpus writes a word, or that
        it has the thing asked about."""
        return [e for filed, e in self.turn_candidates() if filed == sub_question_id]

    def selected_for(self, sub_question_id: str) -> list[Evidence]:
        """Selected passages this sub-question's searches found, including those the
        selection filed under another sub-question (each passage is selected once)."""
        found: dict[str, list[tuple[int, int]]] = {}
        for filed, e in self.turn_candidates():
            if filed == sub_question_id:
                found.setdefault(e.source_id, []).append((e.start, e.end))
        own = self.context.get(sub_question_id, [])
        others = [i for key, ids in self.context.items() if key != sub_question_id for i in ids]
        return [self.record(i) for i in own] + [
            record for i in others if _covers(record := self.record(i), found)
        ]

    def independent_sources(self, evidence_ids: Iterable[str]) -> set[str]:
        """Sources behind these evidence ids, each reprint counted as its original."""
        reprints = self.selection.reprints
        originals: set[str] = set()
        for evidence_id in evidence_ids:
            known = self.selection.records, self.evidence, self.cited
            if any(evidence_id in records for records in known):
                source_id = self.record(evidence_id).source_id
                originals.add(reprints.get(source_id, source_id))
        return originals


THREAD_CHANNELS = frozenset(
    {"sources", "evidence", "shelves", "cited", "turns", "memory", "earlier_memories"}
)
"""The channels a new turn keeps: the thread's research (`shelves`: what the corpus its
sources came from documents, which a turn answered from memory does not search again)."""


def _covers(record: Evidence, found: dict[str, list[tuple[int, int]]]) -> bool:
    """Whether the record holds one of these passages (the passage itself, the passage
    grown with its neighbour) or was cut from one (its key sentences)."""
    return any(
        (record.start <= start and end <= record.end)
        or (record.chunk_start, record.chunk_end) == (start, end)
        for start, end in found.get(record.source_id, [])
    )
