"""Groups of gap kinds, defined once: the writer, the selection and the evaluation read
gaps by these."""

from __future__ import annotations

from typing import Literal, get_args

from grounded_research.state import GapKind

ConflictKind = Literal["conflict", "status_conflict"]

# Sources disagree: on a quantity or a year ("conflict"), or on whether something
# happened ("status_conflict"). The report shows both sides under Conflicts.
CONFLICT_KINDS: tuple[ConflictKind, ...] = get_args(ConflictKind)

# The evidence falls short: nothing found, nothing that answers, too few independent
# sources, a figure only one source gives, terms not covered, or a model's judgement.
# The selection gives such a sub-question a larger share of the budget.
LACKING_KINDS: tuple[GapKind, ...] = (
    "no_evidence",
    "unanswered",
    "few_sources",
    "uncorroborated",
    "facet",
    "judged",
)

# Left open for the whole question, these mean the run could not answer it: nothing was
# found, or nothing found names what is asked with an answer of the asked kind. Too few
# sources or an uncovered term are caveats on an answer, and a conflict means the
# sources answer twice.
ABSTAINING_KINDS: tuple[GapKind, ...] = ("no_evidence", "unanswered")
