"""Argument checks shared by every RecordStore backend, so they refuse the same input alike."""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime

from remem.errors import InvalidArgumentError, NonFiniteError, NotFoundError, ShapeError, shown
from remem.models import MemoryKind, MemoryLifecycleMetadata, MemoryStage, check_text
from remem.stores.shared.record_rows import check_ids, check_time, duplicates


def stage_values(stages: Sequence[MemoryStage] | None) -> list[str] | None:
    return _enum_values(stages, MemoryStage, "stages")


def kind_values(kinds: Sequence[MemoryKind] | None) -> list[str] | None:
    return _enum_values(kinds, MemoryKind, "kinds")


def _enum_values(
    values: Sequence[object] | None, enum: type[MemoryStage] | type[MemoryKind], field: str
) -> list[str] | None:
    if values is None:
        return None
    if isinstance(values, str) or not isinstance(values, Sequence):
        raise InvalidArgumentError(f"{field} must be a list of {enum.__name__}, e.g. [{field}[0]]")
    out = []
    for value in values:
        try:
            out.append(enum(str(value)).value)
        except ValueError as exc:
            allowed = ", ".join(m.value for m in enum)
            raise InvalidArgumentError(
                f"{field}: unknown {enum.__name__} {value!r}; use one of {allowed}"
            ) from exc
    return out


def check_namespace(namespace: str | None) -> str | None:
    if namespace is not None and (not isinstance(namespace, str) or not namespace):
        raise InvalidArgumentError(f"namespace must be a non-empty string, got {shown(namespace)}")
    return None if namespace is None else check_text(namespace, field="namespace")


def check_updates(
    updates: Sequence[tuple[str, MemoryLifecycleMetadata]],
) -> list[tuple[str, MemoryLifecycleMetadata]]:
    if isinstance(updates, str) or not isinstance(updates, Sequence):
        raise InvalidArgumentError("update_lifecycle takes a sequence of (id, lifecycle) pairs")
    out = list(updates)
    for item in out:
        if (
            not isinstance(item, tuple)
            or len(item) != 2
            or not isinstance(item[0], str)
            or not item[0]
            or not isinstance(item[1], MemoryLifecycleMetadata)
        ):
            raise InvalidArgumentError(
                f"update_lifecycle: {item!r} is not an (id, MemoryLifecycleMetadata) pair"
            )
    dups = duplicates([i for i, _ in out])
    if dups:
        raise InvalidArgumentError(
            f"update_lifecycle: ids {dups[:10]} appear more than once; send one update per id"
        )
    return out


def check_accesses(
    ids: Sequence[str], new_base_scores: Sequence[float], at: datetime
) -> tuple[list[str], list[float], datetime]:
    id_list = check_ids(ids, action="record_accesses")
    if isinstance(new_base_scores, str | bytes):
        raise InvalidArgumentError("new_base_scores must be a sequence of floats")
    try:
        scores = [float(s) for s in new_base_scores]
    except (TypeError, ValueError) as exc:
        raise InvalidArgumentError(f"new_base_scores must be floats: {exc}") from exc
    if len(scores) != len(id_list):
        raise ShapeError(
            f"record_accesses got {len(id_list)} ids but {len(scores)} scores; pass one per id"
        )
    for value in scores:
        if not math.isfinite(value):
            raise NonFiniteError(f"new_base_scores contains {value}; scores must be finite")
        if not 0.0 <= value <= 1.0:
            raise InvalidArgumentError(f"new_base_scores contains {value}; scores lie in 0..1")
    dups = duplicates(id_list)
    if dups:
        raise InvalidArgumentError(
            f"record_accesses: ids {dups[:10]} appear more than once; send each id once"
        )
    return id_list, scores, check_time(at, field="at")


def check_supersede(old_id: str, new_id: str, at: datetime) -> datetime:
    check_ids([old_id, new_id], action="supersede")
    if old_id == new_id:
        raise InvalidArgumentError(f"{old_id!r} cannot supersede itself; pass a different new id")
    return check_time(at, field="at")


def missing_error(missing: Sequence[str], *, action: str) -> NotFoundError:
    shown = list(missing)[:10]
    more = f" and {len(missing) - len(shown)} more" if len(missing) > len(shown) else ""
    return NotFoundError(
        f"{action}: unknown record ids {shown}{more}; check the ids or put the records first"
    )


def check_supersessions(
    items: Sequence[tuple[str, str, datetime]],
) -> list[tuple[str, str, datetime]]:
    """``supersede_many``'s (old_id, new_id, at) triples, each checked like ``supersede``; an
    old id may appear once (a record is replaced by one record)."""
    if isinstance(items, str) or not isinstance(items, Sequence):
        raise InvalidArgumentError("supersede_many takes a sequence of (old_id, new_id, at)")
    out: list[tuple[str, str, datetime]] = []
    for i, item in enumerate(items):
        if not isinstance(item, tuple) or len(item) != 3:
            raise InvalidArgumentError(
                f"supersede_many: item {i} is {item!r}, not an (old_id, new_id, at) triple"
            )
        old_id, new_id, at = item
        out.append((old_id, new_id, check_supersede(old_id, new_id, at)))
    dups = duplicates([old for old, _, _ in out])
    if dups:
        raise InvalidArgumentError(
            f"supersede_many: old ids {dups[:10]} appear more than once; a record is "
            "superseded by one record"
        )
    return out


def check_key_values(values: Sequence[str] | None, field: str) -> list[str] | None:
    """A list filter of keyed-fact subjects or attributes (None = no filter)."""
    if values is None:
        return None
    if isinstance(values, str) or not isinstance(values, Sequence):
        raise InvalidArgumentError(f"{field} must be a list of strings, e.g. [{values!r}]")
    out = list(values)
    for value in out:
        if not isinstance(value, str) or not value:
            raise InvalidArgumentError(f"{field} must hold non-empty strings, got {value!r}")
        check_text(value, field=field)
    return out


def keyed_fact_filter(
    subjects: Sequence[str] | None,
    attributes: Sequence[str] | None,
    namespace: str | None,
    *,
    include_superseded: bool = False,
    subject_expr: str,
    attribute_expr: str,
    in_list: str,
    placeholder: str,
) -> tuple[list[str], list[object]]:
    """The WHERE clauses and parameters of ``keyed_facts`` for either SQL backend (checked here,
    once): live (or, with ``include_superseded``, superseded too), not deleted, keyed, optionally
    within ``subjects``/``attributes``/``namespace``.

    ``in_list`` is the backend's "expression is in the list parameter" form with ``{expr}`` and
    ``{p}`` holes (DuckDB ``list_contains({p}::VARCHAR[], {expr})``, PostgreSQL
    ``{expr} = ANY({p}::text[])``); ``placeholder`` its parameter marker.
    """
    if not isinstance(include_superseded, bool):
        raise InvalidArgumentError(
            f"include_superseded must be a bool, got {type(include_superseded).__name__}"
        )
    clauses = [] if include_superseded else ["superseded_by IS NULL"]
    clauses += [
        "stage <> 'deleted'",
        f"{subject_expr} IS NOT NULL",
        f"{attribute_expr} IS NOT NULL",
    ]
    params: list[object] = []
    for expr, values in (
        (subject_expr, check_key_values(subjects, "subjects")),
        (attribute_expr, check_key_values(attributes, "attributes")),
    ):
        if values is not None:
            clauses.append(in_list.format(expr=expr, p=placeholder))
            params.append(values)
    if check_namespace(namespace) is not None:
        clauses.append(f"namespace = {placeholder}")
        params.append(namespace)
    return clauses, params


def record_filter(
    stages: list[str] | None,
    kinds: list[str] | None,
    namespace: str | None,
    include_superseded: bool,
    *,
    in_list: str,
    placeholder: str,
) -> tuple[str, list[object]]:
    """The WHERE text and parameters of a stage/kind/namespace listing for either SQL backend
    (``in_list`` and ``placeholder`` as in :func:`keyed_fact_filter`); inputs already checked."""
    clauses: list[str] = ["TRUE"]
    params: list[object] = []
    for column, values in (("stage", stages), ("kind", kinds)):
        if values is not None:
            clauses.append(in_list.format(expr=column, p=placeholder))
            params.append(values)
    if namespace is not None:
        clauses.append(f"namespace = {placeholder}")
        params.append(namespace)
    if not include_superseded:
        clauses.append("superseded_by IS NULL")
    return " AND ".join(clauses), params
