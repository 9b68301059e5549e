"""MemoryExtractor with ScriptedBrain: the request, validation, one repair, typed rejection, and
failures recorded by a real Runtime (files under tmp_path) with the turns kept."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

import remem
from remem.brains import Completion, ScriptedBrain
from remem.controller.extraction import ExtractionContext
from remem.errors import BrainError, ExtractionError, ExtractionRejectedError, InvalidArgumentError
from remem.extraction import RESPONSE_FORMAT, MemoryExtractor
from remem.models import ManualClock, MemoryKind, TranscriptEntry

T0 = datetime(2026, 5, 14, 9, 30, tzinfo=UTC)
CTX = ExtractionContext("s", T0)

VALID: dict[str, Any] = {
    "entities": [
        {"name": "user", "type": "person"},
        {"name": "Lisbon", "type": "place"},
        {"name": "Ana", "type": "person"},
    ],
    "relationships": [
        {
            "source": "user",
            "relation": "lives_in",
            "target": "Lisbon",
            "valid_from": "2026-04-14",
            "exclusive": False,
        },
        {
            "source": "user",
            "relation": "sibling",
            "target": "Ana",
            "valid_from": None,
            "exclusive": False,
        },
    ],
    "facts": [
        {
            "subject": "user",
            "attribute": "City",
            "value": "Lisbon",
            "text": "The user lives in Lisbon.",
        }
    ],
    "insights": ["The user is settling into Lisbon near their sister Ana."],
    "summary": "The user moved to Lisbon last month.",
}


def turn(n: int = 1, text: str = "I moved to Lisbon last month; Ana is there") -> TranscriptEntry:
    return TranscriptEntry(
        id=f"t{n}",
        session_id="s",
        turn_number=n,
        user_message=text,
        assistant_message="Lovely!",
        created_at=T0,
    )


def dump(data: object) -> str:
    return json.dumps(data)


async def test_valid_output_becomes_keyed_facts_edges_insights_and_summary() -> None:
    brain = ScriptedBrain([dump(VALID)])
    result = await MemoryExtractor(brain).extract([turn()], context=CTX)
    (fact, insight, summary) = result.memories
    assert (fact.kind, fact.subject, fact.attribute, fact.value) == (
        MemoryKind.FACT,
        "user",
        "city",
        "Lisbon",
    )
    assert fact.entities == ("user", "Lisbon")
    assert insight.kind == MemoryKind.INSIGHT
    assert insight.entities == ("user", "Lisbon", "Ana")
    assert summary.kind == MemoryKind.SUMMARY
    assert summary.entities == ("user", "Lisbon")
    lives, sibling = result.relationships
    assert lives.valid_from == datetime(2026, 4, 14, tzinfo=UTC)
    assert lives.exclusive  # lives_in is single-valued whatever the model said
    assert not sibling.exclusive
    assert sibling.valid_from is None
    assert {(e.name, e.entity_type) for e in result.entities} >= {("Lisbon", "place")}


async def test_the_request_carries_the_schema_the_prompt_and_the_turn_time() -> None:
    brain = ScriptedBrain([dump(VALID)])
    await MemoryExtractor(brain, max_tokens=900).extract([turn(7)], context=CTX)
    (request,) = brain.requests
    assert request.response_format == RESPONSE_FORMAT
    schema = request.response_format["json_schema"]["schema"]
    assert set(schema["required"]) == {"entities", "relationships", "facts", "insights", "summary"}
    assert request.temperature == 0.0
    assert request.max_tokens == 900
    system, user = request.messages
    assert system.role == "system"
    assert "favourite_food" in system.content
    assert "Turn 7 at 2026-05-14 09:30" in user.content
    assert "User: I moved to Lisbon" in user.content
    assert "Assistant: Lovely!" in user.content


async def test_invalid_json_is_repaired_once() -> None:
    brain = ScriptedBrain(['{"entities": [', dump(VALID)])
    result = await MemoryExtractor(brain).extract([turn()], context=CTX)
    assert len(result.memories) == 3
    first, second = brain.requests
    assert second.messages[: len(first.messages)] == first.messages
    assert second.messages[-2].role == "assistant"
    assert second.messages[-2].content == '{"entities": ['
    assert "not valid JSON" in second.last_user_text
    assert second.response_format == RESPONSE_FORMAT


async def test_schema_violation_is_quoted_back_and_repaired() -> None:
    bad = json.loads(dump(VALID))
    del bad["facts"][0]["value"]
    bad["relationships"][0]["valid_from"] = "last month"
    brain = ScriptedBrain([dump(bad), dump(VALID)])
    result = await MemoryExtractor(brain).extract([turn()], context=CTX)
    assert result.memories[0].value == "Lisbon"
    repair = brain.requests[1].last_user_text
    assert "facts.0.value" in repair
    assert "relationships.0.valid_from" in repair


async def test_fenced_json_needs_no_repair_and_truncation_does() -> None:
    brain = ScriptedBrain(
        [
            "```json\n" + dump(VALID) + "\n```",
            Completion(text=dump(VALID)[:40], finish_reason="length"),
            dump({"facts": []}),
        ]
    )
    extractor = MemoryExtractor(brain)
    assert len((await extractor.extract([turn()], context=CTX)).memories) == 3
    assert (await extractor.extract([turn()], context=CTX)).memories == ()
    assert "cut off" in brain.requests[2].last_user_text


async def test_still_invalid_is_rejected_with_reason_and_excerpt() -> None:
    brain = ScriptedBrain(["nope", dump({"facts": "many"})])
    with pytest.raises(ExtractionRejectedError) as info:
        await MemoryExtractor(brain).extract([turn()], context=CTX)
    err = info.value
    assert isinstance(err, ExtractionError)
    assert err.attempts == 2
    assert len(brain.requests) == 2
    assert "facts" in err.reason
    assert err.raw == dump({"facts": "many"})
    assert "t1" in str(err)
    assert "re-extract" in str(err)


async def test_max_repairs_zero_rejects_at_once_and_bad_options_raise() -> None:
    brain = ScriptedBrain(["[]"])
    with pytest.raises(ExtractionRejectedError, match="not an object"):
        await MemoryExtractor(brain, max_repairs=0).extract([turn()], context=CTX)
    assert len(brain.requests) == 1
    with pytest.raises(InvalidArgumentError):
        MemoryExtractor(brain, max_repairs=-1)
    with pytest.raises(InvalidArgumentError):
        MemoryExtractor(brain, max_tokens=0)


async def test_no_turns_no_call() -> None:
    brain = ScriptedBrain()
    assert (await MemoryExtractor(brain).extract([], context=CTX)).memories == ()
    assert brain.requests == []


async def test_runtime_records_rejection_and_brain_errors_and_keeps_the_turns(
    tmp_path: Path,
) -> None:
    brain = ScriptedBrain(["not json", "still not json"])  # then: no script left → BrainError
    clock = ManualClock(T0)
    async with remem.Runtime.open(tmp_path, extractor=MemoryExtractor(brain), clock=clock) as rt:
        c = rt.controller
        t1 = await c.record_turn("s", "my locker code is 4512", "noted")
        await c.flush_extraction()
        t2 = await c.record_turn("s", "I moved to Lisbon", "nice")
        await c.flush_extraction()
        rejected, brain_failed = c.failures()
        assert rejected.operation == "extraction"
        assert rejected.ids == (t1.id,)
        assert isinstance(rejected.error, ExtractionRejectedError)
        assert brain_failed.ids == (t2.id,)
        assert isinstance(brain_failed.error, BrainError)
        transcript = (await c.settled()).transcript
        assert transcript is not None
        entries = await transcript.get_entries("s")
        assert [e.id for e in entries] == [t1.id, t2.id]
        hits = await c.recall("locker code", stages=["episodic"])
        assert hits[0].record.id == t1.id
        assert await c.recall("locker code", stages=["short_term"]) == []


async def test_runtime_applies_valid_output(tmp_path: Path) -> None:
    brain = ScriptedBrain([dump(VALID)])
    async with remem.Runtime.open(
        tmp_path, extractor=MemoryExtractor(brain), clock=ManualClock(T0)
    ) as rt:
        c = rt.controller
        t1 = await c.record_turn("s", "I moved to Lisbon last month; Ana is there", "Lovely!")
        await c.flush_extraction()
        assert c.failures() == []
        hits = await c.recall("where does the user live", stages=["short_term"])
        kinds = {h.record.kind for h in hits}
        assert kinds == {MemoryKind.FACT, MemoryKind.INSIGHT, MemoryKind.SUMMARY}
        fact = next(h.record for h in hits if h.record.kind == MemoryKind.FACT)
        assert fact.metadata == {"subject": "user", "attribute": "city", "value": "Lisbon"}
        assert fact.provenance.parent_ids == (t1.id,)
        (user,) = await (await c.settled()).graph.find_entities("user")
        edges = await (await c.settled()).graph.relationships(user.id, direction="out")
        assert {(e.relation_type, e.attributes.get("exclusive", False)) for e in edges} == {
            ("lives_in", True),
            ("sibling", False),
        }


def _model_output(facts: frozenset[tuple[str, str, str, str]], text: str) -> str:
    """What a model following the prompt answers for a corpus statement: its labelled facts."""
    return dump(
        {
            "entities": [],
            "relationships": [],
            "facts": [
                {
                    "subject": subject,
                    "attribute": attribute,
                    "value": value,
                    "text": f"{subject}: {attribute} = {value} ({op}) — {text}",
                    "operation": op,
                    "previous": None,
                }
                for subject, attribute, value, op in sorted(facts)
            ],
            "insights": [],
            "summary": None,
        }
    )


async def test_the_corpus_through_a_scripted_model_keeps_updates_negations_and_corrections() -> (
    None
):
    from tests.extraction.corpus import fact, load

    corpus = load("statements") + load("heldout") + load("heldout2")
    brain = ScriptedBrain([_model_output(i.facts, i.text) for i in corpus])
    extractor = MemoryExtractor(brain)
    for n, item in enumerate(corpus):
        result = await extractor.extract([turn(n + 1, item.text)], context=CTX)
        got = {
            fact(m.subject or "", m.attribute or "", m.value or "", m.operation)
            for m in result.memories
        }
        assert got == set(item.facts), item.text
    assert len(brain.requests) == len(corpus)
    system = brain.requests[0].messages[0].content
    for phrase in ('"end"', '"correct"', "previous", "my friend moved to Berlin"):
        assert phrase in system
    schema = json.dumps(RESPONSE_FORMAT)
    assert '"operation"' in schema
    assert '"previous"' in schema


def test_the_schema_takes_operation_and_previous_and_rejects_an_unknown_operation() -> None:
    from remem.extraction import ExtractionOutput, to_result

    out = ExtractionOutput.model_validate(
        {
            "facts": [
                {
                    "subject": "user",
                    "attribute": "project",
                    "value": "Atlas",
                    "text": "The user renamed Orion to Atlas.",
                    "operation": "set",
                    "previous": "Orion",
                },
                {
                    "subject": "user",
                    "attribute": "diet",
                    "value": "keto",
                    "text": "The user stopped keto.",
                },
            ]
        }
    )
    renamed, ended = to_result(out).memories
    assert (renamed.operation, renamed.previous) == ("set", "Orion")
    assert (ended.operation, ended.previous) == ("set", None)  # omitted: a plain statement
    with pytest.raises(ValueError, match="operation"):
        ExtractionOutput.model_validate(
            {
                "facts": [
                    {
                        "subject": "user",
                        "attribute": "a",
                        "value": "b",
                        "text": "c",
                        "operation": "maybe",
                    }
                ]
            }
        )
