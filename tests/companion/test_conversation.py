"""A full offline conversation with offline_brain: the right facts end in the blocks and graph."""

from __future__ import annotations

import remem
from remem.consolidation import MemoryConsolidator
from remem.extraction import RuleExtractor
from remem.models import ManualClock
from tests.companion.conversation import check_conversation, run_conversation
from tests.companion.doubles import LatestWinsConsolidator, PatternExtractor


async def test_offline_conversation_with_local_doubles(
    runtime: remem.Runtime, clock: ManualClock
) -> None:
    outcome = await run_conversation(runtime, clock, PatternExtractor(), LatestWinsConsolidator)
    check_conversation(outcome)


async def test_offline_conversation_with_the_rule_extractor(
    runtime: remem.Runtime, clock: ManualClock
) -> None:
    outcome = await run_conversation(runtime, clock, RuleExtractor(), LatestWinsConsolidator)
    check_conversation(outcome)


async def test_offline_conversation_with_the_real_extractor_and_consolidator(
    runtime: remem.Runtime, clock: ManualClock
) -> None:
    outcome = await run_conversation(
        runtime, clock, RuleExtractor(), lambda c: MemoryConsolidator(c, clock=clock)
    )
    check_conversation(outcome)
