"""preview(namespace=...): a plan shown to B lists none of A's memories; it moves only B's."""

from __future__ import annotations

from datetime import timedelta

import pytest

from remem.errors import InvalidArgumentError
from remem.models import MemoryRecord, MemoryStage
from tests.lifecycle.conftest import T0, Stack, rec


def in_ns(record: MemoryRecord, namespace: str) -> MemoryRecord:
    return record.model_copy(update={"namespace": namespace})


async def test_a_namespace_plan_holds_only_its_records(any_stack: Stack) -> None:
    s = any_stack
    await s.add(
        [
            in_ns(rec("a-hot", access_count=5), "A"),
            in_ns(rec("a-cold"), "A"),
            in_ns(rec("b-hot", access_count=5), "B"),
            in_ns(rec("b-cold"), "B"),
            in_ns(rec("b-old", stage=MemoryStage.LONG_TERM), "B"),
        ]
    )
    manager = s.manager()
    s.clock.set(T0 + timedelta(days=60))
    whole = await manager.preview()
    assert {c.id for c in whole.changes} == {"a-hot", "a-cold", "b-hot", "b-cold", "b-old"}
    for_b = await manager.preview(namespace="B")
    assert {c.id for c in for_b.changes} == {"b-hot", "b-cold", "b-old"}
    assert (for_b.namespace, for_b.scanned) == ("B", 3)
    assert "a-" not in for_b.describe()
    assert "of namespace 'B'" in for_b.describe()
    assert (await manager.preview(namespace="nobody")).total == 0

    report = await manager.execute(for_b)
    assert report.decayed + report.promoted == 3
    stages = await s.stages()
    assert (stages["a-hot"], stages["a-cold"]) == ("short_term", "short_term")  # A untouched
    assert stages["b-cold"] == "decayed"


async def test_a_bad_namespace_is_refused(stack: Stack) -> None:
    with pytest.raises(InvalidArgumentError):
        await stack.manager().preview(namespace="")
