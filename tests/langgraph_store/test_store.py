"""RememStore's get/put/delete/search/list_namespaces through LangGraph's BaseStore methods."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from langgraph.store.base import (
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    PutOp,
    SearchItem,
    SearchOp,
)

from remem.errors import InvalidArgumentError, RememError, StoreClosedError
from remem.langgraph_store import RememStore
from tests.langgraph_store.conftest import open_store


def test_put_get_returns_exactly_what_was_stored(store: RememStore) -> None:
    value = {
        "text": "Ana lives in Lisbon",
        "n": 3,
        "f": 0.5,
        "ok": True,
        "tags": ["a", "b"],
        "nested": {"x": None, "y": [1, {"z": "é"}]},
    }
    store.put(("users", "ana"), "home", value)
    item = store.get(("users", "ana"), "home")
    assert item is not None
    assert item.value == value
    assert item.key == "home"
    assert item.namespace == ("users", "ana")
    assert item.created_at == item.updated_at
    assert store.get(("users", "ana"), "other") is None
    assert store.get(("users", "bob"), "home") is None


def test_overwrite_keeps_created_at_and_moves_updated_at(store: RememStore) -> None:
    store.put(("u",), "k", {"v": 1})
    first = store.get(("u",), "k")
    store.put(("u",), "k", {"v": 2})
    second = store.get(("u",), "k")
    assert first is not None
    assert second is not None
    assert second.value == {"v": 2}
    assert second.created_at == first.created_at
    assert second.updated_at > first.updated_at
    # one live item for the key: the old value is superseded, not listed
    assert [i.value for i in store.search(("u",))] == [{"v": 2}]


def test_delete_removes_the_item_and_its_namespace(store: RememStore) -> None:
    store.put(("u", "a"), "k", {"v": 1})
    store.put(("u", "b"), "k", {"v": 1})
    store.delete(("u", "a"), "k")
    assert store.get(("u", "a"), "k") is None
    assert store.list_namespaces() == [("u", "b")]
    store.delete(("u", "a"), "k")  # deleting a missing key is a no-op, as in LangGraph
    store.put(("u", "a"), "k", {"v": 3})  # and the key can be written again
    item = store.get(("u", "a"), "k")
    assert item is not None
    assert item.value == {"v": 3}


def test_items_survive_a_reopen(tmp_path: Path) -> None:
    with open_store(tmp_path / "m") as s:
        s.put(("docs",), "d1", {"text": "kept on disk"})
    with open_store(tmp_path / "m") as s:
        item = s.get(("docs",), "d1")
        assert item is not None
        assert item.value == {"text": "kept on disk"}


def test_search_query_ranks_the_relevant_item_first(store: RememStore) -> None:
    store.put(("users", "ana"), "home", {"text": "Ana lives in Lisbon near the river"})
    store.put(("users", "bob"), "job", {"text": "Bob works as a carpenter in Porto"})
    store.put(("users", "bob"), "pet", {"text": "Bob has a grey cat called Miso"})
    store.put(("other",), "x", {"text": "Bob has a grey cat called Miso"})
    hits = store.search(("users",), query="which cat does Bob have?")
    assert hits[0].key == "pet"
    assert hits[0].score is not None
    assert {(h.namespace, h.key) for h in hits} == {
        (("users", "ana"), "home"),
        (("users", "bob"), "job"),
        (("users", "bob"), "pet"),
    }
    scored = [h.score for h in hits if h.score is not None]
    assert scored == sorted(scored, reverse=True)
    only_bob = store.search(("users", "bob"), query="carpenter Porto", limit=1)
    assert [h.key for h in only_bob] == ["job"]


def test_search_index_fields_choose_what_is_ranked(store: RememStore) -> None:
    store.put(("d",), "a", {"title": "volcano eruption", "body": "quiet lake"}, index=["title"])
    store.put(("d",), "b", {"title": "quiet lake", "body": "volcano eruption"}, index=["title"])
    store.put(("d",), "c", {"title": "volcano eruption"}, index=False)
    hits = store.search(("d",), query="volcano eruption")
    assert hits[0].key == "a"
    assert store.get(("d",), "c") is not None


def keys(hits: list[SearchItem]) -> list[str]:
    return sorted(h.key for h in hits)


def test_search_filters_on_value_fields(store: RememStore) -> None:
    for i in range(6):
        store.put(
            ("n",),
            f"k{i}",
            {"i": i, "parity": "even" if i % 2 == 0 else "odd", "meta": {"tier": i // 3}},
        )
    assert keys(store.search(("n",), filter={"parity": "odd"})) == ["k1", "k3", "k5"]
    assert keys(store.search(("n",), filter={"i": {"$gte": 2, "$lt": 4}})) == ["k2", "k3"]
    assert keys(store.search(("n",), filter={"i": {"$ne": 0}, "parity": "even"})) == ["k2", "k4"]
    assert keys(store.search(("n",), filter={"meta": {"tier": 1}})) == ["k3", "k4", "k5"]
    assert store.search(("n",), filter={"missing": {"$gt": 1}}) == []
    queried = store.search(("n",), query="even", filter={"parity": "even"})
    assert keys(queried) == ["k0", "k2", "k4"]


def test_search_pages_newest_first(store: RememStore) -> None:
    for i in range(5):
        store.put(("p",), f"k{i}", {"i": i})
    assert [h.key for h in store.search(("p",), limit=2)] == ["k4", "k3"]
    assert [h.key for h in store.search(("p",), limit=2, offset=2)] == ["k2", "k1"]
    assert [h.key for h in store.search(("p",), limit=2, offset=4)] == ["k0"]
    assert store.search(("p",), offset=9) == []
    paged = [
        h.key for o in range(0, 5, 2) for h in store.search(("p",), query="i", limit=2, offset=o)
    ]
    assert sorted(paged) == [f"k{i}" for i in range(5)]  # query pages cover every item once


def test_list_namespaces_prefix_suffix_depth_and_pages(store: RememStore) -> None:
    for ns in [("a", "b", "c"), ("a", "b", "d"), ("a", "e"), ("x", "b", "c"), ("x",)]:
        store.put(ns, "k", {"v": 1})
    assert store.list_namespaces() == [
        ("a", "b", "c"),
        ("a", "b", "d"),
        ("a", "e"),
        ("x",),
        ("x", "b", "c"),
    ]
    assert store.list_namespaces(prefix=("a",)) == [("a", "b", "c"), ("a", "b", "d"), ("a", "e")]
    assert store.list_namespaces(prefix=("a", "b")) == [("a", "b", "c"), ("a", "b", "d")]
    assert store.list_namespaces(suffix=("c",)) == [("a", "b", "c"), ("x", "b", "c")]
    assert store.list_namespaces(prefix=("*", "b")) == [
        ("a", "b", "c"),
        ("a", "b", "d"),
        ("x", "b", "c"),
    ]
    assert store.list_namespaces(prefix=("a",), suffix=("d",)) == [("a", "b", "d")]
    assert store.list_namespaces(max_depth=1) == [("a",), ("x",)]
    assert store.list_namespaces(prefix=("a",), max_depth=2) == [("a", "b"), ("a", "e")]
    assert store.list_namespaces(limit=2, offset=1) == [("a", "b", "d"), ("a", "e")]
    assert store.list_namespaces(prefix=("zzz",)) == []


def test_batch_runs_ops_in_order_with_one_result_each(store: RememStore) -> None:
    results = store.batch(
        [
            PutOp(("b",), "k", {"v": 1}),
            GetOp(("b",), "k"),
            PutOp(("b",), "k", {"v": 2}),
            SearchOp(("b",)),
            ListNamespacesOp(match_conditions=(MatchCondition("prefix", ("b",)),)),
            PutOp(("b",), "k", None),
            GetOp(("b",), "k"),
        ]
    )
    assert results[0] is None
    assert results[2] is None
    assert results[5] is None
    got = results[1]
    assert isinstance(got, Item)
    assert got.value == {"v": 1}
    assert [i.value for i in results[3]] == [{"v": 2}]  # type: ignore[union-attr]
    assert results[4] == [("b",)]
    assert results[6] is None


def test_abatch_and_the_async_methods(store: RememStore) -> None:
    async def main() -> None:
        await asyncio.gather(*(store.aput(("as", str(i)), "k", {"i": i}) for i in range(8)))
        got = await store.abatch([GetOp(("as", str(i)), "k") for i in range(8)])
        assert [g.value for g in got] == [{"i": i} for i in range(8)]  # type: ignore[union-attr]
        assert len(await store.alist_namespaces(prefix=("as",))) == 8
        hits = await store.asearch(("as",), filter={"i": 3})
        assert [h.namespace for h in hits] == [("as", "3")]
        await store.adelete(("as", "3"), "k")
        assert await store.aget(("as", "3"), "k") is None

    asyncio.run(main())


def test_bad_input_is_refused_before_anything_is_written(store: RememStore) -> None:
    with pytest.raises(InvalidNamespaceError):
        store.put((), "k", {"v": 1})
    with pytest.raises(InvalidNamespaceError):
        store.put(("a.b",), "k", {"v": 1})
    with pytest.raises(InvalidNamespaceError):
        store.put(("a", ""), "k", {"v": 1})
    with pytest.raises(InvalidNamespaceError):  # ops given straight to batch are checked too
        store.batch([PutOp(("ok",), "k", {"v": 1}), PutOp(("a.b",), "k", {"v": 1})])
    with pytest.raises(InvalidArgumentError, match="dict"):
        store.batch([PutOp(("ok",), "k", {"v": 1}), PutOp(("ok",), "k2", ["not", "a", "dict"])])  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="JSON"):
        store.put(("ok",), "k", {"v": object()})
    with pytest.raises(InvalidArgumentError, match="JSON"):
        store.put(("ok",), "k", {"v": float("nan")})
    with pytest.raises(InvalidArgumentError, match="key"):
        store.put(("ok",), "", {"v": 1})
    with pytest.raises(InvalidArgumentError, match="characters"):
        store.put(tuple("x" * 100 for _ in range(6)), "k", {"v": 1})
    with pytest.raises(InvalidArgumentError, match="limit"):
        store.search(("ok",), limit=-1)
    with pytest.raises(RememError, match="operator"):
        store.search(("ok",), filter={"v": {"$regex": "x"}})
    with pytest.raises(NotImplementedError, match="TTL"):  # LangGraph's own refusal
        store.put(("ok",), "k", {"v": 1}, ttl=5)
    assert store.list_namespaces() == []  # the refused batches wrote nothing


def test_a_closed_store_says_so(tmp_path: Path) -> None:
    s = open_store(tmp_path / "m")
    s.close()
    s.close()  # idempotent
    with pytest.raises(StoreClosedError, match="closed"):
        s.get(("a",), "k")
