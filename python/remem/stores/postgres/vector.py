"""PgVectorStore: the VectorStore protocol on PostgreSQL + pgvector."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any

import numpy as np
import psycopg
from numpy.typing import NDArray
from psycopg import sql
from psycopg_pool import AsyncConnectionPool

from remem.errors import DuplicateIdError, NotFoundError, shown
from remem.models import CollectionInfo, Metric, VectorItem, VectorMatch
from remem.stores.base.vector import VectorStoreBase, VectorWrite
from remem.stores.filters import Filter
from remem.stores.postgres.connection import open_pool, raise_backend
from remem.stores.postgres.migrations import migrate
from remem.stores.postgres.vector_copy import copy_payload, vector_text
from remem.stores.postgres.vector_schema import (
    MAX_INDEXED_DIMENSION,
    MIGRATIONS,
    PgCollection,
    PgVectorConfig,
)
from remem.stores.shared.filter_sql import compile_postgres
from remem.stores.shared.vector_input import (
    Batch,
    batch_of,
    check_collection,
    check_ids,
    check_reopen,
    for_metric,
    prepare_queries,
)
from remem.stores.vector import ScoredId

__all__ = ["MIGRATIONS", "LoadBatch", "PgVectorConfig", "PgVectorStore"]

LoadBatch = tuple[
    Sequence[str], NDArray[np.float32], Sequence[str | None], Sequence[Mapping[str, object]]
]
"""``(ids, vectors, documents, metadatas)``: one batch of :meth:`PgVectorStore.load_in`."""


class PgVectorStore(VectorStoreBase):
    """Collections in ``remem_vector_collections``; items of collection ``cid`` in their own
    table ``remem_vectors_<cid>`` (id, document, metadata jsonb, embedding vector(d), norm) with
    its own HNSW index (``vector_ip_ops``).

    Cosine collections store unit-normalised embeddings plus the original norm (``get``
    returns ``unit * norm``, equal to the input within float32 tolerance) and index them with
    ``vector_ip_ops`` — the same order as ``vector_cosine_ops`` but defined for zero vectors.
    Collections of at most ``exact_threshold`` items are searched exactly; larger ones through
    the HNSW index with ``hnsw.iterative_scan = relaxed_order`` for filtered queries, and if that
    still yields fewer than ``k`` rows, an exact filtered scan answers instead. Filters compile
    to parameterised SQL over the jsonb column. Writes go through COPY (binary) into a temp
    table, then one INSERT, in one transaction that locks the collection row (writers to one
    collection are serialised; all-or-nothing).

    Durability: PostgreSQL's — a returned write is committed (survives crashes and power loss
    with the server's default fsync settings).
    """

    def __init__(self, dsn: str, config: PgVectorConfig | None = None) -> None:
        self.dsn = dsn
        self.config = config or PgVectorConfig()
        self._pool: AsyncConnectionPool | None = None

    async def _open(self) -> None:
        pool = await open_pool(self.dsn)
        try:
            async with pool.connection() as conn:
                await migrate(conn, "vectors", MIGRATIONS)
        except BaseException:
            await pool.close()
            raise
        self._pool = pool

    async def _close(self) -> None:
        if self._pool is not None:
            await self._pool.close()
            self._pool = None

    @asynccontextmanager
    async def _conn(self, action: str) -> AsyncIterator[psycopg.AsyncConnection[Any]]:
        await self._ensure_open()
        assert self._pool is not None
        try:
            async with self._pool.connection() as conn, conn.transaction():
                yield conn
        except psycopg.Error as exc:
            raise_backend(exc, action)

    async def _collection(
        self, conn: psycopg.AsyncConnection[Any], name: str, *, lock: bool = False
    ) -> PgCollection:
        check_collection(name)
        cur = await conn.execute(
            "SELECT cid, name, model_name, dimension, metric, item_count "
            "FROM remem_vector_collections WHERE name = %s" + (" FOR UPDATE" if lock else ""),
            (name,),
        )
        row = await cur.fetchone()
        if row is None:
            raise NotFoundError(
                f"no vector collection named {shown(name)}; create it with create_collection()"
            )
        cid, nm, model, dim, metric, count = row
        info = CollectionInfo(
            name=nm, model_name=model, dimension=dim, metric=Metric(metric), count=count
        )
        return PgCollection(cid, info)

    async def _create_table(self, conn: psycopg.AsyncConnection[Any], col: PgCollection) -> None:
        await conn.execute(
            sql.SQL(
                'CREATE TABLE {} (id text COLLATE "C" PRIMARY KEY, document text, '
                "metadata jsonb NOT NULL, embedding vector({}) NOT NULL, norm real NOT NULL)"
            ).format(col.table, sql.Literal(col.info.dimension))
        )
        # The HNSW index is created by the first write that takes the collection past
        # exact_threshold: building it after a bulk load is much cheaper than row by row.

    async def _hnsw_index(
        self, conn: psycopg.AsyncConnection[Any], col: PgCollection
    ) -> str | None:
        """The name of the collection's HNSW index, if it has one."""
        cur = await conn.execute(
            "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() "
            "AND tablename = %s AND indexdef LIKE '%%USING hnsw%%'",
            (f"remem_vectors_{col.cid}",),
        )
        row = await cur.fetchone()
        return None if row is None else str(row[0])

    async def _build_index(self, conn: psycopg.AsyncConnection[Any], col: PgCollection) -> None:
        await conn.execute(
            sql.SQL("SET LOCAL maintenance_work_mem = {}").format(
                sql.Literal(self.config.maintenance_work_mem)
            )
        )
        await conn.execute(
            sql.SQL(
                "CREATE INDEX {} ON {} USING hnsw (embedding vector_ip_ops) "
                "WITH (m = {}, ef_construction = {})"
            ).format(
                col.index,
                col.table,
                sql.Literal(self.config.m),
                sql.Literal(self.config.ef_construction),
            )
        )

    # -- collections ---------------------------------------------------------------------------

    async def _create_collection(self, info: CollectionInfo, reembed: bool) -> CollectionInfo:
        name = info.name
        async with self._conn(f"creating collection {shown(name)}") as conn:
            # No table lock: a writer holds its collection row FOR UPDATE and then updates it,
            # so a table lock taken here deadlocked against concurrent writers (found by the
            # two-process test). The unique name serialises concurrent creators instead.
            try:
                existing = await self._collection(conn, name, lock=reembed)
            except NotFoundError:
                cur = await conn.execute(
                    "INSERT INTO remem_vector_collections (name, model_name, dimension, metric) "
                    "VALUES (%s, %s, %s, %s) ON CONFLICT (name) DO NOTHING RETURNING cid",
                    (name, info.model_name, info.dimension, info.metric.value),
                )
                row = await cur.fetchone()
                if row is not None:
                    await self._create_table(conn, PgCollection(row[0], info))
                    return info
                # Another process created it first; its row is committed and visible now.
                existing = await self._collection(conn, name, lock=reembed)
            if not reembed:
                check_reopen(existing.info, info.model_name, info.dimension, info.metric)
                return existing.info
            await conn.execute(sql.SQL("DROP TABLE {}").format(existing.table))
            await conn.execute(
                "UPDATE remem_vector_collections SET model_name = %s, dimension = %s, "
                "metric = %s, item_count = 0 WHERE cid = %s",
                (info.model_name, info.dimension, info.metric.value, existing.cid),
            )
            await self._create_table(conn, PgCollection(existing.cid, info))
            return info

    async def _get_collection(self, name: str) -> CollectionInfo:
        async with self._conn(f"reading collection {shown(name)}") as conn:
            return (await self._collection(conn, name)).info

    async def _list_collections(self) -> list[CollectionInfo]:
        async with self._conn("listing collections") as conn:
            cur = await conn.execute("SELECT name FROM remem_vector_collections ORDER BY name")
            names = [r[0] for r in await cur.fetchall()]
            return [(await self._collection(conn, n)).info for n in sorted(names)]

    async def _delete_collection(self, name: str) -> None:
        async with self._conn(f"deleting collection {shown(name)}") as conn:
            col = await self._collection(conn, name, lock=True)
            await conn.execute(sql.SQL("DROP TABLE {}").format(col.table))
            await conn.execute("DELETE FROM remem_vector_collections WHERE cid = %s", (col.cid,))

    # -- inside a caller's transaction ----------------------------------------------------------

    async def drop_all_in(self, conn: psycopg.AsyncConnection[Any]) -> None:
        """Drop every collection on ``conn``, inside the caller's transaction (the caller
        commits): an import's ``--force`` replaces rows and vectors together. Needs no open."""
        cur = await conn.execute("SELECT cid FROM remem_vector_collections FOR UPDATE")
        for (cid,) in await cur.fetchall():
            await conn.execute(
                sql.SQL("DROP TABLE {}").format(sql.Identifier(f"remem_vectors_{cid}"))
            )
        await conn.execute("DELETE FROM remem_vector_collections")

    async def load_in(
        self,
        conn: psycopg.AsyncConnection[Any],
        info: CollectionInfo,
        batches: Iterable[LoadBatch],
    ) -> None:
        """Create the (new) collection ``info`` and add ``(ids, vectors, documents, metadatas)``
        batches on ``conn``, inside the caller's transaction, as :meth:`add` would (COPY, item
        counts, the HNSW index past ``exact_threshold``) — so that an import commits its rows
        and its vectors at once (:mod:`remem.recovery.portable`). Needs no open."""
        check_collection(info.name)
        cur = await conn.execute(
            "INSERT INTO remem_vector_collections (name, model_name, dimension, metric) "
            "VALUES (%s, %s, %s, %s) RETURNING cid",
            (info.name, info.model_name, info.dimension, Metric(info.metric).value),
        )
        row = await cur.fetchone()
        assert row is not None
        await self._create_table(conn, PgCollection(row[0], info))
        for ids, vectors, documents, metadatas in batches:
            col = await self._collection(conn, info.name)  # the counts of the batches before
            batch = batch_of(col.info, check_ids(ids), vectors, documents, metadatas)
            if len(batch):
                await self._copy_in(conn, col, batch, replace=False)
                # Its staging table is dropped at COMMIT; the next batch needs a fresh one.
                await conn.execute("DROP TABLE remem_vector_batch")

    # -- writes --------------------------------------------------------------------------------

    async def _write(self, write: VectorWrite) -> None:
        async with self._conn(f"writing to collection {shown(write.collection)}") as conn:
            col = await self._collection(conn, write.collection, lock=True)
            batch = write.batch(col.info)
            if len(batch):
                await self._copy_in(conn, col, batch, replace=write.replace)

    async def _copy_in(
        self, conn: psycopg.AsyncConnection[Any], col: PgCollection, batch: Batch, *, replace: bool
    ) -> None:
        norms = np.linalg.norm(batch.vectors, axis=1).astype(np.float32)
        stored = for_metric(batch.vectors, col.info.metric)
        await conn.execute(
            sql.SQL(
                "CREATE TEMP TABLE remem_vector_batch (id text, document text, metadata jsonb, "
                "embedding vector({}), norm real) ON COMMIT DROP"
            ).format(sql.Literal(col.info.dimension))
        )
        cur = conn.cursor()
        async with cur.copy("COPY remem_vector_batch FROM STDIN WITH (FORMAT BINARY)") as copy:
            await copy.write(copy_payload(batch, stored, norms))
        index = await self._hnsw_index(conn, col)
        indexable = col.info.dimension <= MAX_INDEXED_DIMENSION
        rebuild = (
            index is not None
            and self.config.rebuild_ratio > 0
            and len(batch) >= self.config.rebuild_ratio * col.info.count
        )
        if rebuild:
            await conn.execute(sql.SQL("DROP INDEX {}").format(sql.Identifier(str(index))))
            index = None
        if replace:
            cur = await conn.execute(
                sql.SQL(
                    "INSERT INTO {} SELECT * FROM remem_vector_batch ON CONFLICT (id) DO UPDATE "
                    "SET document = EXCLUDED.document, metadata = EXCLUDED.metadata, "
                    "embedding = EXCLUDED.embedding, norm = EXCLUDED.norm RETURNING (xmax = 0)"
                ).format(col.table)
            )
            added = sum(bool(r[0]) for r in await cur.fetchall())
        else:
            try:
                async with conn.transaction():
                    await conn.execute(
                        sql.SQL("INSERT INTO {} SELECT * FROM remem_vector_batch").format(col.table)
                    )
            except psycopg.errors.UniqueViolation as exc:
                cur = await conn.execute(
                    sql.SQL(
                        "SELECT min(t.id) FROM {} t JOIN remem_vector_batch b ON b.id = t.id"
                    ).format(col.table)
                )
                row = await cur.fetchone()
                raise DuplicateIdError(
                    f"id {row[0] if row else '?'!r} already exists in collection "
                    f"{col.info.name!r}; use upsert() to replace it"
                ) from exc
            added = len(batch)
        await conn.execute(
            "UPDATE remem_vector_collections SET item_count = item_count + %s WHERE cid = %s",
            (added, col.cid),
        )
        if indexable and index is None and col.info.count + added > self.config.exact_threshold:
            await self._build_index(conn, col)

    async def _delete(self, collection: str, ids: list[str]) -> int:
        wanted = sorted(set(ids))
        async with self._conn(f"deleting from collection {shown(collection)}") as conn:
            col = await self._collection(conn, collection, lock=True)
            if not wanted:
                return 0
            cur = await conn.execute(
                sql.SQL("DELETE FROM {} WHERE id = ANY(%s)").format(col.table), (wanted,)
            )
            removed = cur.rowcount
            await conn.execute(
                "UPDATE remem_vector_collections SET item_count = item_count - %s WHERE cid = %s",
                (removed, col.cid),
            )
            return removed

    # -- reads ---------------------------------------------------------------------------------

    async def _get(self, collection: str, wanted: list[str]) -> list[VectorItem]:
        async with self._conn(f"reading collection {shown(collection)}") as conn:
            col = await self._collection(conn, collection)
            cur = await conn.execute(
                sql.SQL(
                    "SELECT id, embedding::real[], norm, document, metadata FROM {} "
                    "WHERE id = ANY(%s)"
                ).format(col.table),
                (list(set(wanted)),),
            )
            rows = {r[0]: r for r in await cur.fetchall()}
        out = []
        for item_id in dict.fromkeys(wanted):
            if item_id in rows:
                _, emb, norm, document, metadata = rows[item_id]
                vec = np.asarray(emb, dtype=np.float32)
                if col.info.metric is Metric.COSINE:
                    vec = vec * np.float32(norm)
                out.append(
                    VectorItem(
                        id=item_id, vector=tuple(vec.tolist()), document=document, metadata=metadata
                    )
                )
        return out

    async def _count(self, collection: str, node: Filter | None) -> int:
        async with self._conn(f"counting collection {shown(collection)}") as conn:
            col = await self._collection(conn, collection)
            if node is None:
                return col.info.count
            cond, params = compile_postgres(node, "metadata")
            cur = await conn.execute(
                sql.SQL("SELECT count(*) FROM {} WHERE ").format(col.table) + sql.SQL(cond),
                params,
            )
            row = await cur.fetchone()
            return int(row[0]) if row else 0

    async def _query(
        self, collection: str, vectors: object, k: int, node: Filter | None
    ) -> list[list[VectorMatch]]:
        found = await self._ranked(collection, vectors, k, node, payload=True)
        return [
            [VectorMatch(id=r[0], score=r[1], document=r[2], metadata=r[3]) for r in rows]
            for rows in found
        ]

    async def _query_ids(
        self, collection: str, vectors: object, k: int, node: Filter | None
    ) -> list[list[ScoredId]]:
        # The same plan as query(), selecting neither document nor metadata (no JSONB decode).
        found = await self._ranked(collection, vectors, k, node, payload=False)
        return [[ScoredId(r[0], r[1]) for r in rows] for rows in found]

    async def _ranked(
        self, collection: str, vectors: object, k: int, node: Filter | None, *, payload: bool
    ) -> list[list[tuple[Any, ...]]]:
        """Per query, ranked rows ``(id, score)`` — plus ``document, metadata`` with payload."""
        async with self._conn(f"querying collection {shown(collection)}") as conn:
            col = await self._collection(conn, collection)
            queries = for_metric(prepare_queries(col.info, vectors, k), col.info.metric)
            return [await self._query_one(conn, col, q, k, node, payload) for q in queries]

    async def _query_one(
        self,
        conn: psycopg.AsyncConnection[Any],
        col: PgCollection,
        q: NDArray[np.float32],
        k: int,
        node: Filter | None,
        payload: bool,
    ) -> list[tuple[Any, ...]]:
        if col.info.count == 0:
            return []
        exact = (
            col.info.count <= self.config.exact_threshold
            or col.info.dimension > MAX_INDEXED_DIMENSION
        )
        if not exact:
            fetch = k * self.config.overfetch
            rows = await self._search(conn, col, q, fetch, node, payload, exact=False)
            if len(rows) >= k or (node is None and len(rows) >= col.info.count):
                return _ranked_rows(rows, k)
        return _ranked_rows(await self._search(conn, col, q, k, node, payload, exact=True), k)

    async def _search(
        self,
        conn: psycopg.AsyncConnection[Any],
        col: PgCollection,
        q: NDArray[np.float32],
        limit: int,
        node: Filter | None,
        payload: bool,
        *,
        exact: bool,
    ) -> list[tuple[Any, ...]]:
        cond, params = compile_postgres(node, "metadata")
        async with conn.transaction():
            if exact:
                await conn.execute("SET LOCAL enable_indexscan = off")
                order = sql.SQL("embedding <#> %s::vector, id")
            else:
                ef = min(1000, max(self.config.ef_search, limit))
                await conn.execute(sql.SQL("SET LOCAL hnsw.ef_search = {}").format(sql.Literal(ef)))
                if node is not None:
                    await conn.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
                order = sql.SQL("embedding <#> %s::vector")
            text = vector_text(q)
            columns = ", document, metadata" if payload else ""
            query = (
                sql.SQL(
                    "SELECT id, -(embedding <#> %s::vector)" + columns + " FROM {} WHERE "
                ).format(col.table)
                + sql.SQL(cond)
                + sql.SQL(" ORDER BY ")
                + order
                + sql.SQL(" LIMIT %s")
            )
            cur = await conn.execute(query, [text, *params, text, limit])
            rows = await cur.fetchall()
        return [(r[0], float(r[1]), *r[2:]) for r in rows]


def _ranked_rows(rows: list[tuple[Any, ...]], k: int) -> list[tuple[Any, ...]]:
    """:func:`~remem.stores.shared.vector_input.ranked` over ``(id, score, ...)`` rows."""
    return sorted(rows, key=lambda r: (-r[1], r[0]))[:k]
