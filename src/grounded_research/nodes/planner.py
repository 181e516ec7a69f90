"""Split the question into the parts a report must answer; keep the whole question too.

Extractive mode: a question joined by "and", ";" or several question marks becomes one
sub-question per part; a part that leans on the others ("what do they cost") borrows
the names from the rest of the question so its queries can stand alone.
"""

from __future__ import annotations

import re
import time
from typing import Any

from langgraph.runtime import Runtime

from grounded_research.configuration import Context, get_context
from grounded_research.facts import named_terms
from grounded_research.selection.tokenize import content_words
from grounded_research.state import State, SubQuestion, Usage

QUESTION_WORDS = frozenset(
    [
        "what",
        "which",
        "who",
        "whom",
        "whose",
        "when",
        "where",
        "why",
        "how",
        "does",
        "do",
        "did",
        "is",
        "are",
        "was",
        "were",
        "can",
        "could",
        "should",
        "would",
        "will",
        "much",
        "many",
        "kind",
        "type",
        "achieve",
        "achieved",
        "reach",
        "get",
        "make",
        "made",
        "say",
        "said",
        "give",
        "known",
        "name",
        "named",
        "called",
        "什么",
        "哪些",
        "哪个",
        "多少",
        "如何",
        "怎么",
        "何时",
        "为什么",
        "达到",
    ]
)
_PART_BREAK = re.compile(
    r"\s*(?:[?？;；]+|,?\s+(?:and|as well as|but)\s+(?=(?:what|which|who|when|where|why|how|"
    r"does|do|did|is|are|was|were|can|will)\b)|(?:，|、)?(?:以及|并且|而且|和)(?=[^，。]{4,}))\s*",
    re.IGNORECASE,
)


async def planner(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    started = time.perf_counter()
    context = get_context(runtime)
    whole = state.sub_questions[0]
    question_names = named_terms(state.question)

    sub_questions = [whole.model_copy(update={"facets": facets_of(whole.text)})]
    for number, part in enumerate(question_parts(state.question), start=1):
        if number > context.max_sub_questions:
            break
        query = part
        missing_names = [n for n in question_names if n not in part.lower()]
        if missing_names and not named_terms(part):
            query = f"{part} {' '.join(sorted(missing_names))}"
        sub_questions.append(
            SubQuestion(id=f"q{number}", text=part, queries=[query], facets=facets_of(part))
        )
    return {
        "sub_questions": sub_questions,
        "usage": Usage(seconds={"planner": round(time.perf_counter() - started, 4)}),
    }


def question_parts(question: str) -> list[str]:
    """The parts of a compound question; none when it asks one thing."""
    parts = [p.strip(" ,，。.") for p in _PART_BREAK.split(question)]
    parts = [p for p in parts if len(content_words(p)) >= 2]
    return parts if len(parts) > 1 else []


def facets_of(text: str) -> list[str]:
    """The terms an answer must touch: the question's content words, minus question words."""
    return [w for w in content_words(text) if w not in QUESTION_WORDS]
