"""The README's Python code blocks run as written and print what the README says they print."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
TEXT = README.read_text(encoding="utf-8")
BLOCKS = [m for m in re.finditer(r"```python\n(.*?)```", TEXT, flags=re.S)]


def _promised(number: int) -> list[str]:
    """The lines of the first ```text block between this Python block and the next one."""
    end = BLOCKS[number + 1].start() if number + 1 < len(BLOCKS) else len(TEXT)
    shown = re.search(r"```text\n(.*?)```", TEXT[BLOCKS[number].end() : end], flags=re.S)
    return [] if shown is None else [ln for ln in shown.group(1).splitlines() if ln.strip()]


def test_readme_has_code() -> None:
    assert BLOCKS
    assert any(_promised(n) for n in range(len(BLOCKS)))


@pytest.mark.parametrize("number", range(len(BLOCKS)))
def test_block_runs_and_prints_what_it_promises(number: int) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(BLOCKS[number].group(1), f"README.md block {number}", "exec"), {})
    printed = out.getvalue().splitlines()
    for line in _promised(number):
        assert line in printed, f"README block {number} promises {line!r}; it printed {printed}"
