"""Run the benchmarks and print one table of ratios against each group's baseline.

    python -m benches.report                      # every bench file
    python -m benches.report benches/bench_topk.py -k "100k"

Each benchmark group ("<hot path> <size>") has one baseline: the first of BASELINES present in it
(numpy for kernels, exact for token estimation, naive for stores). The table shows, per
implementation, its median time as a multiple of the baseline's (below 1.0 is faster) and
whether its result matched the trusted result (``extra_info["correct"]``). Absolute times are
printed too but only the ratios are comparable across machines.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

BASELINES = ("numpy", "exact", "naive", "reference")


def _impl(bench: dict[str, Any]) -> str:
    params = bench.get("params") or {}
    for key in ("impl", "variant", "backend"):
        if key in params:
            return str(params[key])
    name = str(bench["name"])
    return name[name.index("[") + 1 : name.rindex("]")] if "[" in name else name


def _fmt_time(seconds: float) -> str:
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


def render(data: dict[str, Any]) -> str:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for bench in data["benchmarks"]:
        groups[str(bench.get("group") or bench["name"])].append(bench)
    lines = [
        "| group | impl | median | × baseline time | correct |",
        "|---|---|---|---|---|",
    ]
    for group in sorted(groups):
        rows = groups[group]
        medians = {_impl(b): float(b["stats"]["median"]) for b in rows}
        baseline = next((name for name in BASELINES if name in medians), None)
        for bench in sorted(rows, key=lambda b: float(b["stats"]["median"])):
            name = _impl(bench)
            median = medians[name]
            if baseline is None:
                ratio = "—"
            elif name == baseline:
                ratio = f"1 ({baseline})"
            else:
                ratio = f"{median / medians[baseline]:.3g}×"
            correct = (bench.get("extra_info") or {}).get("correct")
            mark = "—" if correct is None else ("yes" if correct else "**NO**")
            lines.append(f"| {group} | {name} | {_fmt_time(median)} | {ratio} | {mark} |")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "bench.json"
        targets = [a for a in argv if not a.startswith("-")] or ["benches"]
        flags = [a for a in argv if a.startswith("-")]
        cmd = [
            sys.executable,
            "-m",
            "pytest",
            *targets,
            *flags,
            "-q",
            "--benchmark-only",
            f"--benchmark-json={out}",
        ]
        proc = subprocess.run(cmd, check=False)
        if not out.exists():
            return proc.returncode or 1
        print(render(json.loads(out.read_text())))
        return proc.returncode


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
