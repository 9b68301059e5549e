"""How DuckDBRecordStore inserts a few rows: bound parameters, and the duplicate-id refusal.

Each DuckDB statement costs ~0.3 ms however small, so for a handful of rows (a single
``remember``) binding parameters beats the bulk path (register a numpy view, check, insert,
unregister), which wins from larger batches on.
"""

from __future__ import annotations

from remem.stores.base.records import refuse_existing
from remem.stores.duckdb.database import Conn
from remem.stores.shared.record_rows import RECORD_COLUMNS

BOUND_ROWS = 8
"""Up to this many rows, ``put`` binds parameters instead of registering a numpy view."""

_COLS = ", ".join(RECORD_COLUMNS)


def put_bound(conn: Conn, rows: list[tuple[object, ...]]) -> None:
    """``put`` of a few rows with bound parameters: two statements instead of the bulk path's
    four (register, check, insert, unregister) — each DuckDB statement costs ~0.3 ms however
    small, which made a single ``remember`` spend most of its time here."""
    ids = [r[0] for r in rows]
    marks = ", ".join("?" * len(ids))
    existing = conn.execute(
        f"SELECT id FROM memory_records WHERE id IN ({marks}) ORDER BY id LIMIT 10", ids
    ).fetchall()
    refuse_existing([r[0] for r in existing])
    one = "(" + ", ".join("?" * len(RECORD_COLUMNS)) + ")"
    conn.execute(
        f"INSERT INTO memory_records ({_COLS}) VALUES " + ", ".join([one] * len(rows)),
        [_bound(v) for row in rows for v in row],
    )


def _bound(value: object) -> object:
    # A tuple would bind as a STRUCT; the list columns want a LIST.
    return list(value) if isinstance(value, tuple) else value
