"""The specification's examples run against remem with only the import line changed.

``examples/`` holds them verbatim but for that line. When the specification is beside the
checkout (``../shared/seeds``, as in CI) each example's other lines are checked against it;
a clean clone without it checks them against :data:`VERIFIED`, the sha256 of those lines as they
were last verified against the specification (the first check also holds that pin current), so
the test runs — and can fail — either way.
"""

from __future__ import annotations

import hashlib
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
VERIFIED = {
    "decay_curve.py": "920d507d11ad101c4d5613bbce1969509723aee3e52405fcf91e3cecb49fab97",
    "semantic_search.py": "363aaea4280bf8ac2afd37bf533cb400495815d6c5c3a3627c8e80e0a7f5df8c",
    "transcript.py": "01d7aa4182d96fb7b0cf11df4ff3d1c4cd7f8f67ddc5391aa211ef5b252440a7",
}
"""sha256 of each example's lines but its import lines, verified against the specification."""


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


def _fingerprint(name: str) -> str:
    lines = "\n".join(line.rstrip() for line in _without_imports((EXAMPLES / name).read_text()))
    return hashlib.sha256(lines.encode("utf-8")).hexdigest()


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_example_matches_the_specification(name: str) -> None:
    if SEEDS.is_dir():
        seed_lines = {
            line.rstrip() for path in SEEDS.glob("*.txt") for line in path.read_text().splitlines()
        }
        for line in _without_imports((EXAMPLES / name).read_text()):
            assert line.rstrip() in seed_lines, f"{name}: {line!r} is not in the specification"
    assert _fingerprint(name) == VERIFIED[name], f"{name} changed since it was verified"
