"""Pausing Python's cyclic garbage collector while a recall batch runs.

Why: a recall batch allocates hundreds of thousands of short-lived container objects (records,
candidates, fusion rows), and every 700 net allocations CPython runs a generation-0 collection
whose survivors are promoted until a full collection walks *every* live object — the stores'
caches and indexes included. Profiled on ``recall_many`` of 1,000 queries over 10k memories,
the collector ran inside whatever allocated next (``trusted`` model construction measured 70 µs
a call instead of ~1 µs, ``call_soon`` 0.5 ms): a large share of the batch's time.

Recall creates no reference cycles it relies on the collector to free (its objects die by
reference counting when the batch returns), so the collector is paused for the batch and
resumed after it. Nested or concurrent batches share one pause (a counter), and a collector the
application disabled itself is left disabled.

Example::

    with gc_paused():
        results = rank(batch)
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

_depth = 0
_was_enabled = False


@contextmanager
def gc_paused() -> Iterator[None]:
    """Run the body with the cyclic collector off; restore its previous state afterwards."""
    global _depth, _was_enabled
    if _depth == 0:
        _was_enabled = gc.isenabled()
        gc.disable()
    _depth += 1
    try:
        yield
    finally:
        _depth -= 1
        if _depth == 0 and _was_enabled:
            gc.enable()
