"""MultiAgentMemoryController: private scopes, one shared scope, explicit handoffs.

Opt-in composition around an existing :class:`~remem.controller.MemoryController` (never a
subclass): the wrapped controller keeps working unchanged, and sharing an ordinary controller
between agents creates no private scopes by itself. Every memory the wrapper writes carries a
:class:`~remem.models.ProvenanceMetadata` (source, author = the writing agent, confidence,
created_at; ``parent_ids`` names the private original of a handed-off memory), returned on
every recall hit as ``hit.record.provenance``.

    multi = await MultiAgentMemoryController.open(
        rt.controller, rt.block_store, shared_writes=SharedWritePolicy.only("lead")
    )
    await multi.register_agent("lead")                      # stored in the memory itself
    await multi.register_agent("scout")
    note = await multi.remember("scout", "the staging DB is on port 5433")
    await multi.recall("lead", "staging port")              # nothing: scout's note is private
    await multi.handoff("lead", [note.id], note="checked")  # refused: lead does not own it
    await multi.grant_read("lead", "scout")                 # now lead reads scout's scope too

Rules (one home: this module and :mod:`remem.multiagent.policy`; the registry of agents and
policies persists through :mod:`remem.multiagent.registry`):

* **Reads** — ``recall``, ``recall_many``, ``keyed_facts``, ``prime``, ``search_text``,
  ``list_sessions`` and ``transcript`` read only the scopes the
  :class:`~remem.multiagent.VisibilityPolicy` lets the agent read: its own private scope, the
  shared scope, and private scopes granted with :meth:`grant_read`. The scope list goes down as
  the controller's ``namespace=``, which pushes it into every index — the vector where, the
  full-text index, the record-store eligibility check, the graph matcher and the transcript — so
  it is applied before the top-k, not after. Recall returns every stage (memories, episodic
  turns, graph hits) of those scopes; priming includes their graph entities, known facts and
  earlier sessions.
* **Writes** — ``remember`` writes the agent's private scope; ``shared=True`` writes the
  shared scope if the :class:`~remem.multiagent.SharedWritePolicy` allows it (else
  :class:`~remem.errors.PolicyViolationError`). ``record_turn`` writes a turn in the agent's
  private scope (a session belongs to one scope; extraction from it writes there too). The
  record's namespace is chosen here and only here: a ``metadata`` entry claiming
  ``namespace``/``scope``/``shared`` is kept as data and promotes nothing.
* **Handoff** — the only way from private to shared: :meth:`handoff` *moves* memories the agent
  owns (its private scope) into the shared scope: a shared copy with the original's text, kind
  and provenance (``parent_ids`` = the original's id; ``metadata["handed_off_by"]`` and
  ``["handoff_note"]``), and the private original superseded by it (kept for history, never
  recalled), so the agent does not recall the same fact twice.

The policy is an in-process object, **not authentication**: whoever holds this object, or the
controller inside it, can read every scope. Do not expose it as a multi-tenant authorisation
system.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from remem.blocks.store import BlockStore
from remem.controller import MemoryController
from remem.errors import InvalidArgumentError, PolicyViolationError, shown
from remem.models import (
    MemoryKind,
    MemoryRecord,
    MemoryStage,
    ProvenanceMetadata,
    TranscriptEntry,
)
from remem.multiagent.policy import (
    PRIVATE_SCOPE_PREFIX,
    SharedWritePolicy,
    VisibilityPolicy,
    check_agent_id,
    private_scope,
)
from remem.multiagent.reads import ScopedReads
from remem.multiagent.registry import BlockRegistry, Registry, RegistryState, known_agent
from remem.scopes import check_namespace

__all__ = ["MultiAgentMemoryController"]


class MultiAgentMemoryController(ScopedReads):
    """Agents' private scopes and a shared scope over one :class:`MemoryController`.

    ``shared_scope`` names the shared namespace (default ``"shared"``; it may not start with
    ``agent:``, the private-scope prefix). ``visibility`` and ``shared_writes`` are the initial
    policies (default: no grants; any registered agent may write shared). The wrapper does not
    own the controller: closing it is the caller's business (see the module docstring).

    **Persistence.** Built with :meth:`open` and the memory's block store, the registry (agents,
    read grants, the shared-write policy) lives in the memory itself
    (:mod:`remem.multiagent.registry`): each change is one atomic block commit, and reopening
    the memory — another process, or the same one after a restart — gives the same visibility
    and policy, revoked grants staying revoked. A stored registry wins over ``visibility`` and
    ``shared_writes``, which only seed a memory that has none yet. Built with the plain
    constructor, the registry lives in this object only and is lost with it.

    Several controllers over one memory: each reads the registry when opened and after each
    of its own changes; a change made elsewhere is seen after :meth:`reload`. A change never
    overwrites another's: a commit against a registry that moved on reloads it and applies the
    change again on top.
    """

    def __init__(
        self,
        controller: MemoryController,
        *,
        shared_scope: str = "shared",
        visibility: VisibilityPolicy | None = None,
        shared_writes: SharedWritePolicy | None = None,
    ) -> None:
        if not isinstance(controller, MemoryController):
            raise InvalidArgumentError(
                f"controller must be a MemoryController, got {type(controller).__name__}"
            )
        check_namespace(shared_scope, field="shared_scope")
        if shared_scope.startswith(PRIVATE_SCOPE_PREFIX):
            raise InvalidArgumentError(
                f"shared_scope {shared_scope!r} starts with {PRIVATE_SCOPE_PREFIX!r}, the prefix "
                "of private agent scopes; choose another name, e.g. 'shared'"
            )
        if visibility is not None and not isinstance(visibility, VisibilityPolicy):
            raise InvalidArgumentError(
                f"visibility must be a VisibilityPolicy, got {type(visibility).__name__}"
            )
        if shared_writes is not None and not isinstance(shared_writes, SharedWritePolicy):
            raise InvalidArgumentError(
                f"shared_writes must be a SharedWritePolicy, got {type(shared_writes).__name__}"
            )
        self._controller = controller
        self._shared = shared_scope
        seed = RegistryState(
            frozenset(),
            visibility if visibility is not None else VisibilityPolicy(),
            shared_writes if shared_writes is not None else SharedWritePolicy(),
        )
        self._registry = Registry(seed, None, controller.clock.now)

    @classmethod
    async def open(
        cls,
        controller: MemoryController,
        blocks: BlockStore,
        *,
        shared_scope: str = "shared",
        visibility: VisibilityPolicy | None = None,
        shared_writes: SharedWritePolicy | None = None,
    ) -> MultiAgentMemoryController:
        """A wrapper whose registry persists in ``blocks`` (``runtime.block_store``): the
        stored registry if the memory has one (IntegrityError if it is corrupted), else one
        seeded from ``visibility`` and ``shared_writes``.

        Example::

            multi = await MultiAgentMemoryController.open(rt.controller, rt.block_store)
            await multi.register_agent("lead")     # stored: survives a restart
        """
        wrapper = cls(
            controller,
            shared_scope=shared_scope,
            visibility=visibility,
            shared_writes=shared_writes,
        )
        wrapper._registry.store = BlockRegistry(blocks, shared_scope)
        await wrapper.reload()
        return wrapper

    # -- agents and policy ----------------------------------------------------------------------

    @property
    def controller(self) -> MemoryController:
        """The wrapped controller (unrestricted: reading through it bypasses every policy)."""
        return self._controller

    @property
    def shared_scope(self) -> str:
        """The shared namespace."""
        return self._shared

    @property
    def persistent(self) -> bool:
        """Whether the registry is stored in the memory (built with :meth:`open`)."""
        return self._registry.store is not None

    @property
    def visibility(self) -> VisibilityPolicy:
        """The current visibility policy."""
        return self._state.visibility

    @property
    def shared_writes(self) -> SharedWritePolicy:
        """The current shared-write policy."""
        return self._state.shared_writes

    @property
    def agents(self) -> frozenset[str]:
        """The registered agent ids."""
        return self._state.agents

    async def reload(self) -> None:
        """Read the stored registry again (changes made by other controllers of this memory);
        a no-op for a wrapper built without :meth:`open`."""
        await self._registry.reload()

    async def register_agent(self, agent_id: str) -> str:
        """Register ``agent_id`` (idempotent) and return its private scope's namespace."""
        agent = check_agent_id(agent_id)
        await self._change(lambda s: replace(s, agents=s.agents | {agent}))
        return private_scope(agent)

    async def grant_read(self, reader: str, owner: str) -> None:
        """Let ``reader`` read ``owner``'s private scope (both must be registered)."""

        def grant(state: RegistryState) -> RegistryState:
            known_agent(state, reader)
            known_agent(state, owner)
            return replace(state, visibility=state.visibility.granting(reader, owner))

        await self._change(grant)

    async def revoke_read(self, reader: str, owner: str) -> None:
        """Withdraw a :meth:`grant_read`; reading one's own scope cannot be revoked."""

        def revoke(state: RegistryState) -> RegistryState:
            known_agent(state, reader)
            known_agent(state, owner)
            if reader == owner:
                raise InvalidArgumentError(f"agent {reader!r} always reads its own private scope")
            return replace(state, visibility=state.visibility.revoking(reader, owner))

        await self._change(revoke)

    async def set_shared_writes(self, policy: SharedWritePolicy) -> None:
        """Replace the shared-write policy."""
        if not isinstance(policy, SharedWritePolicy):
            raise InvalidArgumentError(
                f"policy must be a SharedWritePolicy, got {type(policy).__name__}"
            )
        await self._change(lambda s: replace(s, shared_writes=policy))

    def readable_scopes(self, agent_id: str) -> tuple[str, ...]:
        """The namespaces ``agent_id`` reads: its own private scope, granted ones, the shared."""
        self._known(agent_id)
        state = self._state
        owners = sorted(state.visibility.owners_readable_by(agent_id) & state.agents)
        return (*(private_scope(o) for o in owners), self._shared)

    @property
    def _state(self) -> RegistryState:
        return self._registry.state

    async def _change(self, change: Callable[[RegistryState], RegistryState]) -> None:
        await self._registry.change(change)

    # -- writes ---------------------------------------------------------------------------------

    async def remember(
        self,
        agent_id: str,
        text: str,
        *,
        shared: bool = False,
        kind: MemoryKind | str = MemoryKind.FACT,
        source: str = "agent",
        confidence: float = 1.0,
        session_id: str | None = None,
        metadata: Mapping[str, object] | None = None,
    ) -> MemoryRecord:
        """Store a memory written by ``agent_id`` in its private scope, or (``shared=True``)
        in the shared scope if the shared-write policy allows it. ``source`` and
        ``confidence`` go into the record's provenance (author = ``agent_id``)."""
        records = await self.remember_many(
            agent_id,
            [text],
            shared=shared,
            kind=kind,
            source=source,
            confidence=confidence,
            session_id=session_id,
            metadata=metadata,
        )
        return records[0]

    async def remember_many(
        self,
        agent_id: str,
        texts: Sequence[str],
        *,
        shared: bool = False,
        kind: MemoryKind | str = MemoryKind.FACT,
        source: str = "agent",
        confidence: float = 1.0,
        session_id: str | None = None,
        metadata: Mapping[str, object] | None = None,
    ) -> list[MemoryRecord]:
        """``remember`` for many texts of one agent: one embedding batch, all or nothing."""
        namespace = self._write_scope(agent_id, shared=shared)
        if isinstance(texts, str) or not isinstance(texts, Sequence):
            raise InvalidArgumentError(f"texts must be a list of strings, got {shown(texts)}")
        if any(not isinstance(t, str) for t in texts):
            raise InvalidArgumentError("texts must all be strings; pass each memory's text")
        provenance = self._provenance(agent_id, source, confidence)
        return await self._controller.remember_many(
            list(texts),
            kind=kind,
            provenance=provenance,
            namespace=namespace,
            session_id=session_id,
            metadata=metadata,
        )

    async def record_turn(
        self,
        agent_id: str,
        session_id: str,
        user_message: str = "",
        assistant_message: str = "",
        *,
        metadata: Mapping[str, object] | None = None,
    ) -> TranscriptEntry:
        """Record a turn of ``agent_id``'s session ``session_id`` in its private scope (the
        session is created there if new; one of another scope raises InvalidArgumentError).
        Extraction from the turn writes the agent's private scope too."""
        self._known(agent_id)
        return await self._controller.record_turn(
            session_id,
            user_message,
            assistant_message,
            metadata=metadata,
            namespace=private_scope(agent_id),
        )

    async def handoff(
        self,
        agent_id: str,
        memory_ids: Sequence[str],
        *,
        to: str = "shared",
        note: str | None = None,
    ) -> list[MemoryRecord]:
        """Move ``agent_id``'s private memories ``memory_ids`` into the shared scope; return
        the shared records in input order (module docstring: copy + supersede, provenance kept).

        ``to`` must be ``"shared"`` (the only promotion target). The agent must own every
        memory (it is in its private scope and live) and may write shared; otherwise
        PolicyViolationError and nothing changes.
        """
        if to != "shared":
            raise InvalidArgumentError(
                f"handoff moves memories to 'shared' only, got to={shown(to)}"
            )
        if note is not None and not isinstance(note, str):
            raise InvalidArgumentError(f"note must be a string or None, got {shown(note)}")
        self._write_scope(agent_id, shared=True)
        if isinstance(memory_ids, str) or not isinstance(memory_ids, Sequence):
            raise InvalidArgumentError(f"memory_ids must be a list of ids, got {shown(memory_ids)}")
        ids = list(memory_ids)
        if not ids:
            return []
        stores = await self._controller.settled()
        originals = await stores.records.get(ids)
        own = private_scope(agent_id)
        for record in originals:
            if record.namespace != own:
                raise PolicyViolationError(
                    f"memory {record.id!r} is not in agent {agent_id!r}'s private scope; an "
                    "agent hands off only its own private memories"
                )
            if record.superseded_by is not None or record.lifecycle.stage is MemoryStage.DELETED:
                raise PolicyViolationError(
                    f"memory {record.id!r} is superseded or deleted; hand off a live memory"
                )
        moved: list[MemoryRecord] = []
        for record in originals:
            metadata: dict[str, object] = dict(record.metadata)
            metadata["handed_off_by"] = agent_id
            if note is not None:
                metadata["handoff_note"] = note
            provenance = record.provenance.model_copy(
                update={"parent_ids": (*record.provenance.parent_ids, record.id)}
            )
            copy = await self._controller.remember(
                record.text,
                kind=record.kind,
                provenance=provenance,
                namespace=self._shared,
                session_id=record.session_id,
                metadata=metadata,
                valid_from=record.valid_from,
            )
            await self._controller.supersede(record.id, copy.id, across_scopes=True)
            moved.append(copy)
        return moved

    # -- internals ------------------------------------------------------------------------------

    def _known(self, agent_id: str) -> str:
        return known_agent(self._state, agent_id)

    def _write_scope(self, agent_id: str, *, shared: bool) -> str:
        self._known(agent_id)
        if not isinstance(shared, bool):
            raise InvalidArgumentError(f"shared must be a bool, got {shown(shared)}")
        if not shared:
            return private_scope(agent_id)
        if not self._state.shared_writes.may_write(agent_id):
            raise PolicyViolationError(
                f"agent {agent_id!r} may not write the shared scope {self._shared!r} "
                f"(shared writers: {shown(self._state.shared_writes.writers)}); write privately "
                "instead"
            )
        return self._shared

    def _provenance(self, agent_id: str, source: str, confidence: float) -> ProvenanceMetadata:
        try:
            return ProvenanceMetadata(
                source_type=source,
                author_id=agent_id,
                confidence=confidence,
                created_at=self._controller.clock.now(),
            )
        except ValueError as exc:  # pydantic's ValidationError
            raise InvalidArgumentError(
                f"source must be a string and confidence a number in 0..1, got "
                f"{shown(source)} and {shown(confidence)}"
            ) from exc
