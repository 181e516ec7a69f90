from __future__ import annotations

from pathlib import Path

import pytest

from grounded_research.state import Evidence

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE_CORPUS = ROOT / "examples" / "solid-state"
SHARED = ROOT.parent / "shared"


@pytest.fixture
def cache_dir(tmp_path: Path) -> str:
    return str(tmp_path / "cache")


def write(root: Path, relative: str, text: str) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def passage(
    text: str, record_id: str = "e1", source_id: str = "s1", sub_question_id: str = "q"
) -> Evidence:
    """A piece of evidence that is the whole of `text`."""
    return Evidence(
        id=record_id,
        source_id=source_id,
        sub_question_id=sub_question_id,
        text=text,
        start=0,
        end=len(text),
        score=1,
    )
