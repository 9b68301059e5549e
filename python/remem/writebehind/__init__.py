"""Write-behind: journal accepted turns and memories, apply them to the stores in batches.

See :mod:`remem.writebehind.journal` for the semantics and :mod:`remem.writebehind.barrier` for
how every reader is kept consistent with the journal.
"""

from remem.writebehind.barrier import behind, is_behind
from remem.writebehind.file import JournalFile, PendingWrite
from remem.writebehind.journal import Applier, WriteBehind

__all__ = ["Applier", "JournalFile", "PendingWrite", "WriteBehind", "behind", "is_behind"]
