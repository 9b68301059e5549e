"""NameIndex's fuzzy memo: an answer remembered for a batch of queries never outlives a change."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from remem.graph import index as index_module
from remem.graph.index import NameIndex
from tests.stores.factories import entity

NAMES = ["Jonathan Smith", "Jonathon Smith", "Rui Santos", "Python 3.11", "Caroline Wu"]


def fresh(entities: dict[str, str]) -> NameIndex:
    idx = NameIndex()
    idx.add_all(entity(name, id=eid) for eid, name in entities.items())
    return idx


def test_memo_is_dropped_when_an_entity_is_added_or_removed() -> None:
    idx = fresh({"a": "Jonathan Smith"})
    first = idx.fuzzy("jonathan smyth", None, 80.0)
    assert [m.entity_id for m in first] == ["a"]
    first.clear()  # the caller's list is its own: the memo is not changed through it
    assert [m.entity_id for m in idx.fuzzy("jonathan smyth", None, 80.0)] == ["a"]
    assert [m.entity_id for m in idx.fuzzy("jonathan smythe", None, 80.0)] == ["a"]
    idx.add(entity("Jonathan Smyth", id="b"))  # now the closer name
    assert [m.entity_id for m in idx.fuzzy("jonathan smythe", None, 80.0)] == ["b"]
    idx.remove("b")
    assert [m.entity_id for m in idx.fuzzy("jonathan smythe", None, 80.0)] == ["a"]


def test_memo_starts_over_when_full(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(index_module, "FUZZY_MEMO_SIZE", 2)
    idx = fresh({"a": "Rui Santos"})
    for key in ("rui antos", "rui santo", "rui santoss"):
        assert [m.entity_id for m in idx.fuzzy(key, None, 80.0)] == ["a"]
    assert len(idx._fuzzy_memo) <= 2


@settings(max_examples=60, deadline=None)
@given(
    ops=st.lists(
        st.tuples(st.sampled_from(["add", "remove", "ask"]), st.integers(0, len(NAMES) - 1)),
        max_size=25,
    ),
    probe=st.sampled_from(["jonathan smyth", "rui antos", "python 3.12", "carolin wu", "smith"]),
)
def test_memoised_answers_equal_a_fresh_index(ops: list[tuple[str, int]], probe: str) -> None:
    idx = NameIndex()
    live: dict[str, str] = {}
    for op, i in ops:
        eid = f"e{i}"
        if op == "add":
            idx.add(entity(NAMES[i], id=eid))
            live[eid] = NAMES[i]
        elif op == "remove":
            idx.remove(eid)
            live.pop(eid, None)
        for entity_type in (None, "person"):
            assert idx.fuzzy(probe, entity_type, 80.0) == fresh(live).fuzzy(
                probe, entity_type, 80.0
            )
