"""The matching rules of LangGraph's store, as its reference ``InMemoryStore`` applies them.

:func:`value_matches` is a search ``filter`` on an item's value (``{"field": value}`` is
equality, nested dicts compare field by field, lists element by element, and a dict of
``$eq``/``$ne``/``$gt``/``$gte``/``$lt``/``$lte`` applies the operators);
:func:`namespace_matches` is one ``MatchCondition`` (a prefix or suffix of labels, where
``"*"`` matches any label).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langgraph.store.base import MatchCondition

from remem.errors import InvalidArgumentError

__all__ = ["check_filter", "namespace_matches", "value_matches"]

_OPERATORS = ("$eq", "$ne", "$gt", "$gte", "$lt", "$lte")


def check_filter(where: object) -> None:
    """InvalidArgumentError unless ``where`` is None or a filter :func:`value_matches` reads."""
    if where is None:
        return
    if not isinstance(where, Mapping):
        raise InvalidArgumentError(f"filter must be a dict of value fields, got {where!r}")
    for wanted in where.values():
        _check_condition(wanted)


def _check_condition(wanted: object) -> None:
    if isinstance(wanted, Mapping):
        for op, operand in wanted.items():
            if str(op).startswith("$") and op not in _OPERATORS:
                raise InvalidArgumentError(
                    f"unknown filter operator {op!r}; use $eq, $ne, $gt, $gte, $lt or $lte"
                )
            _check_condition(operand)
    elif isinstance(wanted, list | tuple):
        for element in wanted:
            _check_condition(element)


def value_matches(value: Mapping[str, Any], where: Mapping[str, Any] | None) -> bool:
    """Whether ``value`` passes the search filter ``where`` (None or ``{}`` passes all)."""
    if not where:
        return True
    return all(_compare(value.get(field), wanted) for field, wanted in where.items())


def namespace_matches(condition: MatchCondition, namespace: tuple[str, ...]) -> bool:
    """Whether ``namespace`` satisfies ``condition``."""
    path = tuple(condition.path)
    if len(namespace) < len(path):
        return False
    if condition.match_type == "prefix":
        pairs = zip(namespace, path, strict=False)
    elif condition.match_type == "suffix":
        pairs = zip(reversed(namespace), reversed(path), strict=False)
    else:
        raise InvalidArgumentError(
            f"match_type must be 'prefix' or 'suffix', got {condition.match_type!r}"
        )
    return all(wanted == "*" or label == wanted for label, wanted in pairs)


def _compare(actual: Any, wanted: Any) -> bool:
    if isinstance(wanted, Mapping):
        if any(str(k).startswith("$") for k in wanted):
            return all(_operator(actual, op, operand) for op, operand in wanted.items())
        if not isinstance(actual, Mapping):
            return False
        return all(_compare(actual.get(k), v) for k, v in wanted.items())
    if isinstance(wanted, list | tuple):
        return (
            isinstance(actual, list | tuple)
            and len(actual) == len(wanted)
            and all(_compare(a, w) for a, w in zip(actual, wanted, strict=True))
        )
    return bool(actual == wanted)


def _operator(actual: Any, op: str, operand: Any) -> bool:
    if op == "$eq":
        return bool(actual == operand)
    if op == "$ne":
        return bool(actual != operand)
    if op not in _OPERATORS:  # check_filter refuses these up front
        raise InvalidArgumentError(
            f"unknown filter operator {op!r}; use $eq, $ne, $gt, $gte, $lt or $lte"
        )
    if not _number(actual) or not _number(operand):
        return False  # a missing or non-numeric field never satisfies an order comparison
    a, b = float(actual), float(operand)
    return {"$gt": a > b, "$gte": a >= b, "$lt": a < b, "$lte": a <= b}[op]


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
