"""What one run is worth, measured at each stage evidence passes through.

Stages: `retrieved` (every passage any search returned), `selected` (what the writer
received, `result.context`) and `report` (the claims of the report, or for sources,
the sources it cites). A figure that drops between two stages says which step lost it.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, Field

from grounded_research.errors import InputError
from grounded_research.evaluation.dataset import EvalQuestion
from grounded_research.gaps.kinds import ABSTAINING_KINDS
from grounded_research.report.citations import (
    ReportClaim,
    as_shown,
    citation_valid,
    quoted_span,
    split_claims,
)
from grounded_research.state import WHOLE_QUESTION_ID, Evidence
from grounded_research.text.normalize import normalize

if TYPE_CHECKING:  # `eval --help` reads METRIC_NAMES without loading the graph
    from grounded_research.api import ResearchResult

Stage = Literal["retrieved", "selected", "report"]
STAGES: tuple[Stage, ...] = ("retrieved", "selected", "report")
RECALLS = ("gold_recall", "gold_hit", "answer_recall", "fact_recall")
METRIC_NAMES = (
    "completed",
    *(f"{recall}.{stage}" for recall in RECALLS for stage in STAGES),
    "citation_validity",
    "claim_coverage",
    "unanswerable_handled",
)
_ASCII_WORD_END = re.compile(r"[a-z0-9]")


class StageRecall(BaseModel):
    retrieved: float
    selected: float
    report: float

    def at(self, stage: Stage) -> float:
        return float(getattr(self, stage))


class CitationCheck(BaseModel):
    """Counts behind citation validity and claim coverage."""

    claims: int = 0
    covered_claims: int = Field(default=0, description="Claims with at least one valid citation.")
    citations: int = Field(default=0, description="(claim, cited evidence) pairs.")
    valid_citations: int = 0


class Cost(BaseModel):
    seconds: float = Field(default=0.0, description="Wall seconds of the run.")
    node_seconds: float = 0.0
    llm_calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    search_calls: int = 0
    fetches: int = 0


class QuestionMetrics(BaseModel):
    completed: bool = True
    unanswerable: bool = False
    gold_recall: StageRecall | None = None
    gold_hit: StageRecall | None = Field(
        default=None,
        description="1 at a stage when it holds any gold source: the gold sources of a "
        "documentation question are every page that gives its answer, and one suffices.",
    )
    answer_recall: StageRecall | None = None
    fact_recall: StageRecall | None = None
    citations: CitationCheck = Field(default_factory=CitationCheck)
    verdicts: dict[str, int] = Field(default_factory=dict)
    abstained: bool = False
    sources: dict[str, int] = Field(
        default_factory=dict,
        description="Distinct sources per stage: with evidence, with selected evidence, cited.",
    )
    cost: Cost = Field(default_factory=Cost)


@dataclass(frozen=True)
class StageTexts:
    """The texts in which an answer or fact may be found, per stage."""

    retrieved: list[str]
    selected: list[str]
    report: list[str]
    report_framed: list[str]  # the report's claims with the headings shown above them

    def at(self, stage: Stage) -> list[str]:
        texts: list[str] = getattr(self, stage)
        return texts

    def framed(self) -> StageTexts:
        """The texts a fact is looked for in: a fact ties a value to what it is of ("the
        default is 128 MB" of shared_buffers), which a quote often leaves to the heading
        the report shows above it, as an evidence passage holds its own headings."""
        return replace(self, report=self.report_framed)

    def shown(self) -> StageTexts:
        """The texts as a quote of them reads in the report (`as_shown`: Markdown's escapes
        and marks undone): an answer "trim_blocks" stands in a page stored as
        "trim\\_blocks"."""
        retrieved, selected, report = ([as_shown(t) for t in self.at(stage)] for stage in STAGES)
        return StageTexts(retrieved, selected, report, [as_shown(t) for t in self.report_framed])

    def also_shown(self) -> StageTexts:
        """Each stage's texts as stored and as shown: a fact pattern may expect a page's
        Markdown (a table's "|", an optional "`") or be written as a reader reads the
        page ("sqlite_max_column", stored as "sqlite\\_max\\_column")."""
        shown = self.shown()
        retrieved, selected, report = (self.at(stage) + shown.at(stage) for stage in STAGES)
        return StageTexts(retrieved, selected, report, self.report_framed + shown.report_framed)


def score(question: EvalQuestion, result: ResearchResult, seconds: float) -> QuestionMetrics:
    """Every per-question metric of one finished run."""
    texts = stage_texts(result)
    gold = gold_source_recall(question, result)
    return QuestionMetrics(
        unanswerable=question.unanswerable,
        gold_recall=gold,
        gold_hit=any_found(gold),
        answer_recall=answer_recall(question, texts),
        fact_recall=fact_recall(question, texts),
        citations=check_citations(result),
        verdicts=verdict_counts(result),
        abstained=abstained(result),
        sources=source_counts(result),
        cost=cost_of(result, seconds),
    )


def source_counts(result: ResearchResult) -> dict[str, int]:
    """How many sources each stage kept: the long tail a reader has to wade through."""
    return {
        "retrieved": len({e.source_id for e in result.evidence.values()}),
        "selected": len({e.source_id for e in result.selected_evidence()}),
        "report": len({r.source_id for r in result.references}),
    }


def score_failure(question: EvalQuestion, seconds: float) -> QuestionMetrics:
    """A run that raised found nothing: zero on every recall the question asks for."""
    zero = StageRecall(retrieved=0.0, selected=0.0, report=0.0)
    return QuestionMetrics(
        completed=False,
        unanswerable=question.unanswerable,
        gold_recall=zero if question.gold_sources else None,
        gold_hit=zero if question.gold_sources else None,
        answer_recall=zero if question.answers else None,
        fact_recall=zero if question.facts else None,
        cost=Cost(seconds=round(seconds, 3)),
    )


def stage_texts(result: ResearchResult) -> StageTexts:
    """Report stage: the text of its claims, so that the title (the question again) and
    the reference list (source titles) cannot count as answers the report gives."""
    claims = [as_written(claim, result) for claim in split_claims(result.report)]
    return StageTexts(
        retrieved=[e.text for e in result.evidence.values()],
        selected=[e.text for e in result.selected_evidence()],
        report=[c.text for c in claims],
        report_framed=[f"{c.under}\n{c.text}" if c.under else c.text for c in claims],
    )


def as_written(claim: ReportClaim, result: ResearchResult) -> ReportClaim:
    """A quote as its source wrote it: the report shows a table row as its cells, a fact
    pattern may expect the row ("field size | 1 GB"); a claim that quotes none of its
    cited evidence verbatim stays as the report words it."""
    wanted = set(claim.citations)
    for reference in result.references:  # a number cites each span of its document
        record = result.evidence.get(reference.evidence_id)
        span = quoted_span(claim.text, record) if reference.number in wanted and record else None
        if span is not None:
            return replace(claim, text=span)
    return claim


def gold_source_recall(question: EvalQuestion, result: ResearchResult) -> StageRecall | None:
    """Share of gold source locations among the sources with evidence, with selected
    evidence, and cited by the report."""
    gold = {_location(g) for g in question.gold_sources}
    if not gold:
        return None

    def share(evidence: list[Evidence]) -> float:
        found = {
            _location(result.sources[e.source_id].location)
            for e in evidence
            if e.source_id in result.sources
        }
        return len(gold & found) / len(gold)

    cited = {_location(r.location) for r in result.references}
    return StageRecall(
        retrieved=share(list(result.evidence.values())),
        selected=share(result.selected_evidence()),
        report=len(gold & cited) / len(gold),
    )


def any_found(recall: StageRecall | None) -> StageRecall | None:
    """1 at each stage where the recall found anything, else 0."""
    if recall is None:
        return None
    return StageRecall(**{stage: float(recall.at(stage) > 0) for stage in STAGES})


def answer_recall(question: EvalQuestion, texts: StageTexts) -> StageRecall | None:
    """1 at a stage when any answer string stands in one of its texts as shown, else 0."""
    patterns = [answer_pattern(answer) for answer in question.answers if answer.strip()]
    if not patterns:
        return None
    return _recall(texts.shown(), patterns, lambda found: 1.0 if any(found) else 0.0)


def fact_recall(question: EvalQuestion, texts: StageTexts) -> StageRecall | None:
    """Share of the question's fact patterns that match one of a stage's texts (the
    report's claims read with the headings shown above them), as stored or as shown."""
    if not question.facts:
        return None
    patterns = [re.compile(fact.pattern, re.IGNORECASE) for fact in question.facts]
    return _recall(texts.framed().also_shown(), patterns, lambda found: sum(found) / len(found))


def answer_pattern(answer: str) -> re.Pattern[str]:
    """The answer as a whole word, case- and whitespace-insensitive: "yes" does not match
    "eyes". Word bounds apply only at ASCII letters and digits, so "2027" still matches
    "2027年" and "88%" matches "88% of". Read as the texts are (`as_shown`): "pg\\_upgrade"
    is the answer pg_upgrade."""
    wanted = normalize(as_shown(answer))
    before = r"(?<![a-z0-9])" if _ASCII_WORD_END.match(wanted[:1]) else ""
    after = r"(?![a-z0-9])" if _ASCII_WORD_END.match(wanted[-1:]) else ""
    return re.compile(before + re.escape(wanted) + after, re.IGNORECASE)


def check_citations(result: ResearchResult) -> CitationCheck:
    """Every (claim, cited document) pair judged by `citation_valid`, valid when one of
    the document's cited spans bears the claim out; a number no reference holds is an
    invalid citation. A run with no sources has no claims."""
    if result.status == "no_sources":
        return CitationCheck()
    by_number: dict[int, list[Evidence]] = {}
    for reference in result.references:  # a number cites a document: each span it quotes
        record = result.evidence.get(reference.evidence_id)
        by_number.setdefault(reference.number, []).extend([record] if record else [])
    check = CitationCheck()
    for claim in split_claims(result.report):
        valid = 0
        for number in claim.citations:
            spans = by_number.get(number, [])
            valid += any(citation_valid(claim.text, evidence) for evidence in spans)
        check.claims += 1
        check.citations += len(claim.citations)
        check.valid_citations += valid
        check.covered_claims += valid > 0
    return check


def verdict_counts(result: ResearchResult) -> dict[str, int]:
    counts: dict[str, int] = {}
    for claim in result.claims:
        counts[claim.verdict] = counts.get(claim.verdict, 0) + 1
    return counts


def abstained(result: ResearchResult) -> bool:
    """The run said it could not answer: no sources, or the whole question left open
    (a gap other than a conflict: a conflict means the corpus answers twice)."""
    return result.status == "no_sources" or any(
        gap.sub_question_id == WHOLE_QUESTION_ID and gap.kind in ABSTAINING_KINDS
        for gap in result.unresolved
    )


def cost_of(result: ResearchResult, seconds: float) -> Cost:
    usage = result.usage
    return Cost(
        seconds=round(seconds, 3),
        node_seconds=round(sum(usage.seconds.values()), 3),
        llm_calls=usage.llm_calls,
        tokens_in=usage.tokens_in,
        tokens_out=usage.tokens_out,
        search_calls=usage.search_calls,
        fetches=usage.fetches,
    )


# -- aggregation -----------------------------------------------------------------------


class MeanCost(BaseModel):
    """Per completed question, on average."""

    seconds: float = 0.0
    node_seconds: float = 0.0
    llm_calls: float = 0.0
    tokens_in: float = 0.0
    tokens_out: float = 0.0
    search_calls: float = 0.0
    fetches: float = 0.0


class Aggregate(BaseModel):
    questions: int
    completed: int
    failed: int
    gold_recall: StageRecall | None = None
    gold_questions: int = 0
    gold_hit: StageRecall | None = Field(
        default=None, description="Questions with a gold source at each stage (of gold_questions)."
    )
    answer_recall: StageRecall | None = None
    answer_questions: int = 0
    fact_recall: StageRecall | None = None
    fact_questions: int = 0
    citation_validity: float | None = Field(
        default=None, description="Valid (claim, cited evidence) pairs / all pairs."
    )
    claim_coverage: float | None = Field(
        default=None, description="Claims with a valid citation / all claims."
    )
    citations: int = 0
    claims: int = 0
    verdicts: dict[str, int] = Field(default_factory=dict)
    unanswerable: int = 0
    unanswerable_handled: float | None = None
    answerable_abstained: float | None = Field(
        default=None, description="Answerable questions the run declared unanswered."
    )
    median_sources: dict[str, float] = Field(
        default_factory=dict, description="Median distinct sources per stage (completed runs)."
    )
    cost: MeanCost = Field(default_factory=MeanCost)


def aggregate(metrics: Sequence[QuestionMetrics]) -> Aggregate:
    """Recalls: mean over the questions that ask for them (failed runs count 0).
    Citations: pooled over all claims. Cost: mean over completed runs."""
    completed = [m for m in metrics if m.completed]
    check = CitationCheck()
    verdicts: dict[str, int] = {}
    for m in completed:
        check.claims += m.citations.claims
        check.covered_claims += m.citations.covered_claims
        check.citations += m.citations.citations
        check.valid_citations += m.citations.valid_citations
        for verdict, count in m.verdicts.items():
            verdicts[verdict] = verdicts.get(verdict, 0) + count
    unanswerable = [m for m in metrics if m.unanswerable]
    answerable = [m for m in completed if not m.unanswerable]
    gold = [m.gold_recall for m in metrics if m.gold_recall is not None]
    hits = [m.gold_hit for m in metrics if m.gold_hit is not None]
    answers = [m.answer_recall for m in metrics if m.answer_recall is not None]
    facts = [m.fact_recall for m in metrics if m.fact_recall is not None]
    return Aggregate(
        questions=len(metrics),
        completed=len(completed),
        failed=len(metrics) - len(completed),
        gold_recall=_mean_recall(gold),
        gold_questions=len(gold),
        gold_hit=_mean_recall(hits),
        answer_recall=_mean_recall(answers),
        answer_questions=len(answers),
        fact_recall=_mean_recall(facts),
        fact_questions=len(facts),
        citation_validity=_share(check.valid_citations, check.citations),
        claim_coverage=_share(check.covered_claims, check.claims),
        citations=check.citations,
        claims=check.claims,
        verdicts=dict(sorted(verdicts.items())),
        unanswerable=len(unanswerable),
        unanswerable_handled=_share(sum(m.abstained for m in unanswerable), len(unanswerable)),
        answerable_abstained=_share(sum(m.abstained for m in answerable), len(answerable)),
        median_sources={
            stage: float(statistics.median(m.sources[stage] for m in completed))
            for stage in STAGES
            if completed and all(stage in m.sources for m in completed)
        },
        cost=_mean_cost([m.cost for m in completed]),
    )


def metric_values(summary: Aggregate) -> dict[str, float | None]:
    """The aggregate's quality figures by the names `--min` accepts."""
    values: dict[str, float | None] = {
        "completed": _share(summary.completed, summary.questions),
    }
    for name in RECALLS:
        recall: StageRecall | None = getattr(summary, name)
        for stage in STAGES:
            values[f"{name}.{stage}"] = None if recall is None else recall.at(stage)
    values["citation_validity"] = summary.citation_validity
    values["claim_coverage"] = summary.claim_coverage
    values["unanswerable_handled"] = summary.unanswerable_handled
    return values


@dataclass(frozen=True)
class Threshold:
    metric: str
    minimum: float


@dataclass(frozen=True)
class Shortfall:
    metric: str
    minimum: float
    value: float | None

    def __str__(self) -> str:
        got = "not measured on this set" if self.value is None else f"{self.value:.3f}"
        return f"{self.metric} = {got}, below the minimum {self.minimum:.3f}"


def parse_threshold(text: str) -> Threshold:
    """`METRIC=VALUE`, VALUE a share (0.8) or a percentage (80%)."""
    metric, sep, raw = text.partition("=")
    metric, raw = metric.strip(), raw.strip()
    if not sep or metric not in METRIC_NAMES:
        raise InputError(
            f"--min {text!r}: expected METRIC=VALUE with METRIC one of {', '.join(METRIC_NAMES)}"
        )
    try:
        minimum = float(raw[:-1]) / 100 if raw.endswith("%") else float(raw)
    except ValueError:
        raise InputError(f"--min {text!r}: {raw!r} is not a number") from None
    return Threshold(metric, minimum)


def shortfalls(summary: Aggregate, thresholds: Sequence[Threshold]) -> list[Shortfall]:
    values = metric_values(summary)
    return [
        Shortfall(t.metric, t.minimum, values[t.metric])
        for t in thresholds
        if (value := values[t.metric]) is None or value < t.minimum
    ]


def _recall(
    texts: StageTexts,
    patterns: list[re.Pattern[str]],
    measure: Callable[[list[bool]], float],
) -> StageRecall:
    """Per stage: which patterns match some text of it (normalized: whitespace collapsed,
    casefolded; the patterns ignore case), measured."""
    found: dict[str, float] = {}
    for stage in STAGES:
        flat = [normalize(text) for text in texts.at(stage)]
        found[stage] = measure([any(p.search(text) for text in flat) for p in patterns])
    return StageRecall(**found)


def _mean_recall(recalls: Sequence[StageRecall]) -> StageRecall | None:
    if not recalls:
        return None
    return StageRecall(
        **{stage: round(sum(r.at(stage) for r in recalls) / len(recalls), 4) for stage in STAGES}
    )


def _mean_cost(costs: Sequence[Cost]) -> MeanCost:
    if not costs:
        return MeanCost()
    names = MeanCost.model_fields
    return MeanCost(
        **{name: round(sum(getattr(c, name) for c in costs) / len(costs), 3) for name in names}
    )


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def _location(location: str) -> str:
    return location.strip().removeprefix("./")
