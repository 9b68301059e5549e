"""Context assembly: 10 / 100 / 1,000 / 10,000 candidates into a 4,000-token prompt budget.

Each run also has 10 current-session and 10 prior-session turns, a system message and a query;
candidate items are 3-60 random words (~5-80 tokens) spread over six supporting sections. Token
counts are exact (o200k_base). The assembler instance is reused across rounds, so its memo of
per-text token counts is warm, as it is from one turn to the next in a chat (the same memories
recur); the first, cold call also pays one exact count per new candidate text.

Ids: ``optimal`` (the default: exact chain + knapsack packing), ``greedy`` (value-density
greedy), and the baseline ``naive``: a fixed pruning ladder that renders everything, then drops
whole sections in a fixed priority order (summaries, insights, entities, short-term, facts,
prior history, long-term) until the prompt fits — the way another framework prunes.
``extra_info["utilisation"]`` is rendered prompt tokens / prompt budget; ``correct`` means the
prompt fits the budget (and, for ours, that current history kept is a most-recent suffix).

    python -m benches.report benches/bench_context.py
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from tests.context.factories import T0, candidates, session

from remem.context import (
    SUPPORTING_ORDER,
    AssemblerConfig,
    ContextAssembler,
    ContextCandidate,
    HistoryTurn,
    PromptArchitect,
    Section,
    TokenCounter,
)

BUDGET = 4000
SIZES = (10, 100, 1000, 10_000)
SYSTEM = "You are a warm, concise companion. Use the context when it helps."
QUERY = "What should I bring to the concert on Tuesday?"
LADDER = (
    Section.SUMMARIES,
    Section.INSIGHTS,
    Section.ENTITIES,
    Section.SHORT_TERM,
    Section.KNOWN_FACTS,
    Section.PRIOR_HISTORY,
    Section.LONG_TERM,
)


def naive_ladder(
    cands: list[ContextCandidate],
    current: list[HistoryTurn],
    prior: list[HistoryTurn],
    counter: TokenCounter,
    architect: PromptArchitect,
) -> int:
    """Render all, then drop whole sections lowest-priority first until it fits; tokens used."""
    dropped: set[Section] = set()
    for step in (None, *LADDER):
        if step is not None:
            dropped.add(step)
        items = [c for c in cands if c.section not in dropped and not c.decayed]
        items.sort(key=lambda c: SUPPORTING_ORDER.index(c.section))
        turns = [(t, False) for t in current]
        if Section.PRIOR_HISTORY not in dropped:
            turns = [(t, True) for t in prior] + turns
        tokens = counter.count_one(architect.layout(SYSTEM, turns, items, QUERY)[-1].content)
        text_tokens = tokens + sum(
            counter.count_one(architect.turn_piece(t, prior=p)) for t, p in turns
        )
        text_tokens += counter.count_one(architect.system_piece(SYSTEM))
        if text_tokens <= BUDGET:
            return text_tokens
    return 0  # nothing but the query and system fit: the ladder gives up


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("impl", ["optimal", "greedy", "naive"])
def test_assemble(benchmark: Any, impl: str, n: int) -> None:
    benchmark.group = f"context {n} x {BUDGET}"
    cands = candidates(n, seed=7)
    current = session("now", 10, T0, seed=1)
    prior = session("old", 10, T0 - timedelta(days=2), seed=2)
    if impl == "naive":
        counter, architect = TokenCounter(), PromptArchitect()
        used = benchmark(lambda: naive_ladder(cands, current, prior, counter, architect))
        benchmark.extra_info["utilisation"] = round(used / BUDGET, 4)
        benchmark.extra_info["correct"] = bool(0 <= used <= BUDGET)
        return
    cfg = AssemblerConfig(budget=BUDGET, output_reserve=0, strategy=impl)  # type: ignore[arg-type]
    assembler = ContextAssembler(cfg)

    def run() -> Any:
        return assembler.assemble(
            query=QUERY,
            system=SYSTEM,
            candidates=cands,
            current_history=current,
            prior_history=prior,
        )

    ctx = benchmark(run)
    kept = sorted(r.detail for r in ctx.kept(Section.CURRENT_HISTORY))
    suffix = sorted(f"now#{k}" for k in range(11 - len(kept), 11))
    benchmark.extra_info["utilisation"] = round(ctx.account.utilisation, 4)
    benchmark.extra_info["exhaustive"] = ctx.exhaustive
    benchmark.extra_info["correct"] = bool(
        ctx.account.rendered <= ctx.account.prompt_budget and kept == suffix
    )
