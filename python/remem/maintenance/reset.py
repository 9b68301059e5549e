"""``remem reset`` and ``/reset``: start over with an empty memory.

* embedded: the memory directory is moved aside, whole, to ``<dir>.reset-<UTC time>`` (kept; delete
  it yourself once sure) with one rename, while the directory's writer lock is held — a Runtime
  open on it in another process makes the reset fail with ``WritersActiveError``;
* postgres: every remem table (the vector collections' tables included) is dropped in one
  transaction, and the memory directory's journals and generation pointer are removed.

Not a fix for missing recall: it forgets everything, the transcripts too.
"""

from __future__ import annotations

import os
import shutil
from datetime import UTC, datetime
from pathlib import Path

from remem.errors import BackendError
from remem.recovery.participants import writer_lock
from remem.runtime_config import RuntimeConfig

__all__ = ["POSTGRES_TABLES", "describe_reset", "reset_memory"]

POSTGRES_TABLES = (
    "core_block_history",
    "core_blocks",
    "graph_entity_aliases",
    "graph_relationships",
    "graph_entities",
    "memory_records",
    "remem_day_summaries",
    "remem_episodes_search_identity",
    "remem_episodes",
    "remem_transcript_entries",
    "remem_transcript_sessions",
    "remem_vector_collections",
    "remem_schema_migrations",
)
"""Every table the PostgreSQL stores create (besides ``remem_vectors_<cid>``)."""

POSTGRES_FUNCTIONS = ("remem_transcript_entries_immutable",)
"""Trigger functions the PostgreSQL migrations create."""

_DIRECTORY_STATE = (
    "moves.journal",
    "lifecycle.journal",
    "collections.json",
    "reembed.json",
)


def _aside(path: Path) -> Path:
    return path.with_name(f"{path.name}.reset-{datetime.now(UTC):%Y%m%d-%H%M%S}")


def describe_reset(config: RuntimeConfig) -> str:
    """What :func:`reset_memory` would do, as the question to ask first."""
    if config.backend == "postgres":
        return (
            "reset drops every remem table of the PostgreSQL database (memories, transcripts, "
            "graph, blocks, vectors); nothing is kept. Reset?"
        )
    return (
        f"reset moves {config.path} aside to {_aside(Path(config.path))} and starts an empty "
        "memory. Reset?"
    )


def reset_memory(config: RuntimeConfig) -> str:
    """Reset the memory ``config`` names (module docstring); the memory must be closed. Returns
    one line saying what was done."""
    path = Path(config.path)
    if config.backend == "postgres":
        _drop_postgres(config)
        for name in _DIRECTORY_STATE:
            (path / name).unlink(missing_ok=True)
        return "memory reset: every remem table was dropped"
    if not path.exists() or (path.is_dir() and not any(path.iterdir())):
        return f"nothing to reset: {path} is empty"
    aside = _aside(path)
    with writer_lock(path):
        shutil.move(path, aside)
    fd = os.open(aside.parent, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    return f"memory reset; the old one is kept in {aside}"


def _drop_postgres(config: RuntimeConfig) -> None:
    import psycopg
    from psycopg import sql

    assert config.dsn is not None  # RuntimeConfig checks it
    try:
        with psycopg.connect(config.dsn) as conn, conn.transaction():
            exists = conn.execute("SELECT to_regclass('remem_vector_collections')").fetchone()
            cids = (
                [r[0] for r in conn.execute("SELECT cid FROM remem_vector_collections")]
                if exists is not None and exists[0] is not None
                else []
            )
            for cid in cids:
                conn.execute(
                    sql.SQL("DROP TABLE IF EXISTS {} CASCADE").format(
                        sql.Identifier(f"remem_vectors_{cid}")
                    )
                )
            for table in POSTGRES_TABLES:
                conn.execute(
                    sql.SQL("DROP TABLE IF EXISTS {} CASCADE").format(sql.Identifier(table))
                )
            for function in POSTGRES_FUNCTIONS:
                conn.execute(
                    sql.SQL("DROP FUNCTION IF EXISTS {}() CASCADE").format(sql.Identifier(function))
                )
    except psycopg.Error as exc:
        raise BackendError(
            f"resetting the PostgreSQL memory failed (nothing dropped): {exc}"
        ) from exc
