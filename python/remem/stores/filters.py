"""The metadata filter language: a Chroma-style ``where`` parsed into a small AST.

Grammar::

    where    := {field: value} | {field: {op: operand, ...}} | {"$and": [where, ...]}
              | {"$or": [where, ...]}          (several keys in one dict are AND-ed)
    op       := $eq $ne $gt $gte $lt $lte $in $nin
    operand  := str | int | float | bool       ($gt/$gte/$lt/$lte: int or float only;
                                               $in/$nin: a list of them, possibly empty)

Semantics (identical in every evaluator; a hypothesis test holds them equal):

* Values have three kinds: *string*, *number* (int and float alike) and *boolean*. ``True`` is
  not ``1``: a boolean only equals a boolean. Numbers compare as IEEE-754 doubles.
* A comparison whose kinds differ is **false**, never an error (``{"n": {"$gt": 3}}`` on
  ``{"n": "x"}`` is false).
* A missing field, or one whose value is ``None``, fails every positive test ($eq $gt $gte $lt
  $lte $in) and passes the negated ones: ``$ne`` is exactly ``not $eq`` and ``$nin`` exactly
  ``not $in`` (so ``{"tag": {"$ne": "x"}}`` matches items without a ``tag``).
* ``$in: []`` matches nothing, ``$nin: []`` everything. ``where={}`` (or None) matches everything.
* Operands are validated: ``None``, NaN/inf, nested objects, unknown operators, field names
  starting with ``$``, empty ``$and``/``$or`` lists and ``$and``/``$or`` nested deeper than
  :data:`MAX_DEPTH` raise InvalidArgumentError naming the problem.

Evaluators: :func:`matches` (a Python predicate, for in-memory stores) and the SQL compilers in
:mod:`remem.stores.shared.filter_sql` (DuckDB over a JSON column, PostgreSQL over jsonb), which bind
every value and field name as a parameter, never interpolated into the SQL text.

Example::

    >>> f = parse_where({"source": "demo", "year": {"$gte": 2020}})
    >>> matches(f, {"source": "demo", "year": 2024})
    True
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from remem.errors import InvalidArgumentError
from remem.models.text import check_text

Operand = str | int | float | bool
Kind = Literal["str", "num", "bool"]
CompareOp = Literal["$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin"]

MAX_DEPTH = 32
"""The deepest ``$and``/``$or`` nesting accepted (a deeper filter would exhaust the stack of a
recursive evaluator; no real filter comes near it)."""

_ORDER_OPS = frozenset({"$gt", "$gte", "$lt", "$lte"})
_ALL_OPS = frozenset({"$eq", "$ne", "$in", "$nin"} | _ORDER_OPS)


@dataclass(frozen=True, slots=True)
class Compare:
    """``field op value``; for $in/$nin ``value`` is a tuple of operands."""

    field: str
    op: CompareOp
    value: Operand | tuple[Operand, ...]


@dataclass(frozen=True, slots=True)
class And:
    children: tuple[Filter, ...]


@dataclass(frozen=True, slots=True)
class Or:
    children: tuple[Filter, ...]


Filter = Compare | And | Or


def kind_of(value: object) -> Kind | None:
    """The filter kind of a metadata value, or None for a missing/None/unsupported value."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "num"
    if isinstance(value, str):
        return "str"
    return None


def as_double(value: int | float) -> float:
    """A number as the double every backend compares (huge ints saturate to ±inf)."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def parse_where(where: Mapping[str, object] | None) -> Filter | None:
    """Validate ``where`` and return its AST (None when it matches everything)."""
    if where is None:
        return None
    node = _parse_dict(where, "where", 0)
    if isinstance(node, And) and not node.children:
        return None
    return node


def _parse_dict(where: object, path: str, depth: int) -> Filter:
    if not isinstance(where, Mapping):
        raise InvalidArgumentError(
            f"{path} must be a dict like {{'field': value}}, got {type(where).__name__}"
        )
    parts: list[Filter] = []
    for key, value in where.items():
        if not isinstance(key, str):
            raise InvalidArgumentError(f"{path} has a non-string key {key!r}; use field names")
        if key in ("$and", "$or"):
            parts.append(_parse_logical(key, value, f"{path}.{key}", depth + 1))
        elif key.startswith("$"):
            raise InvalidArgumentError(
                f"{path} uses unknown operator {key!r} at the top level; use $and or $or, "
                "or put comparison operators under a field"
            )
        else:
            parts.extend(_parse_field(key, value, f"{path}[{key!r}]"))
    return parts[0] if len(parts) == 1 else And(tuple(parts))


def _parse_logical(key: str, value: object, path: str, depth: int) -> Filter:
    if depth > MAX_DEPTH:
        raise InvalidArgumentError(
            f"the filter nests $and/$or deeper than {MAX_DEPTH} levels; flatten it "
            "(several keys in one dict are AND-ed)"
        )
    if not isinstance(value, list | tuple) or not value:
        raise InvalidArgumentError(f"{path[:200]} must be a non-empty list of filters")
    children = tuple(_parse_dict(child, f"{path}[{i}]", depth) for i, child in enumerate(value))
    return And(children) if key == "$and" else Or(children)


def _parse_field(field: str, value: object, path: str) -> list[Filter]:
    if not field:
        raise InvalidArgumentError(f"{path}: field names must be non-empty")
    check_text(field, field=f"{path} field name")
    if not isinstance(value, Mapping):
        return [Compare(field, "$eq", _operand(value, path))]
    if not value:
        raise InvalidArgumentError(f"{path} is an empty operator dict; give e.g. {{'$eq': 1}}")
    out: list[Filter] = []
    for op, operand in value.items():
        if op not in _ALL_OPS:
            raise InvalidArgumentError(
                f"{path} uses unknown operator {op!r}; use one of {', '.join(sorted(_ALL_OPS))}"
            )
        where = f"{path}[{op!r}]"
        if op in ("$in", "$nin"):
            if isinstance(operand, str | bytes) or not isinstance(operand, Sequence):
                raise InvalidArgumentError(f"{where} must be a list of values")
            items = tuple(_operand(v, f"{where}[{i}]") for i, v in enumerate(operand))
            out.append(Compare(field, op, items))
        elif op in _ORDER_OPS:
            if isinstance(operand, bool) or not isinstance(operand, int | float):
                raise InvalidArgumentError(
                    f"{where} must be a number, got {type(operand).__name__}; "
                    "ordering operators compare numbers only"
                )
            out.append(Compare(field, op, _operand(operand, where)))
        else:
            out.append(Compare(field, op, _operand(operand, where)))
    return out


def field_names(node: Filter | None) -> set[str]:
    """Every field a parsed filter tests."""
    if node is None:
        return set()
    if isinstance(node, Compare):
        return {node.field}
    return set().union(*(field_names(child) for child in node.children))


def _operand(value: object, path: str) -> Operand:
    if isinstance(value, str):
        return check_text(value, field=path)
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        if isinstance(value, float) and not math.isfinite(value):
            raise InvalidArgumentError(f"{path} is {value}; filter numbers must be finite")
        if not math.isfinite(as_double(value)):
            raise InvalidArgumentError(f"{path} is too large to compare as a double")
        return value
    if value is None:
        raise InvalidArgumentError(
            f"{path} is None; filters cannot match None — use $ne/$nin to include missing fields"
        )
    raise InvalidArgumentError(
        f"{path} has type {type(value).__name__}; filter values are str, int, float or bool"
    )


def _equals(actual: object, expected: Operand) -> bool:
    kind = kind_of(actual)
    if kind is None or kind != kind_of(expected):
        return False
    if kind == "num":
        return as_double(actual) == as_double(expected)  # type: ignore[arg-type]
    return actual == expected


def _compare(node: Compare, metadata: Mapping[str, object]) -> bool:
    actual = metadata.get(node.field)
    op = node.op
    if op == "$eq":
        return _equals(actual, node.value)  # type: ignore[arg-type]
    if op == "$ne":
        return not _equals(actual, node.value)  # type: ignore[arg-type]
    if op == "$in":
        return any(_equals(actual, v) for v in node.value)  # type: ignore[union-attr]
    if op == "$nin":
        return not any(_equals(actual, v) for v in node.value)  # type: ignore[union-attr]
    if kind_of(actual) != "num":
        return False
    a = as_double(actual)  # type: ignore[arg-type]
    b = as_double(node.value)  # type: ignore[arg-type]
    if op == "$gt":
        return a > b
    if op == "$gte":
        return a >= b
    if op == "$lt":
        return a < b
    return a <= b


def matches(node: Filter | None, metadata: Mapping[str, object]) -> bool:
    """Evaluate a parsed filter against one item's metadata (the Python predicate)."""
    if node is None:
        return True
    if isinstance(node, Compare):
        return _compare(node, metadata)
    if isinstance(node, And):
        return all(matches(child, metadata) for child in node.children)
    return any(matches(child, metadata) for child in node.children)
