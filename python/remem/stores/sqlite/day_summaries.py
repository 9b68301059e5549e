"""Day summaries in the SQLite episodic file: the row of a summary, and a summary from a row."""

from __future__ import annotations

from datetime import date
from typing import Any

from remem.models import DaySummary
from remem.stores.sqlite.codec import from_micros, to_micros

PUT_SUMMARY_SQL = "INSERT OR REPLACE INTO episodic_day_summaries VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
SUMMARIES_SQL = (
    "SELECT session_id, timezone, day, text, turn_count, first_turn, last_turn, "
    "created_at_us FROM episodic_day_summaries WHERE session_id = ? AND timezone = ? "
    "ORDER BY day"
)


def summary_row(summary: DaySummary) -> tuple[object, ...]:
    return (
        summary.session_id,
        summary.timezone,
        summary.day.isoformat(),
        summary.text,
        summary.turn_count,
        summary.first_turn,
        summary.last_turn,
        to_micros(summary.created_at),
    )


def summary_from_row(r: tuple[Any, ...]) -> DaySummary:
    return DaySummary(
        session_id=r[0],
        timezone=r[1],
        day=date.fromisoformat(r[2]),
        text=r[3],
        turn_count=r[4],
        first_turn=r[5],
        last_turn=r[6],
        created_at=from_micros(r[7]),
    )
