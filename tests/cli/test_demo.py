"""The kernel demo prints the seed's decay curve and consistent kernel results."""

from __future__ import annotations

import subprocess
import sys

import pytest

from remem.cli import main


def test_demo_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--rows", "2000"]) == 0
    out = capsys.readouterr().out
    for line in ("after  24 h: 0.787", "after  72 h: 0.487", "after 168 h: 0.186"):
        assert line in out
    greedy = float(out.split("greedy  value ")[1].split(",")[0])
    optimal = float(out.split("optimal value ")[1].split(",")[0])
    assert optimal >= greedy
    assert "(exact)" in out
    assert "noisy copy of row 1000" in out
    assert "exact float32: [1000," in out
    assert "(same result)" in out


def test_module_entry_point_runs() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "remem", "--version"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert proc.stdout.strip()


def test_no_command_prints_help_and_fails(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "usage" in capsys.readouterr().err
