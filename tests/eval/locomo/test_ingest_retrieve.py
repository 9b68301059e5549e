"""Ingestion into a real runtime and the mapping of recall results back to dia_ids."""

from __future__ import annotations

from pathlib import Path

from remem.eval.locomo import ingest_conversation, load_locomo, map_results, retrieve_conversation
from remem.eval.locomo.ingest import ASK_DELAY
from remem.models import ProvenanceMetadata
from tests.eval.locomo.synth import write_dataset


async def test_turns_and_memories_carry_dia_ids_times_and_captions(tmp_path: Path) -> None:
    [conv] = load_locomo(write_dataset(tmp_path / "data", conversations=1))
    ingested = await ingest_conversation(conv, tmp_path / "mem")
    try:
        assert (tmp_path / "mem" / "conv-0").is_dir()
        assert ingested.turns == ingested.memories == len(conv.turns)
        assert ingested.asked_at == conv.turns[-1].created_at + ASK_DELAY
        transcript = (await ingested.runtime.controller.settled()).transcript
        assert transcript is not None
        entries = await transcript.get_entries("conv-0/session_2")
        second = conv.sessions[1].turns
        assert [e.metadata["dia_id"] for e in entries] == [t.dia_id for t in second]
        assert [e.created_at for e in entries] == [t.created_at for t in second]
        assert {ingested.dia_ids[e.id] for e in entries} == {t.dia_id for t in second}
        captioned = next(t for t in conv.turns if t.blip_caption)
        caption_word = captioned.blip_caption.split()[4] if captioned.blip_caption else ""
        hits = await ingested.runtime.controller.recall(caption_word, k=4)
        ranked, _ = map_results(hits, ingested.dia_ids)
        assert ranked[0] == captioned.dia_id
    finally:
        await ingested.runtime.aclose()


async def test_memories_map_through_provenance_and_unknown_results_are_counted(
    tmp_path: Path,
) -> None:
    [conv] = load_locomo(write_dataset(tmp_path / "data", conversations=1))
    ingested = await ingest_conversation(conv, tmp_path / "mem", index="turns")
    try:
        controller = ingested.runtime.controller
        target = conv.sessions[0].turns[2]
        turn_id = next(i for i, d in ingested.dia_ids.items() if d == target.dia_id)
        await controller.remember(
            "Quorbleflax summary of an early chat",
            provenance=ProvenanceMetadata(parent_ids=(turn_id,)),
        )
        await controller.remember("Quorbleflax appears in nothing the conversation said")
        hits = await controller.recall("quorbleflax", k=5)
        ranked, unmapped = map_results(hits, ingested.dia_ids)
        assert target.dia_id in ranked
        assert unmapped == 1
    finally:
        await ingested.runtime.aclose()


async def test_retrieve_conversation_reports_tokens_and_latency(tmp_path: Path) -> None:
    [conv] = load_locomo(write_dataset(tmp_path / "data", conversations=1))
    ingested = await ingest_conversation(conv, tmp_path / "mem")
    try:
        seen: list[str] = []
        results = await retrieve_conversation(
            ingested, ks=(1, 5), depth=10, on_question=lambda r: seen.append(r.qid)
        )
    finally:
        await ingested.runtime.aclose()
    assert seen == [q.qid for q in conv.questions] == [r.qid for r in results]
    for r in results:
        assert len(r.ranked) <= 5
        assert 0 < r.tokens[1] <= r.tokens[5]
        assert r.latency_ms > 0
