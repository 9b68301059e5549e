"""What every gated store wrapper shares: a write passage, and the wrapped store's lifecycle.

The quiescence token (:mod:`remem.recovery.quiescence`) holds writes that do not go through the
write port at gates: the Runtime wraps the block, graph, record and transcript stores it hands
out in a gated wrapper whose writes enter ``passage()`` for their duration and whose reads pass
straight through. :class:`Gated` is the half those wrappers have in common — the wrapped store
``inner``, the passage, and ``open`` / ``aclose`` / ``async with`` delegated to ``inner`` — so
each wrapper only lists its methods::

    class GatedBlockStore(Gated[OpenableBlockStore]):
        async def commit(self, ...):
            async with self._passage():
                return await self.inner.commit(...)
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from types import TracebackType
from typing import Any, Generic, Protocol, Self, TypeVar

__all__ = ["Gated", "Passage"]

Passage = Callable[[], AbstractAsyncContextManager[None]]
"""What a gated write enters for its duration (``Gate.passage``)."""


class _Openable(Protocol):
    async def open(self) -> Any: ...

    async def aclose(self) -> None: ...


S = TypeVar("S", bound=_Openable)


class Gated(Generic[S]):
    """``inner`` opened, closed and entered through the wrapper; writes go in ``_passage()``."""

    def __init__(self, inner: S, passage: Passage) -> None:
        self.inner = inner
        self._passage = passage

    async def open(self) -> Self:
        await self.inner.open()
        return self

    async def aclose(self) -> None:
        await self.inner.aclose()

    async def __aenter__(self) -> Self:
        return await self.open()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()
