"""SQL compilers for parsed metadata filters (see :mod:`remem.stores.filters` for semantics).

Both compilers return ``(sql, params)``: a boolean SQL expression over a JSON metadata column and
the values to bind. Field names and values are always parameters; the only text spliced into the
SQL is the column expression the caller passes (a trusted, hard-coded identifier). Every leaf is
wrapped in ``coalesce(..., false)`` so SQL's three-valued logic cannot leak into ``$ne``/``$nin``:
each leaf is strictly true or false, exactly like the Python predicate.

* DuckDB: ``metadata`` is a JSON column; fields are addressed by JSON pointer (``/key`` with ``~``
  and ``/`` escaped), kinds come from ``json_type``.
* PostgreSQL: ``metadata`` is jsonb; fields are addressed with ``->`` (the key is a text
  parameter, no path syntax), kinds come from ``jsonb_typeof``; casts sit inside ``CASE`` so a
  value of another kind is never cast.
"""

from __future__ import annotations

from typing import Literal

from remem.stores.filters import And, Compare, Filter, Operand, as_double, kind_of

Dialect = Literal["duckdb", "postgres"]

_DUCK_NUM = "('BIGINT','UBIGINT','HUGEINT','DOUBLE')"
_NEGATED = {"$ne": "$eq", "$nin": "$in"}
_ORDER_SQL = {"$gt": ">", "$gte": ">=", "$lt": "<", "$lte": "<="}


def json_pointer(field: str) -> str:
    """The RFC 6901 pointer to a top-level key (DuckDB's JSON path syntax)."""
    return "/" + field.replace("~", "~0").replace("/", "~1")


def compile_duckdb(node: Filter | None, column: str = "metadata") -> tuple[str, list[object]]:
    """Compile a filter to a DuckDB boolean expression with ``?`` placeholders."""
    params: list[object] = []
    return _compile(node, column, "duckdb", params), params


def compile_postgres(node: Filter | None, column: str = "metadata") -> tuple[str, list[object]]:
    """Compile a filter to a PostgreSQL boolean expression with ``%s`` placeholders."""
    params: list[object] = []
    return _compile(node, column, "postgres", params), params


def _compile(node: Filter | None, col: str, dialect: Dialect, params: list[object]) -> str:
    if node is None:
        return "true"
    if isinstance(node, Compare):
        return _leaf(node, col, dialect, params)
    joiner = " AND " if isinstance(node, And) else " OR "
    return "(" + joiner.join(_compile(c, col, dialect, params) for c in node.children) + ")"


def _leaf(node: Compare, col: str, dialect: Dialect, params: list[object]) -> str:
    op = node.op
    if op in _NEGATED:
        positive = Compare(node.field, _NEGATED[op], node.value)  # type: ignore[arg-type]
        return f"(NOT {_leaf(positive, col, dialect, params)})"
    if op == "$in":
        values = node.value
        assert isinstance(values, tuple)
        if not values:
            return "false"
        return "(" + " OR ".join(_eq(node.field, v, col, dialect, params) for v in values) + ")"
    if op == "$eq":
        assert not isinstance(node.value, tuple)
        return _eq(node.field, node.value, col, dialect, params)
    assert isinstance(node.value, int | float)
    return _num(node.field, _ORDER_SQL[op], as_double(node.value), col, dialect, params)


def _eq(field: str, value: Operand, col: str, dialect: Dialect, params: list[object]) -> str:
    kind = kind_of(value)
    if kind == "num":
        assert not isinstance(value, str)
        return _num(field, "=", as_double(value), col, dialect, params)
    if dialect == "duckdb":
        path = json_pointer(field)
        if kind == "bool":
            params.extend([path, path, value])
            return (
                f"coalesce(CASE WHEN json_type({col}, ?::VARCHAR) = 'BOOLEAN' "
                f"THEN CAST(json_extract({col}, ?::VARCHAR) AS BOOLEAN) = ?::BOOLEAN "
                "ELSE false END, false)"
            )
        params.extend([path, path, value])
        return (
            f"coalesce(CASE WHEN json_type({col}, ?::VARCHAR) = 'VARCHAR' "
            f"THEN json_extract_string({col}, ?::VARCHAR) = ?::VARCHAR ELSE false END, false)"
        )
    if kind == "bool":
        params.extend([field, field, value])
        return (
            f"coalesce(CASE WHEN jsonb_typeof({col} -> %s::text) = 'boolean' "
            f"THEN ({col} ->> %s::text)::boolean = %s::boolean ELSE false END, false)"
        )
    params.extend([field, field, value])
    return (
        f"coalesce(CASE WHEN jsonb_typeof({col} -> %s::text) = 'string' "
        f"THEN ({col} ->> %s::text) = %s::text ELSE false END, false)"
    )


def _num(
    field: str, sql_op: str, value: float, col: str, dialect: Dialect, params: list[object]
) -> str:
    if dialect == "duckdb":
        path = json_pointer(field)
        params.extend([path, path, value])
        return (
            f"coalesce(CASE WHEN json_type({col}, ?::VARCHAR) IN {_DUCK_NUM} "
            f"THEN CAST(json_extract({col}, ?::VARCHAR) AS DOUBLE) {sql_op} CAST(? AS DOUBLE) "
            "ELSE false END, false)"
        )
    params.extend([field, field, value])
    return (
        f"coalesce(CASE WHEN jsonb_typeof({col} -> %s::text) = 'number' "
        f"THEN ({col} ->> %s::text)::float8 {sql_op} %s::float8 ELSE false END, false)"
    )
