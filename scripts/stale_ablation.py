"""Ablation of recall's ranking stages in the persona harness (stale-only and current-fact recall).

    PYTHONPATH=python python scripts/stale_ablation.py --out /tmp/stale-ablation
    PYTHONPATH=python python scripts/stale_ablation.py --horizon year --out /tmp/y --only full

Runs ``remem eval --quick``'s settings (or ``--horizon year --quick``'s, at its equal 1,000-token
budget) on the ``full`` companion once per row, each with one change to the controller's
:class:`~remem.controller.stages.RecallStagesConfig` (or its usage weight), all in one run so
the rows are comparable:

* ``full`` — the defaults;
* ``-<stage>`` — that stage switched off (``RecallStagesConfig.without``); ``-usage`` — the
  usage prior's weight 0; ``-all`` — every stage and usage off;
* ``recency=1`` — the old unbounded ``exp`` recency (for reference only: issue #14 forbids it);
* the parts of the retrieval work that are not stages: ``fusion=rrf`` (equal-weight RRF instead
  of the fitted linear fusion), ``stemming=none``, ``stopwords=classic`` (question words kept),
  and ``before`` — all of those, every stage off and recency unbounded: recall as it was before
  the retrieval stages were merged.

Deterministic: plans, rendering and bootstrap are seeded; no model is called. Prints the
harness table (context recall, current-fact recall, stale-only, tokens) for every row.

Measured on the weeks quick run (commit ad6723d, offline defaults, rule extractor; 42
stale-scored questions, so one question asked twice is 4.8 points):

=================== ======== ============ ========== ======
row                 recall   current-fact stale-only tokens
=================== ======== ============ ========== ======
full                74.1     65.0         9.5        910
-<any one stage>    74.1     65.0         9.5        903-911
-usage, -all        74.1     65.0         9.5        904-911
recency=1           74.1     65.0         9.5        916
fusion=rrf          72.9     63.3         14.3       895
stemming=none       74.1     65.0         **4.8**    908
stopwords=classic   74.1     65.0         9.5        910
before              72.9     63.3         4.8        904
=================== ======== ============ ========== ======

No stage moves stale-only; stemming alone does, on one question: "Where do I work these
days?" — Snowball makes "days" match "Long day at Copperleaf Games again" (the old employer),
while the new one ("Handed in my badge at Copperleaf Games. Monday I start at Kestrel Labs!")
shares no word with the question. Current-fact recall is a miss with and without stemming; the
stem only makes the old value visible. The rule extractor keys neither turn, so nothing is
superseded and nothing can mark the old statement: the fix is the change being extracted, and
then every statement naming the old value being marked or dropped (``FactTimeline.
earlier_in_text``), not a stronger recency.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
from pathlib import Path

from remem.companion import offline_brain
from remem.controller.config import ControllerConfig, FusionConfig
from remem.controller.stages import STAGE_NAMES, RecallStagesConfig
from remem.eval.persona.harness import EvalSettings, run_eval
from remem.eval.persona.protocol import Variant
from remem.eval.persona.report import format_table, write_report
from remem.eval.persona.summary import summarise
from remem.eval.persona.variants import resolve_variants
from remem.lifecycle import InclusionScorerConfig
from remem.runtime_config import RuntimeConfig
from remem.stores.shared.search_text import STOPWORDS, FullTextConfig

WEEKS = EvalSettings(personas=4, days=21, seed=0, delay_days=10, resamples=1000)
YEAR = EvalSettings(
    personas=2, days=120, seed=0, delay_days=10, resamples=1000, horizon="year", budget=1000
)


def rows() -> dict[str, RuntimeConfig]:
    """Every ablation row's runtime config, by row name (see the module docstring)."""
    out = {name: RuntimeConfig(controller=c) for name, c in _controller_rows().items()}
    rrf = FusionConfig(method="rrf")
    out["fusion=rrf"] = RuntimeConfig(controller=ControllerConfig(fusion=rrf))
    out["stemming=none"] = RuntimeConfig(full_text=FullTextConfig(language=None))
    out["stopwords=classic"] = RuntimeConfig(full_text=FullTextConfig(stopwords=STOPWORDS))
    old = _controller_rows()["-all"]
    old = dataclasses.replace(
        old,
        fusion=rrf,
        inclusion=InclusionScorerConfig(),
        stages=dataclasses.replace(
            old.stages, recency=dataclasses.replace(old.stages.recency, weight=1.0)
        ),
    )
    out["before"] = RuntimeConfig(
        controller=old, full_text=FullTextConfig(language=None, stopwords=STOPWORDS)
    )
    return out


def _controller_rows() -> dict[str, ControllerConfig]:
    base = ControllerConfig()
    out = {"full": base}
    for name in STAGE_NAMES:
        out[f"-{name}"] = dataclasses.replace(base, stages=base.stages.without(name))
    no_usage = InclusionScorerConfig(hit_weight=0.0)
    out["-usage"] = dataclasses.replace(base, inclusion=no_usage)
    out["-all"] = dataclasses.replace(
        base, inclusion=no_usage, stages=RecallStagesConfig().without(*STAGE_NAMES)
    )
    unbounded = dataclasses.replace(base.stages.recency, weight=1.0)
    out["recency=1"] = dataclasses.replace(
        base, stages=dataclasses.replace(base.stages, recency=unbounded)
    )
    return out


async def main(out: Path, horizon: str, only: list[str] | None) -> None:
    settings = YEAR if horizon == "year" else WEEKS
    [full] = resolve_variants(["full"], budget=settings.budget)
    variants = [
        Variant(name, full.build, f"full, {name}", runtime=config)
        for name, config in rows().items()
        if only is None or name in only
    ]
    run = await run_eval(settings, variants, out=out, brain_factory=offline_brain)
    summary = summarise(run)
    write_report(run, summary)
    print(format_table(run, summary))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="a new run directory")
    parser.add_argument("--horizon", choices=("weeks", "year"), default="weeks")
    parser.add_argument("--only", help="comma-separated row names (default: every row)")
    args = parser.parse_args()
    picked = [n.strip() for n in args.only.split(",")] if args.only else None
    asyncio.run(main(args.out, args.horizon, picked))
