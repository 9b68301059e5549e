"""The logical tables of the portable export and where each lives on either backend.

A portable row is a JSON object whose values are backend-neutral: times are integer
microseconds since the UNIX epoch (UTC), JSON columns are parsed values, arrays are lists, a
day is ``YYYY-MM-DD``. Each table names its embedded home (file, table, column names — SQLite
keeps times in ``*_us`` columns) and its PostgreSQL table; the column list is the same on both.

===================  ===========================================  ============================
table                embedded                                     PostgreSQL
===================  ===========================================  ============================
sessions             transcript.db ``transcript_sessions``        ``remem_transcript_sessions``
turns                transcript.db ``transcript_entries``         ``remem_transcript_entries``
episodes             episodic.db ``episodic_items``               ``remem_episodes``
day_summaries        episodic.db ``episodic_day_summaries``       ``remem_day_summaries``
memories             memory.duckdb ``memory_records``             ``memory_records``
entities             memory.duckdb ``graph_entities``             ``graph_entities``
entity_aliases       memory.duckdb ``graph_entity_aliases``       ``graph_entity_aliases``
relationships        memory.duckdb ``graph_relationships``        ``graph_relationships``
blocks               memory.duckdb ``core_blocks``                ``core_blocks``
block_history        memory.duckdb ``core_block_history``         ``core_block_history``
===================  ===========================================  ============================

Memories carry their lifecycle (stage, scores, access counts, promotion) and provenance
columns, and supersession chains through ``superseded_by`` / ``valid_from`` / ``valid_to``.
Vectors are not a table here: they go through the vector store (:mod:`remem.recovery.portable`).
Rows keep their stored order (``seq`` where the backend has one), which is the order they are
inserted back in.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_US = timedelta(microseconds=1)

TEXT, INT, FLOAT, BOOL, TIME, JSON, LIST, DAY = (
    "text",
    "int",
    "float",
    "bool",
    "time",
    "json",
    "list",
    "day",
)


@dataclass(frozen=True, slots=True)
class Column:
    name: str
    kind: str
    sqlite_name: str | None = None
    """The column's name in a SQLite file where it differs (``created_at_us``)."""
    absent: Any = None
    """What an export written before the column existed implies (None: the column is
    required) — the value the stores' own migration gives old rows."""

    def value(self, row: dict[str, Any]) -> Any:
        if self.absent is not None and self.name not in row:
            return self.absent
        return row[self.name]

    def embedded(self, file: str) -> str:
        return self.sqlite_name if file.endswith(".db") and self.sqlite_name else self.name


@dataclass(frozen=True, slots=True)
class PortableTable:
    name: str
    file: str
    """The embedded file, relative to the memory directory."""
    embedded_table: str
    postgres_table: str
    columns: tuple[Column, ...]
    order_by: str
    """An ORDER BY clause valid on both backends (the stored order)."""

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)

    def embedded_select(self) -> str:
        cols = ", ".join(c.embedded(self.file) for c in self.columns)
        return f"SELECT {cols} FROM {self.embedded_table} ORDER BY {self.order_by}"

    def embedded_insert(self, placeholder: str) -> str:
        cols = ", ".join(c.embedded(self.file) for c in self.columns)
        marks = ", ".join(placeholder for _ in self.columns)
        return f"INSERT INTO {self.embedded_table} ({cols}) VALUES ({marks})"

    def postgres_select(self) -> str:
        cols = ", ".join(self.names)
        return f"SELECT {cols} FROM {self.postgres_table} ORDER BY {self.order_by}"

    def postgres_insert(self) -> str:
        cols = ", ".join(self.names)
        marks = ", ".join("%s" for _ in self.columns)
        return f"INSERT INTO {self.postgres_table} ({cols}) VALUES ({marks})"

    # -- values -------------------------------------------------------------------------------

    def from_embedded(self, row: tuple[Any, ...]) -> dict[str, Any]:
        return {c.name: _from_embedded(c.kind, v) for c, v in zip(self.columns, row, strict=True)}

    def from_postgres(self, row: tuple[Any, ...]) -> dict[str, Any]:
        return {c.name: _from_postgres(c.kind, v) for c, v in zip(self.columns, row, strict=True)}

    def to_embedded(self, row: dict[str, Any]) -> tuple[Any, ...]:
        return tuple(_to_embedded(c.kind, c.value(row)) for c in self.columns)

    def to_postgres(self, row: dict[str, Any]) -> tuple[Any, ...]:
        return tuple(_to_postgres(c.kind, c.value(row)) for c in self.columns)


def dump_json(value: object) -> str:
    """JSON text as the stores write it (compact, UTF-8 kept)."""
    return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def us_of(moment: datetime) -> int:
    return (moment - EPOCH) // _US


def moment_of(us: int) -> datetime:
    return EPOCH + us * _US


def _from_embedded(kind: str, value: Any) -> Any:
    if value is None:
        return None
    if kind == JSON:
        return json.loads(value)
    if kind == LIST:
        return list(value)
    if kind == BOOL:
        return bool(value)
    if kind == FLOAT:
        return float(value)
    if kind in (INT, TIME):
        return int(value)
    return value


def _from_postgres(kind: str, value: Any) -> Any:
    if value is None:
        return None
    if kind == TIME:
        return us_of(value)
    if kind == DAY:
        return value.isoformat() if isinstance(value, date) else str(value)
    if kind == JSON and isinstance(value, str):
        return json.loads(value)
    return _from_embedded(kind, value) if kind != JSON else value


def _to_embedded(kind: str, value: Any) -> Any:
    if value is None:
        return None
    if kind == JSON:
        return dump_json(value)
    return value


def _to_postgres(kind: str, value: Any) -> Any:
    from psycopg.types.json import Json

    if value is None:
        return None
    if kind == TIME:
        return moment_of(value)
    if kind == DAY:
        return date.fromisoformat(value)
    if kind == JSON:
        return Json(value, dumps=dump_json)
    return value


def _c(name: str, kind: str = TEXT, sqlite_name: str | None = None) -> Column:
    return Column(name, kind, sqlite_name)


_CREATED_US = _c("created_at", TIME, "created_at_us")

TABLES: tuple[PortableTable, ...] = (
    PortableTable(
        "sessions",
        "transcript.db",
        "transcript_sessions",
        "remem_transcript_sessions",
        (
            _c("session_id"),
            _c("model_name"),
            _c("title"),
            _CREATED_US,
            _c("metadata", JSON),
            # The session's scope; exports from before sessions had one imply 'default'.
            Column("namespace", TEXT, absent="default"),
        ),
        "session_id",
    ),
    PortableTable(
        "turns",
        "transcript.db",
        "transcript_entries",
        "remem_transcript_entries",
        (
            _c("id"),
            _c("session_id"),
            _c("turn_number", INT),
            _c("user_message"),
            _c("assistant_message"),
            _CREATED_US,
            _c("metadata", JSON),
        ),
        "seq",
    ),
    PortableTable(
        "episodes",
        "episodic.db",
        "episodic_items",
        "remem_episodes",
        (
            _c("id"),
            _c("kind"),
            _c("session_id"),
            _c("turn_number", INT),
            _c("user_message"),
            _c("assistant_message"),
            _c("text"),
            _CREATED_US,
            _c("metadata", JSON),
            _c("search_text"),
            # The episode's scope; exports from before episodes had one imply 'default'.
            Column("namespace", TEXT, absent="default"),
        ),
        "seq",
    ),
    PortableTable(
        "day_summaries",
        "episodic.db",
        "episodic_day_summaries",
        "remem_day_summaries",
        (
            _c("session_id"),
            _c("timezone"),
            _c("day", DAY),
            _c("text"),
            _c("turn_count", INT),
            _c("first_turn", INT),
            _c("last_turn", INT),
            _CREATED_US,
        ),
        "session_id, timezone, day",
    ),
    PortableTable(
        "memories",
        "memory.duckdb",
        "memory_records",
        "memory_records",
        (
            _c("id"),
            _c("text"),
            _c("kind"),
            _c("namespace"),
            _c("session_id"),
            _c("stage"),
            _c("base_score", FLOAT),
            _c("score_reference_time", TIME),
            _c("created_at", TIME),
            _c("accessed_at", TIME),
            _c("promoted_at", TIME),
            _c("decayed_at", TIME),
            _c("access_count", INT),
            _c("promotion_state"),
            _c("protected", BOOL),
            _c("source_id"),
            _c("source_type"),
            _c("author_id"),
            _c("confidence", FLOAT),
            _c("provenance_created_at", TIME),
            _c("parent_ids", LIST),
            _c("metadata", JSON),
            _c("entity_ids", LIST),
            _c("superseded_by"),
            _c("valid_from", TIME),
            _c("valid_to", TIME),
        ),
        "id",
    ),
    PortableTable(
        "entities",
        "memory.duckdb",
        "graph_entities",
        "graph_entities",
        (
            _c("id"),
            _c("name"),
            _c("name_norm"),
            _c("entity_type"),
            _c("aliases", LIST),
            _c("attributes", JSON),
            _c("namespace"),
            _c("access_count", INT),
            _c("provenance", JSON),
            _c("created_at", TIME),
            _c("updated_at", TIME),
        ),
        "id",
    ),
    PortableTable(
        "entity_aliases",
        "memory.duckdb",
        "graph_entity_aliases",
        "graph_entity_aliases",
        (_c("entity_id"), _c("alias_norm")),
        "entity_id, alias_norm",
    ),
    PortableTable(
        "relationships",
        "memory.duckdb",
        "graph_relationships",
        "graph_relationships",
        (
            _c("id"),
            _c("source_id"),
            _c("target_id"),
            _c("relation_type"),
            _c("attributes", JSON),
            _c("namespace"),
            _c("valid_from", TIME),
            _c("valid_to", TIME),
            _c("superseded_by"),
            _c("access_count", INT),
            _c("provenance", JSON),
            _c("created_at", TIME),
        ),
        "id",
    ),
    PortableTable(
        "blocks",
        "memory.duckdb",
        "core_blocks",
        "core_blocks",
        (
            _c("namespace"),
            _c("label"),
            _c("entries", LIST),
            _c("revision", INT),
            _c("updated_at", TIME),
        ),
        "namespace, label",
    ),
    PortableTable(
        "block_history",
        "memory.duckdb",
        "core_block_history",
        "core_block_history",
        (
            _c("namespace"),
            _c("label"),
            _c("revision", INT),
            _c("seq", INT),
            _c("edited_at", TIME),
            _c("actor"),
            _c("op"),
            _c("entry_before"),
            _c("entry_after"),
            _c("size_before", INT),
            _c("size_after", INT),
        ),
        "namespace, label, revision, seq",
    ),
)
"""Every logical table, in the order an import writes them (sessions before their turns)."""

TABLE_NAMES = tuple(t.name for t in TABLES)
