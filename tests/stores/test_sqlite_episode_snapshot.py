"""The episodic index's snapshot (remem.stores.sqlite.episode_snapshot): a reopened store
tokenises only the rows written after it and answers exactly as FTS5 does; a stale, foreign,
corrupt or inconsistent snapshot is never used (the index is rebuilt from SQLite)."""

from __future__ import annotations

import math
import random
import shutil
import sqlite3
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from remem.models import EpisodicHit
from remem.stores.episodic import NoteInput
from remem.stores.shared.search_text import FullTextConfig
from remem.stores.sqlite import episode_index, episode_snapshot
from remem.stores.sqlite.episodic import SQLiteEpisodicStore
from remem.stores.sqlite.fts5_tokens import fts5_tokens

T0 = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
N = episode_snapshot.MIN_ROWS + 300
WORDS = "otter walrus beach kelp tide shell reef gull harbour lighthouse café 東京 the".split()  # noqa: SIM905
QUERIES = ["otter", "walrus beach", "kelp kelp reef", "café", "東京", "lighthouse tide", "zebra"]


def _notes(rng: random.Random, n: int, start: int = 0, days: int = 0) -> list[NoteInput]:
    return [
        NoteInput(
            f"n{i:05d}",
            " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 6))),
            T0 + timedelta(days=days, minutes=rng.randrange(30)),
            rng.choice(["s0", "s1", None]),
            {},
        )
        for i in range(start, start + n)
    ]


async def _fill(path: Path, seed: int, n: int = N, *, search: bool = True, days: int = 0) -> None:
    async with SQLiteEpisodicStore(path) as store:
        await store.add_notes(_notes(random.Random(seed), n, days=days))
        if search:
            await store.search("otter")  # builds the index, which close saves


Answers = list[list[tuple[str, float]]]


def _pairs(found: list[list[EpisodicHit]]) -> Answers:
    return [[(h.id, h.score) for h in hits] for hits in found]


async def _answers(path: Path, search_index: str = "memory") -> Answers:
    async with SQLiteEpisodicStore(path, search_index=search_index) as store:  # type: ignore[arg-type]
        found = await store.search_many(QUERIES, limit=20)
        found.append(await store.search("walrus", limit=50, session_id="s1"))
        found.append(await store.search("gull", limit=50, since=T0 + timedelta(minutes=10)))
        return _pairs(found)


def _same(got: Answers, want: Answers) -> bool:
    return all(
        [i for i, _ in a] == [i for i, _ in b]
        and all(math.isclose(x, y, rel_tol=1e-9) for (_, x), (_, y) in zip(a, b, strict=True))
        for a, b in zip(got, want, strict=True)
    ) and len(got) == len(want)


class _Tokenised:
    """Counts the rows the index tokenises (episode_index's fts5_tokens calls)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.rows = 0

        def counted(text: str) -> list[str]:
            self.rows += 1
            return fts5_tokens(text)

        monkeypatch.setattr(episode_index, "fts5_tokens", counted)


async def test_reopen_starts_from_the_snapshot_and_ranks_like_fts5(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "episodic.db"
    await _fill(path, 1)
    assert episode_snapshot.snapshot_path(path).exists()
    rebuilt = tmp_path / "copy.db"
    shutil.copy(path, rebuilt)  # no snapshot beside the copy: its index is built from rows
    tokenised = _Tokenised(monkeypatch)
    loaded = await _answers(path)
    assert tokenised.rows <= 2 * len(QUERIES)  # the query terms only: no row re-tokenised
    assert loaded == await _answers(rebuilt)  # bit-identical to a rebuilt index
    assert _same(loaded, await _answers(path, "fts5"))
    assert any(loaded)


async def test_rows_written_after_the_snapshot_are_seen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "episodic.db"
    await _fill(path, 2)
    # A session that writes without searching leaves the snapshot behind the table…
    async with SQLiteEpisodicStore(path) as store:
        await store.add_notes(_notes(random.Random(3), 40, start=N))
    # … and so does a raw connection.
    with closing(sqlite3.connect(path)) as conn, conn:
        conn.execute(
            "INSERT INTO episodic_items "
            "(id, kind, text, search_text, created_at_us, metadata, namespace) "
            "SELECT 'raw', kind, 'zebra zebra', 'zebra zebra', created_at_us, metadata, namespace "
            "FROM episodic_items WHERE seq = 1"
        )
    tokenised = _Tokenised(monkeypatch)
    async with SQLiteEpisodicStore(path) as store:
        assert [h.id for h in await store.search("zebra")] == ["raw"]
        assert tokenised.rows <= 41 + 1  # the 41 new rows, then the query
        loaded = _pairs(await store.search_many(QUERIES, limit=20))
    async with SQLiteEpisodicStore(path, search_index="fts5") as store:
        assert _same(loaded, _pairs(await store.search_many(QUERIES, limit=20)))
    tokenised.rows = 0
    await _answers(path)  # the close above saved the caught-up index
    assert tokenised.rows <= 2 * len(QUERIES) + 4


@pytest.mark.parametrize("damage", ["truncate", "garbage", "empty", "bounds", "format"])
async def test_a_damaged_snapshot_is_rebuilt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damage: str
) -> None:
    path = tmp_path / "episodic.db"
    await _fill(path, 4)
    snapshot = episode_snapshot.snapshot_path(path)
    want = await _answers(path, "fts5")
    raw = snapshot.read_bytes()
    if damage == "truncate":
        snapshot.write_bytes(raw[: len(raw) // 2])
    elif damage == "garbage":
        middle = len(raw) // 2
        snapshot.write_bytes(raw[:middle] + bytes(64) + raw[middle + 64 :])
    elif damage == "empty":
        snapshot.write_bytes(b"")
    else:  # a well-formed file whose arrays lie: a posting past the segment, another format
        with np.load(snapshot) as data:
            arrays = {name: data[name].copy() for name in data.files}
        if damage == "bounds":
            arrays["main_docs"][-1] = len(arrays["main_lengths"]) + 5
        else:
            arrays["header"][0] += 1
        with snapshot.open("wb") as fh:
            np.savez(fh, **arrays)
    tokenised = _Tokenised(monkeypatch)
    got = await _answers(path)
    assert tokenised.rows >= N  # rebuilt from every row
    assert _same(got, want)


async def test_a_snapshot_of_other_rows_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ours, theirs = tmp_path / "a" / "episodic.db", tmp_path / "b" / "episodic.db"
    await _fill(ours, 5)
    await _fill(theirs, 6, days=1)  # same count, same ids, other texts and times
    shutil.copy(episode_snapshot.snapshot_path(theirs), episode_snapshot.snapshot_path(ours))
    # The file replaced by a shorter one: the snapshot reaches past its rows.
    short = tmp_path / "c" / "episodic.db"
    await _fill(short, 5, N - 10, search=False)
    shutil.copy(episode_snapshot.snapshot_path(theirs), episode_snapshot.snapshot_path(short))
    for path in (ours, short):
        want = await _answers(path, "fts5")
        tokenised = _Tokenised(monkeypatch)
        assert _same(await _answers(path), want)
        assert tokenised.rows >= N - 10


async def test_a_reindexed_file_ignores_its_snapshot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "episodic.db"
    await _fill(path, 7)
    other = FullTextConfig(language="none")
    async with SQLiteEpisodicStore(path, full_text=other) as store:
        tokenised = _Tokenised(monkeypatch)
        got = _pairs(await store.search_many(QUERIES, limit=20))
        assert tokenised.rows >= N  # search_text was rewritten: rebuilt, not loaded
    async with SQLiteEpisodicStore(path, full_text=other, search_index="fts5") as store:
        assert _same(got, _pairs(await store.search_many(QUERIES, limit=20)))


async def test_small_indexes_are_not_saved_and_temp_files_are_discarded(tmp_path: Path) -> None:
    path = tmp_path / "episodic.db"
    await _fill(path, 8, 50)
    assert not episode_snapshot.snapshot_path(path).exists()
    leftover = path.with_name(f"{path.name}.index.npz.999999.tmp")
    leftover.write_bytes(b"partial")
    async with SQLiteEpisodicStore(path) as store:
        assert len(await store.search("otter", limit=100)) > 0
    assert not leftover.exists()
