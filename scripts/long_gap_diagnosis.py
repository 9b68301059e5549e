"""Why a persona run missed a question: extraction, recall, the cut or the prompt.

    remem eval --horizon year --quick --variants full --out /tmp/year
    PYTHONPATH=python python scripts/long_gap_diagnosis.py --run /tmp/year
    PYTHONPATH=python python scripts/long_gap_diagnosis.py --run /tmp/year --category current

A finished ``remem eval`` run keeps each persona's stores (``<run>/<variant>/<persona>``) and
``results.json`` (every question, its evidence and whether the prompt showed it). For each
missed question of ``--category`` (default ``long_gap``: said once, at least 30 days before)
this script copies the persona's stores (the run is never written to), rebuilds the quiz from
the run's settings (plans and quizzes are seeded, so the ask time is the run's), builds the
same prompt again and reports, for the evidence value:

* ``keyed`` — whether extraction made it a keyed fact (``controller.keyed_facts``), and which;
* ``stored`` — how many stored memories and turns say it (0: the statement itself is missing);
* ``vector`` / ``fulltext`` — its rank in each retriever alone (``recall(sources=[...])``,
  ``--depth`` deep; ``-`` when the retriever does not return it at all: below the embedder's
  similarity floor, or no shared word);
* ``fused`` — its rank in the default recall ``--depth`` deep; ``recalled`` whether it is in
  the companion's ``recall_k`` candidates; ``prompt`` whether the rebuilt prompt shows it;
* ``cause`` — the first stage that lost it: ``extraction+recall`` (never keyed, and no
  retriever returns a statement of it ``--depth`` deep), ``recall`` (keyed — possibly under a
  wrong key — but not returned either), ``ranking`` (in the deep fused list, ranked below the
  companion's ``recall_k`` candidates), ``prompt`` (among the candidates, dropped by the
  assembler under the budget), or ``scored`` (the rebuilt prompt shows it: run and rebuild
  differ).

Measured on ``remem eval --horizon year --quick --variants full`` (seed 0, 2 × 120 days; the
run's long gap 60%, 8 of 20 questions missed, four facts each asked twice): every miss is a fact
extraction never keyed, stated indirectly ("Ordered jollof rice again tonight, third time this
week" for a favourite food, "Mum rang from Cusco" for a hometown, "Dealing with a bad knee
means some mornings are slow" for a health condition). Two of the four (favourite food, both
personas) are found by the dense retriever alone (MiniLM ranks 22 and 36, cosine 0.24–0.28
against 0.40 for the best small talk) and ranked 68th and 111th after fusion — the minimum-
maximum scaling of a vector-only hit just above the 0.2 floor gives it 0.1 of the 0.5 weight,
below any full-text hit; the other two are returned by no retriever: no word in common with
the question and cosines 0.18 and 0.198, under MiniLM's short-term floor of 0.2 (a floor of
0.05 lets the knee in at fused rank 38, still not among the 32 candidates). None is lost by the
cut or the prompt: the budget is never what drops a long-gap fact that recall returned.
``--category current`` on the same run: 8 misses, 4 ``ranking`` (job titles at vector rank
5–9, fused 77–79), 2 ``recall`` on a wrong key ("Sore from chess yesterday" extracted as the
hometown of "Sore"), 2 ``extraction+recall`` (the new city is only ever said as its alias,
"NYC", never as the "New York" the quiz scores).

The ``ranking`` misses are not a weight away from being found: with the semantic ``vector``
weight doubled (0.5 → 1.0, everything else as shipped; an experiment, not shipped) the same run
gives recall 79.2 → 84.4%, current-fact 72.4 → 79.3%, stale-only 4.5 → 4.5%, but long gap stays
60%, and LoCoMo dev (categories 1–4, R@10 / MRR / All@10 / multi-hop) drops 80.9 / 60.5 / 74.9 /
50.0 → 78.6 / 56.8 / 72.8 / 48.0 (category 5 R@10 35.3 → 29.9) — the fitted 0.5 stays.

Deterministic for a run; no model is called. The evidence is matched as the scorer matches it
(case-folded substring of the text).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from remem.companion import Companion, offline_brain
from remem.eval.persona.harness import QUIZ_HOUR
from remem.eval.persona.horizon import materialise
from remem.eval.persona.variants import resolve_variants
from remem.models import ManualClock, ScoredMemory
from remem.runtime import Runtime


@dataclass(frozen=True)
class Finding:
    """What happened to one missed question's evidence (module docstring)."""

    qid: str
    question: str
    evidence: str
    keyed: str
    stored: int
    vector: int | None
    fulltext: int | None
    fused: int | None
    recalled: bool
    prompt: bool

    @property
    def cause(self) -> str:
        if self.prompt:
            return "scored"
        if self.recalled:
            return "prompt"
        if self.fused is not None:
            return "ranking"
        return "recall" if self.keyed else "extraction+recall"


def _rank(hits: Sequence[ScoredMemory], needle: str) -> int | None:
    return next((i for i, h in enumerate(hits) if needle in h.record.text.casefold()), None)


async def diagnose(run: Path, variant_name: str, category: str, depth: int) -> list[Finding]:
    results = json.loads((run / "results.json").read_text())
    s = results["settings"]
    if s.get("persona_set", "generated") != "generated":
        # The hand-written set's questions are read from its files, not rebuilt from a plan.
        raise SystemExit(f"{run} is a {s['persona_set']} run; this script rebuilds generated ones")
    plans, _, quizzes = materialise(
        s["horizon"], personas=s["personas"], days=s["days"], seed=s["seed"],
        delay_days=s["delay_days"],
    )  # fmt: skip
    asked = {q.id: (plan, q) for plan, quiz in zip(plans, quizzes, strict=True) for q in quiz}
    rows = next(v for v in results["variants"] if v["name"] == variant_name)["rows"]
    missed = [r for r in rows if r["category"] == category and not r["recall"]]
    variant = resolve_variants([variant_name], budget=s["budget"])[0]
    out: list[Finding] = []
    with tempfile.TemporaryDirectory(prefix="long-gap-") as tmp:
        for row in missed:
            plan, q = asked[row["id"]]
            copy = Path(tmp) / row["id"].replace(":", "_")
            shutil.copytree(run / variant_name / row["persona"], copy)
            at: datetime = plan.date_of(q.ask_day) + QUIZ_HOUR
            async with Runtime.open(copy, clock=ManualClock(at), config=variant.runtime) as rt:
                companion = variant.build(rt, offline_brain())
                if not isinstance(companion, Companion):
                    raise SystemExit(f"{variant_name} is a baseline, not a companion: no recall")
                try:
                    out.append(await _one(rt, companion, row, at, depth))
                finally:
                    await companion.aclose()
    return out


async def _one(
    rt: Runtime, companion: Companion, row: dict[str, Any], at: datetime, depth: int
) -> Finding:
    evidence = str(row["evidence"][0]).casefold()
    question = row["question"]
    controller = rt.controller
    facts = await controller.keyed_facts(include_superseded=True)
    keyed = [
        f"{f.metadata.get('subject')}/{f.metadata.get('attribute')}"
        for f in facts
        if evidence in str(f.metadata.get("value", "")).casefold()
    ]
    records = (await controller.settled()).records
    stored = sum(1 for r in await records.scan() if evidence in r.text.casefold())
    # The prompt first: a recall records accesses (the usage prior), so the probes come after.
    prompt = await companion.build_prompt(question, session_id="quiz", now=at)
    vector = await controller.recall(question, k=depth, sources=["vector"])
    fulltext = await controller.recall(question, k=depth, sources=["fulltext"])
    fused = await controller.recall(question, k=depth)
    return Finding(
        qid=row["id"],
        question=question,
        evidence=evidence,
        keyed=", ".join(sorted(set(keyed))),
        stored=stored,
        vector=_rank(vector, evidence),
        fulltext=_rank(fulltext, evidence),
        fused=_rank(fused, evidence),
        recalled=_rank(prompt.recalled, evidence) is not None,
        prompt=evidence in prompt.text.casefold(),
    )


def _cell(rank: int | None) -> str:
    return "-" if rank is None else str(rank + 1)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--run", type=Path, required=True, help="a finished remem eval run directory")
    p.add_argument("--variant", default="full", help="the variant to diagnose (default full)")
    p.add_argument("--category", default="long_gap", help="quiz category (default long_gap)")
    p.add_argument("--depth", type=int, default=200, help="recall depth of the rank columns")
    args = p.parse_args()
    findings = asyncio.run(diagnose(args.run, args.variant, args.category, args.depth))
    print(
        f"{'question':34} {'evidence':14} {'keyed':18} stored vector fulltext fused "
        "recalled prompt cause"
    )
    for f in findings:
        print(
            f"{f.qid:34} {f.evidence[:14]:14} {f.keyed[:18] or '-':18} {f.stored:6} "
            f"{_cell(f.vector):>6} {_cell(f.fulltext):>8} {_cell(f.fused):>5} "
            f"{'yes' if f.recalled else 'no':>8} {'yes' if f.prompt else 'no':>6} {f.cause}"
        )
    causes: dict[str, int] = {}
    for f in findings:
        causes[f.cause] = causes.get(f.cause, 0) + 1
    print(f"{len(findings)} missed: " + ", ".join(f"{c} {n}" for c, n in sorted(causes.items())))


if __name__ == "__main__":
    main()
