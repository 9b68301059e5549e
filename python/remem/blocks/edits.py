"""One edit of a core memory block, and the record of what an applied edit changed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

EditOp = Literal["add", "replace", "remove"]


@dataclass(frozen=True, slots=True)
class BlockEdit:
    """An entry-granular edit; build one with :meth:`add`, :meth:`replace` or :meth:`remove`.

    ``text`` is the new entry (add, replace); ``old`` a substring naming exactly one existing
    entry (replace, remove).

    >>> BlockEdit.replace("Berlin", "Lives in Lisbon since 2026")
    BlockEdit(op='replace', text='Lives in Lisbon since 2026', old='Berlin')
    """

    op: EditOp
    text: str | None = None
    old: str | None = None

    @classmethod
    def add(cls, text: str) -> BlockEdit:
        return cls("add", text=text)

    @classmethod
    def replace(cls, old: str, text: str) -> BlockEdit:
        return cls("replace", text=text, old=old)

    @classmethod
    def remove(cls, old: str) -> BlockEdit:
        return cls("remove", old=old)


@dataclass(frozen=True, slots=True)
class BlockChange:
    """What one applied edit did: the entry before (None for add) and after (None for remove),
    and the block's size before and after it."""

    op: EditOp
    before: str | None
    after: str | None
    size_before: int
    size_after: int
