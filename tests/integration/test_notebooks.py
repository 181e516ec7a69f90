"""The notebooks run, offline, top to bottom."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import ROOT

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_executes(path: Path) -> None:
    notebook = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        notebook,
        timeout=600,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute()  # raises CellExecutionError with the failing cell and traceback
    errors = [o for c in notebook.cells for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors
