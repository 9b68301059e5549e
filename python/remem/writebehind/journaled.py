"""JournaledWrites: the write port that journals now and applies in batches (see :mod:`.port`).

A write is one row in the :class:`~remem.writebehind.journal.WriteBehind` journal when the call
returns (durable as the transcript is); :class:`~remem.writebehind.apply.JournalApply` applies
the journal to the stores through the :class:`~remem.writebehind.direct.DirectWrites` it wraps,
idempotently. ``confirm=True`` writes (a caller's own turn number or memory id, whose clash must
raise in the caller) wait for the journal and go through the direct port.

Example::

    direct = DirectWrites(transcript_store=t, episodic_store=e, record_store=r,
                          collection_manager=c, failures=FailureLog(), now=clock.now)
    writes = JournaledWrites(JournalFile(path / "writebehind.db"), direct, dimension=384)
    await writes.open()  # replays what a crash left
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from remem.failures import FailureLog
from remem.models import MemoryRecord, TranscriptEntry
from remem.writebehind.apply import JournalApply
from remem.writebehind.direct import DirectWrites
from remem.writebehind.file import JournalFile
from remem.writebehind.journal import WriteBehind


class JournaledWrites:
    """Write-behind through a journal over a :class:`DirectWrites` (see the module docstring)."""

    journaled = True

    def __init__(
        self,
        file: JournalFile,
        direct: DirectWrites,
        *,
        dimension: int,
        batch_size: int = 256,
        max_pending: int = 2_048,
        max_delay: float = 0.1,
    ) -> None:
        self.direct = direct
        self.journal = WriteBehind(
            file,
            JournalApply(direct),
            dimension=dimension,
            failures=direct.failures,
            now=direct.now,
            batch_size=batch_size,
            max_pending=max_pending,
            max_delay=max_delay,
        )

    @property
    def failures(self) -> FailureLog:
        return self.direct.failures

    async def open(self) -> int:
        return await self.journal.open()

    async def aclose(self) -> None:
        await self.journal.aclose()

    async def barrier(self) -> None:
        await self.journal.barrier()

    async def append_turns(
        self, entries: Sequence[TranscriptEntry], *, confirm: bool = False
    ) -> None:
        if confirm:
            await self.journal.barrier()
            await self.direct.append_turns(entries)
        else:
            await self.journal.add_turns(entries)

    async def store_memories(
        self,
        records: Sequence[MemoryRecord],
        vectors: NDArray[np.float32],
        *,
        confirm: bool = False,
    ) -> None:
        if confirm:
            await self.journal.barrier()
            await self.direct.store_memories(records, vectors)
        else:
            await self.journal.add_memories(records, vectors)
