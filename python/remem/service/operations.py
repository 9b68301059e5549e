"""MemoryService: the memory operations every server exposes, over one :class:`~remem.Runtime`.

    async with MemoryService.open("./memory") as service:
        await service.remember("Ana lives in Lisbon", namespace="ana")
        result = await service.recall("where does Ana live?", namespace="ana")
        print(result.hits[0].memory.text)

The MCP server (:mod:`remem.mcp_server`) and the REST API (:mod:`remem.rest`) are thin
translations of these methods; validation, scoping (:mod:`remem.service.config`) and the
conversion to JSON-able views (:mod:`remem.service.views`) happen here, once. Bad input raises
the typed errors of :mod:`remem.errors`; each server maps them to its protocol.

Lifecycle: ``aclose()`` refuses new operations (StoreClosedError), waits for the ones running,
extracts every pending turn, then closes the runtime (which applies every journaled write) —
so an operation that returned is never lost by a shutdown. Core memory edits of one namespace
are serialised (one lock per namespace), so concurrent edits never conflict with each other.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from remem.blocks import BlockEdit, BlockError, CoreMemory, CoreMemoryConfig
from remem.companion.config import EARLIER_VALUES, CompanionConfig
from remem.companion.prompt import block_candidates, recalled_candidates
from remem.context import AssemblerConfig, ContextAssembler, HistoryTurn
from remem.errors import (
    BlockConflictError,
    InvalidArgumentError,
    NotFoundError,
    StoreClosedError,
    shown,
)
from remem.models import TranscriptEntry
from remem.runtime import Runtime
from remem.service.config import ServiceConfig
from remem.service.views import (
    BlockEditResult,
    BlockView,
    ContextView,
    ForgetResult,
    MemoryView,
    RecallHit,
    RecallResult,
    SessionList,
    SessionView,
    Transcript,
    TurnView,
)
from remem.stores.transcript import TranscriptStore, check_session_id

__all__ = ["MemoryService"]

_NO_SESSION = "get-context"
"""The session priming is computed for when ``get_context`` names none (no session's turns are
left out of the earlier sessions it primes)."""


class MemoryService:
    """The operations layer (see the module docstring). Use ``async with``."""

    def __init__(
        self,
        runtime: Runtime,
        config: ServiceConfig | None = None,
        *,
        blocks: CoreMemoryConfig | None = None,
    ) -> None:
        if config is not None and not isinstance(config, ServiceConfig):
            raise InvalidArgumentError(f"config must be a ServiceConfig, got {shown(config)}")
        self.runtime = runtime
        self.config = config if config is not None else ServiceConfig()
        self._block_config = blocks
        self._cores: dict[str, CoreMemory] = {}
        self._core_locks: dict[str, asyncio.Lock] = {}
        self._running = 0
        self._idle = asyncio.Event()
        self._idle.set()
        self._closing = False
        self._closed = False

    @classmethod
    def open(
        cls, path: str | Path, config: ServiceConfig | None = None, **runtime_options: Any
    ) -> MemoryService:
        """A service on the memory directory ``path`` (``runtime_options`` go to Runtime.open)."""
        return cls(Runtime.open(path, **runtime_options), config)

    # -- lifecycle ------------------------------------------------------------------------------

    async def __aenter__(self) -> Self:
        await self.runtime.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    @property
    def ready(self) -> bool:
        """True while the runtime is open and the service accepts operations."""
        return not self._closing and _started(self.runtime)

    @property
    def running(self) -> int:
        """Operations in progress."""
        return self._running

    async def aclose(self) -> None:
        """Refuse new operations, wait for running ones, drain extraction, close; idempotent."""
        if self._closed:
            return
        self._closing = True
        await self._idle.wait()
        self._closed = True
        try:
            if _started(self.runtime):
                await self.runtime.controller.flush_extraction()
        finally:
            await self.runtime.aclose()

    @contextlib.asynccontextmanager
    async def _operation(self) -> AsyncIterator[None]:
        if self._closing:
            raise StoreClosedError("the memory server is shutting down; retry on a new server")
        self._running += 1
        self._idle.clear()
        try:
            yield
        finally:
            self._running -= 1
            if self._running == 0:
                self._idle.set()

    # -- checks ---------------------------------------------------------------------------------

    def _text(self, value: object, field: str, *, empty: bool = False) -> str:
        if not isinstance(value, str) or (not empty and not value.strip()):
            raise InvalidArgumentError(f"{field} must be a non-empty string, got {shown(value)}")
        if len(value) > self.config.max_text_chars:
            raise InvalidArgumentError(
                f"{field} has {len(value):,} characters; this server stores at most "
                f"{self.config.max_text_chars:,} — split it"
            )
        return value

    def _int(self, value: object, field: str, low: int, high: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise InvalidArgumentError(
                f"{field} must be an int in {low}..{high}, got {shown(value)}"
            )
        return value

    async def _transcripts(self) -> TranscriptStore:
        store = (await self.runtime.controller.settled()).transcript
        if store is None:  # the Runtime always wires one; a hand-built service may not
            raise StoreClosedError("this memory has no transcript store")
        return store

    # -- memories -------------------------------------------------------------------------------

    async def remember(
        self,
        text: str,
        *,
        namespace: str | None = None,
        kind: str = "fact",
        session_id: str | None = None,
        metadata: Mapping[str, object] | None = None,
        entities: Sequence[str] | None = None,
    ) -> MemoryView:
        """Store one memory in ``namespace``; return it (its id is what ``forget`` takes)."""
        scope = self.config.scope(namespace)
        self._text(text, "text")
        async with self._operation():
            record = await self.runtime.controller.remember(
                text,
                kind=kind,
                namespace=scope,
                session_id=session_id,
                metadata=metadata,
                entities=entities,
            )
        return MemoryView.of(record)

    async def recall(
        self,
        query: str,
        *,
        namespace: str | None = None,
        k: int = 10,
        session_id: str | None = None,
    ) -> RecallResult:
        """The ``k`` best memories of ``namespace`` for ``query``, best first."""
        scope = self.config.scope(namespace)
        self._text(query, "query")
        self._int(k, "k", 1, self.config.max_k)
        async with self._operation():
            hits = await self.runtime.controller.recall(
                query, k=k, session_id=session_id, namespace=scope
            )
        return RecallResult(namespace=scope, query=query, hits=[RecallHit.of(h) for h in hits])

    async def forget(self, ids: Sequence[str], *, namespace: str | None = None) -> ForgetResult:
        """Forget the memories ``ids`` of ``namespace`` (all or nothing): NotFoundError naming
        the first id that is unknown or belongs to another namespace, and nothing changes."""
        scope = self.config.scope(namespace)
        if isinstance(ids, str) or not isinstance(ids, Sequence) or not ids:
            raise InvalidArgumentError(
                f"ids must be a non-empty list of memory ids, got {shown(ids)}"
            )
        wanted = [self._text(i, "each id") for i in ids]
        async with self._operation():
            controller = self.runtime.controller
            found = {r.id: r for r in await (await controller.settled()).records.get(wanted)}
            for memory_id in wanted:
                record = found.get(memory_id)
                if record is None or record.namespace != scope:
                    raise NotFoundError(
                        f"no memory {memory_id!r} in namespace {scope!r}; recall to find its id"
                    )
            forgotten = await controller.forget(wanted)
        return ForgetResult(namespace=scope, forgotten=forgotten)

    # -- turns ----------------------------------------------------------------------------------

    async def record_turn(
        self,
        session_id: str,
        user_message: str = "",
        assistant_message: str = "",
        *,
        namespace: str | None = None,
    ) -> TurnView:
        """Record one exchange of session ``session_id`` (created if new); the turn is durable
        when this returns. A new session is created in ``namespace``; naming another namespace
        than an existing session's raises InvalidArgumentError (a session has one scope)."""
        scope = self.config.scope(namespace)
        check_session_id(session_id)
        self._text(user_message, "user_message", empty=True)
        self._text(assistant_message, "assistant_message", empty=True)
        async with self._operation():
            entry = await self.runtime.controller.record_turn(
                session_id,
                user_message,
                assistant_message,
                namespace=scope,
            )
        return TurnView.of(entry)

    async def list_sessions(self, *, namespace: str | None = None) -> SessionList:
        """The sessions of ``namespace``, oldest first (another namespace's are not listed)."""
        scope = self.config.scope(namespace)
        async with self._operation():
            sessions = await (await self._transcripts()).list_sessions(namespace=scope)
        return SessionList(sessions=[SessionView.of(s) for s in sessions])

    async def get_transcript(
        self,
        session_id: str,
        *,
        namespace: str | None = None,
        since_turn: int | None = None,
        limit: int | None = None,
    ) -> Transcript:
        """The turns of ``session_id`` after turn ``since_turn``, oldest first, at most
        ``limit`` (default and cap: ``max_turns``); NotFoundError for an unknown session and
        for a session of another namespace (its existence is not revealed either)."""
        scope = self.config.scope(namespace)
        check_session_id(session_id)
        if since_turn is not None:
            self._int(since_turn, "since_turn", 0, 2**62)
        page = self.config.max_turns if limit is None else limit
        self._int(page, "limit", 1, self.config.max_turns)
        async with self._operation():
            store = await self._transcripts()
            await self._session_in(store, session_id, scope)
            entries = await store.get_entries(session_id, since_turn=since_turn, limit=page)
        return Transcript(session_id=session_id, turns=[TurnView.of(e) for e in entries])

    @staticmethod
    async def _session_in(store: TranscriptStore, session_id: str, scope: str) -> None:
        """NotFoundError unless ``session_id`` exists in ``scope``: a session of another
        namespace is reported exactly like a missing one, so a reader learns nothing of it."""
        try:
            session = await store.get_session(session_id)
        except NotFoundError:
            session = None
        if session is None or session.namespace != scope:
            raise NotFoundError(
                f"there is no session {session_id!r} in namespace {scope!r}; "
                "list_sessions shows the ids"
            )

    # -- context --------------------------------------------------------------------------------

    async def get_context(
        self,
        query: str,
        *,
        namespace: str | None = None,
        budget: int = 2000,
        session_id: str | None = None,
        k: int = 20,
        history_turns: int = 8,
        earlier_values: str = "mark",
        prime: bool = True,
    ) -> ContextView:
        """The context for ``query`` packed into ``budget`` tokens: the namespace's core blocks
        (always kept), the ``history_turns`` last turns of ``session_id`` and the ``k`` best
        recalled memories, with the account of what was kept and why the rest was not.
        BudgetError when even the query and the core blocks do not fit.

        Recalled memories are offered as the companion's prompt offers them
        (:func:`remem.companion.prompt.recalled_candidates`): dated, a value that no longer
        holds marked earlier (``earlier_values="mark"``; ``"drop"`` leaves it out for the
        current one, ``"off"`` shows it as recalled), and a short recalled message shown with
        the user's next one (the companion's window defaults).

        With ``prime`` (the default) the context also holds what a session starts with, as the
        companion's prompt does: the namespace's entities, known facts, insights and summaries
        (and earlier sessions' last turns, if the runtime's ``[memory.priming]`` asks for them),
        packed under the same budget (:meth:`MemoryController.prime`)."""
        scope = self.config.scope(namespace)
        self._text(query, "query")
        self._int(budget, "budget", 1, self.config.max_budget)
        self._int(k, "k", 1, self.config.max_k)
        self._int(history_turns, "history_turns", 0, self.config.max_turns)
        if earlier_values not in EARLIER_VALUES:
            raise InvalidArgumentError(
                f"earlier_values {earlier_values!r} is unknown; use 'mark', 'drop' or 'off'"
            )
        offer = CompanionConfig(namespace=scope, earlier_values=earlier_values)
        if not isinstance(prime, bool):
            raise InvalidArgumentError(f"prime must be true or false, got {prime!r}")
        if session_id is not None:
            check_session_id(session_id)
        async with self._operation():
            controller = self.runtime.controller
            history: list[TranscriptEntry] = []
            if session_id is not None and history_turns:
                store = await self._transcripts()
                await self._session_in(store, session_id, scope)
                history = (await store.get_entries(session_id))[-history_turns:]
            turns = [HistoryTurn.from_entry(e) for e in history]
            hits = await controller.recall(query, k=k, namespace=scope)
            core = await self._core(scope)
            recalled = await recalled_candidates(
                controller, hits, {t.id for t in turns}, namespace=scope, config=offer
            )
            candidates = block_candidates(core) + recalled
            primed = None
            if prime:
                # the session's own turns are its history: priming leaves that session out
                primed = await controller.prime(session_id or _NO_SESSION, namespace=scope)
            assembler = ContextAssembler(AssemblerConfig(budget=budget, output_reserve=0))
            context = assembler.assemble(
                query=query, current_history=turns, candidates=candidates, priming=primed
            )
        return ContextView.of(context, namespace=scope, query=query)

    # -- core memory ----------------------------------------------------------------------------

    async def _core(self, scope: str) -> CoreMemory:
        core = self._cores.get(scope)
        if core is None:
            core = await self.runtime.blocks(scope, self._block_config)
            self._cores[scope] = core
        return core

    async def core_memory(self, *, namespace: str | None = None) -> list[BlockView]:
        """Every core block of ``namespace``, in configured order."""
        scope = self.config.scope(namespace)
        async with self._operation():
            core = await self._core(scope)
        return [BlockView.of(core.block(label)) for label in core.labels]

    async def core_memory_block(self, label: str, *, namespace: str | None = None) -> BlockView:
        """One core block; InvalidArgumentError naming the labels for an unknown one."""
        scope = self.config.scope(namespace)
        async with self._operation():
            core = await self._core(scope)
        return BlockView.of(core.block(label))

    async def core_memory_add(
        self, block: str, text: str, *, namespace: str | None = None
    ) -> BlockEditResult:
        """Add ``text`` as one entry of ``block``."""
        self._text(text, "text")
        return await self._edit(block, BlockEdit.add(text), namespace)

    async def core_memory_replace(
        self, block: str, old_text: str, new_text: str, *, namespace: str | None = None
    ) -> BlockEditResult:
        """Replace the one entry of ``block`` containing ``old_text`` with ``new_text``."""
        self._text(old_text, "old_text")
        self._text(new_text, "new_text")
        return await self._edit(block, BlockEdit.replace(old_text, new_text), namespace)

    async def core_memory_remove(
        self, block: str, old_text: str, *, namespace: str | None = None
    ) -> BlockEditResult:
        """Remove the one entry of ``block`` containing ``old_text``."""
        self._text(old_text, "old_text")
        return await self._edit(block, BlockEdit.remove(old_text), namespace)

    async def _edit(self, label: str, edit: BlockEdit, namespace: str | None) -> BlockEditResult:
        scope = self.config.scope(namespace)
        if not isinstance(label, str):
            raise InvalidArgumentError(f"block must be a block label, got {shown(label)}")
        lock = self._core_locks.setdefault(scope, asyncio.Lock())
        async with self._operation(), lock:
            core = await self._core(scope)
            core.block(label)  # InvalidArgumentError naming the labels, before any write
            try:
                await core.apply(label, [edit], actor="server")
            except BlockConflictError as exc:  # another process wrote the block: show it anew
                await core.reload()
                return _refused(scope, core, label, exc)
            except BlockError as exc:
                return _refused(scope, core, label, exc)
        done = {"add": "Added to", "replace": "Replaced in", "remove": "Removed from"}[edit.op]
        return BlockEditResult(
            ok=True,
            namespace=scope,
            error=None,
            message=f"{done} the {label} block.",
            block=BlockView.of(core.block(label)),
        )


def _started(runtime: Runtime) -> bool:
    try:
        runtime.controller  # noqa: B018 - the property raises when not started
    except StoreClosedError:
        return False
    return True


def _refused(scope: str, core: CoreMemory, label: str, exc: BlockError) -> BlockEditResult:
    block = core.block(label)
    message = str(exc)
    if block.render() not in message:  # a full block's message already carries it
        message += "\n" + block.render()
    return BlockEditResult(
        ok=False,
        namespace=scope,
        error=type(exc).__name__,
        message=message,
        block=BlockView.of(block),
    )
