"""The SQL of DuckDBRecordStore's reads by id: a point read, and the cache warm-up."""

from __future__ import annotations

from remem.stores.shared.record_rows import RECORD_COLUMNS

_COLS = ", ".join(RECORD_COLUMNS)

LITERAL_IN_LIMIT = 512
"""Up to this many ids, a read lists them as constants (an index lookup); above, a join."""


def rows_by_id(ids: list[str]) -> tuple[str, list[object]]:
    """(sql, params) reading the rows of ``ids`` (validated id strings)."""
    if len(ids) <= LITERAL_IN_LIMIT:
        # A constant IN list is answered from the primary-key index (~4x faster at 10k rows
        # than the join a bound list makes, which decodes every row's columns). Ids are
        # validated strings, quoted the SQL way.
        listed = ", ".join("'" + i.replace("'", "''") + "'" for i in ids)
        return f"SELECT {_COLS} FROM memory_records WHERE id IN ({listed})", []
    return (
        f"SELECT {_COLS} FROM memory_records WHERE id IN (SELECT unnest(?::VARCHAR[]))",
        [ids],
    )


def newest_live_rows(limit: int) -> str:
    """The ``limit`` newest live (short- or long-term, not superseded) rows, oldest first."""
    live = "superseded_by IS NULL AND stage IN ('short_term', 'long_term')"
    return (
        f"SELECT {_COLS} FROM (SELECT {_COLS} FROM memory_records WHERE {live} "
        f"ORDER BY created_at DESC, id DESC LIMIT {int(limit)}) ORDER BY created_at, id"
    )
