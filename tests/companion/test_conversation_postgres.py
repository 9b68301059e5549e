"""The offline conversation on PostgreSQL (blocks, transcript, records, graph in the database),
with the real RuleExtractor and MemoryConsolidator."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

import remem
from remem.consolidation import MemoryConsolidator
from remem.extraction import RuleExtractor
from remem.models import ManualClock
from tests.companion.conversation import check_conversation, run_conversation

pytestmark = pytest.mark.postgres


async def test_offline_conversation_on_postgres(tmp_path: Path, pg_dsn: str) -> None:
    clock = ManualClock(datetime(2026, 5, 1, 9, 0, tzinfo=UTC))
    async with remem.Runtime.open(tmp_path, clock=clock, backend="postgres", dsn=pg_dsn) as rt:
        outcome = await run_conversation(
            rt, clock, RuleExtractor(), lambda c: MemoryConsolidator(c, clock=clock)
        )
        assert await rt.block_store.labels("default") == ["user"]
    check_conversation(outcome)
    async with remem.Runtime.open(tmp_path, clock=clock, backend="postgres", dsn=pg_dsn) as rt:
        assert (await rt.blocks()).block("user").entries == outcome["user_block"]  # persisted
