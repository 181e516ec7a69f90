"""Durable runs: where a run's checkpoints live, so a killed run resumes where it was.

`sqlite` (the default) keeps them in a file of the data folder; a path ending in
`.sqlite`, `.sqlite3` or `.db` in that file; `postgresql://…` in a PostgreSQL database
(what a LangGraph server at scale uses); `memory` for one process; `none` for no
checkpoints at all. Anything else is refused: a misspelt `sqllite` must not become a
database file of that name.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from grounded_research import state
from grounded_research.errors import ConfigurationError

# LangGraph is imported where a checkpointer is opened: the CLI checks `--checkpointer`
# before it starts loading the local embedder, and that check must not wait for LangGraph.
if TYPE_CHECKING:
    from langgraph.checkpoint.base import BaseCheckpointSaver
    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

RECORDS = (
    state.SubQuestion,
    state.Source,
    state.Evidence,
    state.Selection,
    state.ConflictSide,
    state.Gap,
    state.Reference,
    state.Claim,
    state.Usage,
    state.ResearchTask,
    state.Fact,
    state.Constraint,
    state.OpenConflict,
    state.OpenQuestion,
    state.Memory,
    state.Turn,
)
SQLITE_SUFFIXES = (".sqlite", ".sqlite3", ".db")
CheckpointerKind = Literal["sqlite", "sqlite file", "postgres", "memory", "none"]
NAMED_CHECKPOINTERS: dict[str, CheckpointerKind] = {
    "": "sqlite",
    "sqlite": "sqlite",
    "memory": "memory",
    "none": "none",
}


def default_data_dir() -> str:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return str(Path(base) / "grounded-research")


def serializer() -> JsonPlusSerializer:
    """Checkpoints hold our records; only these (and LangGraph's own types) load back."""
    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

    return JsonPlusSerializer(
        allowed_msgpack_modules=[(cls.__module__, cls.__name__) for cls in RECORDS]
    )


def checkpointer_kind(spec: str) -> CheckpointerKind:
    """What a checkpointer value names; an unknown one is a `ConfigurationError`."""
    kind = spec.strip()
    if kind.lower() in NAMED_CHECKPOINTERS:
        return NAMED_CHECKPOINTERS[kind.lower()]
    if kind.startswith(("postgresql://", "postgres://")):
        return "postgres"
    if "://" not in kind and Path(kind).suffix.lower() in SQLITE_SUFFIXES:
        return "sqlite file"
    raise ConfigurationError(
        f"unknown checkpointer {spec!r}: use sqlite, a file ending in "
        f"{', '.join(SQLITE_SUFFIXES)}, postgresql://…, memory or none"
    )


@asynccontextmanager
async def open_checkpointer(
    spec: str, data_dir: str
) -> AsyncIterator[BaseCheckpointSaver[str] | None]:
    """`spec`: "sqlite" (in `data_dir`), a path to a .sqlite file, "postgresql://…",
    "memory" or "none"."""
    kind = checkpointer_kind(spec)
    if kind == "none":
        yield None
    elif kind == "memory":
        from langgraph.checkpoint.memory import InMemorySaver

        yield InMemorySaver(serde=serializer())
    elif kind == "postgres":
        async with _postgres(spec.strip()) as saver:
            yield saver
    else:
        path = (
            Path(data_dir) / "checkpoints.sqlite"
            if kind == "sqlite"
            else Path(spec.strip()).expanduser()
        )
        async with _sqlite(path) as saver:
            yield saver


@asynccontextmanager
async def _sqlite(path: Path) -> AsyncIterator[BaseCheckpointSaver[str]]:
    import aiosqlite
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        connection = await aiosqlite.connect(str(path))
    except (OSError, aiosqlite.Error) as error:
        raise ConfigurationError(f"cannot open checkpoint file {path}: {error}") from error
    try:
        saver = AsyncSqliteSaver(connection, serde=serializer())
        await saver.setup()
        yield saver
    finally:
        await connection.close()


@asynccontextmanager
async def _postgres(url: str) -> AsyncIterator[BaseCheckpointSaver[str]]:
    try:
        from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
        from psycopg import OperationalError
    except ImportError as error:
        raise ConfigurationError(
            "PostgreSQL checkpoints need: pip install 'grounded-research[postgres]'"
        ) from error
    try:
        async with AsyncPostgresSaver.from_conn_string(url, serde=serializer()) as saver:
            await saver.setup()
            yield saver
    except OperationalError as error:
        first_line = str(error).strip().splitlines()[0] if str(error).strip() else "failed"
        raise ConfigurationError(f"cannot connect to PostgreSQL: {first_line}") from error
