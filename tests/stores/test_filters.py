"""The filter language: parsing/validation, and Python == DuckDB == PostgreSQL on random input."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import duckdb
import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from remem.errors import InvalidArgumentError
from remem.stores.filters import Filter, matches, parse_where
from remem.stores.shared.filter_sql import compile_duckdb, compile_postgres

FIELDS = ["a", "b", "a.b", "x/y~z", "日本", "😀"]
numbers = st.one_of(
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.integers(min_value=-5, max_value=5),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([0.0, -0.0, 1.0, 1.5, 2**53, 2**53 + 1]),
)
# Stored text never holds NUL or lone surrogates (check_metadata/check_text reject them).
texts = st.text(st.characters(exclude_characters="\x00", exclude_categories=["Cs"]), max_size=4)
operands = st.one_of(numbers, st.booleans(), texts, st.sampled_from(["", "a", "1"]))
values = st.one_of(st.none(), operands)
metadatas = st.lists(
    st.dictionaries(st.sampled_from(FIELDS), values, max_size=4), min_size=1, max_size=8
)


def _leaf() -> st.SearchStrategy[dict[str, Any]]:
    field = st.sampled_from(FIELDS)
    eq_like = st.tuples(field, st.sampled_from(["$eq", "$ne"]), operands)
    order = st.tuples(field, st.sampled_from(["$gt", "$gte", "$lt", "$lte"]), numbers)
    member = st.tuples(field, st.sampled_from(["$in", "$nin"]), st.lists(operands, max_size=3))
    bare = st.tuples(field, st.just(None), operands)
    return st.one_of(eq_like, order, member, bare).map(
        lambda t: {t[0]: t[2]} if t[1] is None else {t[0]: {t[1]: t[2]}}
    )


wheres = st.recursive(
    _leaf(),
    lambda children: st.one_of(
        st.lists(children, min_size=1, max_size=3).map(lambda c: {"$and": c}),
        st.lists(children, min_size=1, max_size=3).map(lambda c: {"$or": c}),
    ),
    max_leaves=6,
)


@pytest.fixture(scope="module")
def duck() -> Iterator[duckdb.DuckDBPyConnection]:
    con = duckdb.connect(":memory:")
    yield con
    con.close()


def _duck_eval(
    con: duckdb.DuckDBPyConnection, node: Filter | None, metas: Sequence[Mapping[str, Any]]
) -> list[bool]:
    sql, params = compile_duckdb(node, "m")
    rows = ", ".join("(?, CAST(? AS JSON))" for _ in metas)
    args: list[object] = []
    for i, meta in enumerate(metas):
        args.extend([i, json.dumps(meta)])
    query = f"SELECT i, {sql} FROM (VALUES {rows}) AS t(i, m) ORDER BY i"
    return [bool(r[1]) for r in con.execute(query, params + args).fetchall()]


def _pg_eval(
    conn: psycopg.Connection[Any], node: Filter | None, metas: Sequence[Mapping[str, Any]]
) -> list[bool]:
    sql, params = compile_postgres(node, "m")
    rows = ", ".join("(%s::int, %s::jsonb)" for _ in metas)
    args: list[object] = []
    for i, meta in enumerate(metas):
        args.extend([i, json.dumps(meta)])
    query = f"SELECT i, {sql} FROM (VALUES {rows}) AS t(i, m) ORDER BY i"
    return [bool(r[1]) for r in conn.execute(query, [*params, *args]).fetchall()]


@given(where=wheres, metas=metadatas)
@settings(max_examples=150, deadline=None)
def test_python_equals_duckdb(
    duck: duckdb.DuckDBPyConnection, where: dict[str, Any], metas: list[dict[str, Any]]
) -> None:
    node = parse_where(where)
    assert _duck_eval(duck, node, metas) == [matches(node, m) for m in metas]


@pytest.mark.postgres
@given(where=wheres, metas=metadatas)
@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_python_equals_postgres(
    pg_dsn: str, where: dict[str, Any], metas: list[dict[str, Any]]
) -> None:
    node = parse_where(where)
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        assert _pg_eval(conn, node, metas) == [matches(node, m) for m in metas]


@pytest.mark.parametrize(
    ("where", "meta", "expected"),
    [
        ({"n": {"$gt": 3}}, {"n": "x"}, False),  # kind mismatch is false, not an error
        ({"n": {"$gt": 3}}, {"n": 4.5}, True),
        ({"n": 1}, {"n": True}, False),  # bool is not int
        ({"n": True}, {"n": 1}, False),
        ({"n": 1}, {"n": 1.0}, True),  # numbers compare as doubles
        ({"tag": {"$ne": "x"}}, {}, True),  # missing passes negations
        ({"tag": {"$nin": ["x"]}}, {"tag": None}, True),
        ({"tag": {"$eq": "x"}}, {}, False),
        ({"tag": {"$in": []}}, {"tag": "x"}, False),
        ({"tag": {"$nin": []}}, {}, True),
        ({"a": 1, "b": 2}, {"a": 1, "b": 2}, True),  # several keys AND
        ({"$or": [{"a": 1}, {"b": 2}]}, {"b": 2}, True),
        ({"n": {"$gte": 1, "$lt": 3}}, {"n": 3}, False),
        ({}, {"anything": 1}, True),
    ],
)
def test_documented_semantics(
    duck: duckdb.DuckDBPyConnection, where: dict[str, Any], meta: dict[str, Any], expected: bool
) -> None:
    node = parse_where(where)
    assert matches(node, meta) is expected
    assert _duck_eval(duck, node, [meta]) == [expected]


@pytest.mark.parametrize(
    ("where", "needle"),
    [
        ({"a": {"$regex": "x"}}, "unknown operator '$regex'"),
        ({"$not": {"a": 1}}, "unknown operator '$not'"),
        ({"a": None}, "is None"),
        ({"a": {"$gt": "3"}}, "must be a number"),
        ({"a": {"$gt": True}}, "must be a number"),
        ({"a": {"$in": "abc"}}, "must be a list"),
        ({"a": {"$eq": [1]}}, "has type list"),
        ({"a": {"$eq": float("nan")}}, "must be finite"),
        ({"a": {}}, "empty operator dict"),
        ({"$and": []}, "non-empty list"),
        ({"$or": "x"}, "non-empty list"),
        ({"a": {"$eq": {"b": 1}}}, "has type dict"),
        ({"a": "nul\x00"}, "NUL byte"),
        ({"a": 10**400}, "too large"),
    ],
)
def test_invalid_filters_say_what_is_wrong(where: dict[str, Any], needle: str) -> None:
    with pytest.raises(InvalidArgumentError, match=_escape(needle)):
        parse_where(where)


def test_values_are_parameters_never_sql_text() -> None:
    evil = "x'); DROP TABLE t; --"
    sql, params = compile_postgres(parse_where({evil: {"$eq": evil}}))
    assert evil not in sql
    assert evil in params
    sql, params = compile_duckdb(parse_where({evil: evil}))
    assert evil not in sql


def _escape(text: str) -> str:
    import re

    return re.escape(text)
