"""RecordStore.keyed_facts and supersede_many: the same answers on DuckDB and PostgreSQL."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest

from remem.errors import InvalidArgumentError, NotFoundError
from remem.models import MemoryRecord, MemoryStage
from remem.stores import RecordStore
from tests.stores.factories import T0, lifecycle, record
from tests.stores.test_record_contract import BACKENDS, record_store_of, snapshot


@pytest.fixture(params=BACKENDS)
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[RecordStore]:
    async with record_store_of(request, tmp_path) as records:
        yield records


def fact(i: int, subject: str, attribute: str, value: str, **changes: object) -> MemoryRecord:
    meta = {"subject": subject, "attribute": attribute, "value": value}
    return record(i, text=f"{subject} {attribute} {value}", metadata=meta, **changes)


async def test_keyed_facts_are_live_keyed_records_in_validity_order(store: RecordStore) -> None:
    late_but_earlier = fact(5, "user", "city", "Faro", valid_from=T0 - timedelta(days=9))
    await store.put(
        [
            fact(1, "user", "city", "Lisbon"),
            fact(2, "user", "city", "Porto"),
            fact(3, "ana", "employer", "Acme"),
            fact(4, "user", "hobby", "chess", namespace="other"),
            late_but_earlier,
            record(6, metadata={"subject": "user"}),  # no attribute: not a keyed fact
            record(7),
            fact(8, "user", "city", "Braga", lifecycle=lifecycle(8, stage=MemoryStage.DELETED)),
            fact(9, "user", "city", "Evora"),
        ]
    )
    await store.supersede("rec-00009", "rec-00002", at=T0 + timedelta(days=1))
    got = [r.id for r in await store.keyed_facts()]
    # (namespace, subject, attribute, validity time, created_at, id): Faro's valid_from is
    # before Lisbon's creation although it was written later.
    assert got == ["rec-00003", "rec-00005", "rec-00001", "rec-00002", "rec-00004"]
    city = await store.keyed_facts(subjects=["user"], attributes=["city", "diet"])
    assert [r.id for r in city] == ["rec-00005", "rec-00001", "rec-00002"]
    assert city[0] == late_but_earlier
    assert [r.id for r in await store.keyed_facts(namespace="other")] == ["rec-00004"]
    assert await store.keyed_facts(attributes=[]) == []
    with pytest.raises(InvalidArgumentError):
        await store.keyed_facts(subjects="user")
    # The history of a fact: superseded values too (never deleted ones), in the same order.
    history = await store.keyed_facts(
        subjects=["user"], attributes=["city"], include_superseded=True
    )
    assert [r.id for r in history] == ["rec-00005", "rec-00001", "rec-00002", "rec-00009"]
    assert history[-1].superseded_by == "rec-00002"
    with pytest.raises(InvalidArgumentError, match="include_superseded"):
        await store.keyed_facts(include_superseded="yes")  # type: ignore[arg-type]


async def test_supersede_many_is_one_all_or_nothing_batch(store: RecordStore) -> None:
    await store.put([fact(i, "user", "city", f"c{i}") for i in range(1, 5)])
    t1, t2 = T0 + timedelta(days=1), T0 + timedelta(days=2)
    before = await snapshot(store)
    with pytest.raises(NotFoundError, match="rec-00099"):
        await store.supersede_many([("rec-00001", "rec-00002", t1), ("rec-00003", "rec-00099", t1)])
    with pytest.raises(InvalidArgumentError, match="more than once"):
        await store.supersede_many([("rec-00001", "rec-00002", t1), ("rec-00001", "rec-00003", t1)])
    with pytest.raises(InvalidArgumentError, match="itself"):
        await store.supersede_many([("rec-00001", "rec-00001", t1)])
    assert await snapshot(store) == before
    # A chain in one batch: 1 -> 2 -> 3.
    await store.supersede_many([("rec-00001", "rec-00002", t1), ("rec-00002", "rec-00003", t2)])
    one, two, three = await store.get(["rec-00001", "rec-00002", "rec-00003"])
    assert (one.superseded_by, one.valid_to) == ("rec-00002", t1)
    assert (two.superseded_by, two.valid_to) == ("rec-00003", t2)
    assert three.superseded_by is None
    assert three.valid_to is None
    # Repeating the same supersession is a no-op; another successor is refused, unchanged.
    await store.supersede_many([("rec-00001", "rec-00002", t2)])
    assert (await store.get(["rec-00001"]))[0].valid_to == t1  # an earlier valid_to is kept
    after = await snapshot(store)
    with pytest.raises(InvalidArgumentError, match="already superseded"):
        await store.supersede_many([("rec-00004", "rec-00003", t2), ("rec-00001", "rec-00004", t2)])
    assert await snapshot(store) == after
    await store.supersede_many([])
    assert [r.id for r in await store.keyed_facts()] == ["rec-00003", "rec-00004"]
