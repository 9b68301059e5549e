"""The read half of :class:`~remem.multiagent.MultiAgentMemoryController`: every read an agent
makes, confined to the scopes it may read.

Each read turns the agent id into its readable scopes (``readable_scopes``: its private scope,
the shared scope and the private scopes granted to it) and passes them down as the controller's
``namespace=``, which pushes them into every index — so the scope applies before the top-k,
never after. The rules themselves (visibility, grants) live in :mod:`remem.multiagent.policy`
and the registry; this module only reads.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from remem.context import Priming, PrimingConfig
from remem.controller import MemoryController
from remem.errors import InvalidArgumentError, NotFoundError, shown
from remem.models import (
    EpisodicHit,
    MemoryKind,
    MemoryRecord,
    MemoryStage,
    ScoredMemory,
    TranscriptEntry,
    TranscriptSession,
)
from remem.stores.transcript import check_session_id
from remem.stores.vector import Where

__all__ = ["ScopedReads"]


class ScopedReads:
    """Scoped reads over ``_controller``; the subclass supplies ``readable_scopes``."""

    _controller: MemoryController

    def readable_scopes(self, agent_id: str) -> tuple[str, ...]:
        raise NotImplementedError

    async def recall(
        self,
        agent_id: str,
        query: str,
        *,
        k: int = 10,
        kinds: Sequence[MemoryKind | str] | None = None,
        stages: Sequence[MemoryStage | str] | None = None,
        session_id: str | None = None,
        include_decayed: bool = False,
    ) -> list[ScoredMemory]:
        """The ``k`` best memories for ``query`` among the scopes ``agent_id`` may read: every
        stage (memories, episodic turns, graph hits) unless ``stages`` names some, as
        :meth:`MemoryController.recall`."""
        results = await self.recall_many(
            agent_id,
            [query],
            k=k,
            kinds=kinds,
            stages=stages,
            session_id=session_id,
            include_decayed=include_decayed,
        )
        return results[0]

    async def recall_many(
        self,
        agent_id: str,
        queries: Sequence[str],
        *,
        k: int = 10,
        kinds: Sequence[MemoryKind | str] | None = None,
        stages: Sequence[MemoryStage | str] | None = None,
        session_id: str | None = None,
        include_decayed: bool = False,
    ) -> list[list[ScoredMemory]]:
        """``recall`` for many queries of one agent (one embedding batch)."""
        scopes = self.readable_scopes(agent_id)
        where: dict[str, object] = {}
        if kinds is not None:
            if isinstance(kinds, str) or not isinstance(kinds, Sequence):
                raise InvalidArgumentError(f"kinds must be a list of kinds, got {shown(kinds)}")
            try:
                where["kind"] = {"$in": [MemoryKind(k).value for k in kinds]}
            except ValueError:
                raise InvalidArgumentError(
                    f"kinds {shown(kinds)} names an unknown kind; use "
                    f"{', '.join(m.value for m in MemoryKind)}"
                ) from None
        filters: Where | None = where if where else None
        return await self._controller.recall_many(
            queries,
            k=k,
            stages=stages,
            session_id=session_id,
            namespace=list(scopes),
            filters=filters,
            include_decayed=include_decayed,
        )

    async def keyed_facts(
        self,
        agent_id: str,
        *,
        subjects: Sequence[str] | None = None,
        attributes: Sequence[str] | None = None,
        include_superseded: bool = False,
    ) -> list[MemoryRecord]:
        """Keyed facts in the scopes ``agent_id`` may read, ordered like
        :meth:`MemoryController.keyed_facts` (key, then validity time)."""
        facts = await self._controller.keyed_facts(
            subjects=subjects,
            attributes=attributes,
            namespace=list(self.readable_scopes(agent_id)),
            include_superseded=include_superseded,
        )
        return sorted(facts, key=_keyed_order)

    async def prime(
        self,
        agent_id: str,
        session_id: str,
        *,
        now: datetime | None = None,
        config: PrimingConfig | None = None,
    ) -> Priming:
        """Priming for ``agent_id``'s session, drawn from its readable scopes only: graph
        entities and their known facts, insights, summaries and earlier sessions' last turns,
        cut to ``config``'s (default: the controller's) limits and token budget."""
        scopes = self.readable_scopes(agent_id)
        if config is not None and not isinstance(config, PrimingConfig):
            raise InvalidArgumentError(
                f"config must be a PrimingConfig, got {type(config).__name__}"
            )
        return await self._controller.prime(
            session_id, now=now, config=config, namespace=list(scopes)
        )

    async def list_sessions(self, agent_id: str) -> list[TranscriptSession]:
        """The sessions of the scopes ``agent_id`` may read, oldest first."""
        return await self._controller.list_sessions(namespace=list(self.readable_scopes(agent_id)))

    async def transcript(
        self,
        agent_id: str,
        session_id: str,
        *,
        since_turn: int | None = None,
        limit: int | None = None,
    ) -> list[TranscriptEntry]:
        """The turns of ``session_id`` (after ``since_turn``, at most ``limit``), oldest first.
        NotFoundError unless the session is in a scope ``agent_id`` may read; a session of
        another scope is reported exactly like a missing one."""
        scopes = self.readable_scopes(agent_id)
        check_session_id(session_id)
        stores = await self._controller.settled()
        transcript = stores.transcript
        missing = NotFoundError(
            f"there is no session {session_id!r} that agent {agent_id!r} may read; list them "
            "with list_sessions"
        )
        if transcript is None:
            raise missing
        try:
            session = await transcript.get_session(session_id)
        except NotFoundError:
            raise missing from None
        if session.namespace not in scopes:
            raise missing
        return await transcript.get_entries(session_id, since_turn=since_turn, limit=limit)

    async def search_text(
        self,
        agent_id: str,
        query: str,
        *,
        limit: int = 10,
        session_id: str | None = None,
    ) -> list[EpisodicHit]:
        """Full-text hits (turns and memory notes) for ``query`` in the scopes ``agent_id`` may
        read, best first."""
        return await self._controller.search_text(
            query,
            namespace=list(self.readable_scopes(agent_id)),
            limit=limit,
            session_id=session_id,
        )


def _keyed_order(record: MemoryRecord) -> tuple[str, str, datetime]:
    meta = record.metadata
    held = record.valid_from or record.lifecycle.created_at
    return (str(meta.get("subject", "")), str(meta.get("attribute", "")), held)
