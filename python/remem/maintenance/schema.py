"""``remem migrate``: the schema version of every component, on both backends, and the steps
that would bring each to this remem's.

    plan = schema_plan(config)        # read-only: opens nothing that migrates
    print(plan.describe())
    await apply_migrations(config)    # opens the memory once, which applies every step

Every store migrates itself when it opens (:mod:`remem.stores.postgres.migrations`,
:mod:`remem.stores.duckdb.database`, the SQLite stores' ``remem_schema`` table), each step in its
own transaction; this module reads those records without opening the stores — DuckDB files
read-only, SQLite through a plain connection, PostgreSQL in one read-only transaction — so a
preview changes nothing. A component whose stored version is newer than this remem's is shown
as such (opening it is refused: upgrade remem).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import duckdb

from remem.errors import BackendError
from remem.maintenance.errors import MaintenanceError
from remem.runtime import Runtime
from remem.runtime_config import RuntimeConfig

__all__ = ["ComponentSchema", "SchemaPlan", "apply_migrations", "schema_plan"]


@dataclass(frozen=True, slots=True)
class ComponentSchema:
    """One schema component: where it lives, its stored and latest versions, pending steps."""

    component: str
    location: str
    current: int
    latest: int
    pending: tuple[tuple[int, str], ...]
    """(version, description) of each step not yet applied, in order."""

    @property
    def newer(self) -> bool:
        return self.current > self.latest


@dataclass(frozen=True, slots=True)
class SchemaPlan:
    backend: str
    components: tuple[ComponentSchema, ...]

    @property
    def steps(self) -> int:
        return sum(len(c.pending) for c in self.components)

    def describe(self) -> str:
        lines = [f"schema of the {self.backend} memory:"]
        for c in self.components:
            state = "current"
            if c.newer:
                state = f"NEWER than this remem ({c.latest}); upgrade remem"
            elif c.pending:
                state = f"{len(c.pending)} step(s) to apply"
            lines.append(
                f"  {c.component:<12} {c.location:<28} v{c.current} of v{c.latest}  {state}"
            )
            lines += [f"      step v{v}: {d}" for v, d in c.pending]
        lines.append(
            "nothing to migrate"
            if not self.steps
            else f"{self.steps} step(s) pending; only the exact option --execute applies them"
        )
        return "\n".join(lines)


def _steps(applied: set[int], known: Sequence[tuple[int, str]]) -> tuple[tuple[int, str], ...]:
    return tuple((v, d) for v, d in known if v not in applied)


def _component(
    name: str, location: str, applied: set[int], known: Sequence[tuple[int, str]]
) -> ComponentSchema:
    latest = max(v for v, _ in known)
    return ComponentSchema(name, location, max(applied, default=0), latest, _steps(applied, known))


def schema_plan(config: RuntimeConfig) -> SchemaPlan:
    """Read every component's schema version (module docstring); changes nothing."""
    if config.backend == "postgres":
        return SchemaPlan("postgres", tuple(_postgres(config)))
    return SchemaPlan("embedded", tuple(_embedded(Path(config.path))))


async def apply_migrations(config: RuntimeConfig) -> SchemaPlan:
    """Apply every pending step (by opening the memory once) and return the plan after it,
    which must have none; MaintenanceError otherwise."""
    async with Runtime(config):
        pass
    after = schema_plan(config)
    if after.steps:
        raise MaintenanceError(
            f"{after.steps} schema step(s) are still pending after migrating; "
            "run `remem migrate` to see which"
        )
    return after


# -- embedded ---------------------------------------------------------------------------------


def _embedded(path: Path) -> list[ComponentSchema]:
    from remem.stores.duckdb import schema as memory_schema
    from remem.stores.duckdb.blocks import COMPONENT as BLOCKS
    from remem.stores.duckdb.blocks import MIGRATIONS as BLOCK_MIGRATIONS
    from remem.stores.hnsw.tables import SCHEMA_VERSION as VECTORS
    from remem.stores.sqlite.episodic import SCHEMA_VERSION as EPISODIC
    from remem.stores.sqlite.transcript import SCHEMA_VERSION as TRANSCRIPT
    from remem.writebehind.file import SCHEMA_VERSION as WRITEBEHIND

    memory = path / "memory.duckdb"
    applied = _duckdb_applied(memory, [memory_schema.COMPONENT, BLOCKS])
    out = [
        _component(
            "records",
            "memory.duckdb",
            applied[memory_schema.COMPONENT],
            _pairs(memory_schema.MIGRATIONS),
        ),
        _component("blocks", "memory.duckdb", applied[BLOCKS], _pairs(BLOCK_MIGRATIONS)),
    ]
    vectors = _duckdb_meta(path / "vectors" / "vectors.duckdb")
    out.append(_component("vectors", "vectors/vectors.duckdb", vectors, _creation(VECTORS)))
    for name, file, version in (
        ("transcript", "transcript.db", TRANSCRIPT),
        ("episodic", "episodic.db", EPISODIC),
        ("writebehind", "writebehind.db", WRITEBEHIND),
    ):
        out.append(_component(name, file, _sqlite_applied(path / file, name), _creation(version)))
    return out


def _pairs(migrations: Sequence[tuple[int, str, str]]) -> list[tuple[int, str]]:
    return [(v, d) for v, d, _ in migrations]


def _creation(version: int) -> list[tuple[int, str]]:
    """A component versioned by one number: each version up to it is one step."""
    return [
        (v, "create the tables" if v == 1 else f"upgrade to v{v}") for v in range(1, version + 1)
    ]


def _duckdb_connect(file: Path) -> duckdb.DuckDBPyConnection:
    try:
        return duckdb.connect(str(file), read_only=True)
    except duckdb.Error as exc:
        raise BackendError(
            f"cannot read {file} ({exc}); close the process that has the memory open "
            "(or, inside `remem chat`, use /migrate, which closes it first)"
        ) from exc


def _duckdb_applied(file: Path, components: Sequence[str]) -> dict[str, set[int]]:
    out: dict[str, set[int]] = {c: set() for c in components}
    if not file.is_file():
        return out
    conn = _duckdb_connect(file)
    try:
        rows = conn.execute("SELECT component, version FROM remem_schema_migrations").fetchall()
    except duckdb.CatalogException:
        rows = []
    finally:
        conn.close()
    for component, version in rows:
        out.setdefault(str(component), set()).add(int(version))
    return out


def _duckdb_meta(file: Path) -> set[int]:
    if not file.is_file():
        return set()
    conn = _duckdb_connect(file)
    try:
        row = conn.execute("SELECT value FROM remem_meta WHERE key = 'schema'").fetchone()
    except duckdb.CatalogException:
        row = None
    finally:
        conn.close()
    return set() if row is None else set(range(1, int(row[0]) + 1))


def _sqlite_applied(file: Path, component: str) -> set[int]:
    if not file.is_file():
        return set()
    try:
        conn = sqlite3.connect(f"file:{file}?mode=ro", uri=True)
        try:
            row = conn.execute(
                "SELECT version FROM remem_schema WHERE component = ?", (component,)
            ).fetchone()
        finally:
            conn.close()
    except sqlite3.OperationalError as exc:
        if "no such table" in str(exc):
            return set()
        raise BackendError(f"cannot read {file} ({exc}); is it a remem database?") from exc
    return set() if row is None else set(range(1, int(row[0]) + 1))


# -- postgres ---------------------------------------------------------------------------------


def _postgres(config: RuntimeConfig) -> list[ComponentSchema]:
    import psycopg

    from remem.stores.postgres.blocks import BLOCK_MIGRATIONS
    from remem.stores.postgres.episodic import MIGRATIONS as EPISODIC
    from remem.stores.postgres.schema import GRAPH_MIGRATIONS, RECORD_MIGRATIONS
    from remem.stores.postgres.transcript import MIGRATIONS as TRANSCRIPT
    from remem.stores.postgres.vector_schema import MIGRATIONS as VECTORS

    known = {
        "transcript": TRANSCRIPT,
        "episodic": EPISODIC,
        "graph": GRAPH_MIGRATIONS,
        "records": RECORD_MIGRATIONS,
        "blocks": BLOCK_MIGRATIONS,
        "vectors": VECTORS,
    }
    assert config.dsn is not None  # RuntimeConfig checks it
    try:
        with psycopg.connect(config.dsn) as conn:
            conn.read_only = True
            exists = conn.execute("SELECT to_regclass('remem_schema_migrations')").fetchone()
            rows = (
                conn.execute("SELECT component, version FROM remem_schema_migrations").fetchall()
                if exists is not None and exists[0] is not None
                else []
            )
    except psycopg.Error as exc:
        raise BackendError(f"cannot read the PostgreSQL schema versions: {exc}") from exc
    applied: dict[str, set[int]] = {name: set() for name in known}
    for component, version in rows:
        applied.setdefault(str(component), set()).add(int(version))
    return [
        _component(
            name,
            "remem_schema_migrations",
            applied[name],
            [(m.version, m.description) for m in migrations],
        )
        for name, migrations in known.items()
    ]
