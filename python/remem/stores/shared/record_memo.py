"""Decoded records kept while their stored row is: recall's eligibility read, decoded once.

Recall reads the records behind every candidate of a batch (~56 a single recall, ~15k a
1,000-query batch at 10k memories) and returns ~10 a query. Decoding a row into a
:class:`~remem.models.MemoryRecord` (three model constructions, eight times, the metadata JSON)
was the largest per-query cost left around the kernels. The embedded record store answers from
its row cache, whose rows are immutable tuples replaced (never changed) by a write, so a
record decoded from a row stays exact for as long as the cache holds that same row object:
:class:`DecodedRecords` keys each decoded record by the identity of its row. A row that is
another object is compared with the one decoded (:func:`~remem.stores.shared.record_rows.
reaccessed`): equal (a packed row of the cache, unpacked anew by each read) gives the same
record, and one that differs only in its access columns — the rows recall's own access note
rewrites after every recall, ~10 a query — a copy with the new counts, without a decode.

Records it returns are shared between calls: their ``metadata`` dict must not be changed. A
caller that hands records onward (recall's results) gives out :func:`detached` copies, which
own their metadata, as every ``RecordStore.get`` result does.

    memo = DecodedRecords()
    a = memo.records({"m1": row})["m1"]
    memo.records({"m1": row})["m1"] is a   # True: same row object, no second decode
    memo.records({"m1": tuple(list(row))})["m1"] is a   # True: an equal row, compared
    detached(a) == a and detached(a).metadata is not a.metadata   # True
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import islice
from typing import Any

from remem.models import MemoryRecord
from remem.models.base import trusted
from remem.stores.shared.record_rows import reaccessed, row_to_record

__all__ = ["DEFAULT_DECODED_LIMIT", "DecodedRecords", "detached"]

DEFAULT_DECODED_LIMIT = 20_000
"""Most decoded records a :class:`DecodedRecords` holds, the oldest decoded evicted first
(~3.5 kB each with a short text: at most ~70 MB; a 1,000-query batch at 10k reads ~15k)."""

Row = tuple[Any, ...]


class DecodedRecords:
    """``row_to_record`` of rows by id, memoised while the identical row object, an equal
    row or one changed only by an access note is given."""

    __slots__ = ("_held", "limit")

    def __init__(self, limit: int = DEFAULT_DECODED_LIMIT) -> None:
        self.limit = limit
        self._held: dict[str, tuple[Row, MemoryRecord]] = {}

    def __len__(self) -> int:
        return len(self._held)

    def records(self, rows: Mapping[str, Row]) -> dict[str, MemoryRecord]:
        """The record of every row, by id, in ``rows``' order (shared: do not mutate)."""
        held = self._held
        out: dict[str, MemoryRecord] = {}
        for key, row in rows.items():
            got = held.get(key)
            if got is not None and got[0] is row:
                out[key] = got[1]
                continue
            record = None if got is None else reaccessed(got[1], got[0], row)
            if record is None:
                record = row_to_record(row)
            out[key] = record
            held.pop(key, None)  # re-inserted last: the oldest decoded is evicted first
            held[key] = (row, record)
        excess = len(held) - self.limit
        if excess > 0:
            for key in list(islice(held, excess)):
                del held[key]
        return out


def detached(record: MemoryRecord) -> MemoryRecord:
    """An equal record that owns its metadata dict (metadata values are scalars, and every
    other field of a record is immutable, so those are shared)."""
    values = dict(record.__dict__)
    values["metadata"] = dict(record.metadata)
    return trusted(MemoryRecord, values)
