"""Put one LoCoMo conversation into a fresh remem memory and remember how ids map back.

Decision — one LoCoMo turn (one utterance, one ``dia_id``) is one remem turn:
``record_turn(session_id, user_message="Speaker: text [image: caption]", assistant_message="")``.
Pairing utterances (A as user, B as assistant) would halve the rows but make one remem turn
stand for two dia_ids, so a hit could not say which utterance it found. The turn carries
``entry_id = "<sample_id>/<dia_id>"`` (``#n`` appended to a repeated dia_id), the session time
plus ``TURN_SPACING`` per turn as ``created_at``, and ``metadata = {"dia_id", "speaker",
"locomo_session"}``; the session id is ``"<sample_id>/session_<N>"``.

``record_turn`` (not ``record_turns``) because only it takes a per-turn id and time: measured
≈0.8 ms per turn on the embedded backend, so a 600-turn LoCoMo conversation ingests in < 1 s.

Turns reach recall through full text only (the episodic index). With ``index="both"``
(default) or ``"memories"`` each utterance is also stored as a memory (``remember_many`` per
session, kind ``note``, ``metadata = {"dia_id", "turn_id", "speaker"}``, provenance ``source_type
"locomo"``), which is what the vector retriever — and so ``--embedder`` — searches.
``index="turns"`` measures the episodic path alone. No extractor runs: the benchmark measures
retrieval over what was said, not what an LLM distilled from it.

The runtime's :class:`~remem.models.ManualClock` is set to each session's time while it is
written (memories are dated by the clock) and left at the last turn + ``ASK_DELAY`` for the
questions, so recency behaves as if the questions were asked just after the conversation.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Literal

from remem.controller import ControllerConfig
from remem.controller.writes import MemorySpec
from remem.embeddings import EmbeddingService
from remem.eval.locomo.format import Conversation
from remem.models import ManualClock, ProvenanceMetadata
from remem.runtime import Runtime
from remem.runtime_config import RuntimeConfig
from remem.stores.shared.search_text import DEFAULT_FULL_TEXT, FullTextConfig

__all__ = ["ASK_DELAY", "IndexMode", "IngestedConversation", "ingest_conversation"]

IndexMode = Literal["turns", "memories", "both"]
ASK_DELAY = timedelta(hours=1)
"""Questions are asked this long after the conversation's last turn."""


@dataclass(frozen=True)
class IngestedConversation:
    """An open runtime holding one conversation, and the map from remem ids to dia_ids."""

    runtime: Runtime
    clock: ManualClock
    conversation: Conversation
    dia_ids: Mapping[str, str]
    """turn id → dia_id (memories carry their dia_id in metadata)"""
    texts: Mapping[str, str]
    """dia_id → the stored text (for token counts of what a ranking retrieves)"""
    asked_at: datetime
    turns: int
    memories: int


def _safe(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name) or "conversation"


async def ingest_conversation(
    conversation: Conversation,
    directory: Path,
    *,
    embedder: EmbeddingService | None = None,
    index: IndexMode = "both",
    controller: ControllerConfig | None = None,
    full_text: FullTextConfig = DEFAULT_FULL_TEXT,
) -> IngestedConversation:
    """Open a fresh runtime in ``directory/<sample_id>`` and write every turn (and memory) of
    ``conversation`` into it (``controller``: the runtime's controller settings, default
    remem's; ``full_text``: the full-text normalisation); the caller closes ``result.runtime``."""
    first = conversation.sessions[0].date_time
    clock = ManualClock(first)
    path = directory / _safe(conversation.sample_id)
    config = RuntimeConfig(
        path=path, controller=controller or ControllerConfig(), full_text=full_text
    )
    runtime = Runtime.open(path, embedder=embedder, clock=clock, config=config)
    await runtime.start()
    try:
        dia_ids, texts, n_turns, n_memories = await _write(runtime, clock, conversation, index)
    except BaseException:
        await runtime.aclose()
        raise
    last = conversation.turns[-1].created_at
    asked = max(last, clock.now()) + ASK_DELAY
    clock.set(asked)
    return IngestedConversation(
        runtime=runtime,
        clock=clock,
        conversation=conversation,
        dia_ids=dia_ids,
        texts=texts,
        asked_at=asked,
        turns=n_turns,
        memories=n_memories,
    )


async def _write(
    runtime: Runtime, clock: ManualClock, conversation: Conversation, index: IndexMode
) -> tuple[dict[str, str], dict[str, str], int, int]:
    controller = runtime.controller
    dia_ids: dict[str, str] = {}
    texts: dict[str, str] = {}
    seen: dict[str, int] = {}
    n_turns = n_memories = 0
    provenance = ProvenanceMetadata(source_type="locomo")
    for session in conversation.sessions:
        session_id = f"{conversation.sample_id}/session_{session.number}"
        clock.set(max(clock.now(), session.date_time))
        specs: list[MemorySpec] = []
        for turn in session.turns:
            repeat = seen.get(turn.dia_id, 0)
            seen[turn.dia_id] = repeat + 1
            entry_id = f"{conversation.sample_id}/{turn.dia_id}" + (f"#{repeat}" if repeat else "")
            content = turn.content()
            if not content.strip():
                continue  # an empty utterance without a speaker: nothing to remember
            texts.setdefault(turn.dia_id, content)
            if index in ("turns", "both"):
                await controller.record_turn(
                    session_id,
                    content,
                    "",
                    entry_id=entry_id,
                    created_at=turn.created_at,
                    metadata={
                        "dia_id": turn.dia_id,
                        "speaker": turn.speaker,
                        "locomo_session": session.number,
                    },
                )
                dia_ids[entry_id] = turn.dia_id
                n_turns += 1
            specs.append(
                MemorySpec(
                    content,
                    memory_id=f"{entry_id}/memory",
                    metadata={"dia_id": turn.dia_id, "turn_id": entry_id, "speaker": turn.speaker},
                )
            )
        if index in ("memories", "both") and specs:
            await controller.remember_many(
                specs, kind="note", provenance=provenance, session_id=session_id
            )
            n_memories += len(specs)
        clock.set(max(clock.now(), session.turns[-1].created_at))
    return dia_ids, texts, n_turns, n_memories
