"""HnswVectorStore: the embedded VectorStore (DuckDB file + one hnswlib index per collection)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

import duckdb
import numpy as np
from numpy.typing import NDArray

from remem.errors import BackendError, DuplicateIdError, NotFoundError
from remem.models import CollectionInfo, VectorItem, VectorMatch
from remem.stores.base.vector import VectorStoreBase, VectorWrite
from remem.stores.filters import Filter, matches
from remem.stores.hnsw import index_file, results, scan_file
from remem.stores.hnsw.config import HnswConfig
from remem.stores.hnsw.index_search import Finish, approximate, exact
from remem.stores.hnsw.loaded import Loaded
from remem.stores.hnsw.scan import ScanCache
from remem.stores.hnsw.tables import VectorTables
from remem.stores.shared.vector_input import (
    Batch,
    check_collection,
    check_reopen,
    for_metric,
    prepare_queries,
)
from remem.stores.shared.worker import BlockingWorker
from remem.stores.vector import ScoredId

T = TypeVar("T")
R = TypeVar("R")
_ELIGIBLE_CACHE = 64
"""Filters whose eligible labels one collection keeps (a few scopes' worth; cleared when full)."""


class HnswVectorStore(VectorStoreBase):
    """Vectors in ``<directory>/vectors.duckdb`` plus ``c<cid>.hnsw`` index files beside it.

    Search: a collection with at most ``scan_threshold`` items is answered from an in-memory
    copy of its vectors (built from DuckDB on the first query, then updated with every write):
    an exact float32 top-k when at most ``exact_threshold`` items are eligible, else the native
    int8 scan with exact rescoring; a filter becomes a row mask. Such collections never build
    an hnswlib index. In a larger collection, a filtered query whose eligible set has at most
    ``exact_threshold`` items is an exact native top-k. Otherwise hnswlib answers
    (a filter becomes an hnswlib filter callback over the eligible labels), the candidates are
    rescored exactly, and if hnswlib finds fewer than ``k`` eligible items the query falls back
    to the exact path — so filtered results are never short. ``query`` reads each hit's
    document and metadata (DuckDB, then a per-collection row cache); ``query_ids`` runs the same
    search and takes ids from the in-memory label map, so it reads DuckDB only to evaluate a
    filter. Cosine collections index unit-normalised vectors; DuckDB keeps the originals, which
    ``get`` returns.

    Durability: each add/upsert/delete is one DuckDB transaction (WAL, fsync on commit) — once
    the call returns it survives an application crash and power loss. The scan tier's matrix
    is never written anywhere (rebuilt from DuckDB after reopen). The hnswlib index is a
    derived cache, saved atomically on :meth:`flush` and :meth:`aclose`; after a crash (or if the
    file is missing, stale or corrupt) it is detected on first use and rebuilt from DuckDB
    (:meth:`index_status` says which). Another process holding the directory makes ``open``
    wait up to ``lock_timeout`` and then raise BackendError: writers are serialised per
    directory, one process at a time.
    """

    def __init__(self, directory: str | Path, config: HnswConfig | None = None) -> None:
        self.directory = Path(directory)
        self.config = config or HnswConfig()
        self._worker = BlockingWorker("vectors")
        self._tables: VectorTables | None = None
        self._loaded: dict[str, Loaded] = {}

    # -- lifecycle -----------------------------------------------------------------------------

    async def _open(self) -> None:
        await self._worker.run(self._open_sync)

    def _open_sync(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        index_file.discard_temp_files(self.directory)
        scan_file.discard_temp_scans(self.directory)
        path = self.directory / "vectors.duckdb"
        deadline = time.monotonic() + self.config.lock_timeout
        while True:
            try:
                con = duckdb.connect(str(path))
                break
            except duckdb.IOException as exc:
                if time.monotonic() >= deadline:
                    raise BackendError(
                        f"{path} is open in another process ({exc}); close it there or pass "
                        "HnswConfig(lock_timeout=...) to wait"
                    ) from exc
                time.sleep(0.05)
            except duckdb.Error as exc:
                raise BackendError(f"could not open {path}: {exc}") from exc
        try:
            self._tables = VectorTables(con)
        except BaseException:
            con.close()
            raise

    async def _close(self) -> None:
        try:
            if self._tables is not None:
                await self._worker.run(self._close_sync)
        finally:
            self._worker.shutdown()

    def _close_sync(self) -> None:
        assert self._tables is not None
        try:
            self._flush_sync()
        finally:
            self._tables.con.close()
            self._tables = None
            self._loaded.clear()

    async def flush(self) -> None:
        """Save every changed index file now (``aclose`` does this too)."""
        await self._call(self._flush_sync)

    def _flush_sync(self) -> None:
        for state in self._loaded.values():
            row = state.row
            if state.dirty and state.index is not None:
                index_file.save_index(
                    self.directory, row.cid, state.index, row.generation, len(state.label_of)
                )
                state.dirty = False
            if (
                state.scan is not None
                and state.scan_saved != row.generation
                and len(state.scan) >= scan_file.MIN_ROWS
            ):
                # The scan tier's snapshot, so the next open does not rebuild it (scan_file).
                scan_file.save_scan(self.directory, row.cid, state.scan, row.generation)
                state.scan_saved = row.generation

    async def _call(self, fn: Callable[[], T]) -> T:
        await self._ensure_open()
        return await self._worker.run(fn)

    # -- collections ---------------------------------------------------------------------------

    async def _create_collection(self, info: CollectionInfo, reembed: bool) -> CollectionInfo:
        return await self._call(lambda: self._create_sync(info, reembed))

    def _create_sync(self, info: CollectionInfo, reembed: bool) -> CollectionInfo:
        tables = self._db()
        try:
            row = tables.collection(info.name)
        except NotFoundError:
            with tables.transaction(f"creating collection {info.name!r}"):
                tables.insert_collection(info)
            return tables.collection(info.name).info
        if reembed:
            with tables.transaction(f"re-embedding collection {info.name!r}"):
                tables.reset_collection(row.cid, info)
            self._loaded.pop(info.name, None)
            index_file.remove_index(self.directory, row.cid)
            scan_file.remove_scan(self.directory, row.cid)
            return tables.collection(info.name).info
        check_reopen(row.info, info.model_name, info.dimension, info.metric)
        return row.info

    async def _get_collection(self, name: str) -> CollectionInfo:
        return await self._call(lambda: self._db().collection(name).info)

    async def _list_collections(self) -> list[CollectionInfo]:
        def run() -> list[CollectionInfo]:
            tables = self._db()
            return [tables.collection(n).info for n in tables.collection_names()]

        return await self._call(run)

    async def _delete_collection(self, name: str) -> None:
        def run() -> None:
            tables = self._db()
            row = tables.collection(name)
            with tables.transaction(f"deleting collection {name!r}"):
                tables.drop_collection(row.cid)
            self._loaded.pop(name, None)
            index_file.remove_index(self.directory, row.cid)
            scan_file.remove_scan(self.directory, row.cid)

        await self._call(run)

    async def index_status(self, collection: str) -> str:
        """``"scan"`` when the collection is served by the scan tier (no hnswlib index), else how
        its index was obtained: ``"loaded"``, ``"new"`` or ``"rebuilt:<missing|stale|corrupt>"``
        (for tests and operators; this loads the index if the collection needs one)."""

        def run() -> str:
            state = self._state_of(collection)
            if state.index is None and not self._needs_index(len(state.label_of)):
                return "scan"
            return self._index_of(state).status

        return await self._call(run)

    # -- writes --------------------------------------------------------------------------------

    async def _write(self, write: VectorWrite) -> None:
        def run() -> None:
            state = self._state_of(write.collection)
            batch = write.batch(state.row.info)
            if len(batch):
                self._write_sync(state, batch, replace=write.replace)

        await self._call(run)

    def _write_sync(self, state: Loaded, batch: Batch, *, replace: bool) -> None:
        tables, row = self._db(), state.row
        old = {i: state.label_of[i] for i in batch.ids if i in state.label_of}
        if old and not replace:
            first = next(iter(old))
            raise DuplicateIdError(
                f"id {first!r} already exists in collection {row.info.name!r}; "
                "use upsert() to replace it"
            )
        labels = np.arange(row.next_label, row.next_label + len(batch), dtype=np.int64)
        size = len(state.label_of) - len(old) + len(batch)
        if state.index is None and self._needs_index(size):
            self._index_of(state)  # crossing scan_threshold: load or build it before this write
        with tables.transaction(f"writing to collection {row.info.name!r}"):
            if old:
                tables.delete_items(row.cid, list(old))
            tables.insert_items(row.cid, batch, labels)
            tables.bump(row.cid, row.next_label + len(batch))
        row.generation += 1
        row.next_label += len(batch)
        state.dirty, state.sorted_ids = True, None
        _carry_eligible(state, removed=old.values(), batch=batch, labels=labels)
        prepared = for_metric(batch.vectors, row.info.metric)
        try:
            for label in old.values():
                del state.id_of[label]
                if state.index is not None:
                    state.index.mark_deleted(label)
            if state.index is not None:
                index_file.add_to_index(state.index, prepared, labels)
            if state.scan is not None and self._needs_index(size):
                state.scan = None  # past scan_threshold: hnswlib answers, free the memory
            if state.scan is not None:
                state.scan.remove(np.fromiter(old.values(), dtype=np.int64, count=len(old)))
                state.scan.append(prepared, labels)
        except Exception as exc:
            # DuckDB committed; drop the caches so the next use rebuilds them from it.
            self._loaded.pop(row.info.name, None)
            raise BackendError(f"updating the in-memory index failed: {exc}") from exc
        for item_id, label in zip(batch.ids, labels.tolist(), strict=True):
            state.label_of[item_id] = label
            state.id_of[label] = item_id

    async def _delete(self, collection: str, wanted: list[str]) -> int:
        def run() -> int:
            state = self._state_of(collection)
            row = state.row
            found = {i: state.label_of[i] for i in set(wanted) if i in state.label_of}
            if not found:
                return 0
            tables = self._db()
            with tables.transaction(f"deleting from collection {row.info.name!r}"):
                tables.delete_items(row.cid, list(found))
                tables.bump(row.cid, row.next_label)
            row.generation += 1
            state.dirty, state.sorted_ids = True, None
            _carry_eligible(state, removed=found.values())
            for item_id, label in found.items():
                if state.index is not None:
                    state.index.mark_deleted(label)
                del state.label_of[item_id]
                del state.id_of[label]
            if state.scan is not None:
                state.scan.remove(np.fromiter(found.values(), dtype=np.int64, count=len(found)))
            return len(found)

        return await self._call(run)

    # -- reads ---------------------------------------------------------------------------------

    async def _get(self, collection: str, wanted: list[str]) -> list[VectorItem]:
        def run() -> list[VectorItem]:
            state = self._state_of(collection)
            rows = self._db().rows_by_id(state.row.cid, wanted)
            out = []
            for item_id in dict.fromkeys(wanted):
                if item_id in rows:
                    blob, document, metadata = rows[item_id]
                    vector = tuple(np.frombuffer(blob, dtype=np.float32).tolist())
                    out.append(
                        VectorItem(id=item_id, vector=vector, document=document, metadata=metadata)
                    )
            return out

        return await self._call(run)

    async def _count(self, collection: str, node: Filter | None) -> int:
        def run() -> int:
            state = self._state_of(collection)
            if node is None:
                return len(state.label_of)
            return self._db().count(state.row.cid, node)

        return await self._call(run)

    async def _query(
        self, collection: str, vectors: object, k: int, node: Filter | None
    ) -> list[list[VectorMatch]]:
        return await self._search(collection, vectors, k, node, self._matches)

    async def _query_ids(
        self, collection: str, vectors: object, k: int, node: Filter | None
    ) -> list[list[ScoredId]]:
        return await self._search(collection, vectors, k, node, results.scored_ids)

    async def _search(
        self, collection: str, vectors: object, k: int, node: Filter | None, finish: Finish[R]
    ) -> list[list[R]]:
        def run() -> list[list[R]]:
            state = self._state_of(collection)
            queries = for_metric(prepare_queries(state.row.info, vectors, k), state.row.info.metric)
            return self._query_sync(state, queries, k, node, finish)

        return await self._call(run)

    def _query_sync(
        self,
        state: Loaded,
        queries: NDArray[np.float32],
        k: int,
        node: Filter | None,
        finish: Finish[R],
    ) -> list[list[R]]:
        eligible = None if node is None else self._eligible(state, node)
        size = len(state.label_of) if eligible is None else len(eligible)
        if size == 0:
            return [[] for _ in queries]
        if not self._needs_index(len(state.label_of)):
            labels, scores = self._scan_of(state).search(
                queries, k, eligible, self.config.exact_threshold
            )
            return finish(state, labels, scores, k)
        self._index_of(state)
        if size <= self.config.exact_threshold:
            return exact(state, queries, k, eligible, finish)
        found = approximate(
            state,
            queries,
            k,
            eligible,
            finish,
            overfetch=self.config.overfetch,
            ef_search=self.config.index.ef_search,
        )
        want = min(k, size)
        if any(len(r) < want for r in found):
            return exact(state, queries, k, eligible, finish)
        return found

    def _eligible(self, state: Loaded, node: Filter) -> NDArray[np.int64]:
        """The labels ``node`` admits, read from DuckDB once per collection generation.

        DuckDB evaluates a filter over every row's JSON metadata; a scoped recall asks the
        same ``namespace $in [...]`` on every query, so at 100 scopes × 1k vectors re-reading
        it per query made one scope's recall cost what the whole store costs. Keyed by
        ``repr`` (which tells ``1``, ``1.0`` and ``True`` apart, as the filter does); at most
        :data:`_ELIGIBLE_CACHE` filters per collection are kept."""
        key = repr(node)
        cached = state.eligible.get(key)
        if cached is not None and cached[0] == state.row.generation:
            return cached[2]
        labels = self._db().eligible_labels(state.row.cid, node)
        if len(state.eligible) >= _ELIGIBLE_CACHE:
            state.eligible.clear()
        state.eligible[key] = (state.row.generation, node, labels)
        return labels

    def _matches(
        self, state: Loaded, picked: list[list[int]], scores: Any, k: int
    ) -> list[list[VectorMatch]]:
        cid = state.row.cid
        return results.matches(
            state.rows, lambda wanted: self._db().rows_by_label(cid, wanted), picked, scores, k
        )

    # -- loading and rebuilding ----------------------------------------------------------------

    def _db(self) -> VectorTables:
        if self._tables is None:
            self._check_open()
            raise BackendError("the vector store is not open; use `async with store:`")
        return self._tables

    def _needs_index(self, size: int) -> bool:
        return size > self.config.scan_threshold

    def _state_of(self, name: str) -> Loaded:
        state = self._loaded.get(check_collection(name))
        if state is None:
            row = self._db().collection(name)
            label_of, id_of = self._db().labels(row.cid)
            state = Loaded(row, label_of, id_of)
            self._loaded[name] = state
        return state

    def _scan_of(self, state: Loaded) -> ScanCache:
        if state.scan is None:
            row = state.row
            dim, count = row.info.dimension, len(state.label_of)
            state.scan = scan_file.load_scan(self.directory, row.cid, dim, row.generation, count)
            if state.scan is not None:
                state.scan_saved = row.generation
            else:
                vectors, labels = self._db().vectors(row.cid, dim)
                state.scan = ScanCache(for_metric(vectors, row.info.metric), labels)
        return state.scan

    def _index_of(self, state: Loaded) -> Loaded:
        """Load the collection's hnswlib index from its file, or rebuild it from DuckDB."""
        if state.index is None:
            row, count = state.row, len(state.label_of)

            def read() -> tuple[NDArray[np.float32], NDArray[np.int64]]:
                vectors, labels = self._db().vectors(row.cid, row.info.dimension)
                return for_metric(vectors, row.info.metric), labels

            # A collection served by the scan tier so far never had an index file to lose.
            expected = row.generation > 0 and self._needs_index(count)
            state.index, state.status = index_file.load_or_build(
                self.directory, row, count, self.config.index, read, expected=expected
            )
            state.dirty = state.status != "loaded"
        return state


def _carry_eligible(
    state: Loaded,
    *,
    removed: Iterable[int],
    batch: Batch | None = None,
    labels: NDArray[np.int64] | None = None,
) -> None:
    """Bring every cached eligible set to the collection's new generation after a write.

    A companion turn writes a vector, then recalls through the same ``namespace`` filter:
    dropping the cache on each write made every turn re-run that filter over all rows in
    DuckDB (~10 ms per collection at 10k). The written rows' metadata is in hand, so each
    cached set loses the ``removed`` labels and gains the new ``labels`` the filter admits —
    by :func:`~remem.stores.filters.matches`, which the filter tests hold equal to DuckDB's
    evaluation. Each set becomes a new array (the exact path matches its cache by identity)."""
    gone = np.fromiter(removed, dtype=np.int64)
    for key, (_, node, kept) in list(state.eligible.items()):
        carried = kept[~np.isin(kept, gone)] if len(gone) else kept.copy()
        if batch is not None and labels is not None:
            admitted = [
                label
                for label, meta in zip(labels.tolist(), batch.metadatas, strict=True)
                if matches(node, meta)
            ]
            if admitted:
                carried = np.concatenate([carried, np.array(admitted, dtype=np.int64)])
        state.eligible[key] = (state.row.generation, node, carried)
