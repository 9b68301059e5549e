"""PNG plots of a run (matplotlib, Agg backend: no display needed).

- ``forgetting_curve.png`` — context recall by days since the fact was last stated, one line
  per variant, bootstrap intervals as error bars;
- ``categories.png`` — recall (and judged pass rate when judged) per question category;
- ``deltas.png`` — each variant minus the first, paired intervals (only with 2+ variants).

matplotlib is in the ``eval`` extra; :func:`write_plots` raises ConfigError without it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from remem.errors import ConfigError
from remem.eval.persona.quiz import CATEGORIES
from remem.eval.persona.stats import Interval
from remem.eval.persona.summary import Summary

__all__ = ["write_plots"]


def _pyplot() -> Any:
    try:
        import matplotlib
    except ImportError as exc:
        raise ConfigError(
            "plots need matplotlib; install the eval extra: pip install 'remem[eval]'"
        ) from exc
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _point(ci: Interval | None) -> tuple[float, float, float]:
    """(mean, lower error, upper error) in percent; NaN when there is no interval."""
    if ci is None:
        return (float("nan"), 0.0, 0.0)
    return (ci.mean * 100, (ci.mean - ci.low) * 100, (ci.high - ci.mean) * 100)


def write_plots(summary: Summary, out: Path) -> list[Path]:
    """Write the PNGs into ``out``; returns their paths."""
    plt = _pyplot()
    paths = [_curve(plt, summary, out / "forgetting_curve.png")]
    paths.append(_categories(plt, summary, out / "categories.png"))
    if summary.deltas:
        paths.append(_deltas(plt, summary, out / "deltas.png"))
    return paths


def _curve(plt: Any, summary: Summary, path: Path) -> Path:
    fig, ax = plt.subplots(figsize=(7, 4))
    for v in summary.variants:
        labels = [label for label, _ in v.curve]
        points = [_point(ci) for _, ci in v.curve]
        ax.errorbar(
            range(len(labels)),
            [p[0] for p in points],
            yerr=[[p[1] for p in points], [p[2] for p in points]],
            marker="o",
            capsize=3,
            label=v.name,
        )
        ax.set_xticks(range(len(labels)), labels)
    ax.set_xlabel("days since the fact was last stated")
    ax.set_ylabel("context recall (%)")
    ax.set_ylim(0, 105)
    ax.set_title("Forgetting curve")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _categories(plt: Any, summary: Summary, path: Path) -> Path:
    judged = any(v.passed is not None for v in summary.variants)
    panels = [("context recall (%)", "recall_by_category")]
    if judged:
        panels.append(("judged pass rate (%)", "pass_by_category"))
    fig, axes = plt.subplots(len(panels), 1, figsize=(8, 3.6 * len(panels)), squeeze=False)
    width = 0.8 / max(1, len(summary.variants))
    # Only the categories the run asked (the generated and hand-written sets ask different ones).
    asked = {c for v in summary.variants for c, i in v.recall_by_category.items() if i is not None}
    cats = [c for c in CATEGORIES if c in asked] or list(CATEGORIES)
    for ax, (ylabel, attr) in zip(axes[:, 0], panels, strict=True):
        for i, v in enumerate(summary.variants):
            points = [_point(getattr(v, attr)[c]) for c in cats]
            xs = [j + i * width for j in range(len(cats))]
            ax.bar(
                xs,
                [p[0] for p in points],
                width,
                yerr=[[p[1] for p in points], [p[2] for p in points]],
                capsize=2,
                label=v.name,
            )
        ax.set_xticks([j + width * (len(summary.variants) - 1) / 2 for j in range(len(cats))])
        ax.set_xticklabels([c.replace("_", " ") for c in cats])
        ax.set_ylabel(ylabel)
        ax.set_ylim(0, 105)
        ax.legend(fontsize=8)
    axes[0, 0].set_title("Per category")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _deltas(plt: Any, summary: Summary, path: Path) -> Path:
    labels = [f"{d.variant}: {d.metric}" for d in summary.deltas]
    points = [_point(d.interval) for d in summary.deltas]
    fig, ax = plt.subplots(figsize=(7, 0.5 * len(labels) + 1.5))
    ax.errorbar(
        [p[0] for p in points],
        range(len(labels)),
        xerr=[[p[1] for p in points], [p[2] for p in points]],
        fmt="o",
        capsize=3,
    )
    ax.axvline(0, color="grey", linewidth=1)
    ax.set_yticks(range(len(labels)), labels)
    ax.set_xlabel(f"difference vs {summary.deltas[0].baseline} (percentage points, paired 95% CI)")
    ax.set_title("Variant deltas")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
