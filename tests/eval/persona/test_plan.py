"""Plans are a pure function of the seed, differ across seeds, and schedule real changes."""

from __future__ import annotations

import pytest

from remem.errors import InvalidArgumentError
from remem.eval.persona import generate_plan, generate_plans


def test_same_seed_same_plan() -> None:
    assert generate_plan(3, 1, days=24) == generate_plan(3, 1, days=24)


def test_plans_vary_across_seeds_and_indices() -> None:
    plans = [generate_plan(seed, 0) for seed in range(12)] + generate_plans(6, seed=99)
    signatures = {tuple((e.day, e.attribute, e.value) for e in p.events) for p in plans}
    assert len(signatures) == len(plans)
    assert len({p.current("city") for p in plans}) >= 5
    assert len({p.name for p in plans}) >= 5


@pytest.mark.parametrize("seed", range(8))
def test_every_plan_has_updates_and_a_correction(seed: int) -> None:
    plan = generate_plan(seed, 0, days=24)
    kinds = [e.kind for e in plan.events]
    assert kinds.count("correction") >= 1
    assert sum(k in ("update", "add", "end") for k in kinds) >= 3
    assert all(0 <= e.day < plan.days for e in plan.events)
    assert [e.day for e in plan.events] == sorted(e.day for e in plan.events)
    for event in plan.events:
        if event.kind == "update" and event.attribute != "partner":
            assert event.previous is not None
            assert event.previous != event.value


def test_correction_rewrites_history_and_misstatement_is_never_true() -> None:
    plan = next(p for p in generate_plans(10, seed=4) if p.misstated("birthday"))
    wrong = plan.misstated("birthday")[0]
    history = plan.true_history("birthday")
    assert len(history) == 1
    assert history[0][1] != wrong
    fix = next(e for e in plan.events if e.kind == "correction" and e.attribute == "birthday")
    assert fix.previous == wrong
    assert plan.current("birthday") == fix.value


def test_breakup_then_new_partner() -> None:
    plan = next(p for p in generate_plans(12, seed=1) if any(e.kind == "end" for e in p.events))
    history = plan.true_history("partner")
    assert [v is None for _, v in history] == [False, True, False]
    assert history[0][1] != history[2][1]


def test_too_few_days_is_a_typed_error() -> None:
    with pytest.raises(InvalidArgumentError, match="at least 6 days"):
        generate_plan(0, days=3)
    with pytest.raises(InvalidArgumentError):
        generate_plans(0)
