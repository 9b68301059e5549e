"""The multi-agent registry — agents, read grants, the shared-write policy — kept in the memory.

The registry is stored as **one core block** of the memory's own
:class:`~remem.blocks.store.BlockStore`: namespace = the shared scope, label
:data:`REGISTRY_LABEL`, a single entry holding a canonical JSON document. No store schema is
added; a change is one block commit (one transaction, optimistic on the block's revision), so a
registry on disk is always a whole, earlier or later, never a half-applied change, and the
block's history keeps every earlier registry (who granted or revoked what, and when).

The document::

    {"agents": ["a", "lead"], "format": 1, "grants": {"lead": ["a"]},
     "shared_scope": "shared", "shared_writes": "any"}

``shared_writes`` is ``"any"``, ``"none"`` or a sorted list of agent ids. It is validated on
load: anything else — not JSON, an unknown format, a missing or extra field, a grant naming an
unregistered agent, a shared scope that is not the block's namespace — raises
:class:`~remem.errors.IntegrityError` naming the block, and the registry is not used.

The entry must be a *clean* block entry (one line, no whitespace runs), so the JSON is written
ASCII-only with its separators compact and every space inside a string escaped as ``\\u0020``;
it still parses as the same JSON.

The block is not a secret (every agent reads the shared scope, and the policies are not
authentication, see :mod:`remem.multiagent.policy`); it is not one of a companion's configured
blocks, so it never appears in a prompt.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from remem.blocks.edits import BlockChange
from remem.blocks.store import BlockStore
from remem.errors import (
    BlockConflictError,
    IntegrityError,
    InvalidArgumentError,
    PolicyViolationError,
)
from remem.multiagent.policy import SharedWritePolicy, VisibilityPolicy, check_agent_id

__all__ = [
    "REGISTRY_LABEL",
    "BlockRegistry",
    "Registry",
    "RegistryState",
    "decode_registry",
    "encode_registry",
    "known_agent",
]

REGISTRY_LABEL = "multiagent_registry"
"""The label of the block holding the registry, in the shared scope's namespace."""

FORMAT = 1
"""The version of the stored document; another version is refused on load."""

_ACTOR = "multiagent"
_COMMIT_ATTEMPTS = 5
"""Commits of one registry change tried against a registry other controllers keep changing."""
_FIELDS = frozenset({"agents", "format", "grants", "shared_scope", "shared_writes"})


@dataclass(frozen=True, slots=True)
class RegistryState:
    """Who is registered and what the policies allow: the whole persisted registry."""

    agents: frozenset[str] = frozenset()
    visibility: VisibilityPolicy = field(default_factory=VisibilityPolicy)
    shared_writes: SharedWritePolicy = field(default_factory=SharedWritePolicy)


def encode_registry(state: RegistryState, shared_scope: str) -> str:
    """The block entry storing ``state``: canonical JSON (sorted), one clean line."""
    writers = state.shared_writes.writers
    document = {
        "agents": sorted(state.agents),
        "format": FORMAT,
        "grants": {r: sorted(o) for r, o in sorted(state.visibility.grants.items()) if o},
        "shared_scope": shared_scope,
        "shared_writes": writers if isinstance(writers, str) else sorted(writers),
    }
    text = json.dumps(document, ensure_ascii=True, sort_keys=True, separators=(",", ":"))
    # Compact separators leave spaces only inside strings, where \u0020 means the same.
    return text.replace(" ", "\\u0020")


def decode_registry(entry: str, shared_scope: str) -> RegistryState:
    """The registry stored in ``entry``; IntegrityError if it is not a valid registry of
    ``shared_scope`` (module docstring)."""
    where = f"the multi-agent registry (block {REGISTRY_LABEL!r} of namespace {shared_scope!r})"
    fix = "restore an earlier revision from the block's history or re-register the agents"
    try:
        document = json.loads(entry)
    except (ValueError, RecursionError) as exc:
        raise IntegrityError(f"{where} is not JSON ({exc}); {fix}") from exc
    if not isinstance(document, dict) or set(document) != _FIELDS:
        raise IntegrityError(
            f"{where} must be an object with exactly the fields {sorted(_FIELDS)}; {fix}"
        )
    if document["format"] != FORMAT:
        raise IntegrityError(
            f"{where} has format {document['format']!r}; this remem reads format {FORMAT}"
        )
    if document["shared_scope"] != shared_scope:
        raise IntegrityError(f"{where} names the shared scope {document['shared_scope']!r}; {fix}")
    agents, grants, writers = document["agents"], document["grants"], document["shared_writes"]
    try:
        if not isinstance(agents, list) or not isinstance(grants, dict):
            raise InvalidArgumentError("agents must be a list and grants an object")
        if any(not isinstance(o, list) for o in grants.values()):
            raise InvalidArgumentError("every grant must list owner ids")
        if not (writers in ("any", "none") or isinstance(writers, list)):
            raise InvalidArgumentError("shared_writes must be 'any', 'none' or a list of ids")
        registered = frozenset(check_agent_id(a) for a in agents)
        visibility = VisibilityPolicy({r: frozenset(o) for r, o in grants.items()})
        if writers == "any":
            shared_writes = SharedWritePolicy.anyone()
        elif writers == "none":
            shared_writes = SharedWritePolicy.nobody()
        else:
            shared_writes = SharedWritePolicy(frozenset(writers))
    except (InvalidArgumentError, TypeError) as exc:  # TypeError: an unhashable id
        raise IntegrityError(f"{where} is malformed: {exc}; {fix}") from exc
    named = set(visibility.grants).union(*visibility.grants.values())
    if not named <= registered:
        raise IntegrityError(
            f"{where} grants reads to or from unregistered agents {sorted(named - registered)}; "
            f"{fix}"
        )
    return RegistryState(registered, visibility, shared_writes)


class BlockRegistry:
    """Loads and saves a :class:`RegistryState` as the registry block of ``shared_scope``.

    ``save`` is optimistic: it stores the state as the block's next revision only if the block
    is still at ``expected_revision`` (else :class:`~remem.errors.BlockConflictError`: another
    controller changed the registry; reload and apply the change again).
    """

    def __init__(self, blocks: BlockStore, shared_scope: str) -> None:
        if not isinstance(blocks, BlockStore):
            raise InvalidArgumentError(
                f"blocks must be a BlockStore (e.g. runtime.block_store), got "
                f"{type(blocks).__name__}"
            )
        self._blocks = blocks
        self._scope = shared_scope
        self._entry: str | None = None

    async def load(self) -> tuple[RegistryState | None, int]:
        """The stored registry (None if never stored) and the block revision it was read at."""
        stored = await self._blocks.load(self._scope, REGISTRY_LABEL)
        if stored is None:
            self._entry = None
            return None, 0
        if len(stored.entries) != 1:
            raise IntegrityError(
                f"the multi-agent registry block of namespace {self._scope!r} holds "
                f"{len(stored.entries)} entries, not one; restore an earlier revision from its "
                "history"
            )
        state = decode_registry(stored.entries[0], self._scope)
        self._entry = stored.entries[0]
        return state, stored.revision

    async def save(self, state: RegistryState, *, expected_revision: int, at: datetime) -> int:
        """Store ``state`` atomically as the next revision; return that revision."""
        entry = encode_registry(state, self._scope)
        before = self._entry if expected_revision > 0 else None
        change = BlockChange(
            op="add" if before is None else "replace",
            before=before,
            after=entry,
            size_before=0 if before is None else len(before),
            size_after=len(entry),
        )
        stored = await self._blocks.commit(
            self._scope,
            REGISTRY_LABEL,
            [entry],
            [change],
            expected_revision=expected_revision,
            actor=_ACTOR,
            at=at,
        )
        self._entry = entry
        return stored.revision


class Registry:
    """One multi-agent controller's registry: the current state, kept in memory only or also in
    a :class:`BlockRegistry` (``store``).

    :meth:`change` applies a function of the state: with a store it is committed first, on
    top of the latest stored registry (a conflict reloads and applies it again), and only then
    adopted, so a failed commit changes nothing. Changes of one process are serialised.
    """

    def __init__(
        self, state: RegistryState, store: BlockRegistry | None, now: Callable[[], datetime]
    ) -> None:
        self.state = state
        self.store = store
        self._now = now
        self._revision = 0
        self._lock = asyncio.Lock()

    async def reload(self) -> None:
        """Adopt the stored registry, if there is one (IntegrityError if it is corrupted; the
        state is then unchanged)."""
        if self.store is None:
            return
        stored, revision = await self.store.load()
        if stored is not None:
            self.state = stored
        self._revision = revision

    async def change(self, change: Callable[[RegistryState], RegistryState]) -> None:
        async with self._lock:
            if self.store is None:
                self.state = change(self.state)
                return
            for _ in range(_COMMIT_ATTEMPTS):
                new = change(self.state)
                if new == self.state and self._revision > 0:
                    return  # nothing to store (an idempotent re-registration)
                try:
                    self._revision = await self.store.save(
                        new, expected_revision=self._revision, at=self._now()
                    )
                except BlockConflictError:
                    await self.reload()  # another controller changed it: apply on top of that
                    continue
                self.state = new
                return
            raise BlockConflictError(
                f"the multi-agent registry kept changing under {_COMMIT_ATTEMPTS} attempts to "
                "commit; retry the change"
            )


def known_agent(state: RegistryState, agent_id: str) -> str:
    """``agent_id`` if it is registered in ``state``, else PolicyViolationError."""
    check_agent_id(agent_id)
    if agent_id not in state.agents:
        raise PolicyViolationError(
            f"agent {agent_id!r} is not registered; call register_agent({agent_id!r}) first"
        )
    return agent_id
