"""What a run leaves behind: ``results.json``, ``report.md``, PNG plots, and the printed table.

``results.json`` holds the settings, every headline number with its interval, the deltas and
one row per question (question, category, expected and stale values, recall, stale-only,
tokens, latency, answer and verdict when judged), so any number can be recomputed.

    paths = write_report(run, summary)
    print(format_table(run, summary))
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from remem.eval.persona.harness import EvalRun
from remem.eval.persona.plots import write_plots
from remem.eval.persona.quiz import CATEGORIES
from remem.eval.persona.stats import Interval
from remem.eval.persona.summary import Summary, VariantSummary

__all__ = ["format_table", "results_dict", "write_report"]


def _ci(ci: Interval | None) -> dict[str, float | int] | None:
    return None if ci is None else ci.as_dict()


def _pct(ci: Interval | None) -> str:
    return "—" if ci is None else ci.format(100)


def results_dict(run: EvalRun, summary: Summary) -> dict[str, Any]:
    variants = []
    for v, s in zip(run.variants, summary.variants, strict=True):
        variants.append(
            {
                "name": v.name,
                "description": v.description,
                "turns": v.turns,
                "questions": s.questions,
                "recall": _ci(s.recall),
                "recall_immediate": _ci(s.recall_immediate),
                "recall_delayed": _ci(s.recall_delayed),
                "recall_current_fact": _ci(s.recall_current_fact),
                "stale_only": _ci(s.stale_only),
                "pass_rate": _ci(s.passed),
                "tokens_mean": s.tokens_mean,
                "tokens_max": s.tokens_max,
                "prompt_ms_p50_p95": list(s.prompt_ms),
                "turn_ms_p50_p95": list(s.turn_ms),
                "recall_by_category": {c: _ci(i) for c, i in s.recall_by_category.items()},
                "pass_by_category": {c: _ci(i) for c, i in s.pass_by_category.items()},
                "forgetting_curve": [{"age_days": a, "recall": _ci(i)} for a, i in s.curve],
                "background_errors": v.errors,
                "answer_errors": s.answer_errors,
                "rows": [_row(r) for r in v.rows],
            }
        )
    return {
        "settings": dataclasses.asdict(run.settings),
        "brain": run.brain,
        "rendered_by": run.rendered_by,
        "judges": run.judges,
        "judges_same_family": run.judges_same_family,
        "disagreement_rate": run.disagreement_rate,
        "elapsed_s": run.elapsed_s,
        "history_tokens": run.history_tokens,
        "history_to_budget": _ratios(run),
        "personas": [
            {"id": p.persona_id, "name": p.name, "events": len(p.events)} for p in run.plans
        ],
        "variants": variants,
        "deltas": [
            {"variant": d.variant, "baseline": d.baseline, "metric": d.metric}
            | d.interval.as_dict()
            for d in summary.deltas
        ],
    }


def _row(r: Any) -> dict[str, Any]:
    q = r.question
    return {
        "id": q.id,
        "persona": q.persona_id,
        "category": q.category,
        "attribute": q.attribute,
        "question": q.text,
        "answer_expected": q.answer,
        "evidence": list(q.evidence),
        "near": list(q.near),
        "stale": list(q.stale),
        "age_days": q.age_days,
        "delayed": q.delayed,
        "recall": r.recall,
        "stale_only": r.stale_only,
        "tokens": r.tokens,
        "latency_ms": round(r.latency_ms, 3),
        "answer": r.answer,
        "passed": r.passed,
        "escalated": r.escalated,
        "error": r.error,
    }


def write_report(run: EvalRun, summary: Summary) -> list[Path]:
    """Write results.json, report.md and the PNGs into ``run.out``; returns their paths."""
    run.out.mkdir(parents=True, exist_ok=True)
    results = run.out / "results.json"
    results.write_text(json.dumps(results_dict(run, summary), indent=2), encoding="utf-8")
    plots = write_plots(summary, run.out)
    report = run.out / "report.md"
    report.write_text(_markdown(run, summary, plots), encoding="utf-8")
    return [results, report, *plots]


def _ratios(run: EvalRun) -> list[float] | None:
    budget = run.settings.budget
    return None if budget is None else [round(t / budget, 2) for t in run.history_tokens]


def _header(run: EvalRun) -> str:
    s = run.settings
    if s.persona_set == "handwritten":
        days = [p.days for p in run.plans]
        questions = len(run.variants[0].rows) if run.variants else 0
        return (
            f"hand-written set, {len(run.plans)} personas x {min(days)}-{max(days)} days, "
            f"{questions} questions, brain {run.brain}, {run.elapsed_s:.1f} s"
        )
    horizon = "" if s.horizon == "weeks" else f"{s.horizon} horizon, "
    return (
        f"{horizon}{s.personas} personas x {s.days} days (+{s.delay_days}-day delayed quiz), "
        f"seed {s.seed}, brain {run.brain}, rendered by {run.rendered_by}, "
        f"{run.elapsed_s:.1f} s"
    )


def _budget_lines(run: EvalRun) -> list[str]:
    """How the prompt budget compares with the histories (the point of the year horizon)."""
    tokens = run.history_tokens
    if not tokens:
        return []
    sizes = f"{min(tokens):,}-{max(tokens):,}" if len(tokens) > 1 else f"{tokens[0]:,}"
    budget = run.settings.budget
    if budget is None:
        return [f"History per persona: {sizes} tokens; each variant uses its own budget."]
    ratios = _ratios(run) or []
    return [
        f"Equal prompt budget: {budget:,} tokens for every variant (the rendered prompt, exact "
        "o200k_base; 'max tok' is the largest used).",
        f"History per persona: {sizes} tokens = {min(ratios):.1f}-{max(ratios):.1f}x the budget.",
    ]


def format_table(run: EvalRun, summary: Summary) -> str:
    """The table ``remem eval`` prints: one line per variant, then deltas and categories."""
    judged = any(v.passed is not None for v in summary.variants)
    w = _name_width(summary.variants)
    head = f"{'variant':<{w}}{'recall %':<22}{'@+' + str(run.settings.delay_days) + 'd %':<22}"
    head += f"{'current-fact %':<22}{'stale-only %':<21}{'tokens':>7}{'max tok':>8}"
    head += f"{'prompt p50/p95 ms':>19}{'turn p50/p95 ms':>17}"
    if judged:
        head += f"  {'judged pass %':<22}"
    lines = [f"remem eval: {_header(run)}", *_budget_lines(run), "", head]
    for v in summary.variants:
        line = f"{v.name:<{w}}{_pct(v.recall):<22}{_pct(v.recall_delayed):<22}"
        line += f"{_pct(v.recall_current_fact):<22}"
        line += f"{_pct(v.stale_only):<21}{v.tokens_mean:>7.0f}{v.tokens_max:>8}"
        line += f"{_ms(v.prompt_ms):>19}{_ms(v.turn_ms):>17}"
        if judged:
            line += f"  {_pct(v.passed):<22}"
        lines.append(line)
    lines += ["", "Recall by category (%):", _category_table(summary.variants)]
    if summary.deltas:
        base = summary.deltas[0].baseline
        lines += ["", f"Deltas vs {base} (percentage points, paired 95% CI):"]
        for d in summary.deltas:
            lines.append(f"  {d.variant:<{w}}{d.metric:<14}{d.interval.format(100)}")
    if run.judges:
        rate = run.disagreement_rate
        lines += ["", f"Judges: {', '.join(run.judges)}"]
        lines.append(f"Judge disagreement rate: {'—' if rate is None else f'{rate:.1%}'}")
        if run.judges_same_family:
            lines.append("Warning: both judges are from the same provider; use two families.")
    errors = sum(v.errors + v.answer_errors for v in summary.variants)
    if errors:
        lines.append(f"\n{errors} background or answer errors: see results.json")
    lines += ["", f"Report: {run.out / 'report.md'}"]
    return "\n".join(lines)


def _name_width(variants: list[VariantSummary]) -> int:
    """The variant column's width: 14, or the longest name and a space (``full@rerank_on``)."""
    return max([14, *(len(v.name) + 1 for v in variants)])


def _ms(pair: tuple[float, float]) -> str:
    return f"{pair[0]:.1f}/{pair[1]:.1f}"


def _category_table(variants: list[VariantSummary]) -> str:
    cats = [c for c in CATEGORIES if c != "unanswerable"]
    present = {c for v in variants for c, i in v.recall_by_category.items() if i is not None}
    cats = [c for c in cats if c in present]
    w = _name_width(variants)
    rows = [f"  {'variant':<{w}}" + "".join(f"{c.replace('_', ' '):>14}" for c in cats)]
    for v in variants:
        cells = "".join(
            f"{'—' if (i := v.recall_by_category[c]) is None else f'{i.mean * 100:.1f}':>14}"
            for c in cats
        )
        rows.append(f"  {v.name:<{w}}{cells}")
    return "\n".join(rows)


def _markdown(run: EvalRun, summary: Summary, plots: list[Path]) -> str:
    parts = [
        "# remem eval: persona time-lapse",
        "",
        _header(run),
        "",
        "Context recall: the current ground-truth value appears in the prompt the companion "
        "would answer from. Current-fact: recall on the questions asking for a value as it is "
        "now (current, long-gap, corrected). Long-gap: a fact said once, at least 30 days "
        "before the question, never repeated. Stale-only: a superseded or misstated value "
        "appears without the current one. Intervals are 95% bootstrap intervals; deltas are "
        "paired by question.",
        "",
        "```",
        format_table(run, summary),
        "```",
        "",
    ]
    for v in summary.variants:
        if v.description:
            parts.append(f"- **{v.name}**: {v.description}")
    parts.append("")
    parts += [f"![{p.stem}]({p.name})" for p in plots]
    return "\n".join(parts) + "\n"
