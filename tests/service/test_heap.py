"""freeze_startup_heap: startup's objects leave the collector's walk; later garbage is still
collected, and garbage made before the freeze is collected by it, not frozen."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from remem.service.heap import freeze_startup_heap


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


def dropped_cycle() -> weakref.ref[Node]:
    """A two-node reference cycle nothing refers to any more (only the collector frees it)."""
    a, b = Node(), Node()
    a.other, b.other = b, a
    return weakref.ref(a)


@pytest.fixture(autouse=True)
def unfrozen() -> Iterator[None]:
    yield
    gc.unfreeze()  # the test process is not a server: give its objects back to the collector


def in_oldest_generation(obj: object) -> bool:
    return any(o is obj for o in gc.get_objects(generation=2))


def test_live_objects_leave_the_collectors_walk() -> None:
    kept = Node()
    gc.collect()
    assert in_oldest_generation(kept)
    frozen = freeze_startup_heap()
    assert frozen == gc.get_freeze_count() > 0
    assert not in_oldest_generation(kept)
    gc.unfreeze()
    assert in_oldest_generation(kept)


def test_garbage_made_before_is_collected_not_frozen_and_after_is_collected() -> None:
    before = dropped_cycle()
    freeze_startup_heap()
    assert before() is None
    after = dropped_cycle()
    assert after() is not None
    gc.collect()
    assert after() is None
