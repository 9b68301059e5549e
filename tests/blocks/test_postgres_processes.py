"""Two processes editing one PostgreSQL block at once: conflicts are retried, nothing is lost."""

from __future__ import annotations

import asyncio
import os
import sys
import textwrap

import pytest

from remem.blocks import CoreMemory
from remem.stores.postgres.blocks import PostgresBlockStore

pytestmark = pytest.mark.postgres

WRITER = textwrap.dedent(
    """
    import asyncio, hashlib, sys
    from remem.blocks import BlockConflictError, BlockEdit, CoreMemory
    from remem.stores.postgres.blocks import PostgresBlockStore

    async def main(dsn: str, name: str) -> None:
        async with PostgresBlockStore(dsn) as store:
            memory = await CoreMemory.load(store, "ada")
            for i in range(15):
                fact = hashlib.sha256(f"{name}{i}".encode()).hexdigest()[:32]
                while True:
                    try:
                        await memory.apply("user", [BlockEdit.add(fact)], actor=name)
                        break
                    except BlockConflictError:
                        await memory.reload()

    asyncio.run(main(sys.argv[1], sys.argv[2]))
    """
)


async def test_two_writer_processes_lose_nothing(pg_dsn: str) -> None:
    async with PostgresBlockStore(pg_dsn):  # apply migrations before the race
        pass
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    procs = [
        await asyncio.create_subprocess_exec(sys.executable, "-c", WRITER, pg_dsn, name, env=env)
        for name in ("p", "q")
    ]
    codes = await asyncio.wait_for(asyncio.gather(*(p.wait() for p in procs)), 120)
    assert codes == [0, 0]
    async with PostgresBlockStore(pg_dsn) as store:
        memory = await CoreMemory.load(store, "ada")
        entries = memory.block("user").entries
        assert len(entries) == 30
        history = await store.history("ada", "user")
        assert [h.revision for h in history] == list(range(1, 31))
        assert sorted(h.after or "" for h in history) == sorted(entries)
