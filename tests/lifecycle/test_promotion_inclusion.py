"""PromotionScorer and LongTermInclusionScorer: formulas, validation, batch parity."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from remem.errors import ConfigError, InvalidArgumentError, NaiveDatetimeError
from remem.lifecycle import (
    InclusionScorerConfig,
    LongTermInclusionScorer,
    PromotionConfig,
    PromotionScorer,
)

T0 = datetime(2026, 10, 1, tzinfo=UTC)


def test_promotion_formula_and_defaults() -> None:
    s = PromotionScorer()
    got = s.score(
        created_at=T0,
        access_count=2,
        confidence=0.5,
        relationship_count=1,
        now=T0 + timedelta(hours=36),
    )
    assert got == pytest.approx(0.2 * 0.5 + 0.4 * 0.4 + 0.2 * 0.5 + 0.2 / 3)
    capped = s.score(
        created_at=T0,
        access_count=50,
        confidence=3.0,
        relationship_count=9,
        now=T0 + timedelta(days=30),
    )
    assert capped == pytest.approx(1.0)
    assert s.should_promote(0.7)
    assert not s.should_promote(0.69)


@pytest.mark.parametrize(
    "kw",
    [
        {"w_age": 0.3},  # sum 1.1
        {"w_age": 0.21, "w_access": 0.41},  # sum 1.02
        {"w_age": -0.2, "w_access": 0.8},  # negative
        {"access_norm": 0.0},
        {"threshold": 1.5},
    ],
)
def test_promotion_config_rejects(kw: dict[str, float]) -> None:
    with pytest.raises(ConfigError):
        PromotionConfig(**kw)


def test_promotion_weights_within_tolerance_accepted() -> None:
    PromotionConfig(w_age=0.205)  # sums to 1.005


def test_promotion_batch_matches_scalar() -> None:
    s = PromotionScorer(PromotionConfig(age_norm_hours=24.0, access_norm=10.0))
    now = T0 + timedelta(hours=48)
    created = [T0 + timedelta(hours=h) for h in (0, 12, 40, 60)]
    acc, conf, rel = [0, 3, 10, 20], [0.1, 0.5, -1.0, 2.0], [0, 1, 2, 5]
    got = s.score_batch([c.timestamp() for c in created], acc, conf, rel, now=now)
    want = [
        s.score(created_at=c, access_count=a, confidence=f, relationship_count=r, now=now)
        for c, a, f, r in zip(created, acc, conf, rel, strict=True)
    ]
    np.testing.assert_allclose(got, want, rtol=1e-12)
    with pytest.raises(NaiveDatetimeError):
        s.score(created_at=datetime(2026, 1, 1), access_count=0, confidence=0, relationship_count=0)
    with pytest.raises(InvalidArgumentError):
        s.score(created_at=T0, access_count=-1, confidence=0, relationship_count=0, now=T0)


def test_inclusion_formula_threshold_and_passing() -> None:
    s = LongTermInclusionScorer()
    now = T0 + timedelta(hours=100)
    got = s.score(similarity=0.8, created_at=T0, hits=4, now=now)
    assert got == pytest.approx(0.8 * math.exp(-0.5) * (1 + 0.1 * math.log(5)))
    # Measured from creation, not last access: only created_at enters.
    sims = [0.9, 0.5, 0.7, 0.65]
    created = [T0 + timedelta(hours=h) for h in (100, 100, 0, 100)]
    hits = [0, 100, 0, 0]
    scores = s.score_batch(sims, [c.timestamp() for c in created], hits, now=now)
    want = [
        s.score(similarity=a, created_at=c, hits=h, now=now)
        for a, c, h in zip(sims, created, hits, strict=True)
    ]
    np.testing.assert_allclose(scores, want, rtol=1e-12)
    assert s.passing(sims, [c.timestamp() for c in created], hits, now=now).tolist() == [0, 1, 3]
    with pytest.raises(ConfigError):
        InclusionScorerConfig(recency_rate=-0.1)
    with pytest.raises(InvalidArgumentError):
        s.score(similarity=0.5, created_at=T0, hits=-1, now=now)
