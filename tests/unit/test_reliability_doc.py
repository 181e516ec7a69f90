"""docs/reliability.md is what the tests observed: every case has its row, and the file
is exactly what `tests/reliability.py` renders from those rows (no hand edits)."""

from __future__ import annotations

from tests.reliability import CASES, DOC, NOT_OBSERVED, recorded, render


def test_every_case_has_an_observed_outcome() -> None:
    outcomes = recorded()
    missing = sorted(key for key in CASES if outcomes.get(key, NOT_OBSERVED) == NOT_OBSERVED)
    assert not missing, f"no outcome in docs/reliability.md for {missing}: run the tests it names"


def test_the_file_is_generated() -> None:
    assert DOC.read_text(encoding="utf-8") == render(recorded()), (
        "docs/reliability.md differs from what tests/reliability.py renders: regenerate it"
    )
