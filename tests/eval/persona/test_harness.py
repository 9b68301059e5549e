"""The harness on real stores (the raw-recall baseline), judged and LLM-free, and the report."""

from __future__ import annotations

import json
from pathlib import Path

from remem.brains import ScriptedBrain
from remem.controller.config import ControllerConfig
from remem.controller.stages import RecallStagesConfig
from remem.eval.persona.baseline import RawRecallBaseline
from remem.eval.persona.harness import EvalSettings, run_eval
from remem.eval.persona.judges import JudgeEnsemble
from remem.eval.persona.protocol import Variant
from remem.eval.persona.report import format_table, write_report
from remem.eval.persona.summary import summarise
from remem.runtime import Runtime
from remem.runtime_config import RuntimeConfig

PNG = b"\x89PNG\r\n\x1a\n"
TINY = EvalSettings(personas=1, days=6, seed=2, delay_days=10, resamples=200)


def _variants() -> list[Variant]:
    return [
        Variant("raw-8", lambda rt, brain: RawRecallBaseline(rt, k=8, name="raw-8")),
        Variant("raw-1", lambda rt, brain: RawRecallBaseline(rt, k=1, name="raw-1")),
    ]


async def test_llm_free_run_writes_a_complete_report(tmp_path: Path) -> None:
    run = await run_eval(
        TINY, _variants(), out=tmp_path, brain_factory=lambda: ScriptedBrain(default="ok")
    )
    assert [v.name for v in run.variants] == ["raw-8", "raw-1"]
    wide, narrow = run.variants
    assert wide.turns == narrow.turns > 0
    assert wide.errors == []
    assert [r.question.id for r in wide.rows] == [r.question.id for r in narrow.rows]
    assert all(r.passed is None for r in wide.rows)
    # Recalling 8 memories finds at least what recalling 1 finds.
    assert sum(bool(r.recall) for r in wide.rows) >= sum(bool(r.recall) for r in narrow.rows)
    assert (tmp_path / "raw-8" / run.plans[0].persona_id / "memory.duckdb").exists()

    summary = summarise(run)
    assert [d.metric for d in summary.deltas] == ["recall", "current_fact", "stale_only"]
    paths = write_report(run, summary)
    names = {p.name for p in paths}
    assert {"results.json", "report.md", "forgetting_curve.png", "categories.png"} <= names
    assert "deltas.png" in names
    for path in paths:
        if path.suffix == ".png":
            assert path.read_bytes()[:8] == PNG
    data = json.loads((tmp_path / "results.json").read_text())
    assert data["settings"]["personas"] == 1
    rows = data["variants"][0]["rows"]
    assert len(rows) == len(wide.rows)
    recalled = [r["recall"] for r in rows if r["recall"] is not None]
    assert data["variants"][0]["recall"]["mean"] == sum(recalled) / len(recalled)
    table = format_table(run, summary)
    assert "raw-8" in table
    assert "Deltas vs raw-8" in table
    assert "forgetting_curve.png" in (tmp_path / "report.md").read_text()


async def test_judged_run_records_verdicts_and_disagreement(tmp_path: Path) -> None:
    yes = '{"correct": true, "embellished": false, "reason": "ok"}'
    no = '{"correct": false, "embellished": false, "reason": "wrong"}'
    a = ScriptedBrain(default=yes, model="a")
    b = ScriptedBrain(
        rules=[(lambda r: "unanswerable" in r.messages[-1].content, no)], default=yes, model="b"
    )
    tiebreak = ScriptedBrain(default=no, model="t")
    judges = JudgeEnsemble([a, b], tiebreak=tiebreak)
    run = await run_eval(
        TINY,
        _variants()[:1],
        out=tmp_path,
        brain_factory=lambda: ScriptedBrain(default="ok"),
        judges=judges,
    )
    rows = run.variants[0].rows
    assert all(r.answer is not None and r.passed is not None for r in rows)
    disputed = [r for r in rows if r.question.category == "unanswerable"]
    assert disputed
    assert all(r.escalated and not r.passed for r in disputed)
    assert run.disagreement_rate == len(disputed) / len(rows)
    assert len(tiebreak.requests) == len(disputed)
    table = format_table(run, summarise(run))
    assert "judged pass %" in table
    assert "Judge disagreement rate" in table


async def test_a_variant_runs_on_its_own_runtime_config(tmp_path: Path) -> None:
    seen: list[RecallStagesConfig] = []

    def build(rt: Runtime, brain: object) -> RawRecallBaseline:
        seen.append(rt.controller.config.stages)
        return RawRecallBaseline(rt, k=4, name="raw-no-recency")

    stages = RecallStagesConfig().without("recency", "speaker")
    config = RuntimeConfig(controller=ControllerConfig(stages=stages))
    variant = Variant("raw-no-recency", build, runtime=config)
    run = await run_eval(
        TINY, [variant], out=tmp_path, brain_factory=lambda: ScriptedBrain(default="ok")
    )
    assert seen == [stages]
    assert run.variants[0].rows
    # The runtime still lives where the harness puts it, not at the config's path.
    assert (tmp_path / "raw-no-recency" / run.plans[0].persona_id / "memory.duckdb").exists()
