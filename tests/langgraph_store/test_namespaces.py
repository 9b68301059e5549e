"""Any tuple of LangGraph labels round-trips through the remem namespace mapping and the store."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from remem.langgraph_store import from_remem, to_remem
from tests.langgraph_store.conftest import open_store

# LangGraph's own rules: a label is a non-empty string without '.' or NUL.
labels = st.text(
    alphabet=st.characters(blacklist_characters=".\x00", blacklist_categories=["Cs"]),
    min_size=1,
    max_size=12,
)
namespaces = st.lists(labels, min_size=1, max_size=4).map(tuple)
ODD = ["/", "%", "%2F", "lg:", " ", "*", "é", "日本", "a/b%c", "\n", "\t", "'", '"', "\\"]
odd_namespaces = st.lists(st.sampled_from(ODD) | labels, min_size=1, max_size=4).map(tuple)


@given(namespaces)
def test_mapping_round_trips(ns: tuple[str, ...]) -> None:
    assert from_remem(to_remem(ns)) == ns


@given(namespaces, namespaces)
def test_different_tuples_never_share_a_remem_namespace(
    a: tuple[str, ...], b: tuple[str, ...]
) -> None:
    assert (to_remem(a) == to_remem(b)) == (a == b)


def test_odd_namespaces_round_trip_through_the_store() -> None:
    with tempfile.TemporaryDirectory() as tmp, open_store(Path(tmp) / "m") as store:
        written: set[tuple[str, ...]] = set()

        @settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
        @given(odd_namespaces, labels)
        def put_then_get(ns: tuple[str, ...], key: str) -> None:
            store.put(ns, key, {"ns": list(ns), "key": key})
            written.add(ns)
            item = store.get(ns, key)
            assert item is not None
            assert item.namespace == ns
            assert item.key == key
            assert item.value == {"ns": list(ns), "key": key}
            assert ns in store.list_namespaces(prefix=ns)

        put_then_get()
        assert set(store.list_namespaces(limit=1000)) == written
