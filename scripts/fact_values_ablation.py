"""Ablation of ``CompanionConfig.earlier_values`` ("off" / "mark" / "drop") in the persona harness.

    PYTHONPATH=python python scripts/fact_values_ablation.py --out /tmp/fv-ablation

Runs ``remem eval --quick``'s settings (4 personas x 21 days, seed 0, +10-day delayed quiz) on
the ``full`` companion with each setting, twice:

* ``rule`` — the offline :class:`~remem.extraction.RuleExtractor`, as ``remem eval`` runs it;
* ``oracle`` — an extractor that reads each turn's fact straight from the persona plan (the
  ground truth the turn was rendered from). It isolates the prompt stage from extraction: what
  ordering values does once the facts *are* extracted and superseded (the rule extractor of
  today finds almost no changes, so there the three settings cannot differ).

Deterministic: plans, rendering and bootstrap are seeded; no model is called. Prints the
harness table (context recall, stale-only, per category, tokens) for all six variants.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Callable, Sequence
from pathlib import Path

from remem.brains import Brain
from remem.companion import CompanionConfig, Full, offline_brain
from remem.consolidation import MemoryConsolidator
from remem.controller import (
    ExtractedMemory,
    ExtractionContext,
    ExtractionResult,
)
from remem.eval.persona.harness import run_eval
from remem.eval.persona.plan import FactEvent, generate_plans
from remem.eval.persona.protocol import EvalCompanion, Variant
from remem.eval.persona.render import render_plan
from remem.eval.persona.report import format_table, write_report
from remem.eval.persona.summary import summarise
from remem.extraction import RuleExtractor
from remem.models import TranscriptEntry
from remem.runtime import Runtime

QUICK_PERSONAS, QUICK_DAYS, SEED, DELAY_DAYS, RESAMPLES = 4, 21, 0, 10, 1000
SETTINGS = ("off", "mark", "drop")


class PlanOracleExtractor:
    """Keyed facts from the plan events the turns were rendered from (see module docstring)."""

    def __init__(self, events: dict[str, FactEvent]) -> None:
        self.events = events

    async def extract(
        self, entries: Sequence[TranscriptEntry], *, context: ExtractionContext
    ) -> ExtractionResult:
        memories: list[ExtractedMemory] = []
        for entry in entries:
            event = self.events.get(entry.user_message)
            if event is None or event.value is None:
                continue  # small talk, or a fact ended without a new value
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


def _events() -> dict[str, FactEvent]:
    out: dict[str, FactEvent] = {}
    for plan in generate_plans(QUICK_PERSONAS, seed=SEED, days=QUICK_DAYS):
        for turn in render_plan(plan, seed=SEED):
            if turn.event is not None:
                out.setdefault(turn.text, turn.event)
    return out


def _variant(setting: str, extractor: str, events: dict[str, FactEvent]) -> Variant:
    def build(runtime: Runtime, brain: Brain) -> EvalCompanion:
        chosen = RuleExtractor() if extractor == "rule" else PlanOracleExtractor(events)
        return Full(
            brain,
            runtime,
            config=CompanionConfig(earlier_values=setting),  # type: ignore[arg-type]
            extractor=chosen,
            consolidator=MemoryConsolidator(runtime.controller, clock=runtime.clock),
            name=f"{extractor}-{setting}",
        )

    return Variant(f"{extractor}-{setting}", build, f"full, {extractor} extractor, {setting}")


async def main(out: Path) -> None:
    from remem.eval.persona.harness import EvalSettings

    events = _events()
    variants = [_variant(s, x, events) for x in ("rule", "oracle") for s in SETTINGS]
    settings = EvalSettings(
        personas=QUICK_PERSONAS,
        days=QUICK_DAYS,
        seed=SEED,
        delay_days=DELAY_DAYS,
        resamples=RESAMPLES,
    )
    factory: Callable[[], Brain] = offline_brain
    run = await run_eval(settings, variants, out=out, brain_factory=factory)
    summary = summarise(run)
    write_report(run, summary)
    print(format_table(run, summary))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="a new run directory")
    asyncio.run(main(parser.parse_args().out))
