"""The graph's state and the records it carries.

Page contents never travel in the state: a source points at a content-addressed
snapshot (sha256) and evidence keeps `(source_id, start, end)` into it, plus the
verbatim slice so a reader can audit it without opening the store.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import MISSING, dataclass, field, fields
from typing import Annotated, Any, Literal, get_origin, get_type_hints

from langgraph.types import Overwrite
from pydantic import BaseModel, Field

SourceStatus = Literal["fetched", "failed", "blocked", "duplicate"]
Origin = Literal["local", "web"]
GapKind = Literal[
    "no_evidence", "few_sources", "uncorroborated", "conflict", "status_conflict", "facet", "judged"
]
Verdict = Literal["supported", "partial", "unsupported", "contradicted", "invalid_citation"]
RunStatus = Literal["pending", "ok", "no_sources"]
Tier = Literal["full", "key_sentences", "listed"]
WHOLE_QUESTION_ID = "q0"  # the sub-question that is the question as asked


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
        "(none, keyword, embeddings, hybrid) puts it in the writer's context.",
    )
    tier: Tier = Field(
        default="full",
        description="How the writer gets it: the passage in full, cut to its key sentences, "
        "or listed (title and location only, under further sources).",
    )
    chunk_start: int | None = Field(
        default=None,
        description="Span of the chunk this passage was cut from or grown out of (a key "
        "sentence piece, a chunk with its neighbour): snapshot[chunk_start:chunk_end].",
    )
    chunk_end: int | None = None
    round: int = 0
    query: str = ""

    @property
    def passage(self) -> tuple[str, int, int]:
        """The same passage found for two sub-questions is two records, one passage."""
        return (self.source_id, self.start, self.end)


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
    search_calls: int = 0
    fetches: int = 0
    embedded_texts: int = 0
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
            fetches=self.fetches + other.fetches,
            embedded_texts=self.embedded_texts + other.embedded_texts,
            seconds=seconds,
            llm=llm,
        )


# Reducers: parallel `Send` branches return partial updates that LangGraph merges
# with these, so a record found by two branches is kept once.


def merge_sources(left: dict[str, Source], right: dict[str, Source]) -> dict[str, Source]:
    """Sources with the same id: the newer wins, except that a plain re-fetch of the
    same content does not undo a verdict already given (e.g. `duplicate`)."""
    merged = dict(left)
    for source_id, source in right.items():
        known = merged.get(source_id)
        refetched_same = (
            known is not None
            and source.status == "fetched"
            and known.status != "fetched"
            and known.sha256 == source.sha256
        )
        if not refetched_same:
            merged[source_id] = source
    return merged


def merge_evidence(left: dict[str, Evidence], right: dict[str, Evidence]) -> dict[str, Evidence]:
    """Evidence with the same id: the first wins, so `round` says when it was first found;
    only `strategy` and `tier`, what the latest selection made of it, come from the newer."""
    merged = dict(left)
    for evidence_id, record in right.items():
        known = merged.get(evidence_id)
        if known is None:
            merged[evidence_id] = record
        elif (known.strategy, known.tier) != (record.strategy, record.tier):
            merged[evidence_id] = known.model_copy(
                update={"strategy": record.strategy, "tier": record.tier}
            )
    return merged


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


def union(left: list[str], right: list[str]) -> list[str]:
    """Order-preserving set union."""
    seen = set(left)
    return list(left) + [item for item in dict.fromkeys(right) if item not in seen]


def add_usage(left: Usage, right: Usage) -> Usage:
    return left + right


def latest_round(left: int, right: int) -> int:
    """Parallel research branches of one round all report it; the highest is current."""
    return max(left, right)


def append(left: list[str], right: list[str]) -> list[str]:
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
    sources: Annotated[dict[str, Source], merge_sources] = field(default_factory=dict)
    evidence: Annotated[dict[str, Evidence], merge_evidence] = field(default_factory=dict)
    context: dict[str, list[str]] = field(
        default_factory=dict, metadata={"description": "Selected evidence ids per sub-question."}
    )
    further_sources: dict[str, list[str]] = field(
        default_factory=dict,
        metadata={
            "description": "Evidence ids per sub-question that did not fit the token budget: "
            "the writer sees only their title and location."
        },
    )
    gaps: Annotated[list[Gap], merge_gaps] = field(default_factory=list)
    unresolved: list[Gap] = field(default_factory=list)
    claims: list[Claim] = field(default_factory=list)
    usage: Annotated[Usage, add_usage] = field(default_factory=Usage)
    warnings: Annotated[list[str], append] = field(default_factory=list)


@dataclass(kw_only=True)
class State(OutputState):
    searched: Annotated[list[str], union] = field(default_factory=list)
    round: Annotated[int, latest_round] = 0
    follow_ups: list[ResearchTask] = field(
        default_factory=list,
        metadata={"description": "The research the latest gap check asks for: none, write."},
    )

    @classmethod
    def fresh(cls, **values: Any) -> dict[str, Any]:
        """The update that starts a thread over: these values, and every other channel
        back to its default (a field without a default is the input and is kept)."""
        hints = get_type_hints(cls, include_extras=True)
        update: dict[str, Any] = {}
        for channel in fields(cls):
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

    def open_gaps(self) -> list[Gap]:
        """The gaps found by the latest gap check."""
        return [gap for gap in self.gaps if gap.round == self.round]

    def selected_for(self, sub_question_id: str) -> list[Evidence]:
        """Selected passages this sub-question's searches found, including those the
        selection filed under another sub-question (each passage is selected once)."""
        found: dict[str, list[tuple[int, int]]] = {}
        for e in self.evidence.values():
            if e.sub_question_id == sub_question_id:
                found.setdefault(e.source_id, []).append((e.start, e.end))
        own = self.context.get(sub_question_id, [])
        others = [i for key, ids in self.context.items() if key != sub_question_id for i in ids]
        return [self.evidence[i] for i in own] + [
            self.evidence[i] for i in others if _covers(self.evidence[i], found)
        ]

    def independent_sources(self, evidence_ids: Iterable[str]) -> set[str]:
        """Sources behind these evidence ids, each reprint counted as its original."""
        originals: set[str] = set()
        for evidence_id in evidence_ids:
            record = self.evidence.get(evidence_id)
            if record is None:
                continue
            source = self.sources.get(record.source_id)
            if source is not None and source.status == "duplicate" and source.duplicate_of:
                originals.add(source.duplicate_of)
            else:
                originals.add(record.source_id)
        return originals


def _covers(record: Evidence, found: dict[str, list[tuple[int, int]]]) -> bool:
    """Whether the record holds one of these passages (the passage itself, the passage
    grown with its neighbour) or was cut from one (its key sentences)."""
    return any(
        (record.start <= start and end <= record.end)
        or (record.chunk_start, record.chunk_end) == (start, end)
        for start, end in found.get(record.source_id, [])
    )
