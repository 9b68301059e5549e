"""After a turn: extract it, supersede what it contradicts, and write the user's facts to a block.

Steps, for one finished turn:

1. ``extractor.extract([entry])`` and ``controller.apply_extraction`` — entities,
   relationships and memories land in the stores (keyed facts carry subject/attribute/value);
2. ``consolidator.supersede_contradictions(new_records)`` when a consolidator is given — the
   older value of a single-valued fact (the old city) is superseded;
3. every new keyed fact whose subject is ``"user"`` is written to the user block: when it
   superseded an older fact whose text is an entry of the block, ``core_memory_replace`` of
   that entry; otherwise ``core_memory_add``. A duplicate the block refuses is fine (the fact is
   already there).

A write the block refuses as full (:class:`BlockFullError`) goes to the model: the error text,
which carries the block's contents, is sent with the block tools and a request to make room;
the model's tool calls are applied and the write is tried again. Each such round spends one
retry of the turn's :class:`RetryBudget` (``max_block_retries``, shared with the model's own
block tool calls during the turn); when none is left the write is given up and reported.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from remem.blocks import (
    AmbiguousEditError,
    BlockEdit,
    BlockFullError,
    CoreMemory,
    DuplicateEntryError,
    EntryNotFoundError,
)
from remem.brains import Brain, Message, ToolCall
from remem.companion.protocols import Consolidator, SupersessionLike
from remem.companion.tools import MemoryTools
from remem.controller import ExtractionContext, Extractor, MemoryController
from remem.errors import InputError
from remem.models import MemoryRecord, TranscriptEntry

__all__ = ["BlockUpdater", "BlockWrite", "PostTurnReport", "RetryBudget"]

USER_SUBJECT = "user"
"""The subject of keyed facts about the person talking (extraction contract)."""

CONSOLIDATE_INSTRUCTIONS = (
    "You maintain the core memory blocks. A write was refused because the block is full. Make "
    "room with core_memory_remove (drop what is least useful or outdated) or "
    "core_memory_replace (merge related entries into one); the write is retried afterwards."
)


@dataclass
class RetryBudget:
    """Consolidation rounds left in one turn; refused writes past it are kept as reports."""

    limit: int
    used: int = 0
    unresolved: list[str] = field(default_factory=list)

    def take(self) -> bool:
        """Spend one retry if any is left."""
        if self.used >= self.limit:
            return False
        self.used += 1
        return True


@dataclass(frozen=True, slots=True)
class BlockWrite:
    """One fact written (or not) to a block: ``outcome`` is ``added``, ``replaced``,
    ``duplicate``, ``full`` (given up after the retries) or ``refused`` (bad text)."""

    label: str
    op: str
    text: str
    old: str | None
    outcome: str
    detail: str = ""


@dataclass(frozen=True, slots=True)
class PostTurnReport:
    """What the post-turn step did."""

    records: tuple[MemoryRecord, ...] = ()
    supersessions: tuple[SupersessionLike, ...] = ()
    writes: tuple[BlockWrite, ...] = ()
    tool_calls: tuple[ToolCall, ...] = ()


class BlockUpdater:
    """Runs the post-turn step (module docstring) for one companion."""

    def __init__(
        self,
        *,
        brain: Brain,
        controller: MemoryController,
        blocks: CoreMemory | None,
        tools: MemoryTools,
        user_block: str,
        extractor: Extractor | None,
        consolidator: Consolidator | None,
        namespace: str = "default",
    ) -> None:
        self.brain = brain
        self.controller = controller
        self.blocks = blocks
        self.tools = tools
        self.user_block = user_block
        self.extractor = extractor
        self.consolidator = consolidator
        self.namespace = namespace

    async def after_turn(
        self, entry: TranscriptEntry, *, now: datetime, budget: RetryBudget
    ) -> PostTurnReport:
        """Extract ``entry``, supersede, write the user's new facts (see the module docstring)."""
        if self.extractor is None:
            return PostTurnReport()
        context = ExtractionContext(session_id=entry.session_id, now=now, namespace=self.namespace)
        result = await self.extractor.extract([entry], context=context)
        # The companion's scope, not whatever the transcript says: its facts are its namespace's.
        records = await self.controller.apply_extraction(
            result, [entry], now=now, namespace=self.namespace
        )
        supersessions: Sequence[SupersessionLike] = ()
        if self.consolidator is not None and records:
            supersessions = await self.consolidator.supersede_contradictions(records)
        writes: list[BlockWrite] = []
        calls: list[ToolCall] = []
        if self.blocks is not None:
            replaced = {s.new_id: s.old_text for s in supersessions if s.kind == "record"}
            for record in records:
                if record.metadata.get("subject") != USER_SUBJECT:
                    continue
                edit = self._edit_for(record, replaced.get(record.id))
                writes.append(await self._write(edit, now=now, budget=budget, calls=calls))
        return PostTurnReport(tuple(records), tuple(supersessions), tuple(writes), tuple(calls))

    def _edit_for(self, record: MemoryRecord, old_text: str | None) -> BlockEdit:
        assert self.blocks is not None
        entries = self.blocks.block(self.user_block).entries
        if old_text and any(old_text in e for e in entries):
            return BlockEdit.replace(old_text, record.text)
        return BlockEdit.add(record.text)

    async def _write(
        self, edit: BlockEdit, *, now: datetime, budget: RetryBudget, calls: list[ToolCall]
    ) -> BlockWrite:
        assert self.blocks is not None
        text = edit.text or ""
        label = self.user_block
        while True:
            try:
                await self.blocks.apply(label, [edit], actor="companion", at=now)
            except DuplicateEntryError as exc:
                return BlockWrite(label, edit.op, text, edit.old, "duplicate", str(exc))
            except (EntryNotFoundError, AmbiguousEditError):
                # The entry to replace went away (a consolidation merged it): add instead.
                edit = BlockEdit.add(text)
                continue
            except BlockFullError as exc:
                if not budget.take():
                    budget.unresolved.append(str(exc))
                    return BlockWrite(label, edit.op, text, edit.old, "full", str(exc))
                calls += await self._consolidate(exc, edit)
                continue
            except InputError as exc:
                return BlockWrite(label, edit.op, text, edit.old, "refused", str(exc))
            outcome = "replaced" if edit.op == "replace" else "added"
            return BlockWrite(label, edit.op, text, edit.old, outcome)

    async def _consolidate(self, error: BlockFullError, edit: BlockEdit) -> list[ToolCall]:
        """One round: the error and the pending write to the model; apply its block calls."""
        pending = (
            f"replace {edit.old!r} with {edit.text!r}"
            if edit.op == "replace"
            else f"add {edit.text!r}"
        )
        messages = [
            Message.system(CONSOLIDATE_INSTRUCTIONS),
            Message.user(f"{error}\n\nPending write to the {self.user_block} block: {pending}."),
        ]
        completion = await self.brain.complete(messages, tools=self.tools.specs(blocks_only=True))
        for call in completion.tool_calls:
            await self.tools.call(call, actor="model")
        return list(completion.tool_calls)
