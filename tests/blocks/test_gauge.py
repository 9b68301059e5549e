"""The gauge shows exactly the rendered size, rounded half up, with thousands separators."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from remem.blocks import CoreMemoryBlock, format_gauge, measure, render_entries
from remem.blocks.gauge import percent


@pytest.mark.parametrize(
    ("used", "limit", "expected"),
    [
        (1474, 2200, "[67% — 1,474/2,200 chars]"),
        (0, 2200, "[0% — 0/2,200 chars]"),
        (2200, 2200, "[100% — 2,200/2,200 chars]"),
        (1, 200, "[1% — 1/200 chars]"),  # 0.5% rounds half up
        (135, 200, "[68% — 135/200 chars]"),  # 67.5% → 68, not banker's 68/67
        (133, 200, "[67% — 133/200 chars]"),  # 66.5% → 67 (banker's would give 66)
        (2199, 2200, "[100% — 2,199/2,200 chars]"),
        (1234567, 2000000, "[62% — 1,234,567/2,000,000 chars]"),
        (2464, 2200, "[112% — 2,464/2,200 chars — OVER LIMIT: consolidate]"),
        (2201, 2200, "[100% — 2,201/2,200 chars — OVER LIMIT: consolidate]"),
    ],
)
def test_gauge_format(used: int, limit: int, expected: str) -> None:
    assert format_gauge(used, limit) == expected


@given(st.integers(0, 10**7), st.integers(1, 10**7))
def test_percent_is_round_half_up(used: int, limit: int) -> None:
    exact = 100 * used / limit
    assert abs(percent(used, limit) - exact) <= 0.5
    # exact integer arithmetic: 2 * (100*used) vs (2*p - 1) * limit
    p = percent(used, limit)
    assert (2 * p - 1) * limit <= 200 * used < (2 * p + 1) * limit


entry_text = st.text(
    st.characters(blacklist_categories=("Cs", "Cc", "Zs", "Zl", "Zp")), min_size=1, max_size=30
)


@given(st.lists(entry_text, max_size=12, unique=True))
def test_measure_equals_rendered_length(entries: list[str]) -> None:
    assert measure(entries) == len(render_entries(entries))


def test_gauge_in_render_equals_rendered_body() -> None:
    block = CoreMemoryBlock("user", 2200, ["Name is Ada", "Lives in Lisbon 🇵🇹", "話す: 日本語"])
    header, body = block.render().split("\n", 1)
    assert block.size == len(body)
    assert f"{len(body):,}/2,200 chars" in header
    assert body == "- Name is Ada\n- Lives in Lisbon 🇵🇹\n- 話す: 日本語"


def test_empty_block_renders_zero() -> None:
    block = CoreMemoryBlock("self", 1375, description="the relationship")
    assert block.size == 0
    assert block.render() == "<self> (the relationship) [0% — 0/1,375 chars]\n(empty)"
