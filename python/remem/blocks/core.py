"""CoreMemory: the capped blocks injected into every turn, loaded from and saved to a store.

By default two blocks: ``user`` (who they are) and ``self`` (the relationship). Everything else
lives in the unbounded episodic store, searched on demand; core blocks hold the facts the
companion should never have to search for.

Default limits: ``user`` 2,200 chars and ``self`` 1,375 chars (about 550 and 345 tokens of
English) — the user block holds more distinct facts; the relationship block is a short summary
of tone, history and shared references. Both are configurable.

Example::

    async with DuckDBBlockStore("memory.duckdb") as store:
        memory = await CoreMemory.load(store, "ada")
        await memory.apply("user", [BlockEdit.add("Name is Ada")], actor="model")
        prompt_part = memory.render()

Edits go through :meth:`CoreMemory.apply`: planned on a copy, committed to the store (entries +
history, one transaction), and only then made visible — a refused or failed edit changes
neither the store nor the in-memory block.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from remem.blocks.block import CoreMemoryBlock, check_label, check_limit
from remem.blocks.commit_checks import check_namespace
from remem.blocks.edits import BlockChange, BlockEdit
from remem.blocks.store import BlockStore
from remem.errors import ConfigError, InvalidArgumentError, shown

DEFAULT_USER_LIMIT = 2_200
DEFAULT_SELF_LIMIT = 1_375


@dataclass(frozen=True, slots=True)
class BlockSpec:
    """One block's configuration: label, character limit, and what it is for."""

    label: str
    limit_chars: int
    description: str

    def __post_init__(self) -> None:
        check_label(self.label)
        check_limit(self.limit_chars)


def _default_specs() -> tuple[BlockSpec, ...]:
    return (
        BlockSpec("user", DEFAULT_USER_LIMIT, "who the user is"),
        BlockSpec("self", DEFAULT_SELF_LIMIT, "the relationship between you and the user"),
    )


@dataclass(frozen=True, slots=True)
class CoreMemoryConfig:
    """Which blocks exist, in prompt order. ``CoreMemoryConfig.default(user_limit=3000)``."""

    blocks: tuple[BlockSpec, ...] = field(default_factory=_default_specs)

    def __post_init__(self) -> None:
        if not self.blocks:
            raise ConfigError("CoreMemoryConfig needs at least one block")
        labels = [b.label for b in self.blocks]
        if len(set(labels)) != len(labels):
            raise ConfigError(f"block labels must be unique, got {labels}")

    @classmethod
    def default(
        cls, *, user_limit: int = DEFAULT_USER_LIMIT, self_limit: int = DEFAULT_SELF_LIMIT
    ) -> CoreMemoryConfig:
        user, self_ = _default_specs()
        return cls(
            (
                BlockSpec(user.label, user_limit, user.description),
                BlockSpec(self_.label, self_limit, self_.description),
            )
        )


class CoreMemory:
    """The core blocks of one namespace, kept in step with a :class:`BlockStore`."""

    def __init__(
        self,
        store: BlockStore,
        namespace: str,
        blocks: Sequence[CoreMemoryBlock],
        revisions: dict[str, int],
    ) -> None:
        self.store = store
        self.namespace = check_namespace(namespace)
        self._blocks = {b.label: b for b in blocks}
        self._revisions = dict(revisions)

    @classmethod
    async def load(
        cls, store: BlockStore, namespace: str, config: CoreMemoryConfig | None = None
    ) -> CoreMemory:
        """The configured blocks with their stored entries (empty if never stored).

        Limits come from ``config``: a block stored under a higher limit loads as it is, over
        its new limit, and renders flagged until it is consolidated.
        """
        if config is not None and not isinstance(config, CoreMemoryConfig):
            raise InvalidArgumentError(
                f"config must be a CoreMemoryConfig or None, got {type(config).__name__}"
            )
        config = config or CoreMemoryConfig()
        check_namespace(namespace)
        blocks: list[CoreMemoryBlock] = []
        revisions: dict[str, int] = {}
        for spec in config.blocks:
            stored = await store.load(namespace, spec.label)
            entries = stored.entries if stored else ()
            revisions[spec.label] = stored.revision if stored else 0
            blocks.append(
                CoreMemoryBlock(spec.label, spec.limit_chars, entries, description=spec.description)
            )
        return cls(store, namespace, blocks, revisions)

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(self._blocks)

    def block(self, label: str) -> CoreMemoryBlock:
        """A copy of the block named ``label`` (edit through :meth:`apply`, not the copy)."""
        return self._get(label).copy()

    def _get(self, label: str) -> CoreMemoryBlock:
        try:
            if not isinstance(label, str):
                raise KeyError(label)
            return self._blocks[label]
        except KeyError:
            raise InvalidArgumentError(
                f"there is no {shown(label)} block; use one of {', '.join(self._blocks)}"
            ) from None

    def render(self) -> str:
        """Every block with its gauge, in configured order, separated by a blank line."""
        return "\n\n".join(b.render() for b in self._blocks.values())

    async def apply(
        self,
        label: str,
        edits: Sequence[BlockEdit],
        *,
        actor: str = "model",
        at: datetime | None = None,
    ) -> list[BlockChange]:
        """Apply a batch of edits to one block: all or nothing, persisted before it is visible."""
        block = self._get(label)
        entries, changes = block.plan(edits)
        stored = await self.store.commit(
            self.namespace,
            label,
            entries,
            changes,
            expected_revision=self._revisions[label],
            actor=actor,
            at=at or datetime.now(UTC),
        )
        self._blocks[label] = CoreMemoryBlock(
            label, block.limit_chars, stored.entries, description=block.description
        )
        self._revisions[label] = stored.revision
        return changes

    async def reload(self) -> None:
        """Re-read every block from the store (after a BlockConflictError, say)."""
        for label, block in list(self._blocks.items()):
            stored = await self.store.load(self.namespace, label)
            self._blocks[label] = CoreMemoryBlock(
                label,
                block.limit_chars,
                stored.entries if stored else (),
                description=block.description,
            )
            self._revisions[label] = stored.revision if stored else 0
