"""behind(store, writes): the store, with every call waiting for the journaled writes first.

A journaled write port (:mod:`remem.writebehind.port`) acknowledges ``record_turn`` and
``remember`` before the stores hold them. Every component that reads a store gets it through
this wrapper (the port itself writes the bare stores), so each of its coroutine methods first
awaits ``writes.barrier()`` — all writes accepted before the call are applied — and then runs on
the real store: reads see every acknowledged write, and a direct write (``forget``, a lifecycle
plan, an upsert of your own) is ordered after them.

The wrapper forwards every attribute, so backend extras (``search_many``, ``timezone``…) keep
working; only coroutine methods wait (plain attributes and synchronous helpers are passed
through). The applier's own calls do not wait for themselves (a context variable marks them).
Typed as the wrapped store's type: code written against the protocols needs no change.

Example::

    records = behind(DuckDBRecordStore(db), writes)  # writes: a JournaledWrites
    await records.get([memory.id])  # sees a memory remember() journaled a moment ago
"""

from __future__ import annotations

import functools
import inspect
from types import TracebackType
from typing import Any, Protocol, Self, TypeVar, cast

from remem.errors import ConfigError

S = TypeVar("S")


class Barrier(Protocol):
    async def barrier(self) -> None: ...


class _Behind:
    """The forwarding wrapper (see the module docstring)."""

    def __init__(self, inner: object, journal: Barrier) -> None:
        self._inner = inner
        self._journal = journal

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._inner, name)
        if not inspect.iscoroutinefunction(attr):
            return attr
        wait = self._journal.barrier

        @functools.wraps(attr)
        async def call(*args: Any, **kwargs: Any) -> Any:
            await wait()
            return await attr(*args, **kwargs)

        self.__dict__[name] = call  # later lookups skip __getattr__
        return call

    def __repr__(self) -> str:
        return f"behind({self._inner!r})"

    @property
    def wrapped(self) -> object:
        """The store itself (its calls do not wait for the journal)."""
        return self._inner

    # Looked up on the type, not through __getattr__.
    async def __aenter__(self) -> Self:
        await self._journal.barrier()
        await cast(Any, self._inner).__aenter__()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self._journal.barrier()
        await cast(Any, self._inner).__aexit__(exc_type, exc, tb)


def behind(store: S, journal: Barrier) -> S:
    """``store`` whose coroutine methods first wait for ``journal``'s accepted writes."""
    return cast(S, _Behind(store, journal))


def is_behind(store: object) -> bool:
    """Whether ``store`` was wrapped by :func:`behind`."""
    return isinstance(store, _Behind)


def check_behind(*stores: object) -> None:
    """With a journaled port, every store a reader is given must wait for the journal."""
    bare = [type(s).__name__ for s in stores if s is not None and not is_behind(s)]
    if bare:
        raise ConfigError(
            "a journaled write port needs every store wrapped by remem.writebehind.behind(store, "
            f"writes) so reads see journaled writes; these are not: {', '.join(bare)}"
        )
