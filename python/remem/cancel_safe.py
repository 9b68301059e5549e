"""run_to_end: a write section that a cancellation cannot cut in half.

Why: the stores do their I/O on worker threads, and cancelling the coroutine that awaits a
store call does not stop the thread — the transcript append or the record batch still commits,
while the cancelled caller skips whatever followed (updating a session's turn counter, writing
the vector and the note, registering a journaled write). ``asyncio.wait_for`` with a short
timeout around ``record_turn`` or ``remember_many`` used to wedge a session or leave half a
memory that way.

Contract: ``await run_to_end(section)`` runs ``section`` as its own task. If it ends, its result
or its error is the caller's. If the caller is cancelled meanwhile, the section is NOT cancelled:
the caller waits for it to end (a repeated cancellation is deferred too, not lost), then raises
``CancelledError``. So a cancelled write is either wholly done (its own compensation included)
or wholly undone — "maybe stored" in the caller's eyes, never half-stored — and whatever lock
the section holds is released by the section itself, after its state is consistent. The
section must not wait for its caller (it would never end): keep it to stores and locks.

Example::

    async with lock:  # inside the section: released only once the write is consistent
        ...
    entries = await run_to_end(write_turns_under_lock())
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


async def run_to_end(section: Coroutine[Any, Any, T]) -> T:
    """``await section``, except that a cancellation of the caller waits for it to end first."""
    task = asyncio.ensure_future(section)
    cancelled = False
    while True:
        try:
            result = await asyncio.shield(task)
        except asyncio.CancelledError:
            if task.done():  # the section itself was cancelled (e.g. at loop shutdown)
                raise
            cancelled = True
            continue
        break
    if cancelled:
        raise asyncio.CancelledError
    return result
