"""DecayConfig / DecayCalculator: the seed example, validation, reinforcement, batch parity."""

from __future__ import annotations

import math
import subprocess
import sys
import textwrap
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from remem.errors import ConfigError, NaiveDatetimeError, NonFiniteError
from remem.lifecycle import DecayCalculator, DecayConfig

START = datetime(2026, 10, 1, tzinfo=UTC)

SEED_EXAMPLE = """
from datetime import datetime, timedelta, timezone
from remem.lifecycle import DecayCalculator, DecayConfig
start = datetime(2026, 10, 1, tzinfo=timezone.utc)
calculator = DecayCalculator(DecayConfig())
for hours in (24, 72, 168):
    score = calculator.calculate_decay(1.0, start, now=start + timedelta(hours=hours))
    print(hours, round(score, 3))
"""


def test_seed_example_prints_exactly() -> None:
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(SEED_EXAMPLE)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert out == "24 0.787\n72 0.487\n168 0.186\n"


def test_defaults() -> None:
    c = DecayConfig()
    assert (c.decay_rate, c.access_boost, c.promotion_threshold, c.decay_threshold) == (
        0.01,
        0.2,
        0.7,
        0.2,
    )
    assert (c.short_term_min_age_hours, c.decay_check_interval_hours) == (24, 24)
    assert c.decayed_retention_days == 30


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("decay_rate", 0.0009),
        ("decay_rate", 0.6),
        ("decay_rate", math.nan),
        ("access_boost", -0.1),
        ("promotion_threshold", 1.5),
        ("decay_threshold", -1.0),
        ("short_term_min_age_hours", -1.0),
        ("decay_check_interval_hours", 0.0),
        ("decayed_retention_days", math.inf),
    ],
)
def test_config_validation_names_field(field: str, value: float) -> None:
    with pytest.raises(ConfigError, match=field):
        DecayConfig(**{field: value})


def test_config_is_frozen() -> None:
    with pytest.raises(AttributeError):
        DecayConfig().decay_rate = 0.1  # type: ignore[misc]


def test_naive_datetimes_rejected() -> None:
    calc = DecayCalculator()
    with pytest.raises(NaiveDatetimeError, match="timezone"):
        calc.calculate_decay(1.0, datetime(2026, 10, 1), now=START)
    with pytest.raises(NaiveDatetimeError):
        calc.calculate_decay(1.0, START, now=datetime(2026, 10, 2))
    with pytest.raises(NonFiniteError):
        calc.calculate_decay(math.nan, START, now=START)


def test_future_reference_counts_as_age_zero() -> None:
    calc = DecayCalculator()
    assert calc.calculate_decay(0.6, START + timedelta(hours=5), now=START) == 0.6


def test_reinforce_rebases() -> None:
    calc = DecayCalculator()
    at = START + timedelta(hours=72)
    base, ref = calc.reinforce(1.0, START, now=at)
    assert ref == at
    assert base == pytest.approx(math.exp(-0.72) + 0.2)
    # Later decay starts from the new base at the access time.
    later = calc.calculate_decay(base, ref, now=at + timedelta(hours=24))
    assert later == pytest.approx(base * math.exp(-0.24))
    assert calc.reinforce(0.95, START, now=START)[0] == 1.0
    assert calc.is_decayed(0.19)
    assert not calc.is_decayed(0.2)


@settings(max_examples=50, deadline=None)
@given(
    st.floats(0.0, 1.0),
    st.floats(0.001, 0.5),
    st.lists(st.floats(0.0, 96.0), max_size=20),
)
def test_cycles_never_compound(base: float, rate: float, cycle_hours: list[float]) -> None:
    """Maintenance at arbitrary times, then the 96 h score: identical to one computation."""
    calc = DecayCalculator(DecayConfig(decay_rate=rate))
    for h in sorted(cycle_hours):
        calc.calculate_decay(base, START, now=START + timedelta(hours=h))  # read-only cycle
    once = calc.calculate_decay(base, START, now=START + timedelta(hours=96))
    assert once == pytest.approx(base * math.exp(-rate * 96), rel=1e-12, abs=1e-300)


def test_batch_matches_scalar() -> None:
    calc = DecayCalculator()
    now = START + timedelta(hours=100)
    refs = [START + timedelta(hours=h) for h in (0, 10, 50, 99, 120)]
    base = [1.0, 0.5, 0.9, 0.2, 0.7]
    got = calc.decay_batch(base, [r.timestamp() for r in refs], now=now)
    want = [calc.calculate_decay(b, r, now=now) for b, r in zip(base, refs, strict=True)]
    np.testing.assert_allclose(got, want, rtol=1e-12)
    new_base, t = calc.reinforce_batch(base, [r.timestamp() for r in refs], now=now)
    assert t == now.timestamp()
    want_r = [calc.reinforce(b, r, now=now)[0] for b, r in zip(base, refs, strict=True)]
    np.testing.assert_allclose(new_base, want_r, rtol=1e-12)
