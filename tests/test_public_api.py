"""The public API is pinned: adding or removing a name is a deliberate change to this list."""

from __future__ import annotations

import remem
import remem.errors


def test_all_is_sorted_and_pinned() -> None:
    assert remem.__all__ == sorted(remem.__all__)
    for name in remem.__all__:
        assert hasattr(remem, name), name


def test_every_error_derives_from_remem_error() -> None:
    for name in remem.errors.__all__:
        cls = getattr(remem.errors, name)
        assert issubclass(cls, remem.errors.RememError), name
