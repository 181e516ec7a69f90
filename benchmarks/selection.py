"""Context selection on HotpotQA: what each strategy puts in front of the writer.

    python benchmarks/selection.py                         # 250 questions, 1k/2k/4k tokens
    python benchmarks/selection.py --limit 50 --budgets 2000
    python benchmarks/selection.py --json /tmp/selection.json

Setting. For each question the same pool of candidates goes to every selector: the
`--pool` (30) best documents a BM25 search of the question finds in the pooled corpus
of 4,858 Wikipedia paragraphs (`../shared/eval/hotpotqa`), as a search engine would
return pages. Our strategies (`none`, `keyword`, `embeddings`, `hybrid`) run the
graph's own selection (`selection.select.select`) on those documents cut into
chunks, with one sub-question (the question) and the whole budget. The baselines
re-implement GPT Researcher's context filters on the same documents:

- `gptr-keyword` (its default): no filtering when the pages hold fewer than 8,000
  characters (and at most 10 pages); otherwise 1,000-character chunks with 100
  overlapping, scored by BM25 over those chunks (its tokenizer: words, a light plural
  stemmer, stopwords), keeping those that score at least half the best, at most 25;
- `gptr-embeddings`: the same chunks kept when their cosine similarity to the question
  is above 0.35 (a fixed threshold), in document order, at most 10; embedded with our
  local model (GPT Researcher would use OpenAI's).

GPT Researcher has no token budget: its chunks are taken in its order while they fit.

Figures per strategy and budget (cl100k_base tokens): gold-paragraph recall and
answer recall in the selected passages (the text the writer can quote: listed further
sources and titles do not count), mean tokens used, milliseconds per question, and texts
embedded. Chunk vectors are persisted in the corpus index's folder: the first run embeds
every pooled chunk once; a second run embeds none. At the end every vector file is
checked for a key stored twice.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import statistics
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grounded_research.configuration import Context
from grounded_research.evaluation.metrics import answer_pattern
from grounded_research.gathering import evidence_id, source_id
from grounded_research.resources import RunResources
from grounded_research.retrieval.local import LocalCorpus, open_corpus
from grounded_research.selection.budget import count_tokens
from grounded_research.selection.embeddings import local_embedder
from grounded_research.selection.select import select
from grounded_research.selection.strategies import Ranker
from grounded_research.selection.vectors import PassageText, vector_file
from grounded_research.state import Evidence, Source, State, SubQuestion
from grounded_research.text.chunking import chunk_text
from grounded_research.text.normalize import normalize

HERE = Path(__file__).resolve().parent
DATA = HERE.parent.parent / "shared" / "eval" / "hotpotqa"
OURS = ("none", "keyword", "embeddings", "hybrid")
BASELINES = ("gptr-keyword", "gptr-embeddings")
GPTR_CHUNK, GPTR_OVERLAP = 1000, 100
GPTR_RELATIVE, GPTR_MOST_KEYWORD = 0.5, 25
GPTR_SIMILARITY, GPTR_MOST_EMBEDDINGS = 0.35, 10
GPTR_SKIP_UNDER_CHARS, GPTR_SKIP_MOST_PAGES = 8000, 10
CHUNK_SIZE = 600


@dataclass
class Page:
    location: str
    title: str
    sha256: str
    text: str
    score: dict[tuple[int, int], float]  # retrieval score of the chunks the search hit


@dataclass
class Question:
    id: str
    text: str
    answers: list[str]
    gold: set[str]
    pages: list[Page] = field(default_factory=list)


@dataclass
class Picked:
    """What one selector gave the writer for one question."""

    texts: list[str]
    locations: set[str]
    tokens: int
    tiers: Counter[str] = field(default_factory=Counter)


# -- the pool ---------------------------------------------------------------------------


def load_questions(data: Path, limit: int | None) -> list[Question]:
    questions = []
    with (data / "questions.jsonl").open(encoding="utf-8") as lines:
        for line in lines:
            raw = json.loads(line)
            questions.append(
                Question(raw["id"], raw["question"], raw["answers"], set(raw["gold_ids"]))
            )
    return questions[:limit] if limit else questions


def pool_pages(corpus: LocalCorpus, question: Question, size: int) -> list[Page]:
    """The `size` best documents for the question, as a search engine would list them."""
    pages: dict[str, Page] = {}
    for hit in corpus.search_sync(question.text, size * 4):
        page = pages.get(hit.location)
        if page is None:
            if len(pages) == size:
                continue
            page = Page(hit.location, hit.title, hit.sha256, corpus.text(hit.sha256), {})
            pages[hit.location] = page
        page.score[(hit.start, hit.end)] = hit.score
    return list(pages.values())


# -- our selection ------------------------------------------------------------------------


def run_ours(question: Question, strategy: str, budget: int, corpus: str, cache: str) -> Picked:
    state = State(question=question.text)
    state.sub_questions = [SubQuestion(id="q0", text=question.text, queries=[question.text])]
    best = max((s for p in question.pages for s in p.score.values()), default=1.0) or 1.0
    for page in question.pages:
        source = Source(
            id=source_id("local", page.location),
            location=page.location,
            title=page.title,
            status="fetched",
            sha256=page.sha256,
        )
        state.sources[source.id] = source
        for chunk in chunk_text(page.text, CHUNK_SIZE):
            record = Evidence(
                id=evidence_id("q0", source.id, chunk.start, chunk.end),
                source_id=source.id,
                sub_question_id="q0",
                text=page.text[chunk.start : chunk.end],
                start=chunk.start,
                end=chunk.end,
                score=round(page.score.get((chunk.start, chunk.end), 0.0) / best, 4),
                query=question.text,
            )
            state.evidence[record.id] = record
    context = Context(
        corpus=corpus,
        cache_dir=cache,
        chunk_size=CHUNK_SIZE,
        token_budget=budget,
        selection_strategy=strategy,
    )
    selection = select(state, context, RunResources(context)).selection
    chosen = [selection.records[i] for i in selection.context["q0"]]
    listed = [selection.records[i] for i in selection.further_sources.get("q0", [])]
    locations = {state.sources[e.source_id].location for e in chosen}
    tokens = sum(count_tokens(e.text) for e in chosen) + sum(
        count_tokens(f"{state.sources[e.source_id].title} {e.source_id}") + 4 for e in listed
    )
    return Picked(
        texts=[e.text for e in chosen],
        locations=locations,
        tokens=tokens,
        tiers=Counter([e.tier for e in chosen] + [e.tier for e in listed]),
    )


# -- GPT Researcher's filters, re-implemented ----------------------------------------------

_GPTR_TOKEN = re.compile(r"\w+", re.UNICODE)
_GPTR_STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers herself him himself his how i if in into is
    it its itself just me more most my myself no nor not now of off on once only or other our
    ours ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we
    were what when where which while who whom why will with would you your yours yourself
    yourselves""".split()  # noqa: SIM905
)


def _gptr_stem(token: str) -> str:
    if len(token) <= 4 or token.endswith("ss"):
        return token
    if token.endswith("ies"):
        return token[:-3] + "y"
    if token.endswith(("sses", "xes", "zes", "ches", "shes")):
        return token[:-2]
    return token[:-1] if token.endswith("s") else token


def _gptr_tokens(text: str) -> list[str]:
    return [
        _gptr_stem(t)
        for t in _GPTR_TOKEN.findall(text.lower())
        if len(t) > 1 and t not in _GPTR_STOPWORDS
    ]


def gptr_bm25(query: str, passages: Sequence[str]) -> list[float]:
    """BM25 (k1 1.5, b 0.75) with IDF from the passages themselves."""
    docs = [Counter(_gptr_tokens(p)) for p in passages]
    if not docs:
        return []
    average = sum(sum(d.values()) for d in docs) / len(docs) or 1.0
    terms = set(_gptr_tokens(query))
    frequency = {t: sum(1 for d in docs if t in d) for t in terms}
    idf = {t: math.log((len(docs) - n + 0.5) / (n + 0.5) + 1) for t, n in frequency.items()}
    scores = []
    for doc in docs:
        length = sum(doc.values())
        score = 0.0
        for term in terms:
            tf = doc.get(term, 0)
            if tf:
                score += idf[term] * tf * 2.5 / (tf + 1.5 * (0.25 + 0.75 * length / average))
        scores.append(score)
    return scores


@dataclass(frozen=True)
class GptrChunk:
    page: Page
    start: int
    text: str


def gptr_chunks(pages: list[Page]) -> list[GptrChunk]:
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    splitter = RecursiveCharacterTextSplitter(
        chunk_size=GPTR_CHUNK, chunk_overlap=GPTR_OVERLAP, add_start_index=True
    )
    chunks = []
    for page in pages:
        for piece in splitter.create_documents([page.text]):
            if piece.page_content.strip():
                chunks.append(
                    GptrChunk(page, int(piece.metadata["start_index"]), piece.page_content)
                )
    return chunks


def run_gptr(question: Question, mode: str, budget: int, cache: str) -> Picked:
    pages = question.pages
    if (
        sum(len(p.text) for p in pages) < GPTR_SKIP_UNDER_CHARS
        and len(pages) <= GPTR_SKIP_MOST_PAGES
    ):
        kept = [GptrChunk(p, 0, p.text) for p in pages]  # little content: no filtering
    elif mode == "gptr-keyword":
        chunks = gptr_chunks(pages)
        scores = gptr_bm25(question.text, [c.text for c in chunks])
        best = max(scores, default=0.0)
        if best <= 0:
            kept = chunks[:GPTR_MOST_KEYWORD]
        else:
            ranked = sorted(range(len(chunks)), key=lambda i: (-scores[i], i))
            kept = [chunks[i] for i in ranked if scores[i] >= GPTR_RELATIVE * best]
            kept = kept[:GPTR_MOST_KEYWORD]
    else:
        chunks = gptr_chunks(pages)
        embedder = local_embedder()
        store = vector_file(Path(cache) / "vectors" / "gptr-chunks", embedder)
        vectors, _ = store.vectors(
            [PassageText((c.page.sha256, c.start, c.start + len(c.text)), c.text) for c in chunks]
        )
        query = Ranker("embeddings", embedder).query_vectors([question.text])[0][0]
        similarity = vectors @ query if len(chunks) else []
        kept = [c for c, s in zip(chunks, similarity, strict=True) if s > GPTR_SIMILARITY]
        kept = kept[:GPTR_MOST_EMBEDDINGS]
    texts, locations, spent = [], set(), 0
    for chunk in kept:
        cost = count_tokens(chunk.text)
        if spent + cost > budget:
            continue
        texts.append(chunk.text)
        locations.add(chunk.page.location)
        spent += cost
    return Picked(texts, locations, spent)


# -- measuring ----------------------------------------------------------------------------


def answer_found(question: Question, texts: list[str]) -> bool:
    patterns = [answer_pattern(a) for a in question.answers if a.strip()]
    flat = [normalize(t) for t in texts]
    return any(p.search(t) for p in patterns for t in flat)


def measure(
    questions: list[Question],
    strategy: str,
    budget: int,
    corpus: str,
    cache: str,
    index_dir: Path,
) -> dict[str, Any]:
    gold, answer, tokens = [], [], []
    tiers: Counter[str] = Counter()
    stored_before = stored_vectors(cache, index_dir)
    embedded_before = LOG.total if LOG else 0
    started = time.perf_counter()
    for question in questions:
        if strategy in OURS:
            picked = run_ours(question, strategy, budget, corpus, cache)
        else:
            picked = run_gptr(question, strategy, budget, cache)
        gold.append(len(question.gold & picked.locations) / len(question.gold))
        answer.append(1.0 if answer_found(question, picked.texts) else 0.0)
        tokens.append(picked.tokens)
        tiers.update(picked.tiers)
    seconds = time.perf_counter() - started
    return {
        "strategy": strategy,
        "budget": budget,
        "gold_recall": round(100 * statistics.mean(gold), 1),
        "answer_recall": round(100 * statistics.mean(answer), 1),
        "tokens": round(statistics.mean(tokens)),
        "ms_per_question": round(1000 * seconds / len(questions), 1),
        "texts_embedded": (LOG.total if LOG else 0) - embedded_before,
        "vectors_stored": stored_vectors(cache, index_dir) - stored_before,
        "tiers": dict(tiers),
    }


class EmbeddingLog:
    """Every text the local embedder is asked to embed, counted: a text embedded twice
    would show here, whatever the vector files say."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        embedder = local_embedder()
        embed = embedder.embed

        def counted(texts: Sequence[str]) -> Any:
            self.counts.update(texts)
            return embed(texts)

        embedder.embed = counted  # type: ignore[method-assign]

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def twice(self) -> int:
        return sum(n - 1 for n in self.counts.values() if n > 1)


LOG: EmbeddingLog | None = None


def vector_keys(cache: str, index_dir: Path) -> list[str]:
    """Every chunk key stored in the vector files this benchmark uses."""
    keys: list[str] = []
    for path in [*index_dir.glob("vectors-*.keys"), *Path(cache).glob("vectors/*/*.keys")]:
        lines = path.read_text(encoding="utf-8").splitlines()
        keys.extend(f"{path}|{line}" for line in lines if not line.startswith("#"))
    return keys


def stored_vectors(cache: str, index_dir: Path) -> int:
    return len(vector_keys(cache, index_dir))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--pool", type=int, default=30, help="documents per question")
    parser.add_argument("--budgets", default="1000,2000,4000")
    parser.add_argument("--strategies", default=",".join(OURS + BASELINES))
    parser.add_argument("--cache-dir", default="/tmp/grc-bench-selection")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    if not (args.data / "questions.jsonl").exists():
        print(f"error: {args.data}/questions.jsonl not found", file=sys.stderr)
        return 64
    budgets = [int(b) for b in args.budgets.split(",")]
    strategies = [s.strip() for s in args.strategies.split(",") if s.strip()]
    global LOG
    LOG = EmbeddingLog()
    corpus_path = str(args.data / "corpus.jsonl")
    corpus = open_corpus(corpus_path, args.cache_dir, CHUNK_SIZE)
    questions = load_questions(args.data, args.limit)
    for question in questions:
        question.pages = pool_pages(corpus, question, args.pool)
    pool_gold = statistics.mean(
        len(q.gold & {p.location for p in q.pages}) / len(q.gold) for q in questions
    )
    pool_answer = statistics.mean(
        1.0 if answer_found(q, [p.text for p in q.pages]) else 0.0 for q in questions
    )
    pool_tokens = statistics.mean(sum(count_tokens(p.text) for p in q.pages) for q in questions)
    print(
        f"{len(questions)} questions, pool of {args.pool} documents each: gold recall "
        f"{100 * pool_gold:.1f}, answer recall {100 * pool_answer:.1f}, "
        f"{pool_tokens:.0f} tokens (the ceiling)",
        flush=True,
    )
    rows = []
    # Embedding strategies first: they fill the vector files, the others only read them.
    order = sorted(strategies, key=lambda s: 0 if s in ("embeddings", "gptr-embeddings") else 1)
    for strategy in order:
        for budget in budgets:
            row = measure(
                questions, strategy, budget, corpus_path, args.cache_dir, corpus.index_dir
            )
            rows.append(row)
            print(json.dumps(row), flush=True)
    keys = vector_keys(args.cache_dir, corpus.index_dir)
    stored, duplicates = len(keys), len(keys) - len(set(keys))
    print()
    print(
        "| strategy | budget | gold recall | answer recall | tokens used | ms / question "
        "| texts embedded |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for strategy in strategies:
        for row in [r for r in rows if r["strategy"] == strategy]:
            print(
                f"| {strategy} | {row['budget']} | {row['gold_recall']:.1f} | "
                f"{row['answer_recall']:.1f} | {row['tokens']} | {row['ms_per_question']} | "
                f"{row['texts_embedded']} |"
            )
    print(
        f"\nvector files: {stored} chunk vectors stored, {duplicates} stored twice; "
        f"embedder: {LOG.total} texts embedded, {LOG.twice} of them a second time"
    )
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "questions": len(questions),
                    "pool": args.pool,
                    "pool_ceiling": {
                        "gold_recall": round(100 * pool_gold, 1),
                        "answer_recall": round(100 * pool_answer, 1),
                        "tokens": round(pool_tokens),
                    },
                    "rows": rows,
                    "vectors_stored": stored,
                    "vectors_stored_twice": duplicates,
                    "texts_embedded": LOG.total,
                    "texts_embedded_twice": LOG.twice,
                },
                indent=2,
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
