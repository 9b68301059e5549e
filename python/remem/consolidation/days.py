"""Day summaries: one :class:`DaySummary` per (session, local calendar day) with turns.

**Consolidated**, concretely: a day is consolidated when the episodic store holds a summary for
it whose ``turn_count``, ``first_turn`` and ``last_turn`` equal those of the day's turns now.
That triple is the watermark: a turn added to the day since (a later turn, or a late one with
an earlier number) changes it, and the day is summarised again (the summary is replaced). A
day whose summarisation failed has no summary written, so it is not consolidated and the next
run retries exactly that day; days already consolidated are never sent to the model again.

Days are calendar days in the consolidator's timezone, which must be the episodic store's
(the store groups the turns and refuses summaries in another timezone): a turn at 23:59 and
one at 00:01 local time are on different days, and across a DST change a day is 23 or 25
hours long.

With a brain, a day costs one ``complete`` call (prompt: :mod:`.prompt`); a
:class:`~remem.errors.BrainError` or an empty answer is a failure for that day only. Without
a brain, the summary is extractive (:mod:`.extractive`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date, datetime
from zoneinfo import ZoneInfo

from remem.brains import Brain
from remem.consolidation.extractive import extractive_summary
from remem.consolidation.prompt import SUMMARY_MAX_TOKENS, summary_messages
from remem.consolidation.report import ConsolidationFailure, SummaryRun
from remem.errors import BrainError
from remem.models import DaySummary, TranscriptEntry
from remem.stores.episodic import EpisodicStore

MAX_SUMMARY_CHARS = 8_000
"""A longer model answer is cut here (a runaway answer must not become a huge memory)."""


def is_consolidated(summary: DaySummary | None, entries: Sequence[TranscriptEntry]) -> bool:
    """Whether ``summary`` covers exactly the day's ``entries`` (see the module docstring)."""
    if summary is None or not entries:
        return False
    numbers = [e.turn_number for e in entries]
    return (summary.turn_count, summary.first_turn, summary.last_turn) == (
        len(entries),
        min(numbers),
        max(numbers),
    )


class DaySummariser:
    """Writes the missing or stale day summaries of a session (see the module docstring)."""

    def __init__(
        self,
        episodic: EpisodicStore,
        *,
        brain: Brain | None,
        zone: ZoneInfo,
        now: Callable[[], datetime],
    ) -> None:
        self.episodic = episodic
        self.brain = brain
        self.zone = zone
        self._now = now

    async def run(self, session_id: str) -> SummaryRun:
        days = await self.episodic.days(session_id)
        existing = {s.day: s for s in await self.episodic.get_day_summaries(session_id)}
        written: list[DaySummary] = []
        current: list[date] = []
        failures: list[ConsolidationFailure] = []
        for day, entries in days.items():
            if is_consolidated(existing.get(day), entries):
                current.append(day)
                continue
            try:
                text = await self._summary_text(day, entries)
            except BrainError as exc:
                failures.append(
                    ConsolidationFailure(
                        "summary", session_id, day, tuple(e.id for e in entries), exc
                    )
                )
                continue
            numbers = [e.turn_number for e in entries]
            summary = DaySummary(
                session_id=session_id,
                day=day,
                timezone=self.zone.key,
                text=text,
                turn_count=len(entries),
                first_turn=min(numbers),
                last_turn=max(numbers),
                created_at=self._now(),
            )
            await self.episodic.put_day_summary(summary)
            written.append(summary)
        return SummaryRun(session_id, tuple(written), tuple(current), tuple(failures))

    async def _summary_text(self, day: date, entries: Sequence[TranscriptEntry]) -> str:
        if self.brain is None:
            text = extractive_summary(entries)
            if not text:
                raise BrainError(f"the turns of {day.isoformat()} have no words to summarise")
            return text
        completion = await self.brain.complete(
            summary_messages(day, entries, self.zone), max_tokens=SUMMARY_MAX_TOKENS
        )
        text = completion.text.strip()
        if not text:
            raise BrainError(
                f"the model answered the summary of {day.isoformat()} with no text; the day "
                "will be summarised again on the next run"
            )
        return text[:MAX_SUMMARY_CHARS]
