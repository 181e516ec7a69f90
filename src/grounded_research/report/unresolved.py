"""What stays open, as a reader reads it: one sentence per gap, in plain words.

The gap check keeps its own terms (the kind, a detail such as "A1 (cycles): given by 1
independent source(s)"); this is the one place that turns a gap record into the
sentence a report shows ("Only one source gives a figure in cycles for A1; no second
source confirms it."). A gap about a sub-question names it, one about the whole
question does not repeat it.
"""

from __future__ import annotations

from typing import get_args

from grounded_research.gaps.kinds import CONFLICT_KINDS
from grounded_research.gaps.rules import detail_parts, unanswered_parts
from grounded_research.report.sections import LABELS, SECTIONS, Language
from grounded_research.state import WHOLE_QUESTION_ID, Gap, State
from grounded_research.text.answers import AnswerKind, kind_words
from grounded_research.text.tokenize import has_cjk

_CONFLICTS = next(section for section in SECTIONS if section.key == "conflicts").headings


def unresolved_lines(state: State, gaps: list[Gap], lang: Language) -> list[str]:
    """Each open gap in plain words, the missing evidence first, then the disagreements;
    a sentence said once, and a figure left open for "A1" left out when it is for
    "Aurora A1" too."""
    ordered = [g for g in gaps if g.kind not in CONFLICT_KINDS]
    ordered += [g for g in gaps if g.kind in CONFLICT_KINDS]
    texts = {sq.id: sq.text for sq in state.sub_questions}
    lines: list[str] = []
    for gap in ordered:
        if gap.kind == "uncorroborated" and _said_for_more(gap, ordered):
            continue
        line = in_plain_words(gap, texts.get(gap.sub_question_id, ""), lang)
        if line not in lines:
            lines.append(line)
    return lines


def in_plain_words(gap: Gap, sub_question: str, lang: Language) -> str:
    """The gap as one sentence for the reader; its own detail, as a sentence, when it
    has no parts to word (a reason such as "no passage names PostgreSQL 17", a model's
    judgement)."""
    labels = LABELS[lang]
    whole = gap.sub_question_id == WHOLE_QUESTION_ID or not sub_question
    about = labels["this_question"] if whole else labels["about"].format(text=sub_question)
    parts = detail_parts(gap)
    if gap.kind in CONFLICT_KINDS and gap.subject and gap.sides:
        values = f" {labels['or']} ".join(dict.fromkeys(side.value for side in gap.sides))
        conflicts = _CONFLICTS[lang]
        return labels["gap_conflict"].format(
            subject=gap.subject, values=values, conflicts=conflicts
        )
    if gap.kind == "uncorroborated" and parts:
        return labels["gap_uncorroborated"].format(subject=parts["subject"], unit=parts["unit"])
    if gap.kind == "no_evidence":
        return labels["gap_no_evidence"].format(about=about)
    if gap.kind == "few_sources" and parts:
        key = "gap_few_sources" if parts["found"] != "0" else "gap_no_sources"
        return labels[key].format(about=about, **parts)
    if gap.kind == "facet" and parts:
        terms = ", ".join(labels["about"].format(text=t) for t in parts["terms"].split(", "))
        sentence = labels["gap_facet"].format(terms=terms)
        sentence = sentence[:1].lower() + sentence[1:]  # the template's "No …"
    else:
        sentence = " ".join(reason_in_words(gap.detail, labels).split())
        if not sentence.endswith((".", "!", "?", "。")):
            sentence += "。" if has_cjk(sentence) else "."
    if whole:
        return sentence[:1].upper() + sentence[1:]
    return labels["on"].format(about=about, sentence=sentence)


def reason_in_words(detail: str, labels: dict[str, str]) -> str:
    """Why a question is not answered, in the report's language (`labels`): the gap
    check's reason ("no passage names PostgreSQL 17", `UNANSWERED`) in the words of
    `why_<reason>`, the kind of answer in those of `kind_<kind>` where the language has
    its own; any other detail as it is (a model's judgement)."""
    parts = unanswered_parts(detail)
    if not parts:
        return detail
    what = parts["what"]
    if parts["reason"] == "no_kind":  # "a date", "an answer" (any kind of statement)
        named = (f"kind_{k}" for k in _KINDS if kind_words(k) == what)
        what = next((labels[key] for key in named if key in labels), what)
    return labels[f"why_{parts['reason']}"].format(what=what)


_KINDS: tuple[AnswerKind, ...] = get_args(AnswerKind)


def _said_for_more(gap: Gap, gaps: list[Gap]) -> bool:
    """Whether another open figure gap has the same unit and a subject that holds this
    one's words ("Aurora A1" for "A1")."""
    parts = detail_parts(gap)
    if not parts:
        return False
    words = set(parts["subject"].lower().split())
    for other in gaps:
        theirs = detail_parts(other) if other.kind == "uncorroborated" else {}
        if other is gap or not theirs or theirs["unit"] != parts["unit"]:
            continue
        if words < set(theirs["subject"].lower().split()):
            return True
    return False
