"""WriteBehind on a real SQLite journal file, a recording applier standing in for the stores."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray

from remem.errors import ConfigError, IntegrityError, PendingWritesError, StoreClosedError
from remem.failures import FailureLog
from remem.models import MemoryLifecycleMetadata, MemoryRecord, TranscriptEntry
from remem.writebehind import JournalFile, PendingWrite, WriteBehind

T0 = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)
DIM = 4


def record(i: int) -> MemoryRecord:
    life = MemoryLifecycleMetadata(score_reference_time=T0, created_at=T0)
    return MemoryRecord(id=f"m{i}", text=f"memory {i}", lifecycle=life)


def turn(i: int) -> TranscriptEntry:
    return TranscriptEntry(
        id=f"t{i}", session_id="s", turn_number=i + 1, user_message=f"u{i}", created_at=T0
    )


class Applier:
    """Records what it applied; can be told to fail or to refuse ids."""

    def __init__(self) -> None:
        self.applied: list[list[str]] = []
        self.fail: Exception | None = None
        self.refuse: set[str] = set()
        self.gate: asyncio.Event | None = None

    async def __call__(self, batch: list[PendingWrite]) -> list[tuple[PendingWrite, str]]:
        if self.gate is not None:
            await self.gate.wait()
        if self.fail is not None:
            raise self.fail
        self.applied.append([w.id for w in batch])
        return [(w, "taken") for w in batch if w.id in self.refuse]

    @property
    def ids(self) -> list[str]:
        return [i for batch in self.applied for i in batch]


def journal(
    path: Path, applier: Applier, failures: FailureLog | None = None, **kw: object
) -> WriteBehind:
    return WriteBehind(
        JournalFile(path / "wb.db"),
        applier,
        dimension=DIM,
        failures=failures if failures is not None else FailureLog(),
        now=lambda: T0,
        **kw,  # type: ignore[arg-type]
    )


def vectors(n: int) -> NDArray[np.float32]:
    return np.arange(n * DIM, dtype=np.float32).reshape(n, DIM)


async def test_writes_wait_in_the_journal_until_a_barrier(tmp_path: Path) -> None:
    applier, failures = Applier(), FailureLog()
    wb = journal(tmp_path, applier, failures, max_delay=60)
    await wb.open()
    await wb.add_turns([turn(0)])
    await wb.add_memories([record(1), record(2)], vectors(2))
    assert wb.pending == 3
    assert applier.applied == []
    await wb.barrier()
    assert applier.applied == [["t0", "m1", "m2"]]
    assert wb.pending == 0
    await wb.barrier()  # nothing pending: no empty batch
    assert len(applier.applied) == 1
    await wb.aclose()
    assert failures.items() == []


async def test_a_crash_leaves_writes_that_the_next_open_replays(tmp_path: Path) -> None:
    first = journal(tmp_path, Applier(), None, max_delay=60)
    await first.open()
    await first.add_memories([record(1)], vectors(1))
    await first.add_turns([turn(0)])
    await first.file.aclose()  # the process dies: nothing applied, nothing flushed

    applier = Applier()
    second = journal(tmp_path, applier)
    assert await second.open() == 2
    assert applier.ids == ["m1", "t0"]  # in the order they were accepted
    assert second.pending == 0
    await second.aclose()

    third = journal(tmp_path, Applier())
    assert await third.open() == 0  # applied writes left the journal
    await third.aclose()


async def test_replayed_memories_keep_text_and_vector(tmp_path: Path) -> None:
    first = journal(tmp_path, Applier(), None, max_delay=60)
    await first.open()
    await first.add_memories([record(7)], vectors(1) + np.float32(0.5))
    await first.file.aclose()
    seen: list[PendingWrite] = []

    async def keep(batch: list[PendingWrite]) -> list[tuple[PendingWrite, str]]:
        seen.extend(batch)
        return []

    second = WriteBehind(
        JournalFile(tmp_path / "wb.db"), keep, dimension=DIM, failures=FailureLog(), now=lambda: T0
    )
    await second.open()
    assert seen[0].record == record(7)
    assert seen[0].vector is not None
    np.testing.assert_array_equal(seen[0].vector, vectors(1)[0] + 0.5)
    await second.aclose()


async def test_a_journal_of_another_dimension_is_refused(tmp_path: Path) -> None:
    first = journal(tmp_path, Applier(), None, max_delay=60)
    await first.open()
    await first.add_memories([record(1)], vectors(1))
    await first.file.aclose()
    other = journal(tmp_path, Applier())
    other.dimension = DIM + 1
    with pytest.raises(IntegrityError, match="embedder"):
        await other.open()
    await other.file.aclose()


async def test_a_full_batch_is_applied_in_the_background(tmp_path: Path) -> None:
    applier = Applier()
    wb = journal(tmp_path, applier, None, batch_size=3, max_delay=60)
    await wb.open()
    await wb.add_memories([record(i) for i in range(3)], vectors(3))
    for _ in range(50):
        if applier.applied:
            break
        await asyncio.sleep(0.01)
    assert applier.applied == [["m0", "m1", "m2"]]
    await wb.aclose()


async def test_the_timer_applies_a_lone_write(tmp_path: Path) -> None:
    applier = Applier()
    wb = journal(tmp_path, applier, None, max_delay=0.02)
    await wb.open()
    await wb.add_turns([turn(0)])
    for _ in range(100):
        if applier.applied:
            break
        await asyncio.sleep(0.01)
    assert applier.applied == [["t0"]]
    await wb.aclose()


async def test_a_failed_apply_keeps_the_writes_and_says_so(tmp_path: Path) -> None:
    applier, failures = Applier(), FailureLog()
    wb = journal(tmp_path, applier, failures, max_delay=60)
    await wb.open()
    await wb.add_memories([record(1)], vectors(1))
    applier.fail = OSError("disk full")
    with pytest.raises(PendingWritesError, match="nothing is lost"):
        await wb.barrier()
    assert wb.pending == 1
    assert [(f.operation, f.ids) for f in failures.items()] == [("write_behind", ("m1",))]
    applier.fail = None
    await wb.barrier()  # the next call retries
    assert applier.ids == ["m1"]
    assert wb.pending == 0
    await wb.aclose()


async def test_a_failed_final_apply_is_replayed_on_the_next_open(tmp_path: Path) -> None:
    applier = Applier()
    wb = journal(tmp_path, applier, None, max_delay=60)
    await wb.open()
    await wb.add_turns([turn(0)])
    applier.fail = OSError("broken store")
    with pytest.raises(PendingWritesError):
        await wb.aclose()
    again = Applier()
    reopened = journal(tmp_path, again)
    await reopened.open()
    assert again.ids == ["t0"]
    await reopened.aclose()


async def test_refused_writes_move_to_rejected_and_are_reported(tmp_path: Path) -> None:
    applier, failures = Applier(), FailureLog()
    applier.refuse = {"t1"}
    wb = journal(tmp_path, applier, failures, max_delay=60)
    await wb.open()
    await wb.add_turns([turn(0), turn(1)])
    await wb.barrier()  # a refusal does not fail the read
    assert wb.pending == 0
    rejected = await wb.file.rejected()
    assert [(kind, reason) for _, kind, _, reason in rejected] == [("turn", "taken")]
    assert TranscriptEntry.model_validate_json(rejected[0][2]) == turn(1)
    assert [f.ids for f in failures.items()] == [("t1",)]
    await wb.aclose()
    reopened = journal(tmp_path, Applier())
    assert await reopened.open() == 0  # not replayed: it is kept apart, with its reason
    await reopened.aclose()


async def test_backpressure_fails_before_journaling_when_the_stores_are_broken(
    tmp_path: Path,
) -> None:
    applier = Applier()
    wb = journal(tmp_path, applier, None, batch_size=2, max_pending=2, max_delay=60)
    await wb.open()
    applier.fail = OSError("broken")
    await wb.add_turns([turn(0), turn(1)])
    with pytest.raises(PendingWritesError):
        await wb.add_turns([turn(2)])
    assert [w.id for w in await wb.file.load(DIM)] == ["t0", "t1"]  # t2 was not accepted
    applier.fail = None
    await wb.add_turns([turn(2)])  # waits for a batch, then goes in
    await wb.aclose()
    assert applier.ids == ["t0", "t1", "t2"]


async def test_a_cancelled_reader_does_not_abort_the_batch(tmp_path: Path) -> None:
    applier = Applier()
    applier.gate = asyncio.Event()
    wb = journal(tmp_path, applier, None, max_delay=60)
    await wb.open()
    await wb.add_turns([turn(0)])
    reader = asyncio.create_task(wb.barrier())
    await asyncio.sleep(0.01)
    reader.cancel()
    with pytest.raises(asyncio.CancelledError):
        await reader
    applier.gate.set()
    await wb.barrier()
    assert applier.applied == [["t0"]]  # applied once, by the batch already in flight
    await wb.aclose()


async def test_a_barrier_waits_only_for_earlier_writes(tmp_path: Path) -> None:
    applier = Applier()
    wb = journal(tmp_path, applier, None, batch_size=1, max_pending=100, max_delay=60)
    await wb.open()
    await wb.add_turns([turn(0)])
    applier.gate = asyncio.Event()
    reader = asyncio.create_task(wb.barrier())
    await asyncio.sleep(0.01)
    await wb.add_turns([turn(1)])  # accepted after the barrier began
    applier.gate.set()
    await reader
    assert applier.ids[0] == "t0"
    await wb.aclose()
    assert applier.ids == ["t0", "t1"]


async def test_closed_and_unopened_journals_refuse_writes(tmp_path: Path) -> None:
    wb = journal(tmp_path, Applier())
    with pytest.raises(StoreClosedError, match="open"):
        await wb.add_turns([turn(0)])
    await wb.open()
    await wb.aclose()
    await wb.aclose()  # idempotent
    with pytest.raises(StoreClosedError, match="closed"):
        await wb.add_turns([turn(0)])


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        ({"batch_size": 0}, "batch_size"),
        ({"batch_size": 10, "max_pending": 5}, "batch_size"),
        ({"max_delay": 0}, "max_delay"),
    ],
)
def test_bad_settings_raise_config_error(tmp_path: Path, kw: dict[str, float], match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        journal(tmp_path, Applier(), None, **kw)


async def test_full_durability_journals_on_the_worker_thread(tmp_path: Path) -> None:
    applier = Applier()
    wb = WriteBehind(
        JournalFile(tmp_path / "wb.db", durability="full"),
        applier,
        dimension=DIM,
        failures=FailureLog(),
        now=lambda: T0,
    )
    await wb.open()
    await wb.add_turns([turn(0)])
    assert [w.id for w in await wb.file.load(DIM)] == ["t0"]
    await wb.aclose()
    assert applier.ids == ["t0"]


async def test_checkpoints_run_on_the_worker_and_keep_every_row(tmp_path: Path) -> None:
    applier = Applier()
    wb = journal(tmp_path, applier, None, batch_size=2, max_delay=60)
    wb.file.CHECKPOINT_EVERY = 2
    await wb.open()
    for i in range(10):
        await wb.add_turns([turn(i)])
        await wb.barrier()
    await wb.add_turns([turn(10)])
    await wb.file.aclose()  # crash with one write pending, after several checkpoints
    reopened = journal(tmp_path, Applier())
    assert [w.id for w in await reopened.file.load(DIM)] == ["t10"]
    await reopened.aclose()
    assert applier.ids == [f"t{i}" for i in range(10)]
