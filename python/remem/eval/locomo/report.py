"""The report of a LoCoMo run: ``results.json``, ``report.md``, PNG plots and the terminal table.

Files written into the run directory by :func:`write_report`:

* ``results.json`` — :meth:`LocomoRun.as_dict` (config, counts, evidence issues, overall and
  per-category metrics, tokens, latency);
* ``report.md`` — the same as tables, with the evidence issues and how to read the metrics;
* ``recall_by_category.png`` — grouped bars: evidence recall@k per category (and overall);
* ``recall_at_k.png`` — overall recall@k and all-evidence@k against k.

Plots need matplotlib (``pip install 'remem[eval]'``); without it the plots are skipped and
listed under ``"plots_skipped"`` in the return value — the numbers never depend on them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from remem.errors import ConfigError
from remem.eval.locomo.format import CATEGORY_NAMES
from remem.eval.locomo.metrics import NDCG_K
from remem.eval.locomo.run import LocomoRun

__all__ = ["format_table", "write_report"]


def _label(category: str) -> str:
    name = CATEGORY_NAMES.get(category)
    return f"{category} {name}" if name else category


def _columns(ks: tuple[int, ...]) -> list[tuple[str, str]]:
    cols = [(f"R@{k}", f"recall@{k}") for k in ks]
    cols += [(f"All@{k}", f"all@{k}") for k in ks if k >= 5]
    cols += [("MRR", "mrr"), (f"nDCG@{NDCG_K}", f"ndcg@{NDCG_K}")]
    return cols


def _rows(run: LocomoRun) -> list[tuple[str, dict[str, Any]]]:
    rows = [(_label(c), g) for c, g in run.summary["per_category"].items()]
    return [*rows, ("overall", run.summary["overall"])]


def format_table(run: LocomoRun) -> str:
    """The final table printed on stdout: one row per category and one overall."""
    ks = run.config.ks
    cols = _columns(ks)
    top = max(ks)
    header = ["category", "n", *[c for c, _ in cols], f"tok@{top}", "ms p50"]
    lines = []
    for label, g in _rows(run):
        cells = [label, str(g["n"])]
        cells += [f"{g[key]:.3f}" if key in g else "-" for _, key in cols]
        cells.append(f"{g.get(f'tokens@{top}', 0.0):.0f}")
        cells.append(f"{g['latency_ms_p50']:.1f}" if "latency_ms_p50" in g else "-")
        lines.append(cells)
    widths = [max(len(r[i]) for r in [header, *lines]) for i in range(len(header))]

    def fmt(cells: list[str]) -> str:
        first = cells[0].ljust(widths[0])
        return "  ".join([first, *(c.rjust(w) for c, w in zip(cells[1:], widths[1:], strict=True))])

    rule = "-" * len(fmt(header))
    return "\n".join([fmt(header), rule, *(fmt(r) for r in lines[:-1]), rule, fmt(lines[-1])])


def _markdown(run: LocomoRun) -> str:
    ks = run.config.ks
    cols = _columns(ks)
    top = max(ks)
    doc = run.as_dict()
    out = [
        "# LoCoMo retrieval benchmark",
        "",
        f"- data: `{doc['data']}` — {run.conversations} conversations, {run.turns} turns indexed,"
        f" {run.memories} memories, {doc['overall']['questions']} questions"
        f" ({doc['overall']['n']} with evidence, scored)",
        f"- embedder: `{run.embedder}`; index: `{run.config.index}`; recall depth"
        f" {run.config.depth}; recency rate {run.config.recency_rate}/h; usage weight"
        f" {run.config.usage_weight}",
        f"- ingest {run.ingest_seconds:.1f} s; queries {run.query_seconds:.1f} s",
        "",
        "## Evidence retrieval",
        "",
        "| category | n | "
        + " | ".join(c for c, _ in cols)
        + f" | tokens@{top} | ms p50 | ms p95 |",
        "|---|---:|" + "---:|" * (len(cols) + 3),
    ]
    for label, g in _rows(run):
        cells = [f"{g[key]:.3f}" if key in g else "–" for _, key in cols]
        lat = [f"{g[k]:.1f}" if k in g else "–" for k in ("latency_ms_p50", "latency_ms_p95")]
        out.append(
            f"| {label} | {g['n']} | "
            + " | ".join(cells)
            + f" | {g.get(f'tokens@{top}', 0.0):.0f} | {lat[0]} | {lat[1]} |"
        )
    issues = run.issues
    out += [
        "",
        "## Malformed evidence (counted, not fatal)",
        "",
        f"- evidence strings: {issues.strings}",
        f"- strings holding several ids (split): {issues.split_strings}",
        f"- strings holding no id: {issues.unparseable}",
        f"- ids naming no turn (dropped): {issues.unknown_ids}",
        f"- repeated dia_ids among turns: {issues.duplicate_dia_ids}",
        f"- questions left without evidence (not scored): {issues.questions_without_evidence}",
    ]
    out += [f"  - {e}" for e in issues.examples[:10]]
    out += [
        "",
        "## Reading the numbers",
        "",
        "R@k: share of a question's evidence turns among the first k distinct retrieved turns;"
        " All@k: share of questions with all their evidence in the first k; MRR: mean 1/rank of"
        f" the first evidence turn; nDCG@{NDCG_K}: binary-gain nDCG. tokens@{top}: o200k_base"
        f" tokens of the first {top} retrieved turns' stored texts. Latency: one recall call.",
        "",
        "![recall by category](recall_by_category.png)",
        "",
        "![recall at k](recall_at_k.png)",
        "",
    ]
    return "\n".join(out)


def _plots(run: LocomoRun, out: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ks = run.config.ks
    rows = [(label, g) for label, g in _rows(run) if g["n"]]  # unscored categories: no bars
    written: list[Path] = []
    fig, ax = plt.subplots(figsize=(max(6.5, 1.3 * len(rows) + 1.5), 4.0))
    width = 0.8 / len(ks)
    for j, k in enumerate(ks):
        xs = [i + (j - (len(ks) - 1) / 2) * width for i in range(len(rows))]
        ax.bar(xs, [g.get(f"recall@{k}", 0.0) for _, g in rows], width, label=f"recall@{k}")
    ax.set_xticks(range(len(rows)), [label for label, _ in rows], rotation=20, ha="right")
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("evidence recall")
    ax.set_title(f"LoCoMo evidence recall by category ({run.embedder})")
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    path = out / "recall_by_category.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    written.append(path)

    overall = run.summary["overall"]
    fig, ax = plt.subplots(figsize=(5.0, 3.6))
    ax.plot(ks, [overall.get(f"recall@{k}", 0.0) for k in ks], marker="o", label="recall@k")
    ax.plot(ks, [overall.get(f"all@{k}", 0.0) for k in ks], marker="s", label="all-evidence@k")
    ax.set_xlabel("k")
    ax.set_ylim(0, 1.05)
    ax.set_title("LoCoMo overall")
    ax.legend(fontsize="small")
    fig.tight_layout()
    path = out / "recall_at_k.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    written.append(path)
    return written


def write_report(run: LocomoRun, out: str | Path | None = None) -> dict[str, Any]:
    """Write the run directory's files; returns ``{"files": [...], "plots_skipped": reason?}``."""
    target = Path(out) if out is not None else run.config.out
    try:
        target.mkdir(parents=True, exist_ok=True)
        results = target / "results.json"
        results.write_text(json.dumps(run.as_dict(), indent=2) + "\n", encoding="utf-8")
        report = target / "report.md"
        report.write_text(_markdown(run), encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot write the report into {target}: {exc}") from exc
    written: dict[str, Any] = {"files": [results, report]}
    try:
        written["files"] += _plots(run, target)
    except ImportError as exc:
        written["plots_skipped"] = f"matplotlib is not installed ({exc}); pip install 'remem[eval]'"
    return written
