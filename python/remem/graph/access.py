"""AccessTracker: recall reinforcement, buffered in memory and written in batches.

Every recall notes which entities (and optionally memory records) it used; the tracker adds the
counts to an in-memory :class:`collections.Counter` and writes them with ONE
``graph_store.record_access(counts)`` call per flush — never a rewrite of the graph. Counts measure
usage, not truth: a fact recalled a thousand times is no more likely to be correct.

A flush happens on :meth:`flush`, on :meth:`aclose`, when the buffer holds ``max_buffer``
distinct ids, or on the first :meth:`note` after ``flush_every`` has elapsed on the injected clock.

Records: ``RecordStore.record_accesses(ids, new_base_scores, at)`` needs a new decay base per
record, which is lifecycle policy, not bookkeeping. So the tracker reinforces records only when
given both ``record_store`` and a ``rescore`` hook — ``async rescore(ids, at) -> scores`` (e.g. the
controller's decay calculator) — and then makes ONE ``record_accesses`` call per flush. That store
call counts one access per record per call, so a record noted k times between two flushes is
reinforced once: the flush window is the unit of record reinforcement.

Failures are visible, never swallowed: a failed write puts its counts back in the buffer (nothing
is lost; the next flush retries) and appends a :class:`FlushFailure` to :meth:`failures`.
An explicit ``flush()``/``aclose()`` then re-raises; an automatic flush inside ``note()`` does not
(a recall must not fail because of bookkeeping) but logs a warning. A count for an entity that no
longer exists keeps failing; drop it with :meth:`discard`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from types import TracebackType
from typing import Literal, Self

from remem.errors import ConfigError, InvalidArgumentError, StoreClosedError
from remem.models import Clock, SystemClock
from remem.stores.graph import GraphStore
from remem.stores.records import RecordStore

log = logging.getLogger(__name__)

DEFAULT_FLUSH_EVERY = timedelta(seconds=30)
DEFAULT_MAX_BUFFER = 1_000
Rescore = Callable[[Sequence[str], datetime], Awaitable[Sequence[float]]]


@dataclass(frozen=True, slots=True)
class FlushFailure:
    """A write that failed: what, when, the error, and how many ids stayed buffered."""

    target: Literal["entities", "records"]
    at: datetime
    error: BaseException
    pending: int


class AccessTracker:
    """Buffers access counts and flushes them in batches (see the module docstring)."""

    def __init__(
        self,
        graph_store: GraphStore,
        record_store: RecordStore | None = None,
        *,
        rescore: Rescore | None = None,
        flush_every: timedelta = DEFAULT_FLUSH_EVERY,
        max_buffer: int = DEFAULT_MAX_BUFFER,
        clock: Clock | None = None,
    ) -> None:
        if (record_store is None) != (rescore is None):
            raise ConfigError(
                "record_store and rescore go together: pass both to reinforce records, or neither"
            )
        if not isinstance(flush_every, timedelta) or flush_every <= timedelta(0):
            raise ConfigError(f"flush_every must be a positive timedelta, got {flush_every!r}")
        if isinstance(max_buffer, bool) or not isinstance(max_buffer, int) or max_buffer < 1:
            raise ConfigError(f"max_buffer must be an integer ≥ 1, got {max_buffer!r}")
        self._graph = graph_store
        self._records = record_store
        self._rescore = rescore
        self.flush_every = flush_every
        self.max_buffer = max_buffer
        self._clock: Clock = clock if clock is not None else SystemClock()
        self._entities: Counter[str] = Counter()
        self._record_ids: Counter[str] = Counter()
        self._failures: list[FlushFailure] = []
        self._last_flush = self._clock.now()
        self._lock = asyncio.Lock()
        self._closed = False

    @property
    def pending_entities(self) -> dict[str, int]:
        return dict(self._entities)

    @property
    def pending_records(self) -> dict[str, int]:
        return dict(self._record_ids)

    def failures(self) -> list[FlushFailure]:
        """Every failed write so far, oldest first."""
        return list(self._failures)

    def discard(self, ids: Iterable[str]) -> None:
        """Drop buffered counts of ``ids`` (e.g. entities deleted since they were recalled)."""
        for i in ids:
            self._entities.pop(i, None)
            self._record_ids.pop(i, None)

    async def note(self, *, entity_ids: Iterable[str] = (), record_ids: Iterable[str] = ()) -> None:
        """Count one access per id occurrence; may trigger an automatic flush."""
        if self._closed:
            raise StoreClosedError("this AccessTracker is closed; create a new one")
        entities, records = _ids(entity_ids, "entity_ids"), _ids(record_ids, "record_ids")
        self._entities.update(entities)
        if self._records is not None:
            self._record_ids.update(records)
        due = self._clock.now() - self._last_flush >= self.flush_every
        if due or len(self._entities) + len(self._record_ids) >= self.max_buffer:
            try:
                await self.flush()
            except Exception as exc:  # recorded in failures(); see the module docstring
                log.warning("access flush failed, counts kept for the next flush: %s", exc)

    async def flush(self) -> None:
        """Write the buffer: one ``record_access`` call (and one ``record_accesses`` call)."""
        async with self._lock:
            self._last_flush = self._clock.now()
            errors = [e for e in (await self._flush_entities(), await self._flush_records()) if e]
        if errors:
            raise errors[0]

    async def _flush_entities(self) -> BaseException | None:
        counts, self._entities = self._entities, Counter()
        if not counts:
            return None
        try:
            await self._graph.record_access(dict(counts))
        except Exception as exc:
            self._entities.update(counts)
            self._failures.append(
                FlushFailure("entities", self._clock.now(), exc, len(self._entities))
            )
            return exc
        return None

    async def _flush_records(self) -> BaseException | None:
        if self._records is None or self._rescore is None or not self._record_ids:
            return None
        counts, self._record_ids = self._record_ids, Counter()
        ids = sorted(counts)
        at = self._clock.now()
        try:
            scores = list(await self._rescore(ids, at))
            await self._records.record_accesses(ids, scores, at)
        except Exception as exc:
            self._record_ids.update(counts)
            self._failures.append(FlushFailure("records", at, exc, len(self._record_ids)))
            return exc
        return None

    @contextlib.asynccontextmanager
    async def hold_flushes(self) -> AsyncIterator[None]:
        """Flush what is pending, then hold every further flush back until the block ends
        (``note`` keeps counting; a flush it triggers waits). The quiescence token uses it."""
        await self.flush()
        async with self._lock:
            yield

    async def aclose(self) -> None:
        """Flush and close; idempotent. Raises if the final flush fails (counts stay visible)."""
        if self._closed:
            return
        await self.flush()
        self._closed = True

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()


def _ids(ids: Iterable[str], field: str) -> list[str]:
    # Checked here, not at flush time: one bad id would otherwise poison every later flush.
    if isinstance(ids, str):
        raise InvalidArgumentError(f"{field} takes a list of ids, got the string {ids!r}")
    out = list(ids)
    bad = [i for i in out if not isinstance(i, str) or not i]
    if bad:
        raise InvalidArgumentError(f"{field} must be non-empty strings; got {bad[:5]!r}")
    return out
