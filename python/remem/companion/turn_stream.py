"""TurnStream: a companion turn whose reply is read as it is produced.

:meth:`Companion.stream_turn <remem.companion.Companion.stream_turn>` returns one. It is a
:class:`~remem.brains.DeltaStream` of the reply's text deltas whose ``result`` is the
:class:`~remem.companion.TurnResult`, recorded exactly once, after the last delta. Two flags
say where the turn stands, for a front end deciding what a Ctrl-C may still stop:
:attr:`TurnStream.replied` (the reply is whole; the turn is being written and extracted,
which a cancellation no longer cuts short) and :attr:`TurnStream.cancelled_entry` (the turn
was cancelled during the reply: the transcript entry that keeps the user's message).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from remem.brains import DeltaStream, Done
from remem.models import TranscriptEntry

if TYPE_CHECKING:
    from remem.companion.companion import TurnResult

__all__ = ["CANCELLED_REPLY", "TurnProgress", "TurnStream"]

CANCELLED_REPLY = "cancelled"
"""``metadata["reply"]`` of a turn whose reply was cancelled; its assistant message is ""."""


@dataclass
class TurnProgress:
    """Where a streamed turn stands (written by the companion, read through the stream)."""

    replied: bool = False
    cancelled_entry: TranscriptEntry | None = None


class TurnStream(DeltaStream["TurnResult"]):
    """The deltas of one turn's reply, then its TurnResult (module docstring)."""

    def __init__(
        self, source: AsyncGenerator[str | Done[TurnResult], None], progress: TurnProgress
    ) -> None:
        super().__init__(source, what="the companion's turn")
        self._progress = progress

    @property
    def replied(self) -> bool:
        """True once the reply is whole (recording and post-turn work may still run)."""
        return self._progress.replied

    @property
    def cancelled_entry(self) -> TranscriptEntry | None:
        """The entry keeping the user's message of a turn cancelled during its reply."""
        return self._progress.cancelled_entry
