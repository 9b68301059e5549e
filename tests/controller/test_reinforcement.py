"""decay_rescore: the new decay base of each recalled record, from the records recall just read
(the embedded store's decoded-record memo), equal on DuckDB and PostgreSQL."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest

from remem.controller import decay_rescore
from remem.errors import NotFoundError
from remem.lifecycle import DecayCalculator
from remem.stores import RecordStore
from remem.stores.records import get_existing
from tests.stores.factories import T0, lifecycle, record
from tests.stores.test_record_contract import BACKENDS, record_store_of


@pytest.fixture(params=BACKENDS)
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[RecordStore]:
    async with record_store_of(request, tmp_path) as records:
        yield records


async def test_rescore_reinforces_the_stored_bases_and_follows_each_write(
    store: RecordStore,
) -> None:
    recs = [record(i, lifecycle=lifecycle(base_score=0.2 + 0.1 * i)) for i in range(4)]
    await store.put(recs)
    decay = DecayCalculator()
    rescore = decay_rescore(store, decay)
    ids = [r.id for r in reversed(recs)]  # any order: one score per id, in the ids' order
    await get_existing(store, ids)  # what recall read: the embedded memo holds these
    at = T0 + timedelta(days=2)

    got = list(await rescore(ids, at))
    assert got == [
        decay.reinforce(r.lifecycle.base_score, r.lifecycle.score_reference_time, at)[0]
        for r in reversed(recs)
    ]
    assert len(set(got)) == len(got)  # distinct bases: the order is checked too
    # An access note rewrites the bases; the next flush reinforces the new ones, not the memo's.
    await store.record_accesses(ids, got, at)
    later = at + timedelta(hours=5)
    again = list(await rescore(ids, later))
    assert again == [decay.reinforce(b, at, later)[0] for b in got]
    assert again != got  # the memo's records were not reused as they were


async def test_rescore_of_an_unknown_id_raises_the_stores_error(store: RecordStore) -> None:
    await store.put([record(1)])
    rescore = decay_rescore(store, DecayCalculator())
    with pytest.raises(NotFoundError, match="gone"):
        await rescore([record(1).id, "gone"], T0 + timedelta(days=1))
