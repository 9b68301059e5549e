"""RecordStoreBase: the RecordStore contract's front half, written once for every SQL backend.

Each public method checks its arguments here (so DuckDB and PostgreSQL refuse the same bad
input with the same typed error, before touching the database), answers the empty cases, and
hands the checked values to one backend hook. Reads whose SQL is the same on both backends
(``scan``, ``count``, ``keyed_facts``) are written here once, through the backend's
:class:`~remem.stores.sql.SqlDialect` and its ``_rows`` hook.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any, ClassVar

from remem.errors import DuplicateIdError, InvalidArgumentError
from remem.models import MemoryKind, MemoryLifecycleMetadata, MemoryRecord, MemoryStage
from remem.stores.base.lifecycle import StoreLifecycle
from remem.stores.records import LifecycleColumns
from remem.stores.shared.record_checks import (
    check_accesses,
    check_namespace,
    check_supersede,
    check_supersessions,
    check_updates,
    keyed_fact_filter,
    kind_values,
    missing_error,
    record_filter,
    stage_values,
)
from remem.stores.shared.record_memo import DecodedRecords
from remem.stores.shared.record_rows import (
    RECORD_COLUMNS,
    check_ids,
    check_records,
    duplicates,
    row_to_record,
)
from remem.stores.sql.dialect import SqlDialect

Row = tuple[Any, ...]
Params = Sequence[object] | Mapping[str, object]
COLS = ", ".join(RECORD_COLUMNS)


def refuse_existing(ids: Sequence[str]) -> None:
    """``put``'s refusal of ids already stored (none of the batch is written)."""
    if ids:
        raise DuplicateIdError(
            f"put: ids {list(ids)} already exist; nothing was written (use upsert to replace)"
        )


def refuse_early_access(when: datetime, ids: Sequence[str]) -> None:
    """``record_accesses``' refusal of an access time before a record's creation."""
    if ids:
        raise InvalidArgumentError(
            f"record_accesses: at={when.isoformat()} is before the creation of "
            f"{list(ids)}; pass the time of the access"
        )


def refuse_taken(taken: Sequence[tuple[str, str]]) -> None:
    """``supersede_many``'s refusal of old ids already superseded by another record."""
    if taken:
        raise InvalidArgumentError(
            f"supersede_many: {dict(taken)} are already superseded by other records; "
            "supersede those instead (nothing was changed)"
        )


def refuse_supersede(
    found: Mapping[str, str | None],
    old_id: str,
    new_id: str,
    *,
    unknown: Callable[[list[str]], Exception],
    that: str,
) -> None:
    """One ``supersede`` check on ``found`` (id → superseded_by of the two rows read):
    ``unknown(ids)`` is the error for ids not stored."""
    missing = [i for i in (old_id, new_id) if i not in found]
    if missing:
        raise unknown(missing)
    current = found[old_id]
    if current is not None and current != new_id:
        raise InvalidArgumentError(
            f"{old_id!r} is already superseded by {current!r}; supersede {that} instead"
        )


def supersede_sql(d: SqlDialect, table: str) -> tuple[str, str]:
    """The read (locked where the backend locks) and the update of a single ``supersede``."""
    p = d.placeholder
    read = f"SELECT id, superseded_by FROM {table} WHERE id IN ({p}, {p}){d.lock}"
    update = (
        f"UPDATE {table} SET superseded_by = {p}, valid_to = CASE "
        f"WHEN valid_to IS NULL OR valid_to > {p} THEN {p} ELSE valid_to END WHERE id = {p}"
    )
    return read, update


class RecordStoreBase(StoreLifecycle, ABC):
    """Implements :class:`~remem.stores.records.RecordStore` over the hooks below.

    A backend sets ``dialect``, implements ``_rows`` (one read statement) and the write hooks;
    every hook receives checked, non-empty input.
    """

    dialect: ClassVar[SqlDialect]
    shared_rows: ClassVar[bool] = False
    """True when ``_get_rows`` hands back the same row objects while a row is unchanged (the
    embedded store's row cache): ``get_shared`` then decodes each row once."""
    _decoded: DecodedRecords | None = None

    @abstractmethod
    async def _rows(self, sql: str, params: Params, *, action: str) -> list[Row]: ...

    @abstractmethod
    async def _put(self, batch: list[MemoryRecord]) -> None: ...

    @abstractmethod
    async def _upsert(self, batch: list[MemoryRecord]) -> None: ...

    @abstractmethod
    async def _get_rows(self, ids: list[str]) -> dict[str, Row]:
        """The stored rows of the distinct ``ids`` that exist, by id."""

    @abstractmethod
    async def _lifecycle_columns(self, where: str, params: list[object]) -> LifecycleColumns: ...

    @abstractmethod
    async def _update_lifecycle(self, batch: list[tuple[str, MemoryLifecycleMetadata]]) -> None: ...

    @abstractmethod
    async def _record_accesses(self, ids: list[str], scores: list[float], at: datetime) -> None: ...

    @abstractmethod
    async def _supersede(self, old_id: str, new_id: str, at: datetime) -> None: ...

    @abstractmethod
    async def _supersede_many(self, batch: list[tuple[str, str, datetime]]) -> None: ...

    @abstractmethod
    async def _delete(self, ids: list[str]) -> int: ...

    def _where(
        self,
        stages: list[str] | None,
        kinds: list[str] | None = None,
        namespace: str | None = None,
        include_superseded: bool = True,
    ) -> tuple[str, list[object]]:
        d = self.dialect
        return record_filter(
            stages,
            kinds,
            namespace,
            include_superseded,
            in_list=d.in_list_form,
            placeholder=d.placeholder,
        )

    async def put(self, records: Sequence[MemoryRecord]) -> None:
        batch = check_records(records, action="put")
        dups = duplicates([r.id for r in batch])
        if dups:
            raise DuplicateIdError(
                f"put: ids {dups[:10]} appear twice in the batch; nothing written"
            )
        if batch:
            await self._put(batch)

    async def upsert(self, records: Sequence[MemoryRecord]) -> None:
        batch = check_records(records, action="upsert")
        last = {r.id: r for r in batch}  # a later duplicate wins, as if applied in order
        if last:
            await self._upsert(list(last.values()))

    async def get(self, ids: Sequence[str]) -> list[MemoryRecord]:
        wanted = check_ids(ids, action="get")
        if not wanted:
            return []
        unique = list(dict.fromkeys(wanted))
        found = await self._get_rows(unique)
        missing = [i for i in unique if i not in found]
        if missing:
            raise missing_error(missing, action="get")
        return [row_to_record(found[i]) for i in wanted]

    async def get_shared(self, ids: Sequence[str]) -> dict[str, MemoryRecord]:
        """The records of the ``ids`` that exist, by id, in the order first asked; a missing
        id is left out (no error). Equal to ``get`` of those ids, but the records may be the
        objects an earlier call returned (:mod:`remem.stores.shared.record_memo`): never change
        one, hand out :func:`~remem.stores.shared.record_memo.detached` copies.

            found = await store.get_shared(["m1", "gone"])  # {"m1": MemoryRecord(...)}
        """
        wanted = check_ids(ids, action="get_shared")
        if not wanted:
            return {}
        unique = list(dict.fromkeys(wanted))
        found = await self._get_rows(unique)
        rows = {i: found[i] for i in unique if i in found}
        if not self.shared_rows:
            return {i: row_to_record(row) for i, row in rows.items()}
        if self._decoded is None:
            self._decoded = DecodedRecords()
        return self._decoded.records(rows)

    async def scan(
        self,
        *,
        stages: Sequence[MemoryStage] | None = None,
        kinds: Sequence[MemoryKind] | None = None,
        namespace: str | None = None,
        include_superseded: bool = False,
    ) -> list[MemoryRecord]:
        where, params = self._where(
            stage_values(stages), kind_values(kinds), check_namespace(namespace), include_superseded
        )
        order = f"ORDER BY created_at, id{self.dialect.collate}"
        sql = f"SELECT {COLS} FROM memory_records WHERE {where} {order}"
        return [row_to_record(r) for r in await self._rows(sql, params, action="scan")]

    async def count(self, *, stages: Sequence[MemoryStage] | None = None) -> int:
        where, params = self._where(stage_values(stages))
        rows = await self._rows(
            f"SELECT count(*) FROM memory_records WHERE {where}", params, action="count"
        )
        return int(rows[0][0]) if rows else 0

    async def lifecycle_columns(
        self, *, stages: Sequence[MemoryStage] | None = None
    ) -> LifecycleColumns:
        where, params = self._where(stage_values(stages))
        return await self._lifecycle_columns(where, params)

    async def update_lifecycle(
        self, updates: Sequence[tuple[str, MemoryLifecycleMetadata]]
    ) -> None:
        batch = check_updates(updates)
        if batch:
            await self._update_lifecycle(batch)

    async def record_accesses(
        self, ids: Sequence[str], new_base_scores: Sequence[float], at: datetime
    ) -> None:
        id_list, scores, when = check_accesses(ids, new_base_scores, at)
        if id_list:
            await self._record_accesses(list(id_list), list(scores), when)

    async def supersede(self, old_id: str, new_id: str, *, at: datetime) -> None:
        when = check_supersede(old_id, new_id, at)
        await self._supersede(old_id, new_id, when)

    async def supersede_many(self, items: Sequence[tuple[str, str, datetime]]) -> None:
        batch = check_supersessions(items)
        if batch:
            await self._supersede_many(batch)

    async def keyed_facts(
        self,
        *,
        subjects: Sequence[str] | None = None,
        attributes: Sequence[str] | None = None,
        namespace: str | None = None,
        include_superseded: bool = False,
    ) -> list[MemoryRecord]:
        d = self.dialect
        subject, attribute = (
            d.json_text("metadata", "subject"),
            d.json_text("metadata", "attribute"),
        )
        clauses, params = keyed_fact_filter(
            subjects,
            attributes,
            namespace,
            include_superseded=include_superseded,
            subject_expr=subject,
            attribute_expr=attribute,
            in_list=d.in_list_form,
            placeholder=d.placeholder,
        )
        c = d.collate
        sql = (
            f"SELECT {COLS} FROM memory_records WHERE {' AND '.join(clauses)} "
            f"ORDER BY namespace{c}, {subject}{c}, {attribute}{c}, "
            f"coalesce(valid_from, created_at), created_at, id{c}"
        )
        return [row_to_record(r) for r in await self._rows(sql, params, action="keyed_facts")]

    async def delete(self, ids: Sequence[str]) -> int:
        unique = list(dict.fromkeys(check_ids(ids, action="delete")))
        if not unique:
            return 0
        return await self._delete(unique)
