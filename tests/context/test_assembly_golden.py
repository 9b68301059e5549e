"""Assembled output is pinned: fixed datasets assemble to a stored golden file, exactly.

Performance work on the assembler (batched counting, memoised pieces, skipping the exact search
when it cannot change the answer) must not change a single kept item, drop reason, token count,
section report or rendered character. The cases cover both strategies, binding and non-binding
budgets, the estimator, core memory, decayed / superseded / duplicate / below-threshold
candidates, per-section thresholds, priming, tool schemas and the bench's own data; each case
runs twice on one assembler (cold and warm memos) and both runs must equal the golden record.

Regenerate (only when a behaviour change is intended): ``REMEM_WRITE_GOLDEN=1 python -m pytest
tests/context/test_assembly_golden.py``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from remem.context import (
    AssembledContext,
    AssemblerConfig,
    ContextAssembler,
    ContextCandidate,
    Priming,
    Section,
)
from tests.context.factories import T0, candidates, session

GOLDEN = Path(__file__).parent / "data" / "assembly_golden.json"
SYSTEM = "You are a warm, concise companion. Use the context when it helps."
QUERY = "What should I bring to the concert on Tuesday?"


def _mixed(n: int, seed: int) -> list[ContextCandidate]:
    """Candidates with core items, decayed, superseded, exact and near duplicates, zero scores."""
    base = candidates(n, seed=seed)
    out: list[ContextCandidate] = []
    for i, c in enumerate(base):
        if i % 17 == 0:
            c = dataclasses.replace(c, decayed=True)
        elif i % 19 == 0:
            c = dataclasses.replace(c, superseded=True)
        elif i % 23 == 0:
            c = dataclasses.replace(c, score=0.0)
        out.append(c)
    for i in range(0, n, 11):  # exact duplicates (after normalisation) and near-duplicates
        c = base[i]
        out.append(dataclasses.replace(c, id=f"{c.id}-dup", text=c.text.upper() + " !"))
        out.append(dataclasses.replace(c, id=f"{c.id}-near", text=c.text + " ok"))
    out += [
        ContextCandidate(f"core{k}", Section.CORE_MEMORY, f"<user> fact {k}: likes tea", 1.0)
        for k in range(3)
    ]
    return out


def _cases() -> dict[str, dict[str, Any]]:
    cur = session("now", 10, T0, seed=1)
    prior = session("old", 10, T0 - timedelta(days=2), seed=2)
    cases: dict[str, dict[str, Any]] = {}
    for n in (10, 100, 1000):
        for strategy in ("optimal", "greedy"):
            cases[f"bench-{n}-{strategy}"] = {
                "config": {"budget": 4000, "output_reserve": 0, "strategy": strategy},
                "candidates": candidates(n, seed=7),
                "current": cur,
                "prior": prior,
            }
    for budget in (700, 2500, 60_000):
        for strategy in ("optimal", "greedy"):
            cases[f"mixed-{budget}-{strategy}"] = {
                "config": {"budget": budget, "output_reserve": 100, "strategy": strategy},
                "candidates": _mixed(300, seed=3),
                "current": cur,
                "prior": prior,
            }
    cases["estimate-1000"] = {
        "config": {"budget": 3000, "output_reserve": 200, "encoding": None},
        "candidates": candidates(1000, seed=5),
        "current": cur[:6],
        "prior": prior[:4],
    }
    cases["thresholds"] = {
        "config": {
            "budget": 2000,
            "min_score": 0.2,
            "section_min_score": {Section.LONG_TERM: 0.5, Section.ENTITIES: 0.7},
        },
        "candidates": _mixed(200, seed=9),
        "current": cur,
        "prior": [],
    }
    cases["no-history"] = {
        "config": {"budget": 1200},
        "candidates": candidates(50, seed=11),
        "current": [],
        "prior": [],
    }
    cases["everything-fits"] = {
        "config": {"budget": 100_000},
        "candidates": _mixed(60, seed=13),
        "current": cur,
        "prior": prior,
    }
    cases["primed-tools"] = {
        "config": {"budget": 3000},
        "candidates": candidates(120, seed=17),
        "current": cur[5:],
        "prior": [],
        "priming": Priming(candidates=tuple(candidates(20, seed=19)), history=tuple(prior[6:])),
        "tools": ['{"name": "recall", "parameters": {}}', '{"name": "note"}' * 40],
    }
    return cases


def _record(ctx: AssembledContext) -> dict[str, Any]:
    items = [
        [r.id, r.section.value, r.tokens, repr(r.score), repr(r.value), r.kept, r.reason, r.detail]
        for r in ctx.items
    ]
    text = ctx.to_text()
    return {
        "text_sha256": hashlib.sha256(text.encode()).hexdigest(),
        "text_head": text[:400],
        "messages": [[m.role, len(m.content)] for m in ctx.messages],
        "sections": [[s.section.value, s.kept, s.dropped, s.tokens] for s in ctx.sections],
        "account": dataclasses.asdict(ctx.account),
        "tools": list(ctx.tool_schemas_kept),
        "method": ctx.method,
        "probes": ctx.probes,
        "exhaustive": ctx.exhaustive,
        "kept": [r.id for r in ctx.items if r.kept],
        "items_sha256": hashlib.sha256(json.dumps(items).encode()).hexdigest(),
    }


def _run(case: dict[str, Any]) -> list[dict[str, Any]]:
    assembler = ContextAssembler(AssemblerConfig(**case["config"]))
    out = []
    for _ in range(2):  # cold, then warm memos
        ctx = assembler.assemble(
            query=QUERY,
            system=SYSTEM,
            candidates=case["candidates"],
            current_history=case["current"],
            prior_history=case["prior"],
            priming=case.get("priming"),
            tool_schemas=case.get("tools", ()),
        )
        out.append(json.loads(json.dumps(_record(ctx), default=str)))
    return out


def test_golden_file_covers_every_case() -> None:
    if os.environ.get("REMEM_WRITE_GOLDEN"):
        GOLDEN.parent.mkdir(exist_ok=True)
        golden = {name: _run(case)[0] for name, case in _cases().items()}
        GOLDEN.write_text(json.dumps(golden, indent=1, sort_keys=True) + "\n")
    assert sorted(json.loads(GOLDEN.read_text())) == sorted(_cases())


@pytest.mark.parametrize("name", sorted(_cases()))
def test_assembly_matches_golden(name: str) -> None:
    golden = json.loads(GOLDEN.read_text())[name]
    cold, warm = _run(_cases()[name])
    assert cold == golden
    assert warm == golden


def test_memo_overflow_starts_over_and_changes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    import remem.context.assembler as assembler_module

    monkeypatch.setattr(assembler_module, "_MEMO_LIMIT", 40)
    case = _cases()["mixed-2500-optimal"]
    small = ContextAssembler(AssemblerConfig(**case["config"]))
    for part in (case["candidates"][:30], case["candidates"]):  # the second call overflows
        got = small.assemble(query=QUERY, system=SYSTEM, candidates=part)
        fresh = ContextAssembler(AssemblerConfig(**case["config"]))
        assert _record(got) == _record(fresh.assemble(query=QUERY, system=SYSTEM, candidates=part))
    assert len(small._text_tokens) <= len(case["candidates"])
