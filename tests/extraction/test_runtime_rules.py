"""RuleExtractor in a real Runtime: the offline stack builds memory (embedded files and
PostgreSQL)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

import remem
from remem.extraction import RuleExtractor
from remem.models import ManualClock, MemoryKind

T0 = datetime(2026, 5, 14, 9, 30, tzinfo=UTC)


async def check_builds_memory(**options: Any) -> None:
    clock = ManualClock(T0)
    async with remem.Runtime.open(extractor=RuleExtractor(), clock=clock, **options) as rt:
        c = rt.controller
        turn = await c.record_turn("s", "I moved to Lisbon last month", "How exciting!")
        # the turn is in the transcript before its derived memory exists
        transcript = (await c.settled()).transcript
        assert transcript is not None
        assert [e.id for e in await transcript.get_entries("s")] == [turn.id]
        await c.flush_extraction()
        clock.advance(timedelta(minutes=5))
        await c.record_turn("s", "My sister is called Ana and I have a dog named Rex", "Cute")
        await c.flush_extraction()
        assert c.failures() == []

        hits = await c.recall("where does the user live", k=5)
        facts = [h.record for h in hits if h.record.kind == MemoryKind.FACT]
        assert facts, "the keyed fact is recalled"
        city = next(r for r in facts if r.metadata.get("attribute") == "city")
        assert city.metadata == {"subject": "user", "attribute": "city", "value": "Lisbon"}
        assert city.text == "The user lives in Lisbon."
        assert city.provenance.source_type == "extraction"
        assert city.provenance.parent_ids == (turn.id,)

        (user,) = await (await c.settled()).graph.find_entities("user")
        edges = await (await c.settled()).graph.relationships(user.id, direction="out")
        targets = {
            e.target_id: (e.relation_type, e.attributes.get("exclusive", False), e.valid_from)
            for e in edges
        }
        (lisbon,) = await (await c.settled()).graph.find_entities("Lisbon")
        assert lisbon.entity_type == "place"
        assert targets[lisbon.id] == ("lives_in", True, datetime(2026, 4, 14, tzinfo=UTC))
        (ana,) = await (await c.settled()).graph.find_entities("Ana")
        assert targets[ana.id][:2] == ("sibling", False)
        (rex,) = await (await c.settled()).graph.find_entities("Rex")
        assert rex.entity_type == "animal"
        assert targets[rex.id][:2] == ("has_pet", False)

        pets = await c.recall("the user's dog", k=5, stages=["short_term"])
        assert any(h.record.metadata.get("value") == "Rex" for h in pets)


async def test_rule_extractor_builds_memory_on_files(tmp_path: Path) -> None:
    await check_builds_memory(path=tmp_path)


@pytest.mark.postgres
async def test_rule_extractor_builds_memory_on_postgres(tmp_path: Path, pg_dsn: str) -> None:
    await check_builds_memory(path=tmp_path, backend="postgres", dsn=pg_dsn)


async def test_questions_and_assistant_words_build_nothing(tmp_path: Path) -> None:
    async with remem.Runtime.open(tmp_path, extractor=RuleExtractor()) as rt:
        c = rt.controller
        await c.record_turn("s", "Do you live in Paris?", "No, I live in Lisbon and you too.")
        await c.flush_extraction()
        assert await c.recall("Lisbon Paris live", stages=["short_term"]) == []
        assert await (await c.settled()).graph.find_entities("Lisbon") == []
