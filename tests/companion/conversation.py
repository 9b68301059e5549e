"""The offline conversation shared by the embedded and PostgreSQL tests: ten turns over eight
simulated days (a city, a new job, a sister, a dog, a move, another move), then the checks."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import remem
from remem.companion import Companion, offline_brain
from remem.companion.protocols import Consolidator
from remem.controller import Extractor, MemoryController
from remem.models import ManualClock

DAYS: tuple[tuple[int, tuple[str, ...]], ...] = (
    (0, ("Hi! I live in Berlin and I love it.", "My sister's name is Maya.")),
    (1, ("I started a new job at Initech last week.", "I adopted a dog named Rex.")),
    (3, ("I just moved to Lisbon!", "Where do I live?")),
    (7, ("We moved to Porto yesterday.", "The weather here is lovely.", "Where do I live?")),
)
"""(day offset, user messages of that day's session). Day 0 is a Friday; "yesterday" on day 7
is after the move to Lisbon on day 3, so validity order and telling order agree (the
consolidator orders by validity: "last weekend" would have dated Porto before Lisbon)."""

QUIZ = {
    "Where do I live?": "Porto",
    "Where do I work?": "Initech",
    "What is my sister's name?": "Maya",
    "What is my dog's name?": "Rex",
}


async def run_conversation(
    runtime: remem.Runtime,
    clock: ManualClock,
    extractor: Extractor,
    consolidator: Callable[[MemoryController], Consolidator],
) -> dict[str, Any]:
    """Talk, then return what the checks need: replies, answers, block entries, graph facts."""
    companion = Companion(
        offline_brain(), runtime, extractor=extractor, consolidator=consolidator(runtime.controller)
    )
    start = clock.now()
    replies: dict[str, list[str]] = {}
    for day, messages in DAYS:
        clock.set(start + timedelta(days=day, hours=9))
        for message in messages:
            result = await companion.turn(message, session_id=f"day{day}")
            assert result.failures == (), result.failures
            assert result.unresolved_block_errors == ()
            replies.setdefault(message, []).append(result.reply)
            clock.advance(timedelta(minutes=3))
    answers = {q: await companion.answer(q, session_id="quiz") for q in QUIZ}
    blocks = await runtime.blocks()
    graph = (await runtime.controller.settled()).graph
    (user,) = await graph.find_entities("user")
    rels = await graph.relationships(user.id, direction="out", include_superseded=True)
    names = {e.id: e.name for e in await graph.get_entities([r.target_id for r in rels])}
    facts = [
        (r.relation_type, names[r.target_id], r.superseded_by is None and r.valid_to is None)
        for r in rels
    ]
    return {
        "replies": replies,
        "answers": answers,
        "user_block": blocks.block("user").entries,
        "facts": facts,
    }


def check_conversation(outcome: dict[str, Any]) -> None:
    """The current facts are in the user block and the graph; the stale cities are not current."""
    replies = outcome["replies"]
    assert "Lisbon" in replies["Where do I live?"][0]
    assert "Porto" in replies["Where do I live?"][1]
    for question, expected in QUIZ.items():
        assert expected in outcome["answers"][question], (question, outcome["answers"])
    block = " | ".join(outcome["user_block"])
    for value in ("Porto", "Initech", "Maya", "Rex"):
        assert value in block, block
    assert "Berlin" not in block, block
    assert "Lisbon" not in block, block
    facts = outcome["facts"]
    current = {(rel, target) for rel, target, live in facts if live}
    stale = {(rel, target) for rel, target, live in facts if not live}
    assert {
        ("lives_in", "Porto"),
        ("works_at", "Initech"),
        ("sibling", "Maya"),
        ("has_pet", "Rex"),
    } <= current
    assert {("lives_in", "Berlin"), ("lives_in", "Lisbon")} <= stale
    assert [t for rel, t in current if rel == "lives_in"] == ["Porto"]
