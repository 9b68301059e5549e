"""Argument checks every BlockStore runs before touching its database (same errors everywhere)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from remem.blocks.block import check_label
from remem.blocks.edits import BlockChange
from remem.blocks.entries import clean_entry
from remem.errors import InvalidArgumentError, NaiveDatetimeError, shown
from remem.models import check_text


def check_namespace(namespace: object) -> str:
    if not isinstance(namespace, str) or not namespace:
        raise InvalidArgumentError(f"namespace must be a non-empty string, got {shown(namespace)}")
    return check_text(namespace, field="namespace")


def check_key(namespace: object, label: object) -> None:
    check_namespace(namespace)
    check_label(label)


def check_commit(
    namespace: str,
    label: str,
    entries: Sequence[str],
    changes: Sequence[BlockChange],
    expected_revision: int,
    actor: str,
    at: datetime,
) -> tuple[str, ...]:
    """Validate a commit's arguments; return the entries as they will be stored."""
    check_key(namespace, label)
    stored = tuple(clean_entry(e) for e in entries)
    if stored != tuple(entries):
        raise InvalidArgumentError("entries must be clean (use CoreMemoryBlock to edit them)")
    if not changes or not all(isinstance(c, BlockChange) for c in changes):
        raise InvalidArgumentError("a commit needs at least one BlockChange for the history")
    if isinstance(expected_revision, bool) or not isinstance(expected_revision, int):
        raise InvalidArgumentError("expected_revision must be an int (0 for a new block)")
    if expected_revision < 0:
        raise InvalidArgumentError(f"expected_revision must be ≥ 0, got {expected_revision}")
    if not isinstance(actor, str) or not actor or "\x00" in actor:
        raise InvalidArgumentError("actor must be a non-empty string naming who made the edit")
    if not isinstance(at, datetime):
        raise InvalidArgumentError(f"at must be a datetime, got {type(at).__name__}")
    if at.tzinfo is None or at.utcoffset() is None:
        raise NaiveDatetimeError("at must be timezone-aware (e.g. datetime.now(UTC))")
    return stored


def check_limit_arg(limit: int | None) -> None:
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise InvalidArgumentError(f"limit must be an int ≥ 1 or None, got {limit!r}")
