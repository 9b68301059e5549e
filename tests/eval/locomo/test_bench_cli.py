"""``remem bench locomo`` end to end on generated files: report files, rankings, and scores
that only a correct dia_id mapping can reach."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from remem.cli import main
from remem.eval.locomo import LocomoConfig, load_locomo, read_rankings, run_locomo
from remem.eval.locomo.ingest import IndexMode
from tests.eval.locomo.synth import write_dataset

SHAPE: dict[str, Any] = {"sessions": 4, "turns_per_session": 15, "facts": 8}


def test_bench_locomo_writes_the_report_and_finds_the_evidence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = write_dataset(tmp_path / "data", conversations=3, single_file=False, **SHAPE)
    out = tmp_path / "run"
    rankings = tmp_path / "rankings.jsonl"
    argv = ["bench", "locomo", "--data", str(data), "--out", str(out)]
    code = main([*argv, "--rankings", str(rankings), "--recency-rate", "0"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "overall" in captured.out
    assert "R@20" in captured.out
    assert "questions:" in captured.err  # progress went to stderr, not into the table

    results = json.loads((out / "results.json").read_text())
    assert results["conversations"] == 3
    assert results["turns"] == 3 * 60
    assert results["memories"] == 3 * 60
    overall = results["overall"]
    assert overall["n"] == results["overall"]["questions"] - 3  # adversarial: no evidence
    assert overall["recall@20"] >= 0.95
    # Single-hop questions repeat two invented words of their one evidence turn: first place.
    assert results["per_category"]["4"]["recall@1"] == 1.0
    assert overall["tokens@20"] > overall["tokens@1"] > 0
    assert overall["latency_ms_p50"] > 0
    assert results["evidence_issues"]["questions_without_evidence"] == 3

    report = (out / "report.md").read_text()
    assert "| overall |" in report
    assert "4 single-hop" in report
    for png in ("recall_by_category.png", "recall_at_k.png"):
        assert (out / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    ranked = read_rankings(rankings)
    conversations = load_locomo(data)
    questions = {q.qid: q for c in conversations for q in c.questions}
    assert ranked.keys() == questions.keys()
    for qid, ids in ranked.items():
        assert len(ids) == len(set(ids)) <= 20
        q = questions[qid]
        if q.category == "4":
            assert ids[0] == q.evidence[0], qid


def test_rerunning_into_the_same_directory_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = write_dataset(tmp_path / "data", conversations=1)
    argv = ["bench", "locomo", "--data", str(data), "--out", str(tmp_path / "run"), "--k", "5"]
    assert main(argv) == 0
    assert "R@5" in capsys.readouterr().out
    assert main(argv) == 1
    assert "already holds the memories" in capsys.readouterr().err


def test_bad_data_is_reported_not_raised(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["bench", "locomo", "--data", str(tmp_path / "none")]) == 1
    assert "does not exist" in capsys.readouterr().err


@pytest.mark.parametrize("index", ["turns", "memories"])
def test_each_retrieval_path_maps_its_results_to_the_right_turns(
    tmp_path: Path, index: IndexMode
) -> None:
    # "both" could hide a broken mapping of one path behind the other: check each alone.
    data = write_dataset(tmp_path / "data", conversations=1, **SHAPE)
    config = LocomoConfig(data=data, out=tmp_path / "run", index=index, recency_rate=0.0)
    run = asyncio.run(run_locomo(config))
    assert (run.turns > 0) == (index == "turns")
    assert (run.memories > 0) == (index == "memories")
    single = [r for r in run.results if r.category == "4"]
    assert single
    assert all(r.ranked[0] == r.evidence[0] for r in single)
    assert run.summary["overall"]["unmapped_results"] == 0
