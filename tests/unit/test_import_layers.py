"""The layer contract (pyproject's [tool.importlinter], docs/architecture.md) holds: no
import runs back up the layers and no circle joins sibling modules."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LINT = (
    "import sys; from importlinter.cli import lint_imports_command; "
    "sys.exit(lint_imports_command())"
)


def lint_imports(src: Path) -> subprocess.CompletedProcess[str]:
    """`lint-imports` on the package found in `src`, with the repository's contracts."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    return subprocess.run(
        [sys.executable, "-c", LINT, "--config", str(ROOT / "pyproject.toml"), "--no-cache"],
        cwd=src,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_layer_contract_holds() -> None:
    run = lint_imports(ROOT / "src")
    assert run.returncode == 0, run.stdout + run.stderr


def test_an_import_up_the_layers_breaks_it(tmp_path: Path) -> None:
    shutil.copytree(
        ROOT / "src" / "grounded_research",
        tmp_path / "grounded_research",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    ground_floor = tmp_path / "grounded_research" / "text" / "normalize.py"
    ground_floor.write_text(ground_floor.read_text() + "\nfrom grounded_research import state\n")
    run = lint_imports(tmp_path)
    assert run.returncode != 0
    assert "grounded_research.text is not allowed to import" in " ".join(run.stdout.split())
