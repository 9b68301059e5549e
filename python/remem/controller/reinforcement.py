"""The rescore hook that lets an AccessTracker reinforce recalled records.

``AccessTracker`` buffers record accesses and, per flush, asks ``rescore(ids, at)`` for each
record's new decay base: ``DecayCalculator.reinforce`` of its stored base and reference time
(``min(1, decayed score at the access + access_boost)``). The tracker then writes them with
one ``record_accesses`` call. Records deleted since they were recalled are skipped by giving
back their current base (the store ignores nothing, so the tracker's ``discard`` is the remedy
for an id that no longer exists at all).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from remem.graph import Rescore
from remem.lifecycle import DecayCalculator
from remem.stores.records import RecordStore, get_existing


def decay_rescore(record_store: RecordStore, decay: DecayCalculator) -> Rescore:
    """A ``Rescore`` for :class:`remem.graph.AccessTracker` built on ``decay``."""

    async def rescore(ids: Sequence[str], at: datetime) -> Sequence[float]:
        # The records recall just returned: the embedded store's decoded-record memo holds
        # them (a flush of 1,000 ids decoded every row again: ~0.1 s of a 1,000-query batch).
        shared = await get_existing(record_store, ids)
        records = (
            [shared[i] for i in ids]
            if len(shared) == len(set(ids))
            else await record_store.get(ids)  # raises the store's error naming the missing
        )
        return [
            decay.reinforce(r.lifecycle.base_score, r.lifecycle.score_reference_time, at)[0]
            for r in records
        ]

    return rescore
