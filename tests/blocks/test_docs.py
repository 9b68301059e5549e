"""The blocks docstring examples run, and the new errors are drawn in the errors tree."""

from __future__ import annotations

import doctest
from types import ModuleType

import pytest

import remem.errors
from remem.blocks import block, edits, gauge, tools


@pytest.mark.parametrize("module", [block, edits, gauge, tools], ids=lambda m: m.__name__)
def test_docstring_examples_run(module: ModuleType) -> None:
    result = doctest.testmod(module, raise_on_error=False, verbose=False)
    assert result.attempted > 0
    assert result.failed == 0


@pytest.mark.parametrize(
    "name",
    [
        "BlockError",
        "BlockFullError",
        "EntryNotFoundError",
        "AmbiguousEditError",
        "DuplicateEntryError",
        "BlockConflictError",
    ],
)
def test_block_errors_are_in_the_tree(name: str) -> None:
    assert f"── {name} " in (remem.errors.__doc__ or "")
    cls = getattr(remem.errors, name)
    assert issubclass(cls, remem.errors.BlockError)
