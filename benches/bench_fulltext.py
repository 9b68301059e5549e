"""SQLiteEpisodicStore full-text search: the in-memory bm25 index vs FTS5 vs the pure-Python twin.

Corpora and queries are bench_controller's (``words``: a name, "note i" and 6 words of a
25-word vocabulary, 3-word queries matching ~half the notes; ``prose``: two sentences of real
English per note, chat-like queries with an opener and a 3-6 word span), at 10k and 100k notes.
Baseline for ratios: ``fts5``.

* ``fulltext search <n> <corpus>`` — one ``search(q, limit=10)`` through the store, cycling over
  100 distinct queries; ``p50_ms`` (100 rounds) in ``extra_info``. ``native``: the default
  memory index (one native kernel call + a read of the 10 hit rows by seq); ``fts5``: the FTS5
  path (``search_index="fts5"``); ``reference``: the memory path with the pure-Python kernel twin
  (one round; its correctness is checked on 10 queries at 10k and on 1 at 100k, where it takes
seconds per query). ``correct``: the same ids, order and scores (rel 1e-9) as FTS5.
* ``fulltext search_many 64 <n> <corpus>`` — 64 distinct queries in one ``search_many``: the
  memory index's batched kernel call vs FTS5's parallel read-only connections.
* ``fulltext build <n> <corpus>`` — the cold build of the memory index from the table (read the
  rows, tokenise, build the CSR), i.e. what the first search after opening a store pays.
* ``fulltext normalise <corpus>`` — what indexing pays per turn for the search text of 10k
  texts (:func:`~remem.stores.shared.search_text.search_text`): ``unstemmed`` (no stemming, the cost
  before stemming existed), ``stemmed`` (English, the default: warm stem cache) and ``cold``
  (English, the stem cache emptied before each round); ``us_per_text`` in ``extra_info``.
  Baseline for ratios: ``unstemmed``.
* ``fulltext add_notes 5k <corpus>`` — 5k notes written through ``add_notes`` into a fresh
  store (normalisation + SQLite + FTS5), unstemmed vs stemmed.
"""

from __future__ import annotations

import asyncio
import math
import random
import sqlite3
import statistics
import time
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import remem.stores.term_index.snapshot as snapshot_module
from benches.bench_controller import _prose_text, _queries, _text
from remem.kernels.bm25 import Hits
from remem.models import EpisodicHit
from remem.reference import bm25 as ref
from remem.stores.episodic import NoteInput
from remem.stores.shared import stemming
from remem.stores.shared.search_text import FullTextConfig
from remem.stores.sqlite.episode_index import EpisodeIndex
from remem.stores.sqlite.episodic import SQLiteEpisodicStore

SIZES = [10_000, 100_000]
CORPORA = ["words", "prose"]
T0 = datetime(2026, 5, 1, tzinfo=UTC)


class _World:
    def __init__(self, n: int, corpus: str, root: Path) -> None:
        self.n, self.corpus = n, corpus
        self.path = root / "episodic.db"
        self.loop = asyncio.new_event_loop()
        rng = random.Random(n)
        make = _text if corpus == "words" else _prose_text
        self.texts = [make(rng, i) for i in range(n)]
        self.memory = SQLiteEpisodicStore(self.path)
        self.fts5 = SQLiteEpisodicStore(self.path, search_index="fts5")
        for lo in range(0, n, 5_000):
            notes = [
                NoteInput(f"m{i}", self.texts[i], T0 + timedelta(seconds=i), f"s{i % 7}", {})
                for i in range(lo, min(n, lo + 5_000))
            ]
            self.run(self.memory.add_notes(notes))
        self.queries = _queries(corpus, self.texts, 100, seed=2)
        self.run(self.memory.search("warm up the index"))

    def run(self, coro: Any) -> Any:
        return self.loop.run_until_complete(coro)

    def close(self) -> None:
        self.run(self.memory.aclose())
        self.run(self.fts5.aclose())
        self.loop.close()


@pytest.fixture(
    scope="module",
    params=[(n, c) for n in SIZES for c in CORPORA],
    ids=lambda p: f"{p[0] // 1000}k-{p[1]}",
)
def world(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[_World]:
    n, corpus = request.param
    w = _World(n, corpus, tmp_path_factory.mktemp(f"fulltext{n}{corpus}"))
    yield w
    w.close()


def _label(world: _World) -> str:
    return f"{world.n // 1000}k {world.corpus}"


def _same(got: Sequence[EpisodicHit], want: Sequence[EpisodicHit]) -> bool:
    return [h.id for h in got] == [h.id for h in want] and all(
        math.isclose(a.score, b.score, rel_tol=1e-9) for a, b in zip(got, want, strict=True)
    )


def _reference_kernel(
    offsets: Any, docs: Any, tfs: Any, doc_lengths: Any, queries: Any, **kw: Any
) -> list[Hits]:
    o, d, t, n = (np.asarray(a).tolist() for a in (offsets, docs, tfs, doc_lengths))
    found = ref.bm25_top_k_many(o, d, t, n, queries, **kw)
    return [(np.asarray(d, dtype=np.int64), np.asarray(s)) for d, s in found]


def _p50(fn: Any, rounds: int = 100) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


@pytest.mark.parametrize("impl", ["native", "fts5", "reference"])
def test_search(benchmark: Any, world: _World, impl: str, monkeypatch: pytest.MonkeyPatch) -> None:
    benchmark.group = f"fulltext search {_label(world)}"
    store = world.fts5 if impl == "fts5" else world.memory
    turn = iter(range(10**9))

    def search() -> list[EpisodicHit]:
        query = world.queries[next(turn) % len(world.queries)]
        hits: list[EpisodicHit] = world.run(store.search(query, limit=10))
        return hits

    sample = world.queries
    if impl == "reference":
        # The pure-Python kernel takes seconds per query at 100k notes: check (and time) one.
        sample = world.queries[: 10 if world.n <= 10_000 else 1]
        monkeypatch.setattr(snapshot_module, "bm25_top_k_many", _reference_kernel)
    got = [world.run(store.search(q, limit=10)) for q in sample]
    want = [world.run(world.fts5.search(q, limit=10)) for q in sample]
    benchmark.extra_info["correct"] = all(_same(a, b) for a, b in zip(got, want, strict=True))
    if impl == "reference":
        benchmark.pedantic(search, rounds=1, iterations=1)
        return
    benchmark.extra_info["p50_ms"] = round(_p50(search), 3)
    benchmark(search)


@pytest.mark.parametrize("impl", ["native", "fts5"])
def test_search_many(benchmark: Any, world: _World, impl: str) -> None:
    benchmark.group = f"fulltext search_many 64 {_label(world)}"
    store = world.fts5 if impl == "fts5" else world.memory
    batch = world.queries[:64]

    def search_many() -> list[list[EpisodicHit]]:
        found: list[list[EpisodicHit]] = world.run(store.search_many(batch, limit=10))
        return found

    got = search_many()
    want = world.run(world.fts5.search_many(batch, limit=10))
    benchmark.extra_info["correct"] = all(_same(a, b) for a, b in zip(got, want, strict=True))
    benchmark(search_many)


def test_cold_build(benchmark: Any, world: _World) -> None:
    benchmark.group = f"fulltext build {_label(world)}"
    conn = sqlite3.connect(world.path)

    def build() -> int:
        return EpisodeIndex().catch_up(conn).terms.n_docs

    benchmark.extra_info["correct"] = build() == world.n
    benchmark.pedantic(build, rounds=3, iterations=1)
    conn.close()


_NORMALISE_TEXTS = 10_000
_CONFIGS = {"unstemmed": FullTextConfig(language=None), "stemmed": FullTextConfig()}


def _texts(corpus: str, n: int) -> list[str]:
    rng = random.Random(n)
    make = _text if corpus == "words" else _prose_text
    return [make(rng, i) for i in range(n)]


@pytest.mark.parametrize("corpus", CORPORA)
@pytest.mark.parametrize("impl", ["unstemmed", "stemmed", "cold"])
def test_normalise(benchmark: Any, corpus: str, impl: str) -> None:
    benchmark.group = f"fulltext normalise {corpus}"
    texts = _texts(corpus, _NORMALISE_TEXTS)
    config = _CONFIGS["unstemmed" if impl == "unstemmed" else "stemmed"]

    def normalise() -> list[str]:
        if impl == "cold":
            stemming.stemmer_for("english")._cache.clear()
        return [config.search_text(t) for t in texts]

    out = normalise()
    # Correct: the same tokens as the definition (fold, split, stem each word without a digit).
    english = stemming.TokenStemmer("english")
    benchmark.extra_info["correct"] = all(
        got.split() == (english.stem(want.split()) if impl != "unstemmed" else want.split())
        for got, want in zip(
            out[:200], [_CONFIGS["unstemmed"].search_text(t) for t in texts[:200]], strict=True
        )
    )
    start = time.perf_counter()
    normalise()
    benchmark.extra_info["us_per_text"] = round((time.perf_counter() - start) / len(texts) * 1e6, 2)
    benchmark.pedantic(normalise, rounds=5, iterations=1)


@pytest.mark.parametrize("corpus", CORPORA)
@pytest.mark.parametrize("impl", ["unstemmed", "stemmed"])
def test_add_notes(benchmark: Any, corpus: str, impl: str, tmp_path: Path) -> None:
    benchmark.group = f"fulltext add_notes 5k {corpus}"
    texts = _texts(corpus, 5_000)
    notes = [
        NoteInput(f"m{i}", t, T0 + timedelta(seconds=i), None, {}) for i, t in enumerate(texts)
    ]
    loop = asyncio.new_event_loop()
    rounds = iter(range(10**6))
    stores: list[SQLiteEpisodicStore] = []

    def add() -> None:
        store = SQLiteEpisodicStore(tmp_path / f"e{next(rounds)}.db", full_text=_CONFIGS[impl])
        stores.append(store)
        loop.run_until_complete(store.add_notes(notes))

    benchmark.pedantic(add, rounds=3, iterations=1)
    hits = loop.run_until_complete(stores[-1].search(texts[0], limit=10))
    benchmark.extra_info["correct"] = "m0" in [h.id for h in hits]
    for store in stores:
        loop.run_until_complete(store.aclose())
    loop.close()
