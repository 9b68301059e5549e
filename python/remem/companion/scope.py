"""The companion's scope: every read it makes and every session it creates are its namespace's.

``CompanionConfig.namespace`` is the one scope of a companion. Recall goes through
:func:`scoped_recall` (recall's ``namespace=``, pushed into every index); a session is created
in the namespace before its first turn (:func:`claim_session`), and a session that belongs to
another namespace is refused, so companion B cannot continue — and be primed with — A's
conversation.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from remem.controller import MemoryController
from remem.errors import DuplicateIdError, InvalidArgumentError, NotFoundError
from remem.models import ScoredMemory, TranscriptSession


async def scoped_recall(
    controller: MemoryController,
    namespace: str,
    query: str,
    *,
    k: int,
    stages: Sequence[str],
    sources: Sequence[str],
) -> list[ScoredMemory]:
    """``controller.recall`` limited to ``namespace`` (records, notes, turns and graph facts)."""
    return await controller.recall(query, k=k, stages=stages, sources=sources, namespace=namespace)


async def claim_session(
    controller: MemoryController,
    session_id: str,
    namespace: str,
    now: datetime,
    *,
    create: bool = True,
) -> None:
    """Create ``session_id`` in ``namespace`` if it is new (only with ``create``: a prompt
    preview records nothing); InvalidArgumentError if it exists in another namespace (a session
    is one scope's conversation: its history and turns are never shown to another scope)."""
    transcript = (await controller.settled()).transcript
    if transcript is None:
        return
    try:
        session = await transcript.get_session(session_id)
    except NotFoundError:
        if not create:
            return
        try:
            await transcript.create_session(
                TranscriptSession(session_id=session_id, namespace=namespace, created_at=now)
            )
            return
        except DuplicateIdError:  # created meanwhile by a concurrent turn: check it below
            session = await transcript.get_session(session_id)
    if session.namespace != namespace:
        raise InvalidArgumentError(
            f"session {session_id!r} belongs to namespace {session.namespace!r}, not this "
            f"companion's {namespace!r}; use another session id for this namespace"
        )
