"""Record and graph builders shared by the store contract suites."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from remem.models import (
    Entity,
    MemoryKind,
    MemoryLifecycleMetadata,
    MemoryRecord,
    MemoryStage,
    PromotionState,
    ProvenanceMetadata,
    Relationship,
)

T0 = datetime(2024, 5, 6, 7, 8, 9, 123457, tzinfo=UTC)


def lifecycle(i: int = 0, **changes: Any) -> MemoryLifecycleMetadata:
    created = T0 + timedelta(seconds=i, microseconds=i % 7)
    values: dict[str, Any] = {"created_at": created, "score_reference_time": created}
    values.update(changes)
    return MemoryLifecycleMetadata(**values)


def record(i: int, **changes: Any) -> MemoryRecord:
    values: dict[str, Any] = {
        "id": f"rec-{i:05d}",
        "text": f"memory {i}",
        "lifecycle": lifecycle(i),
    }
    values.update(changes)
    return MemoryRecord(**values)


def rich_record(i: int) -> MemoryRecord:
    """A record that exercises every field, unicode included."""
    created = T0 + timedelta(microseconds=i + 1)
    return MemoryRecord(
        id=f"rich-{i}-日本-😀",
        text="שלום עולם — 你好世界 😀 " * 3,
        kind=MemoryKind.PREFERENCE,
        namespace="ns-✓",
        session_id="sess-1",
        lifecycle=MemoryLifecycleMetadata(
            stage=MemoryStage.LONG_TERM,
            base_score=0.123456789012345,
            created_at=created,
            score_reference_time=created + timedelta(hours=1, microseconds=3),
            accessed_at=created + timedelta(days=2, microseconds=999_999),
            promoted_at=created + timedelta(days=3),
            decayed_at=created + timedelta(days=4, microseconds=1),
            access_count=2**40,
            promotion_state=PromotionState.PROMOTED,
            protected=True,
        ),
        provenance=ProvenanceMetadata(
            source_id="turn-7",
            source_type="extraction",
            author_id="agent/ü",
            confidence=0.3333333333333333,
            created_at=datetime(1999, 12, 31, 23, 59, 59, 999_999, tzinfo=UTC),
            parent_ids=("p1", "p2-😀"),
        ),
        metadata={"s": "x — ✓", "i": -(2**53), "f": 0.1, "one": 1.0, "b": False, "n": None},
        entity_ids=("e1", "e-日本"),
        valid_from=datetime(2020, 1, 1, tzinfo=UTC),
        valid_to=datetime(2030, 1, 1, 0, 0, 0, 1, tzinfo=UTC),
    )


def entity(name: str, **changes: Any) -> Entity:
    values: dict[str, Any] = {"id": name.lower(), "name": name, "created_at": T0, "updated_at": T0}
    values.update(changes)
    return Entity(**values)


def rel(rid: str, source: str, target: str, **changes: Any) -> Relationship:
    values: dict[str, Any] = {
        "id": rid,
        "source_id": source,
        "target_id": target,
        "relation_type": "knows",
        "created_at": T0,
    }
    values.update(changes)
    return Relationship(**values)
