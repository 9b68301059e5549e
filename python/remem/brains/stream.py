"""DeltaStream: text as it is produced, then the whole answer — the shape of a streamed reply.

A :class:`DeltaStream` is an async iterator of ``str`` deltas; once it is exhausted,
:attr:`DeltaStream.result` holds the final value the deltas belong to (a
:class:`~remem.brains.Completion` for :meth:`Brain.stream <remem.brains.Brain.stream>`, a
``TurnResult`` for the companion). The producer is an async generator yielding ``str`` deltas
and, last, one :class:`Done` carrying the final value; a producer that ends without it was cut
off, and iterating raises :class:`~remem.errors.BrainError` — a stream either ends with its
whole answer or with an error, never with a silently short one.

Example::

    stream = brain.stream([Message.user("Tell me a story")])
    async for delta in stream:
        print(delta, end="", flush=True)
    completion = stream.result   # text == "".join(the deltas), plus tool calls and usage
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from remem.brains.messages import Completion
from remem.errors import BrainError, InvalidArgumentError

__all__ = ["DeltaStream", "Done", "ReplyStream", "whole_reply"]

T = TypeVar("T")


@dataclass(frozen=True)
class Done(Generic[T]):
    """The last item a producer yields: the final value of the stream."""

    value: T


class DeltaStream(Generic[T]):
    """Text deltas from ``source``, then :attr:`result` (module docstring).

    Iterate it once. :meth:`aclose` (or leaving ``async with``) stops the producer early —
    closing an HTTP response, say; an abandoned stream has no result. ``what`` names the
    stream in errors.
    """

    def __init__(self, source: AsyncGenerator[str | Done[T], None], *, what: str) -> None:
        self._source = source
        self._what = what
        self._done = False
        self._has_result = False
        self._result: T | None = None

    def __aiter__(self) -> AsyncIterator[str]:
        return self

    async def __anext__(self) -> str:
        if self._done:
            raise StopAsyncIteration
        try:
            item = await self._source.__anext__()
        except StopAsyncIteration:
            self._done = True
            raise BrainError(
                f"{self._what} ended without its final answer; nothing of it was kept"
            ) from None
        except BaseException:
            self._done = True
            raise
        if isinstance(item, Done):
            self._done = True
            self._result, self._has_result = item.value, True
            await self._source.aclose()
            raise StopAsyncIteration
        return item

    @property
    def done(self) -> bool:
        """True once the stream ended (with its result, an error, or :meth:`aclose`)."""
        return self._done

    @property
    def result(self) -> T:
        """The final value; InvalidArgumentError before the stream was iterated to its end."""
        if not self._has_result:
            raise InvalidArgumentError(
                f"{self._what} has no result yet; iterate it to the end first (or use collect())"
            )
        return self._result  # type: ignore[return-value]

    async def collect(self) -> T:
        """Drain the remaining deltas and return :attr:`result`."""
        async for _ in self:
            pass
        return self.result

    async def aclose(self) -> None:
        """Stop the producer; idempotent. A stream closed before its end has no result."""
        self._done = True
        await self._source.aclose()

    async def __aenter__(self) -> DeltaStream[T]:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


ReplyStream = DeltaStream[Completion]
"""What :meth:`Brain.stream <remem.brains.Brain.stream>` returns."""


def whole_reply(call: Callable[[], Awaitable[Completion]], *, what: str) -> ReplyStream:
    """The stream of a brain that does not stream: ``call()``'s whole text as one delta."""

    async def produce() -> AsyncGenerator[str | Done[Completion], None]:
        completion = await call()
        if completion.text:
            yield completion.text
        yield Done(completion)

    return DeltaStream(produce(), what=what)
