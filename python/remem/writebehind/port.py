"""WritePort: the two writes every memory takes — append turns, store memories — behind one door.

The write path, end to end (read this first)::

    MemoryController.record_turn / record_turns      MemoryController.remember / remember_many
      └ TurnLog: validate, number under the            └ MemoryWriter: validate, embed, resolve
        session's lock (cancellation-safe)                entities (WriteBatcher groups remember)
              │                                                     │
              └──────────── WritePort.append_turns ── store_memories ┘
                                   │                       │
             DirectWrites (direct.py)               JournaledWrites (journaled.py)
             transcript append, then the            journal row now (WriteBehind, journal.py);
             episodic index; record + vector,       applied in batches by JournalApply
             then the note, undone on failure       (apply.py) through the same DirectWrites

Two implementations, chosen by :class:`remem.Runtime` (``write_behind``), never by the
controller:

* :class:`~remem.writebehind.direct.DirectWrites` writes the stores at once; the call returns
  once the stores hold the write.
* :class:`~remem.writebehind.journaled.JournaledWrites` (the embedded default) appends the write
  to a SQLite journal and returns; the journal is applied to the stores in batches, by the
  direct port, idempotently (a replay after a crash never duplicates).

``confirm=True`` asks for the stores' verdict now: a caller's own turn number or memory id may
clash with what is stored, and that must raise in the caller, not later in a batch. The
journaled port then waits for what it holds (``barrier``) and writes through the direct port.

Reads: with a journal, whatever reads the stores must first wait for the writes accepted before
it — :meth:`WritePort.barrier`, awaited explicitly by each reader: the controller before each of
its reads (recall, priming, keyed facts, forget, supersede, turn numbering), the lifecycle
manager before each plan (``LifecycleManager(barrier=writes)``), and code above the controller
through ``await controller.settled()``, which awaits it and returns the
:class:`~remem.stores.bundle.Stores` bundle. The direct port's barrier returns at once. No store
is wrapped and nothing is bound after construction: stores → collections → DirectWrites →
(journal → JournaledWrites) → controller.

Failures the caller does not see at once (an episodic indexing failure after the turn is in the
transcript, a failed compensation, a journaled write the stores refused) go to the port's
:class:`~remem.failures.FailureLog`, which ``MemoryController.failures()`` shows.

Cancellation: a write a caller cancels runs to its end (:mod:`remem.cancel_safe`): wholly
stored, or wholly undone.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

import numpy as np
from numpy.typing import NDArray

from remem.failures import FailureLog
from remem.models import MemoryRecord, TranscriptEntry

if TYPE_CHECKING:
    from remem.writebehind.journal import WriteBehind


class WritePort(Protocol):
    """Appends turns and stores memories (see the module docstring)."""

    @property
    def failures(self) -> FailureLog:
        """Where failures the caller is not told about at once are recorded."""
        ...

    @property
    def journaled(self) -> bool:
        """Whether an acknowledged write may not be in the stores yet (reads must wait)."""
        ...

    @property
    def journal(self) -> WriteBehind | None:
        """The write-behind journal this port writes through; None for a direct port (the
        default: :class:`~remem.writebehind.direct.DirectWrites` sets ``journal = None``)."""
        ...

    async def append_turns(
        self, entries: Sequence[TranscriptEntry], *, confirm: bool = False
    ) -> None:
        """Durably accept numbered turns of one session (transcript, then the episodic index)."""
        ...

    async def store_memories(
        self,
        records: Sequence[MemoryRecord],
        vectors: NDArray[np.float32],
        *,
        confirm: bool = False,
    ) -> None:
        """Durably accept fresh memories, row i of ``vectors`` for record i: all or nothing."""
        ...

    async def barrier(self) -> None:
        """Return once every write accepted before this call is in the stores."""
        ...

    async def open(self) -> int:
        """Get ready (a journal replays what a crash left); return how many writes replayed."""
        ...

    async def aclose(self) -> None:
        """Apply whatever is accepted but not yet stored; idempotent."""
        ...
