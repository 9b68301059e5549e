"""Real memory directories for the recovery tests, and what compares two of them."""

from __future__ import annotations

import hashlib
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb

import remem
from remem.models import ManualClock

T0 = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
QUERIES = ("fact about cats", "where did Ada move", "number 7")


def open_runtime(path: Path) -> remem.Runtime:
    return remem.Runtime.open(path, embedding_provider="hashing", clock=ManualClock(T0))


async def build_memory(path: Path, memories: int = 40) -> None:
    """A closed directory with turns, memories (vectors, full-text) and a core block."""
    async with open_runtime(path) as rt:
        for i in range(5):
            await rt.controller.record_turn("s1", f"Ada moved to city {i}", f"Noted, city {i}.")
        await rt.controller.remember_many(
            [f"fact number {i} about cats and {i % 7} dogs" for i in range(memories)]
        )


async def recalled(path: Path) -> list[list[tuple[str, str, float]]]:
    """What a Runtime opened on ``path`` recalls for :data:`QUERIES`."""
    async with open_runtime(path) as rt:
        return [
            [(h.record.id, h.record.text, round(h.score, 9)) for h in await rt.controller.recall(q)]
            for q in QUERIES
        ]


def file_digests(path: Path) -> dict[str, str]:
    return {
        p.relative_to(path).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(path.rglob("*"))
        if p.is_file()
    }


def entries(path: Path) -> list[str]:
    """The names in ``path``, sorted (a partial or temporary directory would show here)."""
    return sorted(p.name for p in path.iterdir())


def _sorted(rows: list[tuple[Any, ...]]) -> list[str]:
    return sorted(repr(r) for r in rows)


def table_rows(path: Path) -> dict[str, dict[str, list[str]]]:
    """Every row of every table of every database file under ``path`` (sorted reprs)."""
    out: dict[str, dict[str, list[str]]] = {}
    for file in sorted(path.rglob("*.db")):
        conn = sqlite3.connect(file)
        try:
            names = [
                r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            ]
            out[file.relative_to(path).as_posix()] = {
                n: _sorted(conn.execute(f'SELECT * FROM "{n}"').fetchall()) for n in names
            }
        finally:
            conn.close()
    for file in sorted(path.rglob("*.duckdb")):
        ddb = duckdb.connect(str(file), read_only=True)
        try:
            names = [
                r[0]
                for r in ddb.execute(
                    "SELECT table_name FROM information_schema.tables "
                    "WHERE table_type = 'BASE TABLE'"
                ).fetchall()
            ]
            out[file.relative_to(path).as_posix()] = {
                n: _sorted(ddb.execute(f'SELECT * FROM "{n}"').fetchall()) for n in names
            }
        finally:
            ddb.close()
    return out
