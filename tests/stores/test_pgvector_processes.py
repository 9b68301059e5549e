"""Two processes adding to one PostgreSQL collection at once lose nothing and duplicate nothing."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap

import pytest

from remem.stores.postgres.vector import PgVectorStore

pytestmark = pytest.mark.postgres

_WRITER = textwrap.dedent(
    """
    import asyncio, sys
    import numpy as np
    from remem.stores.postgres.vector import PgVectorStore

    async def main(dsn: str, tag: str) -> None:
        async with PgVectorStore(dsn) as store:
            for b in range(15):
                # Every batch re-opens the collection, as independent clients do, so opening
                # races with the other process's writes (this once deadlocked).
                await store.create_collection("shared", model_name="m", dimension=8)
                ids = [f"{tag}-{b}-{i}" for i in range(40)]
                vecs = np.random.default_rng(b).standard_normal((40, 8)).astype(np.float32)
                await store.add("shared", ids, vecs, metadatas=[{"tag": tag}] * 40)

    asyncio.run(main(sys.argv[1], sys.argv[2]))
    """
)


def test_two_writer_processes(pg_dsn: str) -> None:
    async def create() -> None:
        async with PgVectorStore(pg_dsn) as store:
            await store.create_collection("shared", model_name="m", dimension=8)

    asyncio.run(create())
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _WRITER, pg_dsn, tag], stderr=subprocess.PIPE, text=True
        )
        for tag in ("a", "b")
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err

    async def check() -> None:
        async with PgVectorStore(pg_dsn) as store:
            assert await store.count("shared") == 2 * 15 * 40
            assert await store.count("shared", where={"tag": "a"}) == 15 * 40
            ids = [f"{t}-{b}-{i}" for t in "ab" for b in range(15) for i in range(40)]
            items = await store.get("shared", ids)
            assert [item.id for item in items] == ids

    asyncio.run(check())
