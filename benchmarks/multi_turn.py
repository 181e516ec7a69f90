"""Follow-up questions on one thread (issue 16): what the thread's research memory keeps
and costs, turn by turn, against two baselines on the same conversations.

    python benchmarks/multi_turn.py                   # every conversation, a table per one
    python benchmarks/multi_turn.py --json /tmp/m.json

Conversations (`multi_turn/conversations.json`): 7 and 8 turns over the example corpus
and over ten real Debian documentation pages (`tests/data/docs/corpus`); later turns ask
for numbers, dates, negations and conditions found in earlier turns' evidence, one turn
corrects a constraint, one drifts to another topic. Systems:

- `memory`: one thread, the graph as shipped (research memory);
- `fresh`: every turn a new thread (what a thread did before issue 16);
- `history`: every turn a new thread, with every earlier report pasted whole into its
  context (the context a model would get; an answer counts when the report or the pasted
  history holds it).

Figures per turn: answer recall (share of the turn's answer strings in its report),
search calls, context tokens (cl100k_base: the evidence the writer receives, plus the
memory briefing, plus for `history` the pasted reports), CPU seconds; after each turn of
`memory`: facts exact (share of the memory's confirmed facts whose numbers, units, dates,
negations and conditions all still appear verbatim in their evidence: `memory/facts.py`)
and answers retained (share of earlier answers of the topic that its facts still state
verbatim). Extractive model, no network.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grounded_research.api import ResearchResult, open_session
from grounded_research.configuration import Context
from grounded_research.memory.facts import still_exact
from grounded_research.selection.budget import count_tokens

ROOT = Path(__file__).resolve().parents[1]
CONVERSATIONS = Path(__file__).resolve().parent / "multi_turn" / "conversations.json"
SYSTEMS = ("memory", "fresh", "history")


@dataclass
class TurnFigures:
    recall: float
    searches: int
    tokens: int
    cpu: float
    facts_exact: float | None = None
    retained: float | None = None
    from_memory: bool = False
    drifted: bool = False
    resumed: bool = False
    overlap: float | None = None


@dataclass
class Conversation:
    id: str
    corpus: str
    turns: list[dict[str, Any]]
    figures: dict[str, list[TurnFigures]] = field(default_factory=dict)


def found(answer: str, text: str) -> bool:
    return " ".join(answer.lower().split()) in " ".join(text.lower().split())


def recall(answers: list[str], text: str) -> float:
    return sum(found(a, text) for a in answers) / len(answers) if answers else 1.0


def context_tokens(result: ResearchResult) -> int:
    """Tokens of the evidence the writer received, and of the memory's briefing."""
    texts = [result.record(i).text for ids in result.context.values() for i in ids]
    briefing = result.turns[-1].memory_tokens if result.turns else 0
    return sum(count_tokens(t) for t in texts) + briefing


def facts_exact(result: ResearchResult) -> list[bool]:
    """Per confirmed fact of the memory: still exact against its evidence."""

    def text_of(evidence_id: str) -> str:
        return result.record(evidence_id).text

    return [still_exact(fact, text_of) for fact in result.memory.facts]


async def ask(session: Any, question: str, context: Context) -> ResearchResult:
    async for _ in session.stream(question, context):
        pass
    result: ResearchResult = await session.result()
    return result


async def run_memory(conversation: Conversation, context: Context) -> list[TurnFigures]:
    figures: list[TurnFigures] = []
    answered: list[tuple[int, int, str]] = []  # (topic, turn, answer) reported so far
    async with open_session("thread", "memory") as session:
        for number, turn in enumerate(conversation.turns, start=1):
            cpu = time.process_time()
            result = await ask(session, turn["question"], context)
            cpu = time.process_time() - cpu
            memory, state = result.memory, result.turns[-1]
            exact = facts_exact(result)
            answered += [
                (memory.topic, number, a) for a in turn["answers"] if found(a, result.report)
            ]
            earlier = [a for topic, n, a in answered if topic == memory.topic and n < number]
            claims = "\n".join(fact.claim for fact in memory.facts)
            figures.append(
                TurnFigures(
                    recall=recall(turn["answers"], result.report),
                    searches=result.usage.search_calls,
                    tokens=context_tokens(result),
                    cpu=cpu,
                    facts_exact=sum(exact) / len(exact) if exact else 1.0,
                    retained=sum(found(a, claims) for a in earlier) / len(earlier)
                    if earlier
                    else None,
                    from_memory=state.from_memory,
                    drifted=state.drifted,
                    resumed=state.resumed,
                    overlap=state.overlap,
                )
            )
    return figures


async def run_alone(
    conversation: Conversation, context: Context, paste_history: bool
) -> list[TurnFigures]:
    figures: list[TurnFigures] = []
    history: list[str] = []
    for number, turn in enumerate(conversation.turns, start=1):
        cpu = time.process_time()
        async with open_session(f"alone-{number}", "memory") as session:
            result = await ask(session, turn["question"], context)
        cpu = time.process_time() - cpu
        pasted = "\n".join(history) if paste_history else ""
        figures.append(
            TurnFigures(
                recall=recall(turn["answers"], f"{result.report}\n{pasted}"),
                searches=result.usage.search_calls,
                tokens=context_tokens(result) + (count_tokens(pasted) if pasted else 0),
                cpu=cpu,
            )
        )
        history.append(result.report)
    return figures


def table(conversation: Conversation) -> str:
    rows = [
        f"#### {conversation.id} ({len(conversation.turns)} turns, `{conversation.corpus}`)",
        "",
        "| turn | kind | answer recall (memory / fresh / history) | searches | context tokens "
        "| facts exact | earlier answers retained | CPU s (memory / fresh) |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    memory, fresh, history = (conversation.figures[s] for s in SYSTEMS)
    for number, turn in enumerate(conversation.turns):
        m, f, h = memory[number], fresh[number], history[number]
        note = " (from memory)" if m.from_memory else ""
        note += " (resumed)" if m.resumed else " (drift)" if m.drifted else ""
        note += f", overlap {m.overlap:.2f}" if m.overlap is not None else ""
        retained = "—" if m.retained is None else f"{100 * m.retained:.0f}%"
        rows.append(
            f"| {number + 1} | {turn['kind']}{note} | "
            f"{100 * m.recall:.0f} / {100 * f.recall:.0f} / {100 * h.recall:.0f} | "
            f"{m.searches} / {f.searches} / {h.searches} | "
            f"{m.tokens} / {f.tokens} / {h.tokens} | {100 * (m.facts_exact or 0):.0f}% | "
            f"{retained} | {m.cpu:.1f} / {f.cpu:.1f} |"
        )
    total = {s: conversation.figures[s] for s in SYSTEMS}
    mean = {s: sum(t.recall for t in total[s]) / len(total[s]) for s in SYSTEMS}
    searches = {s: sum(t.searches for t in total[s]) for s in SYSTEMS}
    tokens = {s: sum(t.tokens for t in total[s]) for s in SYSTEMS}
    rows.append(
        f"| all | | {100 * mean['memory']:.0f} / {100 * mean['fresh']:.0f} / "
        f"{100 * mean['history']:.0f} | {searches['memory']} / {searches['fresh']} / "
        f"{searches['history']} | {tokens['memory']} / {tokens['fresh']} / "
        f"{tokens['history']} | | | |"
    )
    return "\n".join(rows)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", type=Path, help="Write every figure here.")
    parser.add_argument("--only", help="Run only the conversation with this id.")
    parser.add_argument(
        "--drift-threshold",
        type=float,
        default=Context().drift_threshold,
        help="0 never drifts: every turn's overlap with one continuous memory (calibration).",
    )
    parser.add_argument("--memory-only", action="store_true", help="Skip the baselines.")
    args = parser.parse_args()
    conversations = [Conversation(**c) for c in json.loads(CONVERSATIONS.read_text())]
    with tempfile.TemporaryDirectory() as cache:
        for conversation in conversations:
            if args.only and conversation.id != args.only:
                continue
            context = Context(
                corpus=str(ROOT / conversation.corpus),
                cache_dir=cache,
                drift_threshold=args.drift_threshold,
            )
            conversation.figures["memory"] = await run_memory(conversation, context)
            if args.memory_only:
                for figures in conversation.figures["memory"]:
                    print(conversation.id, vars(figures))
                continue
            conversation.figures["fresh"] = await run_alone(conversation, context, False)
            conversation.figures["history"] = await run_alone(conversation, context, True)
            print(table(conversation), "\n", flush=True)
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    c.id: {s: [vars(t) for t in c.figures[s]] for s in c.figures}
                    for c in conversations
                },
                indent=2,
            )
        )


if __name__ == "__main__":
    asyncio.run(main())
