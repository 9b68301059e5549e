"""The transcript and vector stores refuse the same bad input with the same typed error.

Their arguments are checked once, in :mod:`remem.stores.base.transcript` and
:mod:`remem.stores.base.vector`; these tests hold that on real backends (a SQLite file and a real
PostgreSQL for transcripts; hnswlib on a DuckDB file, the in-memory store and pgvector for
vectors): each bad call raises the listed :class:`~remem.errors.RememError` subclass, with one
message on every backend, and changes nothing stored. Names and ids are checked before the
collection is looked up, so an unknown collection does not hide a bad id or a bad ``k``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from remem.errors import (
    DimensionMismatchError,
    DuplicateIdError,
    InvalidArgumentError,
    NonFiniteError,
    NotFoundError,
    RememError,
    ShapeError,
    StoreClosedError,
)
from remem.models import TranscriptEntry, TranscriptSession
from remem.stores.hnsw import HnswVectorStore
from remem.stores.memory.vector import MemoryVectorStore
from remem.stores.postgres.transcript import PostgresTranscriptStore
from remem.stores.postgres.vector import PgVectorStore
from remem.stores.sqlite.transcript import SQLiteTranscriptStore

SURROGATE = "\ud800"
IAE = InvalidArgumentError
T0 = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
D = 4
V1 = np.ones((1, D), dtype=np.float32)


@dataclass(frozen=True)
class Case:
    name: str
    call: Callable[[Any], Awaitable[object]]
    error: type[RememError]
    match: str


def turn(n: int, session: str = "s1") -> TranscriptEntry:
    return TranscriptEntry(
        id=f"{session}-{n}", session_id=session, turn_number=n, user_message="u", created_at=T0
    )


TRANSCRIPT_CASES = [
    Case("create None", lambda s: s.create_session(None), IAE, "TranscriptSession"),
    Case("create a dict", lambda s: s.create_session({"session_id": "x"}), IAE, "dict"),
    Case("get surrogate", lambda s: s.get_session(SURROGATE), IAE, "surrogate"),
    Case("get int", lambda s: s.get_session(3), IAE, "session_id"),
    Case("get empty", lambda s: s.get_session(""), IAE, "non-empty"),
    Case("get too long", lambda s: s.get_session("x" * 513), IAE, "at most 512"),
    Case("get unknown", lambda s: s.get_session("nope"), NotFoundError, "create_session"),
    Case("delete None", lambda s: s.delete_session(None), IAE, "session_id"),
    Case("delete surrogate", lambda s: s.delete_session(SURROGATE), IAE, "surrogate"),
    Case("delete unknown", lambda s: s.delete_session("nope"), NotFoundError, "does not exist"),
    Case("list namespace int", lambda s: s.list_sessions(namespace=3), IAE, "namespace"),
    Case("list namespace []", lambda s: s.list_sessions(namespace=[]), IAE, "empty list"),
    Case("list namespace surrogate", lambda s: s.list_sessions(namespace=SURROGATE), IAE, "sur"),
    Case("append None", lambda s: s.append_entries(None), IAE, "sequence of TranscriptEntry"),
    Case("append a str", lambda s: s.append_entries("abc"), IAE, "sequence of TranscriptEntry"),
    Case("append [1]", lambda s: s.append_entries([1]), IAE, r"entries\[0\]"),
    Case("append_entry None", lambda s: s.append_entry(None), IAE, r"entries\[0\]"),
    Case("append unknown", lambda s: s.append_entry(turn(1, "nope")), NotFoundError, "nope"),
    Case("append dup", lambda s: s.append_entries([turn(9), turn(9)]), DuplicateIdError, "id"),
    Case("entries surrogate", lambda s: s.get_entries(SURROGATE), IAE, "surrogate"),
    Case("entries since -1", lambda s: s.get_entries("s1", since_turn=-1), IAE, "since_turn"),
    Case("entries limit str", lambda s: s.get_entries("s1", limit="3"), IAE, "limit"),
    Case("entries limit bool", lambda s: s.get_entries("s1", limit=True), IAE, "limit"),
    Case("entries limit 2**64", lambda s: s.get_entries("s1", limit=2**64), IAE, "limit"),
    Case("entries unknown", lambda s: s.get_entries("nope"), NotFoundError, "does not exist"),
]

VECTOR_CASES = [
    Case("get_collection None", lambda s: s.get_collection(None), IAE, "collection"),
    Case("get_collection surrogate", lambda s: s.get_collection(SURROGATE), IAE, "surrogate"),
    Case("get_collection unknown", lambda s: s.get_collection("nope"), NotFoundError, "nope"),
    Case("delete_collection int", lambda s: s.delete_collection(3), IAE, "collection"),
    Case("delete_collection unknown", lambda s: s.delete_collection("no"), NotFoundError, "no"),
    Case("add ids str", lambda s: s.add("c", "abc", V1), IAE, "single string"),
    Case("add ids None", lambda s: s.add("c", None, V1), IAE, "list of strings"),
    Case("add surrogate id", lambda s: s.add("c", [SURROGATE], V1), IAE, "surrogate"),
    Case("add id twice", lambda s: s.add("c", ["x", "x"], np.ones((2, D))), DuplicateIdError, "x"),
    Case("add existing", lambda s: s.add("c", ["a"], V1), DuplicateIdError, "upsert"),
    Case("add bad id, no collection", lambda s: s.add("nope", [1], V1), IAE, "non-empty"),
    Case("add to unknown", lambda s: s.add("nope", ["x"], V1), NotFoundError, "nope"),
    Case(
        "add dimension", lambda s: s.add("c", ["x"], np.ones((1, 3))), DimensionMismatchError, "dim"
    ),
    Case("add NaN", lambda s: s.add("c", ["x"], V1 * np.nan), NonFiniteError, "NaN"),
    Case("add 1e38", lambda s: s.add("c", ["x"], V1 * 1e38), NonFiniteError, "overflows"),
    Case("add rows", lambda s: s.add("c", ["x", "y"], V1), ShapeError, "rows"),
    Case(
        "add ragged",
        lambda s: s.add("c", ["x", "y"], [[1.0] * D, [1.0]]),
        ShapeError,
        "rectangular",
    ),
    Case("add documents", lambda s: s.add("c", ["x"], V1, documents=[3]), IAE, "documents"),
    Case("upsert surrogate", lambda s: s.upsert("c", [SURROGATE], V1), IAE, "surrogate"),
    Case("delete None", lambda s: s.delete("c", None), IAE, "list of strings"),
    Case("delete int id", lambda s: s.delete("c", [1]), IAE, "non-empty"),
    Case("get surrogate", lambda s: s.get("c", [SURROGATE]), IAE, "surrogate"),
    Case("get collection int", lambda s: s.get(7, ["a"]), IAE, "collection"),
    Case("count where list", lambda s: s.count("c", where=[1]), IAE, "where must be a dict"),
    Case(
        "count where op",
        lambda s: s.count("c", where={"n": {"$bogus": 1}}),
        IAE,
        "unknown operator",
    ),
    Case("query k 0", lambda s: s.query("c", V1, k=0), IAE, "k must be"),
    Case("query k bool", lambda s: s.query("c", V1, k=True), IAE, "k must be"),
    Case("query k str", lambda s: s.query_ids("c", V1, k="3"), IAE, "k must be"),
    Case("query k 0, no collection", lambda s: s.query("nope", V1, k=0), IAE, "k must be"),
    Case("query where, no collection", lambda s: s.query("no", V1, where=[1]), IAE, "where must"),
    Case("query dimension", lambda s: s.query("c", [1.0, 2.0]), DimensionMismatchError, "dim"),
    Case("query inf", lambda s: s.query_ids("c", V1 * np.inf), NonFiniteError, "NaN"),
    Case("query unknown", lambda s: s.query_ids("nope", V1), NotFoundError, "nope"),
]


# -- fixtures ----------------------------------------------------------------------------------


async def _transcript(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> Any:
    if backend == "sqlite":
        store: Any = SQLiteTranscriptStore(tmp_path / "transcript.db")
    else:
        store = PostgresTranscriptStore(request.getfixturevalue("pg_dsn"))
    await store.open()
    await store.create_session(TranscriptSession(session_id="s1", created_at=T0))
    await store.append_entries([turn(1), turn(2)])
    return store


async def _vectors(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> Any:
    if backend == "hnsw":
        store: Any = HnswVectorStore(tmp_path / "vectors")
    elif backend == "memory":
        store = MemoryVectorStore()
    else:
        store = PgVectorStore(request.getfixturevalue("pg_dsn"))
    await store.open()
    # A fresh collection name per store: the PostgreSQL database is shared by a session.
    if any(c.name == "c" for c in await store.list_collections()):
        await store.delete_collection("c")
    await store.create_collection("c", model_name="m", dimension=D)
    await store.add("c", ["a", "b"], np.eye(2, D, dtype=np.float32), metadatas=[{"n": 1}, {}])
    return store


async def _transcript_snapshot(store: Any) -> object:
    sessions = await store.list_sessions()
    return sessions, [await store.get_entries(s.session_id) for s in sessions]


async def _vector_snapshot(store: Any) -> object:
    items = await store.get("c", ["a", "b", "x", "y"])
    return await store.list_collections(), [(i.id, i.vector, i.metadata) for i in items]


TRANSCRIPTS = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
VECTORS = ["hnsw", "memory", pytest.param("postgres", marks=pytest.mark.postgres)]


@pytest.fixture(params=TRANSCRIPTS)
async def transcript(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Any]:
    store = await _transcript(request.param, tmp_path, request)
    try:
        yield store
    finally:
        await store.aclose()


@pytest.fixture(params=VECTORS)
async def vectors(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Any]:
    store = await _vectors(request.param, tmp_path, request)
    try:
        yield store
    finally:
        await store.aclose()


# -- the cases ---------------------------------------------------------------------------------


@pytest.mark.parametrize("case", TRANSCRIPT_CASES, ids=[c.name for c in TRANSCRIPT_CASES])
async def test_a_bad_transcript_call_raises_the_typed_error_and_writes_nothing(
    transcript: Any, case: Case
) -> None:
    before = await _transcript_snapshot(transcript)
    with pytest.raises(case.error, match=case.match):
        await case.call(transcript)
    assert await _transcript_snapshot(transcript) == before


@pytest.mark.parametrize("case", VECTOR_CASES, ids=[c.name for c in VECTOR_CASES])
async def test_a_bad_vector_call_raises_the_typed_error_and_writes_nothing(
    vectors: Any, case: Case
) -> None:
    before = await _vector_snapshot(vectors)
    with pytest.raises(case.error, match=case.match):
        await case.call(vectors)
    assert await _vector_snapshot(vectors) == before


async def _said(store: Any, cases: list[Case]) -> list[tuple[str, str]]:
    said = []
    for case in cases:
        with pytest.raises(RememError) as caught:
            await case.call(store)
        said.append((type(caught.value).__name__, str(caught.value)))
    return said


@pytest.mark.postgres
async def test_both_transcripts_say_the_same_thing(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    said = {}
    for backend in ("sqlite", "postgres"):
        store = await _transcript(backend, tmp_path, request)
        try:
            said[backend] = await _said(store, TRANSCRIPT_CASES)
        finally:
            await store.aclose()
    # A duplicate's message quotes the backend's constraint; every other message is one text.
    dup = [c.name for c in TRANSCRIPT_CASES].index("append dup")
    assert said["sqlite"][dup][0] == said["postgres"][dup][0] == "DuplicateIdError"
    del said["sqlite"][dup], said["postgres"][dup]
    assert said["sqlite"] == said["postgres"]
    assert len(said["sqlite"]) == len(TRANSCRIPT_CASES) - 1


@pytest.mark.postgres
async def test_every_vector_store_says_the_same_thing(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    said = {}
    for backend in ("hnsw", "memory", "postgres"):
        store = await _vectors(backend, tmp_path, request)
        try:
            said[backend] = await _said(store, VECTOR_CASES)
        finally:
            await store.aclose()
    assert said["hnsw"] == said["memory"] == said["postgres"]
    assert len(said["hnsw"]) == len(VECTOR_CASES)


async def test_a_k_beyond_any_collection_answers_like_a_large_one(vectors: Any) -> None:
    ten = await vectors.query_ids("c", V1, k=10)
    assert [h.id for h in ten[0]] == ["a", "b"]
    for k in (2**31, 2**63, 2**64):
        assert await vectors.query_ids("c", V1, k=k) == ten
        assert len((await vectors.query("c", V1, k=k))[0]) == 2


@pytest.mark.parametrize("backend", ["sqlite", "hnsw", "memory"])
async def test_a_closed_store_refuses_before_it_checks_arguments(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    if backend == "sqlite":
        store = await _transcript(backend, tmp_path, request)
        await store.aclose()
        with pytest.raises(StoreClosedError):
            await store.get_session(SURROGATE)
        with pytest.raises(StoreClosedError):
            await store.append_entries(None)
    else:
        store = await _vectors(backend, tmp_path, request)
        await store.aclose()
        with pytest.raises(StoreClosedError):
            await store.get("c", [SURROGATE])
        with pytest.raises(StoreClosedError):
            await store.query("nope", V1, k=0)
