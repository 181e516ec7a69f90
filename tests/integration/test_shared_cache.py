"""One cache folder shared by real processes: concurrent runs on a fresh cache, a damaged
cache, and a run killed with SIGKILL in the middle of an index build."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import EXAMPLE_CORPUS, write

QUESTION = "When will Aurora Cellworks' Aurora A1 cells reach series production?"
CLI = [str(Path(sys.executable).with_name("grounded-research"))]
CONCURRENT_RUNS = 10


def start_run(folder: Path, cache: Path, name: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            *CLI,
            QUESTION,
            "--corpus",
            str(EXAMPLE_CORPUS),
            "--cache-dir",
            str(cache),
            "--checkpointer",
            "none",
            "--out",
            str(folder / f"{name}.md"),
            "--evidence",
            str(folder / f"{name}.json"),
            "-q",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def comparable(evidence_file: Path) -> dict[str, Any]:
    """The evidence table without what differs from run to run by nature: timings and
    the time each source was read."""
    table = json.loads(evidence_file.read_text(encoding="utf-8"))
    table.pop("usage")
    for source in table["sources"]:
        source.pop("retrieved_at", None)
    return dict(table)


def test_ten_concurrent_runs_on_one_fresh_cache_all_succeed_alike(tmp_path: Path) -> None:
    """Before the refresh lock, 3 of 10 such runs exited 1 ("Directory not empty:
    .../bm25f", a manifest or tokens file renamed away by another run)."""
    cache = tmp_path / "cache"
    runs = [start_run(tmp_path, cache, f"run{i}") for i in range(CONCURRENT_RUNS)]
    for process in runs:
        _, err = process.communicate(timeout=600)
        assert process.returncode == 0, err
        assert "Traceback" not in err
    tables = [comparable(tmp_path / f"run{i}.json") for i in range(CONCURRENT_RUNS)]
    assert tables[0]["evidence"] and tables[0]["status"] == "ok"
    assert all(table == tables[0] for table in tables[1:])
    reports = {(tmp_path / f"run{i}.md").read_text(encoding="utf-8") for i in range(10)}
    assert len(reports) == 1
    [index] = (cache / "index").iterdir()
    assert len(list(index.glob("bm25f-*"))) == 1  # one build kept, no half-written folder
    assert not list(cache.rglob("*.part"))


def test_a_damaged_cache_is_rebuilt_and_said_on_stderr(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = start_run(tmp_path, cache, "first")
    assert first.wait(timeout=300) == 0
    [vocabulary] = (cache / "index").glob("*/*/meta.json")
    meta = json.loads(vocabulary.read_text(encoding="utf-8"))
    meta["vocabulary"] = meta["vocabulary"][:10]  # still JSON: main trusted it
    vocabulary.write_text(json.dumps(meta), encoding="utf-8")
    cited = comparable(tmp_path / "first.json")["sources"]
    for source in cited[:3]:  # truncated snapshots: main quoted what was left
        if source["sha256"]:
            snapshot = cache / "snapshots" / source["sha256"][:2] / f"{source['sha256']}.txt"
            snapshot.write_bytes(snapshot.read_bytes()[:20])

    again = start_run(tmp_path, cache, "again")
    _, err = again.communicate(timeout=300)
    assert again.returncode == 0, err
    lines = err.strip().splitlines()
    assert lines and "index damaged (meta.json" in lines[0]
    assert all("extracted it again" in line for line in lines[1:])
    assert "Traceback" not in err
    assert comparable(tmp_path / "again.json") == comparable(tmp_path / "first.json")


SLOW_BUILD = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from grounded_research.retrieval import local

    extract = local._extract_file

    def slow(job):
        time.sleep(120)
        return extract(job)

    local._extract_file = slow
    local.LocalCorpus(Path(sys.argv[1]), Path(sys.argv[2]), 600).refresh()
    """
)


def children_of(pid: int) -> set[int]:
    found: set[int] = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                stat = (entry / "stat").read_text()
                if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                    found.add(int(entry.name))
    return found


def alive(pid: int) -> bool:
    with contextlib.suppress(OSError):
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        return state != "Z"
    return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_kill_9_during_an_index_build_takes_its_workers_along(tmp_path: Path) -> None:
    """Before, the extraction workers of a killed run lived on under init (~127 MB
    each, here until their 120 s sleep ended)."""
    from grounded_research.retrieval.local import PARALLEL_FROM_FILES

    if (os.cpu_count() or 1) < 2:
        pytest.skip("the corpus is extracted in one process on one core")
    root = tmp_path / "corpus"
    for number in range(PARALLEL_FROM_FILES + 4):
        write(root, f"doc{number}.md", f"# Document {number}\n\nText number {number}.\n")
    build = subprocess.Popen(
        [sys.executable, "-c", SLOW_BUILD, str(root), str(tmp_path / "cache")],
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        while len(workers := children_of(build.pid)) < 2:
            assert build.poll() is None, "the build ended before its workers started"
            assert time.monotonic() < deadline, "no extraction workers started"
            time.sleep(0.1)
        os.kill(build.pid, signal.SIGKILL)  # the run only, not its process group
        build.wait()
        deadline = time.monotonic() + 10
        while any(alive(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not [pid for pid in workers if alive(pid)]
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(build.pid, signal.SIGKILL)  # whatever was left, if the test failed
