"""A Runtime on each backend (embedded default, PostgreSQL) and a snapshot of what it stores.

``memory`` is function-scoped (the measured cases); ``shared_memory`` is one Runtime per module
and backend on a long-lived event loop, for the hypothesis suite (hypothesis runs many examples
per test, so the stores are opened once). :func:`snapshot` reads everything a bad call could
have changed: records (every stage, superseded included), sessions and their turns, vector
counts per collection and the default namespace's blocks.
"""

from __future__ import annotations

import asyncio
import itertools
import os
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest

import remem
from remem.blocks import BlockEdit
from remem.errors import NotFoundError
from tests.postgres import _with_database

BACKENDS = ["embedded", pytest.param("postgres", marks=pytest.mark.postgres)]

_databases = itertools.count()


def _options(backend: str, dsn: str | None) -> dict[str, Any]:
    options: dict[str, Any] = {"embedding_provider": "hashing"}
    if backend == "postgres":
        options |= {"backend": "postgres", "dsn": dsn}
    return options


@pytest.fixture(params=BACKENDS)
async def memory(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[remem.Runtime]:
    """A started Runtime on ``request.param``'s backend, in ``tmp_path``."""
    dsn = request.getfixturevalue("pg_dsn") if request.param == "postgres" else None
    async with remem.Runtime.open(tmp_path / "memory", **_options(request.param, dsn)) as rt:
        yield rt


@dataclass
class Shared:
    """A Runtime and the event loop that owns it (hypothesis tests are sync: they ``run``)."""

    runtime: remem.Runtime
    runner: asyncio.Runner
    ids: dict[str, str]
    """Seeded memory ids: ``live`` and ``superseded`` (by ``live``)."""

    def run(self, coro: Any) -> Any:
        return self.runner.run(coro)


@pytest.fixture(scope="module", params=BACKENDS)
def shared_memory(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Shared]:
    """One Runtime per module and backend, seeded with a memory, a turn and a block entry."""
    dsn = None
    admin = None
    if request.param == "postgres":
        admin = request.getfixturevalue("pg_server")
        name = f"remem_hostile_{os.getpid()}_{next(_databases)}"
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        dsn = _with_database(admin, name)
    path = tmp_path_factory.mktemp("hostile") / "memory"
    runner = asyncio.Runner()
    runtime = remem.Runtime.open(path, **_options(request.param, dsn))
    try:
        runner.run(runtime.start())
        yield Shared(runtime, runner, runner.run(_seed(runtime)))
    finally:
        runner.run(runtime.aclose())
        runner.close()
        if admin is not None:
            with psycopg.connect(admin, autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


async def _seed(rt: remem.Runtime) -> dict[str, str]:
    first = await rt.controller.remember("Ana lives in Lisbon", namespace="default")
    second = await rt.controller.remember("Ana moved to Porto", namespace="default")
    await rt.controller.supersede(first.id, second.id)
    await rt.controller.record_turn("s1", "I like hiking", "Noted")
    blocks = await rt.blocks("default")
    await blocks.apply(blocks.labels[0], [BlockEdit.add("Ana likes hiking")])
    return {"live": second.id, "superseded": first.id}


async def snapshot(rt: remem.Runtime) -> dict[str, Any]:
    """Everything stored, in comparable form."""
    c = rt.controller
    stores = await c.settled()
    records = sorted(
        (
            r.id,
            r.text,
            r.kind.value,
            r.namespace,
            r.lifecycle.stage.value,
            r.superseded_by,
            str(r.valid_to),
            str(sorted(r.metadata.items())),
        )
        for r in await stores.records.scan(include_superseded=True)
    )  # not access counts or scores: a successful recall may flush those at any time
    sessions: dict[str, list[str]] = {}
    transcript = stores.transcript
    assert transcript is not None
    for session in await transcript.list_sessions():
        try:
            entries = await transcript.get_entries(session.session_id)
        except NotFoundError:
            entries = []
        sessions[session.session_id] = [e.model_dump_json() for e in entries]
    vectors = {
        info.name: await stores.vectors.count(info.name)
        for info in await stores.vectors.list_collections()
    }
    blocks = await rt.blocks("default")
    rendered = [blocks.block(label).render() for label in blocks.labels]
    return {"records": records, "sessions": sessions, "vectors": vectors, "blocks": rendered}
