"""Property tests of the packing invariants, on the packer and through the assembler."""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from remem.context import (
    AssembledContext,
    AssemblerConfig,
    ContextAssembler,
    ContextCandidate,
    HistoryTurn,
    Section,
)
from remem.context.config import Strategy
from remem.context.packing import PackingProblem, accounted_cost, pack
from remem.errors import BudgetError
from remem.kernels import count_tokens, estimate_tokens
from tests.context.factories import T0, candidates, session

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def problems(draw: st.DrawFn) -> PackingProblem:
    n = draw(st.integers(0, 40))
    m = draw(st.integers(0, 12))
    cost = st.integers(0, 120)
    value = st.one_of(st.floats(0, 10, allow_nan=False), st.just(1.0), st.just(0.0))
    costs = draw(st.lists(cost, min_size=n, max_size=n))
    values = draw(st.lists(value, min_size=n, max_size=n))
    groups = draw(st.lists(st.integers(0, 6), min_size=n, max_size=n))
    must = draw(st.lists(st.booleans(), min_size=n, max_size=n)) if draw(st.booleans()) else []
    must = must or [False] * n
    chain_costs = draw(st.lists(st.integers(1, 150), min_size=m, max_size=m))
    chain_values = sorted(draw(st.lists(value, min_size=m, max_size=m)), reverse=True)
    return PackingProblem(
        item_costs=np.asarray(costs, dtype=np.int64),
        item_values=np.asarray(values, dtype=np.float64),
        item_groups=np.asarray(groups, dtype=np.int64),
        must_keep=np.asarray(must, dtype=np.bool_),
        group_costs=np.asarray(draw(st.lists(st.integers(0, 8), min_size=7, max_size=7))),
        wrapper_cost=draw(st.integers(0, 8)),
        chain_costs=np.asarray(chain_costs, dtype=np.int64),
        chain_values=np.asarray(chain_values, dtype=np.float64),
        min_chain=draw(st.integers(0, 2)),
        budget=draw(st.integers(0, 1500)),
    )


@SETTINGS
@given(problems())
def test_pack_never_exceeds_the_budget_and_optimal_beats_greedy(p: PackingProblem) -> None:
    try:
        best = pack(p, "optimal")
    except BudgetError:
        with pytest.raises(BudgetError):
            pack(p, "greedy")
        return
    greedy = pack(p, "greedy")
    for result in (best, greedy):
        assert accounted_cost(p, result.kept, result.chain_length) == result.cost <= p.budget
        assert result.kept[p.must_keep].all()
        assert result.chain_length >= min(p.min_chain, p.chain_costs.size)
    assert best.value >= greedy.value - 1e-9 * max(1.0, greedy.value)


@SETTINGS
@given(problems())
def test_optimal_is_exact_over_every_chain_length(p: PackingProblem) -> None:
    """Brute force over small problems: no admissible packing paying the header reservation
    (a header for every section that has candidates) is worth more."""
    if p.item_costs.size > 12:
        return
    try:
        best = pack(p, "optimal")
    except BudgetError:
        return
    n = p.item_costs.size
    eligible = np.unique(p.item_groups)
    reserve = int(p.group_costs[eligible].sum()) + (p.wrapper_cost if n else 0)
    top = -1.0
    for mask in range(1 << n):
        kept = np.asarray([(mask >> i) & 1 for i in range(n)], dtype=np.bool_)
        if not kept[p.must_keep].all():
            continue
        for t in range(min(p.min_chain, p.chain_costs.size), p.chain_costs.size + 1):
            cost = int(p.item_costs[kept].sum() + p.chain_costs[:t].sum()) + reserve
            if cost <= p.budget:
                v = float(p.item_values[kept].sum() + p.chain_values[:t].sum())
                top = max(top, v)
    assert best.value >= top - 1e-9 * max(1.0, top)


@st.composite
def scenarios(
    draw: st.DrawFn,
) -> tuple[list[ContextCandidate], list[HistoryTurn], list[HistoryTurn], int]:
    seed = draw(st.integers(0, 10_000))
    n = draw(st.sampled_from([0, 1, 3, 20, 120]))
    cur = session("now", draw(st.integers(0, 15)), T0, seed=seed)
    prior = session("old", draw(st.integers(0, 15)), T0 - timedelta(days=3), seed=seed + 1)
    prior += session("older", draw(st.integers(0, 5)), T0 - timedelta(days=9), seed=seed + 2)
    budget = draw(st.integers(200, 3000))
    return candidates(n, seed), cur, prior, budget


def _assemble(
    scenario: tuple[list[ContextCandidate], list[HistoryTurn], list[HistoryTurn], int],
    **config: Any,
) -> tuple[ContextAssembler, AssembledContext]:
    cands, cur, prior, budget = scenario
    assembler = ContextAssembler(
        AssemblerConfig(budget=budget, output_reserve=0, min_current_turns=0, **config)
    )
    ctx = assembler.assemble(
        query="What did we decide?",
        system="You are a careful companion.",
        candidates=cands,
        current_history=cur,
        prior_history=prior,
    )
    return assembler, ctx


@SETTINGS
@given(scenarios(), st.sampled_from(["optimal", "greedy"]))
def test_rendered_prompt_never_exceeds_the_budget(
    scenario: tuple[list[ContextCandidate], list[HistoryTurn], list[HistoryTurn], int],
    strategy: Strategy,
) -> None:
    _, ctx = _assemble(scenario, strategy=strategy)
    text = ctx.to_text()
    exact = int(count_tokens([text])[0])
    assert exact == ctx.account.rendered <= ctx.account.prompt_budget


@SETTINGS
@given(scenarios())
def test_history_rules(
    scenario: tuple[list[ContextCandidate], list[HistoryTurn], list[HistoryTurn], int],
) -> None:
    _, cur, prior, _ = scenario
    _, ctx = _assemble(scenario)
    kept_cur = {r.id for r in ctx.kept(Section.CURRENT_HISTORY)}
    kept_prior = {r.id for r in ctx.kept(Section.PRIOR_HISTORY)}
    # Prior history is dropped before current: no prior turn while a current turn is dropped.
    if len(kept_cur) < len(cur):
        assert not kept_prior
    # Current history kept is a contiguous most-recent suffix, in order in the prompt.
    ordered = sorted(cur, key=lambda t: t.turn_number)
    assert kept_cur == {t.id for t in ordered[len(ordered) - len(kept_cur) :]}
    # Prior turns kept are the most recent prior turns.
    ordered_prior = sorted(prior, key=lambda t: t.timestamp)
    assert kept_prior == {t.id for t in ordered_prior[len(ordered_prior) - len(kept_prior) :]}
    # And the prompt shows all kept turns chronologically.
    text = ctx.to_text()
    positions = [
        text.index(t.user_message)
        for t in sorted(cur + prior, key=lambda t: t.timestamp)
        if t.id in kept_cur | kept_prior
    ]
    assert positions == sorted(positions)


def test_utilisation_is_at_least_95_percent_with_enough_candidates() -> None:
    cands = candidates(1000, seed=3, max_words=25)
    strategies: tuple[Strategy, ...] = ("optimal", "greedy")
    for budget in (500, 1000, 4000):
        for strategy in strategies:
            cfg = AssemblerConfig(budget=budget, output_reserve=0, strategy=strategy)
            assembler = ContextAssembler(cfg)
            ctx = assembler.assemble(
                query="Hi", candidates=cands, current_history=session("s", 5, T0)
            )
            assert ctx.account.utilisation >= 0.95, (budget, strategy, ctx.account)


def test_prior_history_goes_before_current_when_budget_is_tight() -> None:
    cur = session("now", 6, T0)
    prior = session("old", 6, T0 - timedelta(days=1), seed=9)
    per_turn = ContextAssembler().assemble(query="q", current_history=cur).account.rendered
    assembler = ContextAssembler(AssemblerConfig(budget=per_turn + 40, output_reserve=0))
    ctx = assembler.assemble(query="q", current_history=cur, prior_history=prior)
    assert len(ctx.kept(Section.CURRENT_HISTORY)) == 6
    assert len(ctx.kept(Section.PRIOR_HISTORY)) < 6
    assert all(r.reason == "over_budget" for r in ctx.dropped())


def test_min_current_turns_is_forced_or_budget_error() -> None:
    cur = session("now", 3, T0)
    huge = [ContextCandidate(f"m{i}", Section.LONG_TERM, "x " * 50, 1.0) for i in range(40)]
    assembler = ContextAssembler(AssemblerConfig(budget=400, output_reserve=0))
    ctx = assembler.assemble(query="q", current_history=cur, candidates=huge)
    assert [r.id for r in ctx.kept(Section.CURRENT_HISTORY)][:1] == ["now-3"]
    tiny = ContextAssembler(AssemblerConfig(budget=40, output_reserve=0))
    with pytest.raises(BudgetError, match="min_current_turns"):
        tiny.assemble(query="q", current_history=cur)


@pytest.mark.parametrize("encoding", ["o200k_base", "cl100k_base", None, "llama-3"])
def test_exact_versus_estimated_accounting(encoding: str | None) -> None:
    cands = candidates(300, seed=4)
    cfg = AssemblerConfig(budget=2000, output_reserve=200, encoding=encoding)
    ctx = ContextAssembler(cfg).assemble(
        query="Plans?", system="Be brief.", candidates=cands, current_history=session("s", 4, T0)
    )
    text = ctx.to_text()
    account = ctx.account
    assert account.prompt_budget == 1800
    if encoding in ("o200k_base", "cl100k_base"):
        assert account.exact
        assert account.counter == encoding
        assert int(count_tokens([text], encoding)[0]) == account.rendered <= 1800
    else:
        assert not account.exact
        assert account.counter == "estimate"
        assert int(estimate_tokens([text])[0]) == account.rendered <= 1800
        exact = int(count_tokens([text])[0])
        assert abs(exact - account.rendered) <= 0.1 * exact  # the estimator's few percent
    # The accounted sum of parts tracks the whole closely (joins rarely merge tokens).
    assert abs(account.accounted - account.rendered) <= 0.02 * account.rendered + 4


def test_count_mode_estimate_overrides_a_known_encoding() -> None:
    cfg = AssemblerConfig(encoding="o200k_base", count_mode="estimate")
    assert not ContextAssembler(cfg).counter.exact


def test_unicode_and_multiline_items_fit_exactly() -> None:
    rng = random.Random(1)
    alphabet = "abc дом 東京 🙂 مرحبا \n\t-#*"
    cands = [
        ContextCandidate(
            f"u{i}",
            Section.SHORT_TERM,
            "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 200))),
            rng.random() + 0.01,
        )
        for i in range(200)
    ]
    for budget in (150, 700, 2500):
        ctx = ContextAssembler(AssemblerConfig(budget=budget, output_reserve=0)).assemble(
            query="¿Qué?", candidates=cands
        )
        assert int(count_tokens([ctx.to_text()])[0]) <= budget
