"""HitReader (the batch decoder of SQLite episodic hit rows) gives exactly hit_from_row's hits,
with repeated rows, repeated metadata texts and timestamps, and no mutable state shared
between two hits."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from remem.stores.sqlite.episode_search import HitReader, hit_from_row

_META = st.sampled_from(["{}", json.dumps({"user_chars": 3}), json.dumps({"a": 1, "b": "x"})])
_ROW = st.tuples(
    st.sampled_from(["n1", "t1", "t2"]),
    st.sampled_from(["note", "turn"]),
    st.sampled_from([None, "s1"]),
    st.sampled_from([None, 0, 7]),
    st.sampled_from(["", "hello", "hi there"]),
    st.floats(-1e300, 1e300, allow_nan=False),
    st.sampled_from([0, 1, 1_700_000_000_000_000]),
    _META,
    st.sampled_from(["default", "B"]),
)


@given(rows=st.lists(_ROW, max_size=30))
def test_hit_reader_equals_hit_from_row(rows: list[tuple[Any, ...]]) -> None:
    reader = HitReader()
    got = [reader.hit(row) for row in rows]
    want = [hit_from_row(row) for row in rows]
    assert got == want
    assert [list(h.__dict__.items()) for h in got] == [list(h.__dict__.items()) for h in want]
    dicts = [id(h.metadata) for h in got]
    assert len(set(dicts)) == len(dicts)  # each hit owns its metadata
    fields = [id(h.__dict__) for h in got]
    assert len(set(fields)) == len(fields)  # and its field dict (hits share a row's template)


def test_a_hit_metadata_change_does_not_reach_the_next_hit() -> None:
    row = ("n1", "note", None, None, "t", 1.0, 5, json.dumps({"a": 1}), "default")
    reader = HitReader()
    first = reader.hit(row)
    first.metadata["a"] = 2
    assert reader.hit(row).metadata == {"a": 1}
