"""Core memory blocks: capped, entry-granular, injected every turn with a live capacity gauge.

See :mod:`remem.blocks.block` for the editing rules, :mod:`remem.blocks.gauge` for how size is
measured, :mod:`remem.blocks.core` for the default ``user``/``self`` blocks and persistence, and
:mod:`remem.blocks.tools` for the tools exposed to the model. Stores:
``remem.stores.duckdb.blocks.DuckDBBlockStore`` and
``remem.stores.postgres.blocks.PostgresBlockStore``.
"""

from __future__ import annotations

from remem.blocks.block import CoreMemoryBlock
from remem.blocks.core import (
    DEFAULT_SELF_LIMIT,
    DEFAULT_USER_LIMIT,
    BlockSpec,
    CoreMemory,
    CoreMemoryConfig,
)
from remem.blocks.edits import BlockChange, BlockEdit
from remem.blocks.entries import entry_key
from remem.blocks.gauge import format_gauge, measure, render_entries
from remem.blocks.store import BlockHistoryEntry, BlockStore, StoredBlock
from remem.blocks.tools import dispatch, tool_schemas
from remem.errors import (
    AmbiguousEditError,
    BlockConflictError,
    BlockError,
    BlockFullError,
    DuplicateEntryError,
    EntryNotFoundError,
)

__all__ = [
    "DEFAULT_SELF_LIMIT",
    "DEFAULT_USER_LIMIT",
    "AmbiguousEditError",
    "BlockChange",
    "BlockConflictError",
    "BlockEdit",
    "BlockError",
    "BlockFullError",
    "BlockHistoryEntry",
    "BlockSpec",
    "BlockStore",
    "CoreMemory",
    "CoreMemoryBlock",
    "CoreMemoryConfig",
    "DuplicateEntryError",
    "EntryNotFoundError",
    "StoredBlock",
    "dispatch",
    "entry_key",
    "format_gauge",
    "measure",
    "render_entries",
    "tool_schemas",
]
