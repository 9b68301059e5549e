"""``remem eval``: the persona time-lapse harness (see :mod:`remem.eval.persona`).

    remem eval --quick                      # ~1 minute, offline, embedded stores
    remem eval --horizon year               # 3 personas x 365 days at an equal 1,000-token budget
    remem eval --horizon year --quick       # 2 personas x 120 days (the benchmark's size)
    remem eval --set handwritten            # the hand-written personas, equal 1,000-token budget
    remem eval --set handwritten --quick    # the same personas, fewer variants
    remem eval --personas 10 --variants full,blocks-only --judge openai:gpt-4o-mini \\
        --judge anthropic:claude-haiku-4-5 --tiebreak anthropic:claude-sonnet-4-5
    remem eval --quick --variants full,full@rerank.toml   # the defaults against a config file

Progress bars go to stderr, the final table to stdout; the run directory (``--out``, default
``./remem-eval/<UTC timestamp>``) gets results.json, report.md and PNG plots.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from remem.brains import Brain
from remem.companion import offline_brain
from remem.errors import ConfigError, RememError
from remem.eval.persona.brains import brain_from_spec
from remem.eval.persona.harness import PERSONA_SETS, EvalSettings, run_eval
from remem.eval.persona.horizon import HORIZONS
from remem.eval.persona.judges import JudgeEnsemble
from remem.eval.persona.render import BrainRenderer
from remem.eval.persona.report import format_table, write_report
from remem.eval.persona.summary import summarise
from remem.eval.persona.variants import DEFAULT_VARIANTS, QUICK_VARIANTS, resolve_variants

__all__ = ["HANDWRITTEN", "QUICK", "YEAR", "YEAR_QUICK", "add_parser", "run"]

QUICK = EvalSettings(personas=4, days=21, seed=0, delay_days=10, resamples=1000)
"""``--quick``: sized to finish in about a minute on two cores, offline."""
FULL = EvalSettings(personas=8, days=28, seed=0, delay_days=10, resamples=2000)
YEAR = EvalSettings(
    personas=3, days=365, seed=0, delay_days=10, resamples=2000, horizon="year", budget=1000
)
"""``--horizon year``: histories ~26x the equal 1,000-token prompt budget of every variant."""
YEAR_QUICK = EvalSettings(
    personas=2, days=120, seed=0, delay_days=10, resamples=1000, horizon="year", budget=1000
)
"""``--horizon year --quick``: histories ~8x the budget, a few minutes."""
HANDWRITTEN = EvalSettings(
    personas=1000, seed=0, resamples=2000, budget=1000, persona_set="handwritten"
)
"""``--set handwritten``: every hand-written persona (``--personas`` takes the first N), every
variant at the equal 1,000-token prompt budget of issue #15's targets."""
HANDWRITTEN_QUICK_VARIANTS: tuple[str, ...] = ("full", "raw-recall", "whole-history")
_BASES = {
    ("weeks", False): FULL,
    ("weeks", True): QUICK,
    ("year", False): YEAR,
    ("year", True): YEAR_QUICK,
}
"""(horizon, --quick) -> the settings the other options override."""


def add_parser(sub: Any) -> None:
    p = sub.add_parser("eval", help="the persona time-lapse memory evaluation")
    p.add_argument("--quick", action="store_true", help="small offline run (about a minute)")
    p.add_argument(
        "--set",
        dest="persona_set",
        choices=PERSONA_SETS,
        default="generated",
        help="generated: personas rendered from templates; handwritten: the hand-written "
        "personas and questions (sets/handwritten), at an equal 1,000-token budget",
    )
    p.add_argument(
        "--horizon",
        choices=HORIZONS,
        default="weeks",
        help="weeks: a few weeks of talk; year: a year of daily small talk, facts said once "
        "months before, every variant at an equal prompt budget",
    )
    p.add_argument(
        "--budget",
        type=int,
        help="equal prompt budget in tokens for every variant (year default: 1000)",
    )
    p.add_argument("--personas", type=int, help="number of personas")
    p.add_argument("--days", type=int, help="simulated days per persona")
    p.add_argument("--seed", type=int, help="seed of plans, rendering and bootstrap")
    p.add_argument("--delay-days", type=int, help="days before the delayed quiz")
    p.add_argument("--resamples", type=int, help="bootstrap resamples")
    p.add_argument(
        "--variants",
        help="comma-separated variant names (first is the baseline); NAME@FILE.toml runs NAME "
        "with that remem config file (e.g. full,full@rerank.toml)",
    )
    p.add_argument(
        "--config",
        help="remem TOML config for every variant without its own @FILE (recall stages, "
        "fusion, full text, lifecycle …; not path/backend/dsn)",
    )
    p.add_argument("--out", type=Path, help="run directory (must not exist or be empty)")
    p.add_argument("--brain", help="PROVIDER:MODEL the companion uses (default: offline)")
    p.add_argument(
        "--judge",
        action="append",
        default=[],
        help="PROVIDER:MODEL judge (give two; a third is the tiebreak)",
    )
    p.add_argument("--tiebreak", help="PROVIDER:MODEL that settles judge disagreements")
    p.add_argument(
        "--render-with-brain", action="store_true", help="write the conversations with --brain"
    )
    p.set_defaults(run=run)


def _settings(args: argparse.Namespace) -> EvalSettings:
    if args.persona_set == "handwritten":
        if args.horizon != "weeks" or args.days is not None or args.delay_days is not None:
            raise ConfigError(
                "the hand-written set has its own days; drop --horizon, --days and --delay-days"
            )
        base = HANDWRITTEN
    else:
        base = _BASES[(args.horizon, bool(args.quick))]
    return EvalSettings(
        persona_set=base.persona_set,
        horizon=base.horizon,
        budget=args.budget if args.budget is not None else base.budget,
        personas=args.personas if args.personas is not None else base.personas,
        days=args.days if args.days is not None else base.days,
        seed=args.seed if args.seed is not None else base.seed,
        delay_days=args.delay_days if args.delay_days is not None else base.delay_days,
        resamples=args.resamples if args.resamples is not None else base.resamples,
    )


def _out_dir(out: Path | None) -> Path:
    if out is None:
        return Path("remem-eval") / datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        # A reused directory would reopen old stores and mix two runs' memories.
        raise ConfigError(f"--out {out} exists and is not empty; choose a new directory")
    return out


def _brain_factory(spec: str | None) -> Callable[[], Brain]:
    if spec is None:
        return offline_brain
    brain_from_spec(spec)  # fail fast on a bad spec or a missing key
    return lambda: brain_from_spec(spec)


def run(args: argparse.Namespace) -> int:
    try:
        return asyncio.run(_run(args))
    except RememError as exc:
        print(f"remem eval: {exc}", file=sys.stderr)
        return 2


async def _run(args: argparse.Namespace) -> int:
    settings = _settings(args)
    if settings.persona_set == "handwritten":
        default = HANDWRITTEN_QUICK_VARIANTS if args.quick else QUICK_VARIANTS
    elif args.quick or settings.horizon == "year":
        default = QUICK_VARIANTS
    else:
        default = DEFAULT_VARIANTS
    names = [n.strip() for n in args.variants.split(",")] if args.variants else list(default)
    variants = resolve_variants([n for n in names if n], budget=settings.budget, config=args.config)
    if len(args.judge) > 3 or (len(args.judge) == 3 and args.tiebreak):
        raise ConfigError("give at most two --judge and one tiebreak")
    if args.render_with_brain and args.brain is None:
        raise ConfigError("--render-with-brain needs --brain PROVIDER:MODEL")
    out = _out_dir(args.out)
    factory = _brain_factory(args.brain)
    judges: JudgeEnsemble | None = None
    if args.judge:
        specs = list(args.judge)
        tiebreak = args.tiebreak or (specs.pop() if len(specs) == 3 else None)
        judges = JudgeEnsemble(
            [brain_from_spec(s) for s in specs],
            tiebreak=brain_from_spec(tiebreak) if tiebreak else None,
        )
    renderer = BrainRenderer(factory()) if args.render_with_brain else None
    try:
        result = await run_eval(
            settings, variants, out=out, brain_factory=factory, judges=judges, renderer=renderer
        )
    finally:
        if judges is not None:
            await judges.aclose()
    summary = summarise(result)
    write_report(result, summary)
    print(format_table(result, summary))
    return 0
