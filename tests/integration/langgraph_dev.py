"""A real `langgraph dev` server serving the graph under an operator's policy, for the
tests that drive it with langgraph-sdk."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import httpx
import pytest

from tests.conftest import ROOT

LANGGRAPH = Path(sys.executable).with_name("langgraph")
OFFLINE = {
    "LANGGRAPH_CLI_NO_ANALYTICS": "1",
    "LANGGRAPH_NO_VERSION_CHECK": "true",
    "LANGSMITH_TRACING": "false",
}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def langgraph_dev(folder: Path, policy: str, env: dict[str, str]) -> Iterator[str]:
    """`langgraph dev` from a copy of the repository's `langgraph.json` and `src` in
    `folder` (the server writes .langgraph_api/ where it runs), its policy file holding
    `policy` (TOML), and `env` (the operator's keys) added to this process's environment.
    Yields the server's URL; the log is `folder/server.log`."""
    config = json.loads((ROOT / "langgraph.json").read_text())
    config["env"]["GROUNDED_RESEARCH_SERVER_CONFIG"] = "server.toml"  # as shipped, its own file
    (folder / "langgraph.json").write_text(json.dumps(config))
    (folder / "server.toml").write_text(policy)
    shutil.copytree(ROOT / "src", folder / "src", ignore=shutil.ignore_patterns("__pycache__"))
    port = free_port()
    log_path = folder / "server.log"
    command = [str(LANGGRAPH), "dev", "--no-reload", "--no-browser"]
    with log_path.open("w") as log:
        process = subprocess.Popen(
            [*command, "--host", "127.0.0.1", "--port", str(port)],
            cwd=folder,
            env={**os.environ, **OFFLINE, **env},
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            url = f"http://127.0.0.1:{port}"
            wait_until_up(url, process, log_path)
            yield url
        finally:
            with suppress(ProcessLookupError):  # it may have stopped on its own
                os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def wait_until_up(url: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail("langgraph dev stopped:\n" + log.read_text())
        try:
            if httpx.get(f"{url}/ok", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    pytest.fail("langgraph dev did not start:\n" + log.read_text())


def toml_string(value: object) -> str:
    """A path or URL as a TOML string."""
    return json.dumps(str(value))
