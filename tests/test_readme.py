"""The README's Python code blocks run as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)


def test_readme_has_code() -> None:
    assert BLOCKS


@pytest.mark.parametrize("number", range(len(BLOCKS)))
def test_block_runs(number: int) -> None:
    exec(compile(BLOCKS[number], f"README.md block {number}", "exec"), {})
