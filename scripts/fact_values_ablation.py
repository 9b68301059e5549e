"""Ablation of ``CompanionConfig.earlier_values`` ("off" / "mark" / "drop") in the persona harness.

    PYTHONPATH=python python scripts/fact_values_ablation.py --out /tmp/fv-ablation
    PYTHONPATH=python python scripts/fact_values_ablation.py --horizon year --out /tmp/fv-year

Runs ``remem eval --quick``'s settings (4 personas x 21 days, seed 0, +10-day delayed quiz; with
``--horizon year``, ``remem eval --horizon year --quick``'s: 2 personas x 120 days at the equal
1,000-token budget) on the ``full`` companion with each setting, with three extractors:

* ``rule`` — the offline :class:`~remem.extraction.RuleExtractor`, as ``remem eval`` runs it;
* ``oracle`` — an extractor that reads each turn's fact straight from the persona plan (the
  ground truth the turn was rendered from). It isolates the prompt stage from extraction: what
  ordering values does once the facts *are* extracted and superseded (the rule extractor of
  today finds almost no changes, so there the three settings cannot differ);
* ``partial`` — the oracle without the year horizon's passing restatements of a current value
  ("cycled along the river in Porto"): the changes are keyed, the statements made in passing
  are not, as with an extractor that hears direct statements only — there naming an old value
  is all that marks a statement as earlier (``FactTimeline.earlier_in_text``).

Measured at the year horizon (``--horizon year``, equal 1,000-token budget; context recall /
current-fact / stale-only %): rule-mark 55.2 / 43.1 / 13.6; oracle-off 95.8 / 100 / 0;
oracle-mark 99.0 / 100 / 0 ("previous" 85.7, long gap 100); oracle-drop 90.6 / 100 / 0
("previous" 28.6: dropping old statements loses history). The targets are met once facts are
extracted; the rule extractor is what stands between them and today's figures.

Deterministic: plans, rendering and bootstrap are seeded; no model is called. Prints the
harness table (context recall, stale-only, per category, tokens) for all nine variants.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
from collections.abc import Callable, Sequence
from pathlib import Path

from remem.brains import Brain
from remem.companion import CompanionConfig, Full, offline_brain
from remem.companion.config import EarlierValues
from remem.consolidation import MemoryConsolidator
from remem.controller import (
    ExtractedMemory,
    ExtractionContext,
    ExtractionResult,
    Extractor,
)
from remem.eval.persona.harness import EvalSettings, run_eval
from remem.eval.persona.horizon import materialise
from remem.eval.persona.plan import FactEvent
from remem.eval.persona.protocol import EvalCompanion, Variant
from remem.eval.persona.report import format_table, write_report
from remem.eval.persona.summary import summarise
from remem.eval.persona.variants import equal_budget_config
from remem.extraction import RuleExtractor
from remem.models import TranscriptEntry
from remem.runtime import Runtime

QUICK_PERSONAS, QUICK_DAYS, SEED, DELAY_DAYS, RESAMPLES = 4, 21, 0, 10, 1000
SETTINGS: tuple[EarlierValues, ...] = ("off", "mark", "drop")


class PlanOracleExtractor:
    """Keyed facts from the plan events the turns were rendered from (see module docstring)."""

    def __init__(self, events: dict[str, FactEvent], *, restates: bool = True) -> None:
        self.events = events
        self.restates = restates

    async def extract(
        self, entries: Sequence[TranscriptEntry], *, context: ExtractionContext
    ) -> ExtractionResult:
        memories: list[ExtractedMemory] = []
        for entry in entries:
            event = self.events.get(entry.user_message)
            if event is None or event.value is None:
                continue  # small talk, or a fact ended without a new value
            if event.kind == "restate" and not self.restates:
                continue  # the ``partial`` oracle: a value mentioned in passing is not keyed
            name = event.attribute.replace("_", " ")
            memories.append(
                ExtractedMemory(
                    f"The user's {name} is {event.value}.",
                    subject="user",
                    attribute=event.attribute,
                    value=event.value,
                )
            )
        return ExtractionResult(memories=tuple(memories))


def _events(settings: EvalSettings) -> dict[str, FactEvent]:
    out: dict[str, FactEvent] = {}
    _, conversations, _ = materialise(
        settings.horizon,
        personas=settings.personas,
        days=settings.days,
        seed=settings.seed,
        delay_days=settings.delay_days,
    )
    for turns in conversations:
        for turn in turns:
            if turn.event is not None:
                out.setdefault(turn.text, turn.event)
    return out


def _variant(
    setting: EarlierValues,
    extractor: str,
    events: dict[str, FactEvent],
    budget: int | None,
) -> Variant:
    base = CompanionConfig() if budget is None else equal_budget_config(Full, budget)
    config = dataclasses.replace(base, earlier_values=setting)
    name = f"{extractor}-{setting}"

    def build(runtime: Runtime, brain: Brain) -> EvalCompanion:
        chosen: Extractor
        if extractor == "rule":
            chosen = RuleExtractor()
        else:
            chosen = PlanOracleExtractor(events, restates=extractor != "partial")
        return Full(
            brain,
            runtime,
            config=config,
            extractor=chosen,
            consolidator=MemoryConsolidator(runtime.controller, clock=runtime.clock),
            name=name,
        )

    return Variant(name, build, f"full, {extractor} extractor, {setting}")


async def main(out: Path, horizon: str, only: list[str] | None) -> None:
    if horizon == "year":
        settings = EvalSettings(
            personas=2,
            days=120,
            seed=SEED,
            delay_days=DELAY_DAYS,
            resamples=RESAMPLES,
            horizon="year",
            budget=1000,
        )
    else:
        settings = EvalSettings(
            personas=QUICK_PERSONAS,
            days=QUICK_DAYS,
            seed=SEED,
            delay_days=DELAY_DAYS,
            resamples=RESAMPLES,
        )
    events = _events(settings)
    budget = settings.budget
    variants = [
        _variant(s, x, events, budget) for x in ("rule", "oracle", "partial") for s in SETTINGS
    ]
    if only is not None:
        variants = [v for v in variants if v.name in only]
    factory: Callable[[], Brain] = offline_brain
    run = await run_eval(settings, variants, out=out, brain_factory=factory)
    summary = summarise(run)
    write_report(run, summary)
    print(format_table(run, summary))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="a new run directory")
    parser.add_argument("--horizon", choices=("weeks", "year"), default="weeks")
    parser.add_argument("--only", help="comma-separated variant names (default: all nine)")
    args = parser.parse_args()
    picked = [n.strip() for n in args.only.split(",")] if args.only else None
    asyncio.run(main(args.out, args.horizon, picked))
