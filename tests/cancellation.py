"""Deterministic cancellation injection for the write-path tests (no timing involved).

Every coroutine method of the patched classes is a checkpoint. Armed with a victim task and a
number N, the injector cancels the victim at the Nth checkpoint, in one of three phases:

* ``"before"``: the call has not started (the victim is cancelled and yields before it runs);
* ``"during"``: the call has started and finishes after the victim saw its CancelledError — what
  a store's worker thread does when the coroutine awaiting it is cancelled (the commit still
  happens); :func:`cancel_everywhere` lets such calls finish before it checks anything;
* ``"after"``: the call returned and the caller has not yet used the result.

That is what ``asyncio.wait_for`` does when its timeout falls while the write is suspended
there, except that N, not the clock, says where. :func:`cancel_everywhere` runs a write with
N = 1, 2, … until the write completes without reaching N: every checkpoint of the write has then
been hit once in the phase.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import pytest

Phase = Literal["before", "during", "after"]


@dataclass
class CancelInjector:
    """Cancels ``victim`` at checkpoint ``target`` of ``phase`` (see the module docstring)."""

    phase: Phase = "before"
    victim: asyncio.Task[Any] | None = None
    target: int = 0
    count: int = 0
    fired: bool = False
    inflight: list[asyncio.Future[Any]] = field(default_factory=list)

    def arm(self, victim: asyncio.Task[Any], target: int) -> None:
        self.victim, self.target, self.count, self.fired = victim, target, 0, False

    def disarm(self) -> None:
        self.victim = None

    def tick(self, phase: Phase) -> bool:
        """Count a checkpoint of ``phase``; True if it cancelled the victim."""
        if self.victim is None or phase != self.phase:
            return False
        self.count += 1
        if self.count != self.target:
            return False
        self.victim.cancel()
        self.fired = True
        self.victim = None
        return True

    def patch(self, monkeypatch: pytest.MonkeyPatch, *classes: type) -> None:
        """Make every coroutine method of ``classes`` (dunders aside) a checkpoint."""
        for cls in classes:
            for name, fn in inspect.getmembers(cls, inspect.iscoroutinefunction):
                if name.startswith("__"):
                    continue
                monkeypatch.setattr(cls, name, self._wrap(fn))

    def _wrap(self, fn: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
        @functools.wraps(fn)
        async def checkpoint(*args: Any, **kwargs: Any) -> Any:
            if self.tick("before"):
                await asyncio.sleep(0)  # in the victim's own task, the cancellation lands here
            if self.tick("during"):
                call = asyncio.ensure_future(fn(*args, **kwargs))
                self.inflight.append(call)
                return await asyncio.shield(call)  # the call goes on if the awaiter is cancelled
            result = await fn(*args, **kwargs)
            self.tick("after")
            return result

        return checkpoint

    async def settle(self) -> None:
        """Let every call started at a ``"during"`` checkpoint finish (its outcome ignored)."""
        calls, self.inflight = self.inflight, []
        await asyncio.gather(*calls, return_exceptions=True)


async def cancel_everywhere(
    injector: CancelInjector,
    write: Callable[[int], Awaitable[object]],
    check: Callable[[int, bool], Awaitable[None]],
    *,
    limit: int = 200,
) -> int:
    """Run ``write(n)`` cancelled at checkpoint n = 1, 2, … and ``check(n, cancelled)`` after
    each; stop at the first n the write completes without reaching. Return that n."""
    for n in range(1, limit + 1):
        task = asyncio.ensure_future(write(n))
        injector.arm(task, n)
        cancelled = False
        try:
            await task
        except asyncio.CancelledError:
            cancelled = True
        finally:
            injector.disarm()
            await injector.settle()
        assert cancelled == injector.fired, f"checkpoint {n}: cancelled={cancelled}"
        await check(n, cancelled)
        if not cancelled:
            return n
    raise AssertionError(f"the write still had checkpoints after {limit} cancellations")
