"""The SQLite episodic file's schema: items (turns and notes), their FTS5 index, day summaries."""

from __future__ import annotations

import sqlite3

from remem.stores.sqlite.search_identity import IDENTITY_SCHEMA

IMMUTABLE = """CREATE TRIGGER IF NOT EXISTS episodic_items_immutable
    BEFORE UPDATE ON episodic_items BEGIN SELECT RAISE(ABORT, 'episodes are immutable'); END"""
SCHEMA = (
    """CREATE TABLE IF NOT EXISTS episodic_items (
        seq               INTEGER PRIMARY KEY,
        id                TEXT NOT NULL UNIQUE,
        kind              TEXT NOT NULL,
        session_id        TEXT,
        turn_number       INTEGER,
        user_message      TEXT,
        assistant_message TEXT,
        text              TEXT NOT NULL,
        created_at_us     INTEGER NOT NULL,
        metadata          TEXT NOT NULL,
        search_text       TEXT NOT NULL,
        namespace         TEXT NOT NULL DEFAULT 'default'
    )""",
    """CREATE UNIQUE INDEX IF NOT EXISTS episodic_items_turn
        ON episodic_items (session_id, turn_number) WHERE kind = 'turn'""",
    # External-content FTS5 over the normalised search_text (see remem.stores.shared.search_text);
    # unicode61 then only splits on non-word characters; bm25 ranks.
    """CREATE VIRTUAL TABLE IF NOT EXISTS episodic_fts USING fts5(
        search_text, content='episodic_items', content_rowid='seq',
        tokenize='unicode61 remove_diacritics 2'
    )""",
    """CREATE TRIGGER IF NOT EXISTS episodic_items_indexed AFTER INSERT ON episodic_items
        BEGIN
            INSERT INTO episodic_fts (rowid, search_text) VALUES (new.seq, new.search_text);
        END""",
    IMMUTABLE,
    IDENTITY_SCHEMA,
    """CREATE TABLE IF NOT EXISTS episodic_day_summaries (
        session_id    TEXT NOT NULL,
        timezone      TEXT NOT NULL,
        day           TEXT NOT NULL,
        text          TEXT NOT NULL,
        turn_count    INTEGER NOT NULL,
        first_turn    INTEGER,
        last_turn     INTEGER,
        created_at_us INTEGER NOT NULL,
        PRIMARY KEY (session_id, timezone, day)
    )""",
)
COLUMNS = (
    "id, kind, session_id, turn_number, user_message, assistant_message, text, created_at_us, "
    "metadata, namespace, search_text"
)
"""The stored columns; ``search_text`` is last (derived, so left out of content identity)."""


def add_namespaces(conn: sqlite3.Connection, *, immutable_trigger: str) -> None:
    """v1 → v2: the items' ``namespace`` column and index. Turns of a v1 file go to
    ``'default'``; a memory's note takes the namespace its metadata recorded (``note_of`` always
    wrote it), so migrated notes stay in their memory's scope. A no-op once done."""
    columns = {row[1] for row in conn.execute("PRAGMA table_info(episodic_items)")}
    if "namespace" not in columns:
        conn.execute(
            "ALTER TABLE episodic_items ADD COLUMN namespace TEXT NOT NULL DEFAULT 'default'"
        )
        conn.execute("DROP TRIGGER IF EXISTS episodic_items_immutable")
        conn.execute(
            "UPDATE episodic_items SET namespace = json_extract(metadata, '$.namespace') "
            "WHERE kind = 'note' AND json_valid(metadata) "
            "AND json_type(metadata, '$.namespace') = 'text' "
            "AND length(json_extract(metadata, '$.namespace')) BETWEEN 1 AND 512"
        )
        conn.execute(immutable_trigger)
    conn.execute(
        "CREATE INDEX IF NOT EXISTS episodic_items_namespace "
        "ON episodic_items (namespace, session_id)"
    )
