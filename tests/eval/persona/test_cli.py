"""``remem eval`` through main() on real files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from remem.cli import main


def test_eval_quick_like_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    argv = ["eval", "--quick", "--personas", "1", "--days", "6", "--resamples", "200"]
    assert main([*argv, "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert "remem eval: 1 personas x 6 days" in captured.out
    assert "recall %" in captured.out
    assert "Recall by category" in captured.out
    for variant in ("full", "blocks-only", "episodic-only", "raw-recall"):
        assert f"\n{variant} " in captured.out  # the real companion variants ran
    assert "/" in captured.err  # the progress bar went to stderr
    data = json.loads((out / "results.json").read_text())
    assert data["variants"]
    assert data["variants"][0]["rows"]
    assert all(v["background_errors"] == [] for v in data["variants"])
    assert (out / "forgetting_curve.png").read_bytes()[:4] == b"\x89PNG"


def test_refuses_a_non_empty_out_dir(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "old.txt").write_text("x")
    assert main(["eval", "--quick", "--out", str(tmp_path)]) == 2
    assert "not empty" in capsys.readouterr().err


def test_unknown_variant_and_bad_judge(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "--variants", "nope", "--out", str(tmp_path / "a")]) == 2
    assert "unknown variant" in capsys.readouterr().err
    assert main(["eval", "--judge", "madeup:x", "--out", str(tmp_path / "b")]) == 2
    assert "unknown brain provider" in capsys.readouterr().err


def test_eval_handwritten_set(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    argv = ["eval", "--set", "handwritten", "--quick", "--personas", "1", "--resamples", "200"]
    assert main([*argv, "--variants", "raw-recall,whole-history", "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert "remem eval: hand-written set, 1 personas" in captured.out
    assert "Equal prompt budget: 1,000 tokens" in captured.out
    data = json.loads((out / "results.json").read_text())
    assert data["settings"]["persona_set"] == "handwritten"
    assert data["rendered_by"] == "hand"
    rows = data["variants"][0]["rows"]
    assert {r["category"] for r in rows} >= {"update", "negation", "corrected", "previous"}
    assert all(r["tokens"] <= 1000 for v in data["variants"] for r in v["rows"])


def test_eval_handwritten_refuses_generated_options(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["eval", "--set", "handwritten", "--days", "30", "--out", str(tmp_path / "a")]
    assert main(argv) == 2
    assert "drop --horizon, --days and --delay-days" in capsys.readouterr().err


def test_eval_compares_a_config_file_with_the_defaults(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = tmp_path / "rerank_on.toml"
    cfg.write_text("[recall.stages.rerank]\nenabled = true\n")
    out = tmp_path / "run"
    argv = ["eval", "--quick", "--personas", "1", "--days", "6", "--resamples", "100"]
    assert main([*argv, "--variants", f"full,full@{cfg}", "--out", str(out)]) == 0
    assert "\nfull@rerank_on " in capsys.readouterr().out
    data = json.loads((out / "results.json").read_text())
    names = [v["name"] for v in data["variants"]]
    assert names == ["full", "full@rerank_on"]
    assert str(cfg) in data["variants"][1]["description"]
    assert data["variants"][1]["rows"]
    assert (out / "full@rerank_on").is_dir()  # its personas' own stores


def test_eval_refuses_a_bad_config_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("[recall.stages.rerank]\nenabled = 3\n")
    assert main(["eval", "--quick", "--config", str(bad), "--out", str(tmp_path / "a")]) == 2
    assert "rerank.enabled must be true or false" in capsys.readouterr().err
    placed = tmp_path / "placed.toml"
    placed.write_text('path = "/tmp/x"\n')
    argv = ["eval", "--quick", "--variants", f"full@{placed}", "--out", str(tmp_path / "b")]
    assert main(argv) == 2
    assert "sets path; remove them" in capsys.readouterr().err
