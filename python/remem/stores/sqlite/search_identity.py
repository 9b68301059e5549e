"""Which normalisation built an episodic file's full-text index; re-indexing when it changes.

A stored ``search_text`` is derived from the stored ``text`` by
:meth:`~remem.stores.shared.search_text.FullTextConfig.search_text`; when remem indexes differently
(a new :data:`~remem.stores.shared.search_text.NORMALISATION_VERSION`, another stemming language),
the old index and the new queries no longer meet ("hike" is searched, "hiking" was indexed). So the
config's ``identity`` is stored in ``episodic_search_identity``, and a store opening a file built
with another one recomputes every row's ``search_text`` from its ``text`` and rebuilds the FTS5
table — in the schema transaction (``BEGIN IMMEDIATE``), so other processes wait and see either the
old index or the new one, and a crash leaves the old one. Only the derived column changes: ids,
texts, times and metadata are untouched. A file with rows but no identity was indexed by remem
before stemming (:data:`LEGACY_IDENTITY`).

Cost: one pass over the table (measured ~1 s per 50k turns); it happens once per change.

A process that already searched the file from an in-memory index before another process
re-indexed it keeps its old copy until it reopens the store (rows are immutable, so nothing
tells it); re-indexing is an upgrade step, not a live operation.
"""

from __future__ import annotations

import sqlite3

from remem.stores.shared.search_text import FullTextConfig

__all__ = ["IDENTITY_SCHEMA", "LEGACY_IDENTITY", "ensure_search_identity", "stored_identity"]

LEGACY_IDENTITY = "remem-search-text-1:none"
"""What built an index before identities were stored: folding and CJK bigrams, no stemming."""

IDENTITY_SCHEMA = """CREATE TABLE IF NOT EXISTS episodic_search_identity (
    id       INTEGER PRIMARY KEY CHECK (id = 1),
    identity TEXT NOT NULL
)"""

_BATCH = 2_000


def stored_identity(conn: sqlite3.Connection) -> str | None:
    """The identity the file's index was built with; None for a file without rows or identity
    (nothing to re-index)."""
    row = conn.execute("SELECT identity FROM episodic_search_identity").fetchone()
    if row is not None:
        return str(row[0])
    if conn.execute("SELECT 1 FROM episodic_items LIMIT 1").fetchone() is not None:
        return LEGACY_IDENTITY
    return None


def ensure_search_identity(
    conn: sqlite3.Connection, config: FullTextConfig, *, immutable_trigger: str
) -> int:
    """Re-index the file if its index was built with another identity than ``config``'s, and
    record ``config.identity``; returns the rows re-indexed (0 when nothing changed).

    Call inside a write transaction. ``immutable_trigger`` is the statement that recreates the
    trigger forbidding UPDATEs, which is dropped while ``search_text`` is rewritten.
    """
    current = stored_identity(conn)
    if current == config.identity:
        return 0
    count = 0
    if current is not None:
        count = _reindex(conn, config)
        conn.execute(immutable_trigger)
    conn.execute(
        "INSERT OR REPLACE INTO episodic_search_identity (id, identity) VALUES (1, ?)",
        (config.identity,),
    )
    return count


def _reindex(conn: sqlite3.Connection, config: FullTextConfig) -> int:
    conn.execute("DROP TRIGGER IF EXISTS episodic_items_immutable")
    last, count = 0, 0
    while rows := conn.execute(
        "SELECT seq, text FROM episodic_items WHERE seq > ? ORDER BY seq LIMIT ?", (last, _BATCH)
    ).fetchall():
        conn.executemany(
            "UPDATE episodic_items SET search_text = ? WHERE seq = ?",
            [(config.search_text(text), seq) for seq, text in rows],
        )
        last, count = rows[-1][0], count + len(rows)
    # External-content FTS5: 'rebuild' re-reads every row's search_text.
    conn.execute("INSERT INTO episodic_fts (episodic_fts) VALUES ('rebuild')")
    return count
