"""row_to_record's fast paths (enum values by dict, integer-microsecond times inline, empty
metadata) give exactly the record that was stored, from either backend's row form."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from remem.models import MemoryKind, MemoryRecord, MemoryStage, PromotionState
from remem.stores.shared.record_rows import (
    RECORD_COLUMNS,
    TIME_COLUMNS,
    decode_time,
    record_to_row,
    row_to_record,
    to_micros,
)
from tests.stores.factories import T0, lifecycle, record

_TIMES = [i for i, c in enumerate(RECORD_COLUMNS) if c in TIME_COLUMNS]
maybe_time = st.one_of(
    st.none(), st.integers(0, 10**12).map(lambda us: T0 + timedelta(microseconds=us))
)


def _micros_row(r: MemoryRecord) -> tuple[Any, ...]:
    """The embedded store's form: times as integer microseconds."""
    row = list(record_to_row(r))
    for i in _TIMES:
        row[i] = to_micros(row[i])  # type: ignore[arg-type]
    return tuple(row)


@given(
    stage=st.sampled_from(list(MemoryStage)),
    kind=st.sampled_from(list(MemoryKind)),
    promotion=st.sampled_from(list(PromotionState)),
    accessed=maybe_time,
    valid_from=maybe_time,
    metadata=st.sampled_from([{}, {"speaker": "Ana"}, {"n": 1, "ok": False, "x": None}]),
)
def test_both_row_forms_decode_to_the_stored_record(
    stage: MemoryStage,
    kind: MemoryKind,
    promotion: PromotionState,
    accessed: Any,
    valid_from: Any,
    metadata: dict[str, Any],
) -> None:
    lc = lifecycle(3, stage=stage, promotion_state=promotion, accessed_at=accessed)
    r = record(3, kind=kind, lifecycle=lc, metadata=metadata, valid_from=valid_from)
    for row in (_micros_row(r), tuple(record_to_row(r))):
        got = row_to_record(row)
        assert got == r
        assert type(got.lifecycle.stage) is MemoryStage
        assert type(got.kind) is MemoryKind
        assert got.metadata is not row_to_record(row).metadata
    assert decode_time(to_micros(T0)) == T0
