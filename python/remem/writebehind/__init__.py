"""The write port (:mod:`remem.writebehind.port`): turns and memories in, directly or journaled.

:class:`DirectWrites` writes the stores at once; :class:`JournaledWrites` (write-behind, the
embedded default) journals each write and applies the journal in batches
(:mod:`remem.writebehind.journal`); readers wait for it through the port's typed barrier
(:meth:`WritePort.barrier`). The design and the write path are drawn in
:mod:`remem.writebehind.port`.
"""

from remem.writebehind.apply import JournalApply
from remem.writebehind.direct import DirectWrites
from remem.writebehind.file import JournalFile, PendingWrite
from remem.writebehind.journal import Applier, WriteBehind
from remem.writebehind.journaled import JournaledWrites
from remem.writebehind.port import WritePort

__all__ = [
    "Applier",
    "DirectWrites",
    "JournalApply",
    "JournalFile",
    "JournaledWrites",
    "PendingWrite",
    "WriteBehind",
    "WritePort",
]
