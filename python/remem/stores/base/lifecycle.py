"""Open/closed state shared by every store: clear use-after-close errors, idempotent aclose()."""

from __future__ import annotations

import asyncio
from enum import Enum
from types import TracebackType
from typing import Self

from remem.errors import StoreClosedError


class StoreState(Enum):
    UNOPENED = "unopened"
    OPEN = "open"
    CLOSED = "closed"


class StoreLifecycle:
    """Mixin: ``async with store:`` opens (if needed) and closes; methods call ``_check_open()``.

    Subclasses implement ``_open()`` and ``_close()``. ``aclose()`` is idempotent. Stores that open
    eagerly in ``__init__`` set ``self._state = StoreState.OPEN`` there.
    """

    _state: StoreState = StoreState.UNOPENED
    _opening: asyncio.Lock | None = None

    async def _open(self) -> None:  # pragma: no cover - trivial default
        return None

    async def _close(self) -> None:  # pragma: no cover - trivial default
        return None

    async def open(self) -> Self:
        if self._state is StoreState.CLOSED:
            raise StoreClosedError(
                f"{type(self).__name__} was closed; create a new store to use it again"
            )
        if self._state is StoreState.UNOPENED:
            await self._open()
            self._state = StoreState.OPEN
        return self

    async def aclose(self) -> None:
        if self._state is StoreState.CLOSED:
            return
        try:
            await self._close()
        finally:
            self._state = StoreState.CLOSED

    async def _ensure_open(self) -> None:
        """Open on first use (once, however many callers race here); refuse after close."""
        self._check_open()
        if self._state is StoreState.UNOPENED:
            if self._opening is None:
                self._opening = asyncio.Lock()
            async with self._opening:
                if self._state is StoreState.UNOPENED:
                    await self.open()

    def _check_open(self) -> None:
        if self._state is StoreState.CLOSED:
            raise StoreClosedError(
                f"{type(self).__name__} was used after aclose(); create a new store to use it again"
            )

    async def __aenter__(self) -> Self:
        return await self.open()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()
