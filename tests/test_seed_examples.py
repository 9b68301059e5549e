"""The specification's examples run against remem with only the import line changed.

``examples/`` holds them verbatim but for that line; when the specification is beside the
checkout (``../shared/seeds``), this also checks that nothing else in them drifted.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
SEEDS = ROOT.parent / "shared" / "seeds"

EXPECTED = {
    "transcript.py": "Friday\n",
    "semantic_search.py": "python\n",
    "decay_curve.py": "24 0.787\n72 0.487\n168 0.186\n",
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_example_prints_what_it_promises(name: str) -> None:
    proc = subprocess.run(
        [sys.executable, str(EXAMPLES / name)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == EXPECTED[name]


def _without_imports(code: str) -> list[str]:
    return [
        line
        for line in code.splitlines()
        if line.strip() and not re.match(r"from (remem|friday_\w+) import ", line)
    ]


@pytest.mark.skipif(not SEEDS.is_dir(), reason="the specification is not beside this checkout")
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_example_matches_the_specification(name: str) -> None:
    seed_lines = {
        line.rstrip() for path in SEEDS.glob("*.txt") for line in path.read_text().splitlines()
    }
    for line in _without_imports((EXAMPLES / name).read_text()):
        assert line.rstrip() in seed_lines, f"{name}: {line!r} is not in the specification"
