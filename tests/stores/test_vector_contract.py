"""The VectorStore parity suite: every backend, identical observable behaviour."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from remem.errors import (
    DimensionMismatchError,
    DuplicateIdError,
    EmbeddingModelMismatchError,
    InvalidArgumentError,
    NonFiniteError,
    NotFoundError,
    ShapeError,
    StoreClosedError,
)
from remem.models import Metric
from remem.stores.filters import matches, parse_where
from remem.stores.hnsw import HnswConfig, HnswVectorStore
from remem.stores.memory.vector import MemoryVectorStore
from remem.stores.postgres.vector import PgVectorConfig, PgVectorStore
from remem.stores.vector import ScoredId, VectorStore

Factory = Callable[[int], Awaitable[VectorStore]]
BACKENDS = ["hnsw", "hnsw-graph", "simple", pytest.param("postgres", marks=pytest.mark.postgres)]
D = 8


@pytest.fixture(params=BACKENDS)
async def make_store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Factory]:
    """A factory: ``await make_store(exact_threshold)`` opens a fresh store of this backend."""
    opened: list[VectorStore] = []
    kind = request.param
    dsn = request.getfixturevalue("pg_dsn") if kind == "postgres" else ""

    async def make(exact_threshold: int = 2048) -> VectorStore:
        store: VectorStore
        if kind.startswith("hnsw"):
            # "hnsw": the in-memory scan tier; "hnsw-graph": hnswlib for every collection.
            scan = 0 if kind == "hnsw-graph" else HnswConfig().scan_threshold
            config = HnswConfig(exact_threshold=exact_threshold, scan_threshold=scan)
            store = HnswVectorStore(tmp_path / "v", config)
        elif kind == "simple":
            store = MemoryVectorStore()
        else:
            store = PgVectorStore(dsn, PgVectorConfig(exact_threshold=exact_threshold))
        await store.__aenter__()
        opened.append(store)
        return store

    yield make
    for store in opened:
        await store.aclose()


@pytest.fixture
async def store(make_store: Factory) -> VectorStore:
    s = await make_store(2048)
    await s.create_collection("c", model_name="m", dimension=D)
    return s


def vecs(n: int, seed: int = 0) -> np.ndarray[Any, np.dtype[np.float32]]:
    return np.random.default_rng(seed).standard_normal((n, D)).astype(np.float32)


async def snapshot(store: VectorStore, ids: list[str]) -> object:
    cols = await store.list_collections()
    items = await store.get("c", ids) if any(c.name == "c" for c in cols) else []
    return cols, [(i.id, i.document, i.metadata, np.round(i.vector, 5).tolist()) for i in items]


# -- collections -------------------------------------------------------------------------------


async def test_collections_record_model_and_dimension(store: VectorStore) -> None:
    info = await store.get_collection("c")
    assert (info.model_name, info.dimension, info.metric, info.count) == ("m", D, Metric.COSINE, 0)
    again = await store.create_collection("c", model_name="m", dimension=D)
    assert again.name == "c"
    with pytest.raises(EmbeddingModelMismatchError, match=r"'m'.*'other'"):
        await store.create_collection("c", model_name="other", dimension=D)
    with pytest.raises(DimensionMismatchError, match=rf"{D}.*4"):
        await store.create_collection("c", model_name="m", dimension=4)
    await store.add("c", ["a"], vecs(1))
    migrated = await store.create_collection("c", model_name="other", dimension=4, reembed=True)
    assert (migrated.model_name, migrated.dimension, migrated.count) == ("other", 4, 0)
    assert await store.count("c") == 0
    await store.create_collection("日本語 🚀", model_name="m", dimension=3, metric=Metric.DOT)
    assert [c.name for c in await store.list_collections()] == ["c", "日本語 🚀"]
    await store.delete_collection("日本語 🚀")
    with pytest.raises(NotFoundError):
        await store.get_collection("日本語 🚀")
    with pytest.raises(NotFoundError):
        await store.delete_collection("nope")


async def test_unknown_collection_is_not_found(store: VectorStore) -> None:
    for call in (
        store.add("nope", ["a"], vecs(1)),
        store.upsert("nope", ["a"], vecs(1)),
        store.query("nope", vecs(1)[0]),
        store.get("nope", ["a"]),
        store.count("nope"),
        store.delete("nope", ["a"]),
    ):
        with pytest.raises(NotFoundError, match="nope"):
            await call


# -- round trips and ordering ------------------------------------------------------------------


async def test_round_trip_unicode_and_large(store: VectorStore) -> None:
    ids = ["日本語", "🚀 rocket", "שלום", "plain"]
    docs = ["漢字かな", "emoji 🎉🎉", "مرحبا بالعالم", "x" * 1_000_000]
    metas: list[dict[str, object]] = [{"lang": "ja"}, {"n": 1.5}, {"rtl": True}, {"none": None}]
    v = vecs(4)
    await store.add("c", ids, v, documents=docs, metadatas=metas)
    got = await store.get("c", [*reversed(ids), "missing"])
    assert [g.id for g in got] == list(reversed(ids))
    for g in got:
        i = ids.index(g.id)
        assert g.document == docs[i]
        assert g.metadata == metas[i]
        np.testing.assert_allclose(g.vector, v[i], rtol=1e-6, atol=1e-6)
    assert (await store.get_collection("c")).count == 4


async def test_ordering_score_desc_ties_by_id(store: VectorStore) -> None:
    base = np.array([[1, 0, 0, 0, 0, 0, 0, 0]], dtype=np.float32)
    other = np.array([[0.6, 0.8, 0, 0, 0, 0, 0, 0]], dtype=np.float32)
    ids = ["b", "a", "d", "c", "e"]
    matrix = np.concatenate([base, base, other, base * 3, -base])
    await store.add("c", ids, matrix)
    [hits] = await store.query("c", base[0], k=5)
    assert [h.id for h in hits] == ["a", "b", "c", "d", "e"]
    assert [round(h.score, 5) for h in hits] == [1.0, 1.0, 1.0, 0.6, -1.0]
    [top2] = await store.query("c", base[0], k=2)
    assert [h.id for h in top2] == ["a", "b"]
    batch = await store.query("c", np.concatenate([base, -base]), k=1)
    assert [[h.id for h in r] for r in batch] == [["a"], ["e"]]


async def test_dot_metric_scores_raw_inner_products(store: VectorStore) -> None:
    await store.create_collection("dot", model_name="m", dimension=2, metric=Metric.DOT)
    await store.add("dot", ["small", "big"], [[1.0, 0.0], [3.0, 0.0]])
    [hits] = await store.query("dot", [2.0, 0.0], k=2)
    assert [(h.id, round(h.score, 4)) for h in hits] == [("big", 6.0), ("small", 2.0)]


async def test_upsert_replaces_and_delete_counts(store: VectorStore) -> None:
    v = vecs(3)
    await store.add("c", ["a", "b", "c"], v, documents=["A", "B", "C"])
    await store.upsert("c", ["b", "z"], v[:2], documents=["B2", "Z"], metadatas=[{"v": 2}, None])
    assert await store.count("c") == 4
    [b] = await store.get("c", ["b"])
    assert (b.document, b.metadata) == ("B2", {"v": 2})
    np.testing.assert_allclose(b.vector, v[0], rtol=1e-6, atol=1e-6)
    assert await store.delete("c", ["a", "a", "missing"]) == 1
    assert await store.count("c") == 3
    [hits] = await store.query("c", v[0], k=10)
    assert sorted(h.id for h in hits) == ["b", "c", "z"]


# -- filters -----------------------------------------------------------------------------------

WHERES: list[dict[str, Any]] = [
    {"group": "x"},
    {"n": {"$gte": 10, "$lt": 20}},
    {"$or": [{"group": "y"}, {"flag": True}]},
    {"tag": {"$ne": "t"}},
    {"n": {"$in": [1, 2, 3.0, "4"]}},
    {"group": {"$nin": ["x", "y"]}},
    {"$and": [{"flag": False}, {"n": {"$gt": 25}}]},
    {"n": {"$gt": "oops"}} if False else {"n": {"$lte": -1}},
]


async def test_filters_match_the_python_predicate(store: VectorStore) -> None:
    n = 40
    metas: list[dict[str, object]] = [
        {"group": "xyz"[i % 3], "n": i, "flag": i % 2 == 0, **({"tag": "t"} if i % 5 else {})}
        for i in range(n)
    ]
    v = vecs(n, seed=3)
    ids = [f"id{i:02d}" for i in range(n)]
    await store.add("c", ids, v, metadatas=metas)
    for where in WHERES:
        node = parse_where(where)
        expected_ids = {ids[i] for i in range(n) if matches(node, metas[i])}
        assert await store.count("c", where=where) == len(expected_ids), where
        [hits] = await store.query("c", v[0], k=n, where=where)
        assert {h.id for h in hits} == expected_ids, where
    [hits] = await store.query("c", v[0], k=3, where={"group": "nothing"})
    assert hits == []


@pytest.mark.parametrize("threshold", [0, 10_000])
async def test_filtered_queries_never_come_back_short(make_store: Factory, threshold: int) -> None:
    """Approximate path (threshold 0) and exact path agree with brute force, rare filters too."""
    store = await make_store(threshold)
    await store.create_collection("c", model_name="m", dimension=D)
    n = 1500
    v = vecs(n, seed=7)
    ids = [f"{i:05d}" for i in range(n)]
    metas: list[dict[str, object]] = [{"rare": i % 300 == 0, "half": i % 2} for i in range(n)]
    await store.add("c", ids, v, metadatas=metas)
    unit = v / np.linalg.norm(v, axis=1, keepdims=True)
    q = v[42]
    for where, k in (({"rare": True}, 5), ({"rare": True}, 10), ({"half": 1}, 10), (None, 10)):
        mask = np.array([where is None or matches(parse_where(where), m) for m in metas])
        scores = np.where(mask, unit @ (q / np.linalg.norm(q)), -np.inf)
        want = [ids[i] for i in np.argsort(-scores, kind="stable")[: min(k, int(mask.sum()))]]
        [hits] = await store.query("c", q, k=k, where=where)
        got = [h.id for h in hits]
        assert len(got) == len(want), where
        # HNSW may miss a neighbour; the contract demands full, correctly ordered results.
        assert len(set(got) & set(want)) >= len(want) - 1, where
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


# -- bad input changes nothing -----------------------------------------------------------------


async def test_bad_input_is_typed_and_changes_nothing(store: VectorStore) -> None:
    v = vecs(2)
    await store.add("c", ["a", "b"], v, documents=["A", "B"], metadatas=[{"k": 1}, {"k": 2}])
    before = await snapshot(store, ["a", "b", "x", "y"])
    nan = v.copy()
    nan[1, 3] = np.nan
    bad_calls: list[tuple[type[Exception], str, Callable[[], Awaitable[object]]]] = [
        (DuplicateIdError, "'a'", lambda: store.add("c", ["x", "a"], v)),
        (DuplicateIdError, "more than once", lambda: store.add("c", ["x", "x"], v)),
        (NonFiniteError, "NaN", lambda: store.add("c", ["x", "y"], nan)),
        (NonFiniteError, "NaN", lambda: store.upsert("c", ["a", "y"], nan)),
        (DimensionMismatchError, f"3.*{D}", lambda: store.add("c", ["x"], [[1.0, 2.0, 3.0]])),
        (DimensionMismatchError, f"3.*{D}", lambda: store.query("c", [1.0, 2.0, 3.0])),
        (ShapeError, "rows", lambda: store.add("c", ["x", "y", "z"], v)),
        (ShapeError, "documents", lambda: store.add("c", ["x", "y"], v, documents=["one"])),
        (ShapeError, "metadatas", lambda: store.add("c", ["x", "y"], v, metadatas=[{}])),
        (ShapeError, "rectangular", lambda: store.add("c", ["x", "y"], [[1.0] * D, [1.0]])),
        (InvalidArgumentError, "NUL", lambda: store.add("c", ["x"], v[:1], documents=["a\x00"])),
        (InvalidArgumentError, "surrogate", lambda: store.add("c", ["\ud800"], v[:1])),
        (InvalidArgumentError, "non-empty", lambda: store.add("c", [""], v[:1])),
        (
            InvalidArgumentError,
            "metadatas",
            lambda: store.add("c", ["x"], v[:1], metadatas=[{"d": {}}]),
        ),
        (InvalidArgumentError, "unknown operator", lambda: store.query("c", v[0], where={"$x": 1})),
        (InvalidArgumentError, "k must", lambda: store.query("c", v[0], k=0)),
        (
            InvalidArgumentError,
            "unknown operator",
            lambda: store.count("c", where={"k": {"$x": 1}}),
        ),
    ]
    for error, needle, call in bad_calls:
        with pytest.raises(error, match=needle):
            await call()
        assert await snapshot(store, ["a", "b", "x", "y"]) == before, needle
    assert await store.count("c") == 2


async def test_concurrent_writers_lose_and_duplicate_nothing(store: VectorStore) -> None:
    async def writer(t: int) -> None:
        for b in range(5):
            ids = [f"t{t}-b{b}-{i}" for i in range(10)]
            await store.add("c", ids, vecs(10, seed=t * 100 + b))

    await asyncio.gather(*(writer(t) for t in range(8)))
    assert await store.count("c") == 400
    all_ids = [f"t{t}-b{b}-{i}" for t in range(8) for b in range(5) for i in range(10)]
    assert len(await store.get("c", all_ids)) == 400
    [hits] = await store.query("c", vecs(1)[0], k=400)
    assert sorted(h.id for h in hits) == sorted(all_ids)


async def test_use_after_close_is_typed(store: VectorStore) -> None:
    await store.aclose()
    await store.aclose()  # idempotent
    with pytest.raises(StoreClosedError):
        await store.query("c", vecs(1)[0])
    with pytest.raises(StoreClosedError):
        await store.add("c", ["a"], vecs(1))


# -- query_ids: query's ids and scores without the payload --------------------------------------


async def same_as_query(
    store: VectorStore, queries: Any, k: int, where: dict[str, Any] | None = None, coll: str = "c"
) -> list[list[tuple[str, float]]]:
    """query_ids(...) and query(...) agree exactly (ids, scores, order); returns the pairs."""
    full = await store.query(coll, queries, k=k, where=where)
    bare = await store.query_ids(coll, queries, k=k, where=where)
    assert all(isinstance(h, ScoredId) for r in bare for h in r)
    pairs = [[(h.id, h.score) for h in r] for r in bare]
    assert pairs == [[(m.id, m.score) for m in r] for r in full], (k, where)
    return pairs


async def test_query_ids_ties_order_and_cut_like_query(store: VectorStore) -> None:
    base = np.array([[1, 0, 0, 0, 0, 0, 0, 0]], dtype=np.float32)
    other = np.array([[0.6, 0.8, 0, 0, 0, 0, 0, 0]], dtype=np.float32)
    matrix = np.concatenate([base, base, other, base * 3, -base])
    await store.add("c", ["b", "a", "d", "c", "e"], matrix, documents=["B", "A", "D", "C", "E"])
    for k in (1, 2, 3, 4, 5):
        [pairs] = await same_as_query(store, base[0], k)
        assert [i for i, _ in pairs] == ["a", "b", "c", "d", "e"][:k]
    batch = await same_as_query(store, np.concatenate([base, -base, other]), 2)
    assert [[i for i, _ in r] for r in batch] == [["a", "b"], ["e", "d"], ["d", "a"]]


async def test_query_ids_filters_and_k_beyond_size_like_query(store: VectorStore) -> None:
    n = 40
    metas: list[dict[str, object]] = [
        {"group": "xyz"[i % 3], "n": i, "flag": i % 2 == 0, **({"tag": "t"} if i % 5 else {})}
        for i in range(n)
    ]
    v = vecs(n, seed=3)
    ids = [f"id{i:02d}" for i in range(n)]
    await store.add("c", ids, v, documents=[f"doc {i}" for i in ids], metadatas=metas)
    for where in [None, *WHERES, {"group": "nothing"}]:
        node = parse_where(where)
        eligible = {ids[i] for i in range(n) if matches(node, metas[i])}
        for k in (3, n + 25):
            [pairs] = await same_as_query(store, v[5], k, where)
            assert len(pairs) == min(k, len(eligible)), (where, k)
            assert {i for i, _ in pairs} <= eligible
    await same_as_query(store, v[:4], n + 1, {"flag": True})


async def test_query_ids_on_empty_collections_and_errors(store: VectorStore) -> None:
    v = vecs(3)
    assert await same_as_query(store, v[0], 5) == [[]]
    assert await same_as_query(store, v[:2], 5, {"group": "x"}) == [[], []]
    await store.add("c", ["a", "b", "c"], v)
    assert await store.delete("c", ["a", "b", "c"]) == 3
    assert await same_as_query(store, v, 10) == [[], [], []]
    with pytest.raises(NotFoundError):
        await store.query_ids("missing", v[0], k=1)
    with pytest.raises(DimensionMismatchError):
        await store.query_ids("c", [1.0, 2.0], k=1)
    with pytest.raises(InvalidArgumentError):
        await store.query_ids("c", v[0], k=-1)


@pytest.mark.parametrize("threshold", [0, 10_000])
async def test_query_ids_like_query_on_every_search_path(
    make_store: Factory, threshold: int
) -> None:
    """Approximate (threshold 0) and exact paths; after upserts and deletes too."""
    store = await make_store(threshold)
    await store.create_collection("c", model_name="m", dimension=D)
    n = 400
    v = vecs(n, seed=11)
    ids = [f"{i:04d}" for i in range(n)]
    await store.add("c", ids, v, metadatas=[{"rare": i % 97 == 0, "half": i % 2} for i in range(n)])
    await store.upsert("c", ids[:20], v[20:40])  # duplicates of other rows' vectors: score ties
    await store.delete("c", ids[100:120])
    for where, k in ((None, 10), ({"rare": True}, 10), ({"half": 1}, 25), (None, n + 5)):
        await same_as_query(store, v[[3, 42, 250]], k, where)
