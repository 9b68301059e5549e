"""MemoryService over a real embedded Runtime (SQLite, DuckDB, hnswlib files in tmp_path)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from remem.errors import (
    BudgetError,
    ConfigError,
    InvalidArgumentError,
    NotFoundError,
    StoreClosedError,
    UnknownScopeError,
)
from remem.extraction import RuleExtractor
from remem.service import MemoryService, ServiceConfig


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[MemoryService]:
    config = ServiceConfig(namespaces=("default", "ana", "bob"))
    async with MemoryService.open(tmp_path / "m", config, embedding_provider="hashing") as svc:
        yield svc


async def test_recall_is_scoped_to_the_namespace(service: MemoryService) -> None:
    await service.remember("Ana lives in Lisbon", namespace="ana")
    await service.remember("Bob's secret: he lives in Paris", namespace="bob")
    ana = await service.recall("where does Bob live? Paris secret", namespace="ana")
    assert [h.memory.text for h in ana.hits] == ["Ana lives in Lisbon"]
    bob = await service.recall("where does Bob live?", namespace="bob")
    assert bob.hits[0].memory.text == "Bob's secret: he lives in Paris"
    assert bob.hits[0].memory.namespace == "bob"
    assert bob.hits[0].explanation


async def test_unknown_and_malformed_scopes_are_refused(service: MemoryService) -> None:
    with pytest.raises(UnknownScopeError, match="not served"):
        await service.recall("x", namespace="carol")
    with pytest.raises(InvalidArgumentError, match="non-empty"):
        await service.remember("x", namespace="")
    with pytest.raises(InvalidArgumentError, match="at most"):
        await service.remember("x", namespace="n" * 500)
    assert (await service.recall("anything")).namespace == "default"


async def test_forget_only_inside_the_namespace_and_all_or_nothing(
    service: MemoryService,
) -> None:
    ana = await service.remember("Ana likes tea", namespace="ana")
    bob = await service.remember("Bob likes coffee", namespace="bob")
    with pytest.raises(NotFoundError, match="namespace 'ana'"):
        await service.forget([ana.id, bob.id], namespace="ana")
    assert [h.memory.id for h in (await service.recall("likes tea", namespace="ana")).hits] == [
        ana.id
    ]
    assert (await service.forget([ana.id], namespace="ana")).forgotten == 1
    assert (await service.recall("likes tea", namespace="ana")).hits == []
    assert (await service.recall("coffee", namespace="bob")).hits[0].memory.id == bob.id


async def test_turns_sessions_and_transcripts(service: MemoryService) -> None:
    first = await service.record_turn("s1", "I moved to Lisbon", "Noted!")
    await service.record_turn("s1", "I adopted a cat", "Lovely")
    await service.record_turn("s2", "hello", "hi")
    assert first.turn_number == 1
    sessions = await service.list_sessions()
    assert [s.session_id for s in sessions.sessions] == ["s1", "s2"]
    page = await service.get_transcript("s1", since_turn=1)
    assert [t.user_message for t in page.turns] == ["I adopted a cat"]
    with pytest.raises(NotFoundError):
        await service.get_transcript("nope")
    with pytest.raises(InvalidArgumentError, match="limit"):
        await service.get_transcript("s1", limit=0)


async def test_get_context_packs_blocks_history_and_recall_under_the_budget(
    service: MemoryService,
) -> None:
    await service.core_memory_add("user", "Name: Ana", namespace="ana")
    await service.remember("Ana lives in Lisbon", namespace="ana")
    await service.record_turn("s1", "I like green tea", "Noted", namespace="ana")
    ctx = await service.get_context(
        "where does Ana live?", namespace="ana", session_id="s1", budget=400
    )
    assert "Name: Ana" in ctx.text
    assert "Ana lives in Lisbon" in ctx.text
    assert "I like green tea" in ctx.text
    assert ctx.tokens <= ctx.budget == 400
    assert "budget 400" in ctx.explanation
    assert {i.section for i in ctx.items if i.kept} >= {"core_memory", "short_term"}
    with pytest.raises(BudgetError):
        await service.get_context("where does Ana live?", namespace="ana", budget=20)


async def test_core_memory_edits_and_a_full_block_returns_its_contents(
    service: MemoryService,
) -> None:
    added = await service.core_memory_add("user", "Lives in Berlin", namespace="ana")
    assert added.ok
    assert added.block.entries == ["Lives in Berlin"]
    replaced = await service.core_memory_replace(
        "user", "Berlin", "Lives in Lisbon", namespace="ana"
    )
    assert replaced.block.entries == ["Lives in Lisbon"]
    full = await service.core_memory_add("user", "x" * 5000, namespace="ana")
    assert not full.ok
    assert full.error == "BlockFullError"
    assert "Lives in Lisbon" in full.message
    assert full.block.entries == ["Lives in Lisbon"]
    missing = await service.core_memory_remove("user", "Tokyo", namespace="ana")
    assert not missing.ok
    assert missing.error == "EntryNotFoundError"
    assert (await service.core_memory(namespace="bob"))[0].entries == []
    with pytest.raises(InvalidArgumentError, match="no 'nope' block"):
        await service.core_memory_add("nope", "x", namespace="ana")


async def test_bad_arguments_raise_typed_errors(service: MemoryService) -> None:
    with pytest.raises(InvalidArgumentError, match="k must be"):
        await service.recall("x", k=0)
    with pytest.raises(InvalidArgumentError, match="query"):
        await service.recall("   ")
    with pytest.raises(InvalidArgumentError, match="ids"):
        await service.forget([])
    with pytest.raises(InvalidArgumentError, match="stores at most"):
        await service.remember("x" * 200_000)


async def test_close_drains_then_refuses(tmp_path: Path) -> None:
    path = tmp_path / "m"
    svc = MemoryService.open(path, embedding_provider="hashing")
    async with svc:
        memory = await svc.remember("kept across a restart")
        await svc.record_turn("s1", "a turn", "kept too")
    with pytest.raises(StoreClosedError, match="shutting down"):
        await svc.recall("kept")
    async with MemoryService.open(path, embedding_provider="hashing") as again:
        assert (await again.recall("kept across a restart")).hits[0].memory.id == memory.id
        assert len((await again.get_transcript("s1")).turns) == 1


def test_config_is_validated() -> None:
    with pytest.raises(ConfigError, match="default namespace"):
        ServiceConfig(namespace="x", namespaces=("a",))
    with pytest.raises(ConfigError, match="max_k"):
        ServiceConfig(max_k=0)


async def test_close_runs_pending_extraction_before_the_runtime_closes(tmp_path: Path) -> None:
    from remem.controller.config import ControllerConfig, ExtractionConfig
    from remem.extraction.rules import RuleExtractor

    path = tmp_path / "m"
    waits = ControllerConfig(extraction=ExtractionConfig(interval=50))  # nothing extracts early
    svc = MemoryService.open(
        path, embedding_provider="hashing", extractor=RuleExtractor(), controller=waits
    )
    async with svc:
        await svc.record_turn("s1", "I moved to Lisbon last month", "Nice!")
        assert svc.runtime.controller.pending_extraction == 1
    async with MemoryService.open(path, embedding_provider="hashing") as again:
        hits = (await again.recall("where does the user live")).hits
        extracted = [h.memory.text for h in hits if h.memory.stage != "episodic"]
        assert any("Lisbon" in text for text in extracted), [h.memory.text for h in hits]


async def test_get_context_offers_memories_as_the_companion_does(tmp_path: Path) -> None:
    """Dated, a value no longer held marked earlier (or dropped, or shown as recalled) and a
    short message shown with the user's next one — with the Runtime's extractor superseding
    the old fact as soon as its turn is extracted."""
    config = ServiceConfig()
    async with MemoryService.open(
        tmp_path / "m", config, embedding_provider="hashing", extractor=RuleExtractor()
    ) as svc:
        await svc.record_turn("s1", "I live in Lisbon.", "Nice!")
        await svc.record_turn("s1", "Date night tonight!", "Fun")
        await svc.record_turn("s1", "Rui booked that little place by the river.", "Lovely")
        await svc.record_turn("s2", "I moved to Porto.", "Oh!")
        await svc.runtime.controller.flush_extraction()
        query = "where do I live? Lisbon"
        marked = (await svc.get_context(query, budget=800)).text
        assert "; earlier: city now Porto (since " in marked
        assert "] user: I live in Lisbon." in marked
        assert "The user lives in Porto. (current; before: Lisbon" in marked
        assert '(next: "Date night tonight!")' in marked
        dropped = (await svc.get_context(query, budget=800, earlier_values="drop")).text
        assert "I live in Lisbon" not in dropped
        assert "The user lives in Porto. (current)" in dropped
        plain = (await svc.get_context(query, budget=800, earlier_values="off")).text
        assert "earlier:" not in plain
        assert "(current" not in plain
        assert "user: I live in Lisbon." in plain
        with pytest.raises(InvalidArgumentError, match="earlier_values 'hide' is unknown"):
            await svc.get_context(query, earlier_values="hide")


async def test_get_context_primes_what_a_session_starts_with(tmp_path: Path) -> None:
    """The namespace's entities and known facts, as the companion primes a session — also for
    a question recall finds nothing for; ``prime=False`` leaves them out."""
    config = ServiceConfig(namespaces=("ana", "bob"), namespace="ana")
    async with MemoryService.open(
        tmp_path / "m", config, embedding_provider="hashing", extractor=RuleExtractor()
    ) as svc:
        await svc.record_turn("s1", "I adopted a cat called Miso.", "Lovely", namespace="ana")
        await svc.record_turn("s2", "My sister Eva lives in Oslo.", "Nice", namespace="bob")
        await svc.runtime.controller.flush_extraction()
        primed = await svc.get_context("what should I cook tonight?", namespace="ana")
        assert "## Known facts" in primed.text
        assert "user has_pet Miso" in primed.text
        assert "Eva" not in primed.text  # bob's facts stay bob's
        assert "known_facts" in {i.section for i in primed.items if i.kept}
        plain = await svc.get_context("what should I cook tonight?", namespace="ana", prime=False)
        assert "Miso" not in plain.text
        with pytest.raises(InvalidArgumentError, match="prime must be true or false"):
            await svc.get_context("x", namespace="ana", prime="yes")  # type: ignore[arg-type]
