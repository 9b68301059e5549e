"""Rows of the SQLite episodic items: a note's row, the refusal of changed content, entries back."""

from __future__ import annotations

import sqlite3
from typing import Any

from remem.errors import DuplicateIdError
from remem.models import EpisodeKind, TranscriptEntry
from remem.stores.base.transcript import stored_entry
from remem.stores.episodic import NoteInput, turn_text
from remem.stores.shared.search_text import FullTextConfig
from remem.stores.sqlite.codec import dump_metadata, from_micros, load_metadata, to_micros
from remem.stores.sqlite.episodic_schema import COLUMNS

Row = tuple[Any, ...]


def new_rows(conn: sqlite3.Connection, rows: list[Row]) -> list[Row]:
    """Rows not stored yet; DuplicateIdError if an id exists (or repeats) with other content."""
    fresh: dict[object, Row] = {}
    for row in rows:
        # search_text (last column) is derived; identity is the content before it.
        if row[0] in fresh:
            same = fresh[row[0]][:-1] == row[:-1]
        else:
            stored = conn.execute(
                f"SELECT {COLUMNS} FROM episodic_items WHERE id = ?", (row[0],)
            ).fetchone()
            if stored is None:
                fresh[row[0]] = row
                continue
            same = tuple(stored)[:-1] == row[:-1]
        if not same:
            raise DuplicateIdError(
                f"episode {row[0]!r} already exists with other content; episodes are immutable, "
                "use a new id"
            )
    return list(fresh.values())


def turn_row(entry: TranscriptEntry, full_text: FullTextConfig, namespace: str) -> Row:
    text = turn_text(entry)
    return (
        entry.id,
        EpisodeKind.TURN.value,
        entry.session_id,
        entry.turn_number,
        entry.user_message,
        entry.assistant_message,
        text,
        to_micros(entry.created_at),
        dump_metadata(entry.metadata),
        namespace,
        full_text.search_text(text),
    )


def note_row(note: NoteInput, full_text: FullTextConfig) -> Row:
    return (
        note.note_id,
        EpisodeKind.NOTE.value,
        note.session_id,
        None,
        None,
        None,
        note.text,
        to_micros(note.created_at),
        dump_metadata(note.metadata),
        note.namespace,
        full_text.search_text(note.text),
    )


def entry_from_row(row: Row) -> TranscriptEntry:
    id_, session_id, turn, user, assistant, created_at_us, metadata = row
    return stored_entry(
        id_, session_id, turn, user, assistant, from_micros(created_at_us), load_metadata(metadata)
    )
