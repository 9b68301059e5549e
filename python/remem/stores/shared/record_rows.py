"""MemoryRecord <-> flat table row, shared by the DuckDB and PostgreSQL record stores.

One column per lifecycle and provenance field (so SQL can filter and update them set-based),
``metadata`` as JSON text, ``entity_ids``/``parent_ids`` as string lists. Times leave as aware UTC
datetimes; a backend that stores integer microseconds converts with :func:`to_micros` and reads
back through :func:`decode_time`, which accepts either form.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from operator import itemgetter
from typing import Any

from remem.errors import InvalidArgumentError, shown
from remem.models import (
    MemoryKind,
    MemoryLifecycleMetadata,
    MemoryRecord,
    MemoryStage,
    PromotionState,
    ProvenanceMetadata,
    check_text,
    require_aware,
)
from remem.models.base import trusted

RECORD_COLUMNS: tuple[str, ...] = (
    "id",
    "text",
    "kind",
    "namespace",
    "session_id",
    "stage",
    "base_score",
    "score_reference_time",
    "created_at",
    "accessed_at",
    "promoted_at",
    "decayed_at",
    "access_count",
    "promotion_state",
    "protected",
    "source_id",
    "source_type",
    "author_id",
    "confidence",
    "provenance_created_at",
    "parent_ids",
    "metadata",
    "entity_ids",
    "superseded_by",
    "valid_from",
    "valid_to",
)
"""Column order of every row produced and consumed here."""

TIME_COLUMNS: frozenset[str] = frozenset(
    {
        "score_reference_time",
        "created_at",
        "accessed_at",
        "promoted_at",
        "decayed_at",
        "provenance_created_at",
        "valid_from",
        "valid_to",
    }
)
LIST_COLUMNS: frozenset[str] = frozenset({"parent_ids", "entity_ids"})

LIFECYCLE_COLUMNS: tuple[str, ...] = RECORD_COLUMNS[5:15]
"""The columns ``update_lifecycle`` rewrites (stage .. protected)."""

ACCESS_COLUMNS: tuple[str, ...] = (
    "base_score",
    "score_reference_time",
    "accessed_at",
    "access_count",
)
"""The columns ``record_accesses`` rewrites (recall's access note), in RECORD_COLUMNS order."""

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def to_micros(value: datetime | None) -> int | None:
    """Exact integer microseconds since the UNIX epoch (UTC), or None."""
    if value is None:
        return None
    delta = value - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def decode_time(value: object) -> datetime | None:
    """An aware UTC datetime from integer microseconds, a datetime, or None."""
    if value is None:
        return None
    if isinstance(value, datetime):
        return value.astimezone(UTC)
    return _EPOCH + timedelta(microseconds=int(value))  # type: ignore[call-overload, no-any-return]


def decode_required(value: object) -> datetime:
    """As :func:`decode_time`, for a NOT NULL column."""
    out = _time(value)
    assert out is not None
    return out


def dump_json(value: dict[str, object]) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def load_json(value: object) -> dict[str, Any]:
    """Metadata from JSON text (DuckDB) or an already-decoded jsonb value (psycopg)."""
    if isinstance(value, dict):
        return value
    loaded = json.loads(str(value))
    assert isinstance(loaded, dict)
    return loaded


def check_records(records: Sequence[MemoryRecord], *, action: str) -> list[MemoryRecord]:
    """The batch as a list; InvalidArgumentError if any item is not a MemoryRecord."""
    if isinstance(records, str | bytes) or not isinstance(records, Sequence):
        raise InvalidArgumentError(f"{action} takes a sequence of MemoryRecord")
    out = list(records)
    for i, record in enumerate(out):
        if not isinstance(record, MemoryRecord):
            raise InvalidArgumentError(
                f"{action}: item {i} is a {type(record).__name__}, not a MemoryRecord; "
                "build it with MemoryRecord(...)"
            )
    return out


def check_ids(ids: Sequence[str], *, action: str) -> list[str]:
    """The ids as a list; InvalidArgumentError for a bare string or a non-string item."""
    if isinstance(ids, str | bytes) or not isinstance(ids, Sequence):
        raise InvalidArgumentError(f"{action} takes a sequence of ids, not {type(ids).__name__}")
    out = list(ids)
    for value in out:
        if not isinstance(value, str) or not value:
            raise InvalidArgumentError(
                f"{action}: ids must be non-empty strings, got {shown(value)}"
            )
        check_text(value, field=f"{action} id")
    return out


def duplicates(ids: Sequence[str]) -> list[str]:
    """Ids that occur more than once, in first-seen order."""
    seen: set[str] = set()
    dups: dict[str, None] = {}
    for value in ids:
        if value in seen:
            dups[value] = None
        seen.add(value)
    return list(dups)


def check_time(value: datetime, *, field: str) -> datetime:
    if not isinstance(value, datetime):
        raise InvalidArgumentError(f"{field} must be a datetime, got {type(value).__name__}")
    return require_aware(value, field=field)


def lifecycle_values(lc: MemoryLifecycleMetadata) -> tuple[object, ...]:
    """Values of LIFECYCLE_COLUMNS, in order."""
    return (
        lc.stage.value,
        lc.base_score,
        lc.score_reference_time,
        lc.created_at,
        lc.accessed_at,
        lc.promoted_at,
        lc.decayed_at,
        lc.access_count,
        lc.promotion_state.value,
        lc.protected,
    )


def record_to_row(r: MemoryRecord) -> tuple[object, ...]:
    """Values of RECORD_COLUMNS, in order; times as aware datetimes."""
    p = r.provenance
    return (
        r.id,
        r.text,
        r.kind.value,
        r.namespace,
        r.session_id,
        *lifecycle_values(r.lifecycle),
        p.source_id,
        p.source_type,
        p.author_id,
        p.confidence,
        p.created_at,
        list(p.parent_ids),
        dump_json(r.metadata),
        list(r.entity_ids),
        r.superseded_by,
        r.valid_from,
        r.valid_to,
    )


def row_to_record(row: Sequence[Any]) -> MemoryRecord:
    """The record stored in ``row`` (RECORD_COLUMNS order).

    Rows were validated when written, so they are rebuilt with :func:`remem.models.base.trusted`
    (no second validation: it cost ~80 µs a record, most of a recall's record fetch); enum
    values are looked up in a dict and integer-microsecond times decoded inline (the same values
    :func:`decode_time` and the enum constructors give, which handle every other case).
    """
    t = _time
    lifecycle = trusted(
        MemoryLifecycleMetadata,
        {
            "stage": _STAGES.get(row[5]) or MemoryStage(row[5]),
            "base_score": float(row[6]),
            "score_reference_time": decode_required(row[7]),
            "created_at": decode_required(row[8]),
            "accessed_at": t(row[9]),
            "promoted_at": t(row[10]),
            "decayed_at": t(row[11]),
            "access_count": int(row[12]),
            "promotion_state": _PROMOTIONS.get(row[13]) or PromotionState(row[13]),
            "protected": bool(row[14]),
        },
    )
    provenance = trusted(
        ProvenanceMetadata,
        {
            "source_id": row[15],
            "source_type": row[16],
            "author_id": row[17],
            "confidence": float(row[18]),
            "created_at": t(row[19]),
            "parent_ids": tuple(row[20] or ()),
        },
    )
    meta = row[21]
    return trusted(
        MemoryRecord,
        {
            "id": row[0],
            "text": row[1],
            "kind": _KINDS.get(row[2]) or MemoryKind(row[2]),
            "namespace": row[3],
            "session_id": row[4],
            "lifecycle": lifecycle,
            "provenance": provenance,
            "metadata": {} if meta == "{}" else load_json(meta),
            "entity_ids": tuple(row[22] or ()),
            "superseded_by": row[23],
            "valid_from": t(row[24]),
            "valid_to": t(row[25]),
        },
    )


_BASE, _REFERENCE, _ACCESSED, _COUNT = (RECORD_COLUMNS.index(c) for c in ACCESS_COLUMNS)
_access_values = itemgetter(_BASE, _REFERENCE, _ACCESSED, _COUNT)
_other_values = itemgetter(*(i for i, c in enumerate(RECORD_COLUMNS) if c not in ACCESS_COLUMNS))


def reaccessed(
    record: MemoryRecord, before: Sequence[Any], row: Sequence[Any]
) -> MemoryRecord | None:
    """``row_to_record(row)``, derived from ``record`` (decoded from the row ``before``) when
    the two rows differ in no column outside :data:`ACCESS_COLUMNS`: ``record`` itself when
    they are equal (a re-read of the same row), a copy with the new access values when only
    those differ (the row after an access note); None when another column differs.

    A row holds the same objects after an access note (the store rebuilds the tuple), so the
    comparison is mostly identity checks; it costs a fraction of a decode.

        after = reaccessed(record, row, row_after_access)  # access_count + 1, the rest shared
    """
    if len(row) != len(before) or _other_values(row) != _other_values(before):
        return None
    if _access_values(row) == _access_values(before):
        return record
    lifecycle = dict(record.lifecycle.__dict__)
    lifecycle["base_score"] = float(row[_BASE])
    lifecycle["score_reference_time"] = decode_required(row[_REFERENCE])
    lifecycle["accessed_at"] = _time(row[_ACCESSED])
    lifecycle["access_count"] = int(row[_COUNT])
    values = dict(record.__dict__)
    values["lifecycle"] = trusted(MemoryLifecycleMetadata, lifecycle)
    return trusted(MemoryRecord, values)


_STAGES: dict[object, MemoryStage] = {m.value: m for m in MemoryStage}
_PROMOTIONS: dict[object, PromotionState] = {m.value: m for m in PromotionState}
_KINDS: dict[object, MemoryKind] = {m.value: m for m in MemoryKind}


def _time(value: object) -> datetime | None:
    """:func:`decode_time`, with integer microseconds (the embedded store's form) inline."""
    if value is None:
        return None
    if type(value) is int:
        return _EPOCH + timedelta(microseconds=value)
    return decode_time(value)
