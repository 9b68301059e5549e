"""The offline conversation on PostgreSQL (blocks, transcript, records, graph in the database)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

import remem
from remem.models import ManualClock
from tests.companion.conversation import check_conversation, run_conversation
from tests.companion.doubles import LatestWinsConsolidator, PatternExtractor

pytestmark = pytest.mark.postgres


async def test_offline_conversation_on_postgres(tmp_path: Path, pg_dsn: str) -> None:
    clock = ManualClock(datetime(2026, 5, 1, 9, 0, tzinfo=UTC))
    async with remem.Runtime.open(tmp_path, clock=clock, backend="postgres", dsn=pg_dsn) as rt:
        outcome = await run_conversation(rt, clock, PatternExtractor(), LatestWinsConsolidator)
        assert await rt.block_store.labels("default") == ["user"]
    check_conversation(outcome)
    async with remem.Runtime.open(tmp_path, clock=clock, backend="postgres", dsn=pg_dsn) as rt:
        assert (await rt.blocks()).block("user").entries == outcome["user_block"]  # persisted
