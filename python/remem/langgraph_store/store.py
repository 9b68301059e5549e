"""RememStore: LangGraph's ``BaseStore`` backed by a remem memory directory.

    store = RememStore.open("./memory", embedding_provider="hashing")
    store.put(("users", "ana"), "home", {"text": "Ana lives in Lisbon"})
    store.get(("users", "ana"), "home").value        # {'text': 'Ana lives in Lisbon'}
    store.search(("users",), query="where does Ana live?")
    graph = builder.compile(store=store)             # LangGraph nodes get it as ``store``
    store.close()

Storage: one item is one remem memory in the namespace :func:`~.namespaces.to_remem` gives its
tuple; the memory's text is what search ranks (the value as sorted JSON, or the ``index``
fields LangGraph names); its metadata keeps the key, the value as JSON (so ``get`` returns
exactly the dict ``put`` stored) and ``created_at``/``updated_at``. Overwriting a key writes
a new memory and supersedes the old one (kept as history, never returned); deleting (``put``
with ``None``) forgets it. A read picks the newest live memory of a key, so a crash between
the write and the supersede can never show a stale value.

Search: ``namespace_prefix`` and ``filter`` (LangGraph's rules, :mod:`.matching`) select the
items; without a query they come newest-updated first, with one in remem recall order (score
= the fused recall score), then any item recall did not rank (score None), as LangGraph's
``InMemoryStore`` does; ``offset``/``limit`` page that order.

Concurrency: the runtime runs on the store's own event-loop thread, so ``batch`` works from
plain code and ``abatch`` from any event loop; batches run one at a time, each op in order.
No TTL (``supports_ttl`` is False: LangGraph refuses a ``ttl`` itself).
Bad input raises LangGraph's ``InvalidNamespaceError`` where LangGraph defines the rule
(labels), otherwise :class:`~remem.errors.InvalidArgumentError`, before any op of the batch runs.
"""

from __future__ import annotations

import asyncio
import json
import threading
import uuid
from collections.abc import Coroutine, Iterable, Mapping, Sequence
from concurrent.futures import Future
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Self, TypeVar

from langgraph.store.base import (
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    validate_op_namespace,
)
from langgraph.store.base.embed import get_text_at_path

from remem.errors import InvalidArgumentError, StoreClosedError, shown
from remem.langgraph_store.matching import check_filter, namespace_matches, value_matches
from remem.langgraph_store.namespaces import PREFIX, from_remem, to_remem
from remem.models import MemoryRecord, MemoryStage
from remem.runtime import Runtime

__all__ = ["RememStore"]

KEY = "lg_key"
VALUE = "lg_value"
CREATED = "lg_created_at"
UPDATED = "lg_updated_at"
"""The metadata fields an item's memory carries."""

_T = TypeVar("_T")


class RememStore(BaseStore):
    """A LangGraph store on a remem :class:`~remem.Runtime` (see the module docstring).

    ``runtime`` must not be started: the store starts it on its own loop and closes it in
    :meth:`close`. ``index_fields`` are the value paths search ranks by when a ``put`` does not
    name its own (default: the whole value)."""

    supports_ttl = False

    def __init__(self, runtime: Runtime, *, index_fields: Sequence[str] | None = None) -> None:
        if not isinstance(runtime, Runtime):
            raise InvalidArgumentError(f"runtime must be a remem Runtime, got {shown(runtime)}")
        if index_fields is not None and (
            isinstance(index_fields, str) or not all(isinstance(f, str) for f in index_fields)
        ):
            raise InvalidArgumentError(
                f"index_fields must be a list of field paths, got {shown(index_fields)}"
            )
        self._runtime = runtime
        self._index_fields = list(index_fields) if index_fields is not None else None
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="remem-langgraph-store", daemon=True
        )
        self._thread.start()
        self._lock: asyncio.Lock | None = None
        self._closed = False
        try:
            self._submit(runtime.start()).result()
        except BaseException:
            self._stop_loop()
            raise

    @classmethod
    def open(
        cls,
        path: str | Path,
        *,
        index_fields: Sequence[str] | None = None,
        **runtime_options: Any,
    ) -> RememStore:
        """A store on the memory directory ``path`` (``runtime_options`` go to Runtime.open)."""
        return cls(Runtime.open(path, **runtime_options), index_fields=index_fields)

    # -- lifecycle ------------------------------------------------------------------------------

    def close(self) -> None:
        """Close the runtime (every write applied) and stop the loop thread; idempotent."""
        if self._closed:
            return
        self._closed = True
        try:
            self._submit(self._runtime.aclose()).result()
        finally:
            self._stop_loop()

    async def aclose(self) -> None:
        """:meth:`close` without blocking the caller's event loop."""
        await asyncio.to_thread(self.close)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    def _stop_loop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        self._loop.close()

    def _submit(self, coro: Coroutine[Any, Any, _T]) -> Future[_T]:
        return asyncio.run_coroutine_threadsafe(coro, self._loop)

    # -- BaseStore ------------------------------------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run ``ops`` in order; one result per op (None for a put)."""
        return self._submit(self._run(self._checked(ops))).result()

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """:meth:`batch` for async code."""
        return await asyncio.wrap_future(self._submit(self._run(self._checked(ops))))

    def _checked(self, ops: Iterable[Op]) -> list[Op]:
        if self._closed:
            raise StoreClosedError("this RememStore was closed; open a new one")
        checked = list(ops)
        for op in checked:
            validate_op_namespace(op)
            if isinstance(op, GetOp | PutOp):
                if not op.namespace:
                    raise InvalidNamespaceError("Namespace cannot be empty.")
                to_remem(op.namespace)  # too long: InvalidArgumentError before any write
                if not isinstance(op.key, str) or not op.key or "\x00" in op.key:
                    raise InvalidArgumentError(
                        f"key must be a non-empty string without NUL, got {shown(op.key)}"
                    )
            if isinstance(op, PutOp) and op.value is not None:
                _check_value(op.value)
            elif isinstance(op, SearchOp | ListNamespacesOp):
                _check_page(op.limit, op.offset)
                if isinstance(op, SearchOp):
                    check_filter(op.filter)
                    if op.query is not None and not isinstance(op.query, str):
                        raise InvalidArgumentError(f"query must be a string, got {shown(op.query)}")
            elif not isinstance(op, GetOp | PutOp):
                raise InvalidArgumentError(f"unknown store operation {shown(op)}")
        return checked

    async def _run(self, ops: list[Op]) -> list[Result]:
        if self._lock is None:
            self._lock = asyncio.Lock()  # created on the store's loop, where it is used
        results: list[Result] = []
        async with self._lock:
            for op in ops:
                if isinstance(op, GetOp):
                    results.append(await self._get(op))
                elif isinstance(op, PutOp):
                    await self._put(op)
                    results.append(None)
                elif isinstance(op, SearchOp):
                    results.append(await self._search(op))
                else:
                    assert isinstance(op, ListNamespacesOp)
                    results.append(await self._list_namespaces(op))
        return results

    # -- operations -----------------------------------------------------------------------------

    async def _live(self, namespace: str | None) -> list[MemoryRecord]:
        """The live item memories of ``namespace`` (None: of every LangGraph namespace)."""
        stores = await self._runtime.controller.settled()
        records = await stores.records.scan(namespace=namespace)
        return [
            r
            for r in records
            if r.namespace.startswith(PREFIX)
            and KEY in r.metadata
            and r.lifecycle.stage is not MemoryStage.DELETED
        ]

    async def _versions(self, namespace: tuple[str, ...], key: str) -> list[MemoryRecord]:
        """The live memories of one key, newest first (normally one)."""
        found = [r for r in await self._live(to_remem(namespace)) if r.metadata[KEY] == key]
        return sorted(found, key=lambda r: str(r.metadata[UPDATED]), reverse=True)

    async def _get(self, op: GetOp) -> Item | None:
        versions = await self._versions(op.namespace, op.key)
        return _item(versions[0]) if versions else None

    async def _put(self, op: PutOp) -> None:
        controller = self._runtime.controller
        versions = await self._versions(op.namespace, op.key)
        if op.value is None:
            if versions:
                await controller.forget([r.id for r in versions])
            return
        now = datetime.now(UTC).isoformat()
        created = str(versions[-1].metadata[CREATED]) if versions else now
        record = await controller.remember(
            self._text(op),
            namespace=to_remem(op.namespace),
            memory_id=f"lg-{uuid.uuid4().hex}",
            metadata={
                KEY: op.key,
                VALUE: json.dumps(op.value, ensure_ascii=False, allow_nan=False),
                CREATED: created,
                UPDATED: now,
            },
        )
        if versions:
            await controller.supersede_many([(r.id, record.id, None) for r in versions])

    def _text(self, op: PutOp) -> str:
        assert op.value is not None
        if op.index is False:
            return op.key
        fields = list(op.index) if op.index is not None else self._index_fields
        if not fields:
            fields = ["$"]
        texts = [t for f in fields for t in get_text_at_path(op.value, f)]
        text = "\n".join(texts)
        return text if text.strip() else op.key

    async def _search(self, op: SearchOp) -> list[SearchItem]:
        prefix = tuple(op.namespace_prefix)
        in_scope = [
            (r, _item(r))
            for r in await self._live(None)
            if from_remem(r.namespace)[: len(prefix)] == prefix
        ]
        chosen = {r.id: (r, item) for r, item in in_scope if value_matches(item.value, op.filter)}
        if not chosen:
            return []
        scores: dict[str, float] = {}
        if op.query:
            # Enough hits that the page is ranked even when every filtered-out item outranks it.
            k = min(len(in_scope), op.offset + op.limit + len(in_scope) - len(chosen), 1000)
            namespaces = sorted({r.namespace for r, _ in chosen.values()})
            hits = await self._runtime.controller.recall(
                op.query,
                k=max(k, 1),
                filters={"namespace": {"$in": namespaces}},
                include_decayed=True,
            )
            for hit in hits:
                if hit.record.id in chosen and hit.record.id not in scores:
                    scores[hit.record.id] = hit.score
        newest = sorted(chosen.values(), key=lambda pair: pair[1].updated_at, reverse=True)
        ordered = [chosen[i] for i in scores] + [p for p in newest if p[0].id not in scores]
        return [
            SearchItem(
                namespace=item.namespace,
                key=item.key,
                value=item.value,
                created_at=item.created_at,
                updated_at=item.updated_at,
                score=scores.get(record.id),
            )
            for record, item in ordered[op.offset : op.offset + op.limit]
        ]

    async def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        namespaces = {from_remem(r.namespace) for r in await self._live(None)}
        conditions = op.match_conditions or ()
        kept = [ns for ns in namespaces if all(namespace_matches(c, ns) for c in conditions)]
        if op.max_depth is not None:
            kept = list({ns[: op.max_depth] for ns in kept})
        return sorted(kept)[op.offset : op.offset + op.limit]


def _item(record: MemoryRecord) -> Item:
    meta = record.metadata
    return Item(
        value=json.loads(str(meta[VALUE])),
        key=str(meta[KEY]),
        namespace=from_remem(record.namespace),
        created_at=datetime.fromisoformat(str(meta[CREATED])),
        updated_at=datetime.fromisoformat(str(meta[UPDATED])),
    )


def _check_value(value: object) -> None:
    if not isinstance(value, Mapping):
        raise InvalidArgumentError(f"value must be a JSON object (a dict), got {shown(value)}")
    try:
        json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InvalidArgumentError(
            f"value must be JSON-serialisable with finite numbers ({exc}); convert it first"
        ) from exc


def _check_page(limit: object, offset: object) -> None:
    for name, number, low in (("limit", limit, 0), ("offset", offset, 0)):
        if isinstance(number, bool) or not isinstance(number, int) or number < low:
            raise InvalidArgumentError(f"{name} must be an int ≥ {low}, got {shown(number)}")
