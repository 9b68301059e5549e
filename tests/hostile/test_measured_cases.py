"""The untyped or silently accepted inputs measured in issue #16, each now a typed error.

Every case that touches a store runs on both backends (``memory``: embedded default and
PostgreSQL) and checks that the refused call changed nothing stored.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import remem
from remem import kernels
from remem.companion.prompt import CompanionPrompt
from remem.embeddings import HashingEmbedder
from remem.errors import (
    ConfigError,
    InvalidArgumentError,
    NonFiniteError,
    RememError,
)
from remem.stores.memory.simple import SimpleVectorStore
from tests.hostile.conftest import snapshot

SURROGATE = "ana\udc80"


async def refused(
    rt: remem.Runtime,
    call: Callable[[], Awaitable[Any]],
    error: type[RememError],
    *needles: str,
) -> RememError:
    """Run ``call``; it must raise ``error`` naming every needle and change nothing stored."""
    await rt.controller.remember("Ana lives in Lisbon")
    await rt.controller.record_turn("s1", "I like hiking", "Noted")
    before = await snapshot(rt)
    with pytest.raises(error) as info:
        await call()
    for needle in needles:
        assert needle in str(info.value), (needle, str(info.value))
    assert await snapshot(rt) == before
    return info.value


# -- session ids with a lone surrogate (were UnicodeEncodeError) ---------------------------------


async def test_record_turn_refuses_a_surrogate_session_id(memory: remem.Runtime) -> None:
    c = memory.controller
    await refused(
        memory, lambda: c.record_turn(SURROGATE, "hi", "yo"), InvalidArgumentError, "surrogate"
    )


@pytest.mark.parametrize("method", ["get_session", "get_entries", "delete_session"])
async def test_transcript_reads_refuse_a_surrogate_session_id(
    memory: remem.Runtime, method: str
) -> None:
    store = (await memory.controller.settled()).transcript
    assert store is not None
    await refused(
        memory,
        lambda: getattr(store, method)(SURROGATE),
        InvalidArgumentError,
        "session_id",
        "surrogate",
    )


# -- turn options ---------------------------------------------------------------------------------


@pytest.mark.parametrize("number", ["3", True, 0, 2**63, 1.0])
async def test_record_turn_refuses_a_bad_turn_number(memory: remem.Runtime, number: object) -> None:
    c = memory.controller
    await refused(
        memory,
        lambda: c.record_turn("s1", "hi", "yo", turn_number=number),  # type: ignore[arg-type]
        InvalidArgumentError,
        "turn_number",
        repr(number),
    )


async def test_record_turn_refuses_ten_megabytes(memory: remem.Runtime) -> None:
    c = memory.controller
    await refused(
        memory,
        lambda: c.record_turn("s2", "x" * 10_000_000, "ok"),
        InvalidArgumentError,
        "10000000",
        "1000000",
    )


async def test_record_turn_refuses_a_bad_created_at(memory: remem.Runtime) -> None:
    c = memory.controller
    await refused(
        memory,
        lambda: c.record_turn("s1", "hi", "yo", created_at="2026-01-01"),  # type: ignore[arg-type]
        InvalidArgumentError,
        "created_at",
    )


# -- memories -------------------------------------------------------------------------------------


async def test_forget_none_is_refused(memory: remem.Runtime) -> None:
    c = memory.controller
    await refused(memory, lambda: c.forget(None), InvalidArgumentError, "forget", "None")  # type: ignore[arg-type]


async def test_supersede_of_a_deleted_memory_is_refused(memory: remem.Runtime) -> None:
    c = memory.controller
    gone = await c.remember("Ana lived in Berlin")
    await c.forget([gone.id])
    new = await c.remember("Ana lives in Porto")
    await refused(memory, lambda: c.supersede(gone.id, new.id), InvalidArgumentError, gone.id)


async def test_a_vector_whose_norm_overflows_is_refused(memory: remem.Runtime) -> None:
    c = memory.controller
    dim = c.collection_manager.embeddings.dimension
    huge = np.full(dim, 1e38, dtype=np.float32)
    await refused(
        memory, lambda: c.remember("big", vector=huge), NonFiniteError, "vector[0]", "overflows"
    )
    await refused(
        memory,
        lambda: c.remember_many(["a", "b"], vectors=np.stack([huge / 1e38, huge])),
        NonFiniteError,
        "vectors[1]",
    )


# -- recall ---------------------------------------------------------------------------------------


async def test_a_filter_nested_five_thousand_levels_is_refused(memory: remem.Runtime) -> None:
    nest: dict[str, object] = {"kind": "fact"}
    for _ in range(5000):
        nest = {"$and": [nest]}
    c = memory.controller
    await refused(memory, lambda: c.recall("Ana", filters=nest), InvalidArgumentError, "32")


async def test_unknown_filter_keys_are_refused(memory: remem.Runtime) -> None:
    c = memory.controller
    await refused(
        memory,
        lambda: c.recall("Ana", filters={"colour": "red"}),
        InvalidArgumentError,
        "colour",
        "namespace",
    )
    hits = await c.recall("Ana Lisbon", filters={"namespace": "default", "kind": "fact"})
    assert hits, "a filter on a supported field still recalls"


async def test_k_two_to_the_64_is_refused(memory: remem.Runtime) -> None:
    c = memory.controller
    await refused(memory, lambda: c.recall("Ana", k=2**64), InvalidArgumentError, str(2**64))


# -- lifecycle, blocks, runtime ------------------------------------------------------------------


async def test_lifecycle_preview_refuses_a_str_now(memory: remem.Runtime) -> None:
    lifecycle = memory.lifecycle
    assert lifecycle is not None
    await refused(
        memory,
        lambda: lifecycle.preview(now="x"),  # type: ignore[arg-type]
        InvalidArgumentError,
        "now",
        "'x'",
    )


async def test_lifecycle_execute_refuses_none(memory: remem.Runtime) -> None:
    lifecycle = memory.lifecycle
    assert lifecycle is not None
    await refused(
        memory,
        lambda: lifecycle.execute(None),  # type: ignore[arg-type]
        InvalidArgumentError,
        "LifecyclePlan",
        "NoneType",
    )


async def test_blocks_refuses_a_str_config(memory: remem.Runtime) -> None:
    await refused(
        memory,
        lambda: memory.blocks("ada", "x"),  # type: ignore[arg-type]
        InvalidArgumentError,
        "CoreMemoryConfig",
    )


async def test_runtime_open_on_a_file_is_a_config_error(tmp_path: Path) -> None:
    file = tmp_path / "notes.txt"
    file.write_text("not a directory")
    with pytest.raises(ConfigError, match=r"notes\.txt"):
        async with remem.Runtime.open(file, embedding_provider="hashing"):
            pass
    assert file.read_text() == "not a directory"


# -- SimpleVectorStore ----------------------------------------------------------------------------


class Embeddings:
    """The LangChain-style embedding function SimpleVectorStore takes."""

    def __init__(self) -> None:
        self._hashing = HashingEmbedder(dimension=16)

    async def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [(await self._hashing.embed_query(t)).tolist() for t in texts]

    async def embed_query(self, text: str) -> list[float]:
        return (await self._hashing.embed_query(text)).tolist()  # type: ignore[no-any-return]


async def test_simple_vector_store_refuses_none_and_non_str_texts() -> None:
    async with SimpleVectorStore(Embeddings()) as store:
        await store.add_documents(["kept"], ids=["a"])
        for bad in (None, "one string", [1, 2]):
            with pytest.raises(InvalidArgumentError, match="texts"):
                await store.add_documents(bad)  # type: ignore[arg-type]
        with pytest.raises(InvalidArgumentError, match="n_results"):
            await store.query("kept", n_results="3")  # type: ignore[arg-type]
        assert await store.count() == 1


# -- kernels façade and companion ----------------------------------------------------------------

ROWS = np.eye(4, dtype=np.float32)


@pytest.mark.parametrize("k", ["3", 1.5, True, 2**64, -(2**64)])
def test_top_k_refuses_a_non_int64_k(k: object) -> None:
    with pytest.raises(InvalidArgumentError, match="k"):
        kernels.top_k(ROWS[0], ROWS, k)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="k"):
        kernels.QuantizedIndex(ROWS).search(ROWS[0], k)  # type: ignore[arg-type]


@pytest.mark.parametrize("budget", ["x", 1.5, None, 2**64])
def test_select_within_budget_refuses_a_non_int64_budget(budget: object) -> None:
    with pytest.raises(InvalidArgumentError, match="budget"):
        kernels.select_within_budget([1, 2], [1.0, 2.0], budget)  # type: ignore[arg-type]


@pytest.mark.parametrize("k", ["x", 2**64, 2.0])
def test_bm25_refuses_a_non_int64_k(k: object) -> None:
    with pytest.raises(InvalidArgumentError, match="k"):
        kernels.bm25_top_k([0, 1], [0], [1], [1], [0], [1.0], avgdl=1.0, k=k)  # type: ignore[arg-type]


@pytest.mark.parametrize(("n_docs", "df"), [(1, 5), (3, -1), ("3", 1), (2**64, 1)])
def test_fts5_idf_refuses_impossible_counts(n_docs: object, df: object) -> None:
    with pytest.raises(InvalidArgumentError):
        kernels.fts5_idf(n_docs, df)  # type: ignore[arg-type]
    assert kernels.fts5_idf(5, 3) == 1e-6  # the documented floor still holds


def test_kernel_scalar_checks_keep_valid_calls_working() -> None:
    idx, _ = kernels.top_k(ROWS[0], ROWS, np.int64(2))  # type: ignore[arg-type]
    assert idx.tolist()[0] == 0
    assert kernels.select_within_budget([1, 2], [1.0, 2.0], 3).tolist() == [0, 1]


def test_section_text_refuses_an_unknown_section() -> None:
    prompt = CompanionPrompt.__new__(CompanionPrompt)
    with pytest.raises(InvalidArgumentError, match="'system'") as info:
        prompt.section_text("system")
    assert "core_memory" in str(info.value)
