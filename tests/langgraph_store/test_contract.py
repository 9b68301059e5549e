"""LangGraph's store contract, with LangGraph's own ``InMemoryStore`` as the oracle.

Hypothesis draws sequences of puts, deletes, gets, searches (namespace prefix, value filters
with LangGraph's operators, a query, pages) and list-namespaces calls (prefix, suffix,
wildcards, max depth, pages), runs each through ``batch`` — sometimes several ops in one batch,
sometimes ``abatch`` — on a RememStore over a real memory directory and on an InMemoryStore,
and requires the same answers. Where the two are allowed to differ the comparison says so:

* a search without a query pages newest-updated first in RememStore and in insertion order in
  InMemoryStore (LangGraph leaves the order to the store), so whole results are compared as
  sets and pages by size and by membership;
* a query ranks by remem's recall (InMemoryStore without an embedder ignores the query): the
  set of items is the same, only the order is remem's;
* InMemoryStore keeps listing a namespace after its last item is deleted (its dict of dicts
  keeps the empty entry); LangGraph's SQL stores list only namespaces that hold items, and so
  does RememStore — the oracle for ``list_namespaces`` is an InMemoryStore rebuilt from the
  live items;
* an overwrite keeps ``created_at`` in RememStore (as in LangGraph's SQL stores), where
  InMemoryStore stamps both times anew.

Every example runs under its own first label, so one store serves every example.
"""

from __future__ import annotations

import asyncio
import itertools
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langgraph.store.base import (
    GetOp,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)
from langgraph.store.memory import InMemoryStore

from remem.langgraph_store import RememStore
from tests.langgraph_store.conftest import open_store

LABELS = ("a", "b", "c")
KEYS = ("k1", "k2", "k3")
ALL = 10_000
_runs = itertools.count()

sub_namespaces = st.lists(st.sampled_from(LABELS), min_size=0, max_size=2).map(tuple)
values = st.fixed_dictionaries(
    {"n": st.integers(0, 4), "tag": st.sampled_from(["red", "blue"])},
    optional={
        "meta": st.fixed_dictionaries({"tier": st.integers(0, 2)}),
        "text": st.sampled_from(["cats and dogs", "the red fox", "tea in Lisbon"]),
    },
)
filters = st.one_of(
    st.none(),
    st.fixed_dictionaries({"tag": st.sampled_from(["red", "blue"])}),
    st.fixed_dictionaries(
        {
            "n": st.sampled_from(["$eq", "$ne", "$gt", "$gte", "$lt", "$lte"]).flatmap(
                lambda op: st.integers(0, 4).map(lambda v: {op: v})
            )
        }
    ),
    st.fixed_dictionaries({"meta": st.fixed_dictionaries({"tier": st.integers(0, 2)})}),
)


@st.composite
def operations(draw: st.DrawFn) -> tuple[str, Any]:
    kind = draw(st.sampled_from(["put", "put", "put", "delete", "get", "search", "list"]))
    if kind in ("put", "delete", "get"):
        ns = (*draw(sub_namespaces), draw(st.sampled_from(LABELS)))
        key = draw(st.sampled_from(KEYS))
        if kind == "put":
            return kind, (ns, key, draw(values))
        return kind, (ns, key)
    if kind == "search":
        limit, offset = draw(st.sampled_from([(ALL, 0), (2, 0), (2, 1), (3, 2), (1, 5)]))
        query = draw(st.sampled_from([None, None, "red fox", "Lisbon"]))
        return kind, (draw(sub_namespaces), draw(filters), query, limit, offset)
    prefix = draw(st.lists(st.sampled_from([*LABELS, "*"]), max_size=2).map(tuple))
    suffix = draw(st.one_of(st.none(), st.sampled_from(LABELS).map(lambda x: (x,))))
    depth = draw(st.sampled_from([None, None, 1, 2, 3]))
    limit, offset = draw(st.sampled_from([(ALL, 0), (2, 0), (2, 1), (10, 3)]))
    return kind, (prefix, suffix, depth, limit, offset)


def to_op(root: str, kind: str, args: Any) -> Op:
    if kind == "put":
        ns, key, value = args
        return PutOp((root, *ns), key, value)
    if kind == "delete":
        ns, key = args
        return PutOp((root, *ns), key, None)
    if kind == "get":
        ns, key = args
        return GetOp((root, *ns), key)
    if kind == "search":
        prefix, where, query, limit, offset = args
        return SearchOp((root, *prefix), where, limit, offset, query)
    prefix, suffix, depth, limit, offset = args
    conditions = [MatchCondition("prefix", (root, *prefix))]
    if suffix is not None:
        conditions.append(MatchCondition("suffix", suffix))
    return ListNamespacesOp(tuple(conditions), depth, limit, offset)


def triple(item: Item) -> tuple[tuple[str, ...], str, str]:
    return item.namespace, item.key, repr(sorted(item.value.items()))


def live_oracle(oracle: InMemoryStore, root: str) -> InMemoryStore:
    """An InMemoryStore holding exactly ``oracle``'s live items (module docstring)."""
    fresh = InMemoryStore()
    items = oracle.search((root,), limit=ALL)
    fresh.batch([PutOp(i.namespace, i.key, i.value) for i in items])
    return fresh


def check(op: Op, got: Result, oracle: InMemoryStore, want: Result, root: str) -> None:
    if isinstance(op, PutOp):
        assert got is None
    elif isinstance(op, GetOp):
        assert (got is None) == (want is None), (op, got, want)
        if isinstance(got, Item) and isinstance(want, Item):
            assert triple(got) == triple(want)
            assert got.value == want.value
            assert got.created_at <= got.updated_at
    elif isinstance(op, SearchOp):
        assert isinstance(got, list)
        assert isinstance(want, list)
        everything = oracle.search(op.namespace_prefix, filter=op.filter, limit=ALL)
        expected = {triple(i) for i in everything}
        assert all(isinstance(i, SearchItem) for i in got)
        found = [triple(i) for i in got]  # type: ignore[arg-type]
        assert len(found) == len(set(found)), "an item appears twice in one page"
        assert set(found) <= expected
        assert len(found) == len(want), (op, found, want)
        if op.offset == 0 and op.limit >= len(expected):
            assert set(found) == expected
        if op.query is None:  # newest-updated first
            stamps = [i.updated_at for i in got]  # type: ignore[union-attr]
            assert stamps == sorted(stamps, reverse=True)
    else:
        assert isinstance(op, ListNamespacesOp)
        fresh = live_oracle(oracle, root)
        assert got == fresh.batch([op])[0], op


@pytest.fixture(scope="module")
def store() -> Iterator[RememStore]:
    with tempfile.TemporaryDirectory() as tmp, open_store(Path(tmp) / "memory") as s:
        yield s


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    steps=st.lists(
        st.tuples(st.lists(operations(), min_size=1, max_size=3), st.booleans()),
        min_size=1,
        max_size=12,
    )
)
def test_remem_store_answers_as_langgraphs_in_memory_store(
    store: RememStore, steps: list[tuple[list[tuple[str, Any]], bool]]
) -> None:
    root = f"run{next(_runs)}"
    oracle = InMemoryStore()
    for drawn, use_async in steps:
        ops = [to_op(root, kind, args) for kind, args in drawn]
        got = asyncio.run(store.abatch(ops)) if use_async else store.batch(ops)
        assert len(got) == len(ops)
        # the oracle runs the batch op by op, so that a later op sees an earlier put (the
        # order RememStore promises; InMemoryStore applies a batch's puts after its reads)
        for op, result in zip(ops, got, strict=True):
            want = oracle.batch([op])[0]
            check(op, result, oracle, want, root)
    # and at the end the two hold the same items
    mine = {triple(i) for i in store.search((root,), limit=ALL)}
    assert mine == {triple(i) for i in oracle.search((root,), limit=ALL)}
    assert store.list_namespaces(prefix=(root,), limit=ALL) == live_oracle(
        oracle, root
    ).list_namespaces(prefix=(root,), limit=ALL)
