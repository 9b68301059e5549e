"""CoreMemoryBlock: a capped list of entries the model edits one entry at a time.

Most agent memory silently truncates when a budget fills. A block does the opposite: an edit that
would take it past its limit raises :class:`BlockFullError`, whose message carries the block's
full contents and asks the model to merge or drop something and retry — triage happens when new
information competes with old, the one moment there is enough context to decide what matters.

Rules (every refused edit leaves the block unchanged):

* ``add(text)`` appends an entry; ``replace(old, text)`` and ``remove(old)`` name an entry by a
  substring ``old`` that must occur in exactly one entry (an entry *equal* to ``old`` wins over
  entries merely containing it). No match → :class:`EntryNotFoundError`; several →
  :class:`AmbiguousEditError` listing the candidates.
* A new entry that states the same fact with the same value as an existing one (equal
  :func:`~remem.blocks.entries.entry_key`: case, punctuation, articles and accents aside)
  raises :class:`DuplicateEntryError` naming it; entries that differ in any word are distinct
  (two pets, two siblings, "Anna" and "Ana"). A replace is not
  compared with the entry it replaces (correcting a detail is what replace is for).
* ``apply(edits)`` runs a batch in order on a copy and checks the *final* size: all or nothing.
* Size is measured by :func:`remem.blocks.gauge.measure` — the characters of the rendered
  entries, separators included; the gauge in :meth:`render` shows exactly that number.
* A batch is refused as too big when its final size exceeds the limit *and* grows the block. So
  a block stored over its limit (after the limit was lowered) still renders — flagged
  ``OVER LIMIT`` — and accepts any edit that shrinks it, but none that makes it bigger.

>>> block = CoreMemoryBlock("user", 40)
>>> _ = block.add("Name is Ada")
>>> block.render()
'<user> [33% — 13/40 chars]\\n- Name is Ada'
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from remem.blocks.edits import BlockChange, BlockEdit
from remem.blocks.entries import clean_entry, find_duplicate
from remem.blocks.gauge import format_gauge, measure, render_entries
from remem.errors import (
    AmbiguousEditError,
    BlockFullError,
    ConfigError,
    DuplicateEntryError,
    EntryNotFoundError,
    InvalidArgumentError,
)

_LABEL_MAX = 64


def check_label(label: object) -> str:
    """A block label: 1-64 characters of ``[a-z0-9_]`` (it names a tool argument and a row)."""
    if (
        not isinstance(label, str)
        or not 0 < len(label) <= _LABEL_MAX
        or not all(c.isascii() and (c.isalnum() or c == "_") for c in label)
        or label != label.lower()
    ):
        raise ConfigError(f"a block label must be 1-64 chars of a-z, 0-9 and _, got {label!r}")
    return label


def check_limit(limit: object) -> int:
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise ConfigError(f"a block's limit_chars must be an int ≥ 1, got {limit!r}")
    return limit


class CoreMemoryBlock:
    """A labelled, capped block of entries (see the module docstring for the rules)."""

    __slots__ = ("_entries", "description", "label", "limit_chars")

    def __init__(
        self,
        label: str,
        limit_chars: int,
        entries: Iterable[str] = (),
        *,
        description: str = "",
    ) -> None:
        self.label = check_label(label)
        self.limit_chars = check_limit(limit_chars)
        self.description = description
        # Stored entries are taken as they are (even over the limit): loading never fails.
        self._entries: list[str] = [clean_entry(e) for e in entries]

    @property
    def entries(self) -> tuple[str, ...]:
        return tuple(self._entries)

    @property
    def size(self) -> int:
        """Characters of the rendered entries (what the gauge shows)."""
        return measure(self._entries)

    @property
    def over_limit(self) -> bool:
        return self.size > self.limit_chars

    def gauge(self) -> str:
        return format_gauge(self.size, self.limit_chars)

    def render(self) -> str:
        """The block as injected into the prompt: a header with the live gauge, then entries.

        Never raises: an over-limit block renders with its flag so prompt assembly goes on.
        """
        about = f" ({self.description})" if self.description else ""
        header = f"<{self.label}>{about} {self.gauge()}"
        body = render_entries(self._entries) if self._entries else "(empty)"
        return f"{header}\n{body}"

    def copy(self) -> CoreMemoryBlock:
        return CoreMemoryBlock(
            self.label, self.limit_chars, self._entries, description=self.description
        )

    def with_limit(self, limit_chars: int) -> CoreMemoryBlock:
        """The same entries under another limit (entries over it are kept, and flagged)."""
        return CoreMemoryBlock(self.label, limit_chars, self._entries, description=self.description)

    # -- edits -------------------------------------------------------------------------------

    def add(self, text: str) -> BlockChange:
        return self.apply([BlockEdit.add(text)])[0]

    def replace(self, old: str, text: str) -> BlockChange:
        return self.apply([BlockEdit.replace(old, text)])[0]

    def remove(self, old: str) -> BlockChange:
        return self.apply([BlockEdit.remove(old)])[0]

    def apply(self, edits: Sequence[BlockEdit]) -> list[BlockChange]:
        """Apply ``edits`` in order, all or nothing; the size is checked once, at the end."""
        staged, changes = self.plan(edits)
        self._entries = staged
        return changes

    def plan(self, edits: Sequence[BlockEdit]) -> tuple[list[str], list[BlockChange]]:
        """The entries ``edits`` would produce and the changes, without applying them."""
        if not isinstance(edits, Sequence) or not edits:
            raise InvalidArgumentError("edits must be a non-empty sequence of BlockEdit")
        staged = list(self._entries)
        changes: list[BlockChange] = []
        for edit in edits:
            if not isinstance(edit, BlockEdit):
                raise InvalidArgumentError(f"expected a BlockEdit, got {type(edit).__name__}")
            before_size = measure(staged)
            before, after = self._stage(staged, edit)
            changes.append(BlockChange(edit.op, before, after, before_size, measure(staged)))
        final = measure(staged)
        current = self.size
        if final > self.limit_chars and final > current:
            raise self._full_error(final)
        return staged, changes

    def _stage(self, staged: list[str], edit: BlockEdit) -> tuple[str | None, str | None]:
        if edit.op == "add":
            text = clean_entry(edit.text, what="new entry")
            self._check_duplicate(text, staged)
            staged.append(text)
            return None, text
        if edit.op not in ("replace", "remove"):
            raise InvalidArgumentError(f"unknown edit op {edit.op!r}; use add, replace or remove")
        index = self._locate(staged, edit.old)
        before = staged[index]
        if edit.op == "remove":
            del staged[index]
            return before, None
        text = clean_entry(edit.text, what="new entry")
        self._check_duplicate(text, staged[:index] + staged[index + 1 :])
        staged[index] = text
        return before, text

    def _locate(self, staged: list[str], old: str | None) -> int:
        if not isinstance(old, str) or not old.strip():
            raise InvalidArgumentError(
                "name the entry to edit by a non-empty substring of it (old_text)"
            )
        exact = [i for i, e in enumerate(staged) if e == old.strip()]
        if len(exact) == 1:
            return exact[0]
        hits = [i for i, e in enumerate(staged) if old in e]
        if len(hits) == 1:
            return hits[0]
        if not hits:
            raise EntryNotFoundError(
                f"no entry of the {self.label} block contains {old!r}; quote part of one of "
                f"these entries exactly:\n{render_entries(staged) or '(the block is empty)'}"
            )
        candidates = tuple(staged[i] for i in hits)
        raise AmbiguousEditError(
            f"{old!r} occurs in {len(hits)} entries of the {self.label} block; quote a longer "
            f"substring that is in only one of them:\n{render_entries(candidates)}",
            candidates=candidates,
        )

    def _check_duplicate(self, text: str, others: list[str]) -> None:
        found = find_duplicate(text, others)
        if found is None:
            return
        existing, exact = found
        kind = "repeats" if exact else "states the same fact as"
        raise DuplicateEntryError(
            f"the new entry {kind} the existing entry {existing!r} in the {self.label} block; "
            "it is already remembered — use replace to change that entry instead",
            existing=existing,
        )

    def _full_error(self, attempted: int) -> BlockFullError:
        over = attempted - self.limit_chars
        return BlockFullError(
            f"The {self.label} block is full — this edit would make it "
            f"{attempted:,}/{self.limit_chars:,} chars ({over:,} over), so nothing was changed. "
            "Merge or drop something, then retry. Current contents:\n" + self.render(),
            label=self.label,
            entries=self.entries,
            used=self.size,
            limit=self.limit_chars,
            attempted=attempted,
        )

    def __repr__(self) -> str:
        return (
            f"CoreMemoryBlock({self.label!r}, {self.limit_chars}, "
            f"entries={len(self._entries)}, size={self.size})"
        )
