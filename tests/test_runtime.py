"""remem.Runtime: embedded default, TOML, reopen persistence, describe(), PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import remem
from remem.errors import ConfigError, StoreClosedError
from remem.extraction import RuleExtractor
from remem.models import ManualClock, MemoryStage
from remem.runtime_config import RuntimeConfig

T0 = datetime(2026, 5, 1, tzinfo=UTC)


async def test_open_remember_recall_and_reopen(tmp_path: Path) -> None:
    async with remem.Runtime.open(tmp_path / "memory") as rt:
        rec = await rt.controller.remember("Ana lives in Lisbon")
        await rt.controller.record_turn("s1", "I love hiking in Sintra", "Sounds great")
    assert {p.name for p in (tmp_path / "memory").iterdir()} >= {
        "transcript.db",
        "episodic.db",
        "memory.duckdb",
        "vectors",
    }
    async with remem.Runtime.open(tmp_path / "memory") as rt:
        hits = await rt.controller.recall("where does Ana live")
        assert hits[0].record.id == rec.id
        hiking = await rt.controller.recall("hiking Sintra", stages=["episodic"])
        assert hiking[0].record.session_id == "s1"
        turn = await rt.controller.record_turn("s1", "and tomorrow?", "rain")
        assert turn.turn_number == 2


async def test_controller_unavailable_outside_the_context(tmp_path: Path) -> None:
    rt = remem.Runtime.open(tmp_path)
    with pytest.raises(StoreClosedError):
        _ = rt.controller
    async with rt:
        pass
    with pytest.raises(StoreClosedError):
        _ = rt.controller
    await rt.aclose()  # idempotent


async def test_recall_reinforces_usage_through_the_tracker(tmp_path: Path) -> None:
    clock = ManualClock(T0)
    async with remem.Runtime.open(tmp_path, clock=clock) as rt:
        rec = await rt.controller.remember("Ana lives in Lisbon")
        await rt.controller.recall("Ana Lisbon")
        clock.advance(timedelta(minutes=1))
        await rt.controller.access_tracker.flush()  # type: ignore[union-attr]
        (after,) = await (await rt.controller.settled()).records.get([rec.id])
        assert after.lifecycle.access_count == 1
        (hit,) = await rt.controller.recall("Ana Lisbon", stages=["short_term"])
        assert hit.signals["usage"] > 1.0


async def test_lifecycle_manager_is_wired_and_decays_unused_memories(tmp_path: Path) -> None:
    clock = ManualClock(T0)
    async with remem.Runtime.open(tmp_path, clock=clock) as rt:
        rec = await rt.controller.remember("Ana lives in Lisbon")
        assert rt.lifecycle is not None
        assert (await rt.lifecycle.preview()).total == 0  # nothing is due yet
        clock.advance(timedelta(days=10))  # 1.0 · exp(-0.01 · 240 h) ≈ 0.09 < 0.2
        plan = await rt.lifecycle.preview()
        assert [c.id for c in plan.decay] == [rec.id]
        await rt.lifecycle.execute(plan)
    async with remem.Runtime.open(tmp_path, clock=clock) as rt:
        (after,) = await (await rt.controller.settled()).records.get([rec.id])
        assert after.lifecycle.stage is MemoryStage.DECAYED
        assert await rt.controller.recall("Ana Lisbon", stages=["short_term"]) == []
        hits = await rt.controller.recall("Ana Lisbon", include_decayed=True)
        assert [h.record.id for h in hits if h.record.id == rec.id] == [rec.id]


def test_describe_prints_effective_configuration(tmp_path: Path) -> None:
    rt = remem.Runtime.open(tmp_path, backend="postgres", dsn="postgresql://u:secret@h/db")
    text = rt.describe()
    assert "backend = postgres" in text
    assert "secret" not in text
    assert "u:***@h" in text
    assert "recall.fusion = linear" in text
    assert "recall.features = fitted for the embedder" in text
    assert "embeddings.provider = auto" in text
    assert f"embeddings.model = {rt.embedder.model_name}" in text
    assert "lifecycle.decay_rate = 0.01" in text


def test_toml_and_bad_config(tmp_path: Path) -> None:
    toml = tmp_path / "remem.toml"
    toml.write_text(
        f'path = "{tmp_path / "m"}"\n[recall]\nfusion = "weighted"\ncandidates = 40\n'
        "features = { fulltext = 1.0, vector = 0.5 }\nmerge_copies = false\n"
        "[extraction]\ninterval = 3\n[lifecycle]\ndecay_rate = 0.02\nrecency_rate = 0.01\n"
    )
    cfg = remem.Runtime.from_toml(toml).config
    assert cfg.controller.fusion.method == "weighted"
    assert cfg.controller.candidates == 40
    assert cfg.controller.fusion.features == {"fulltext": 1.0, "vector": 0.5}
    assert cfg.controller.fusion.merge_copies is False
    assert cfg.controller.extraction.interval == 3
    assert cfg.controller.decay.decay_rate == 0.02
    assert cfg.controller.inclusion.recency_rate == 0.01
    with pytest.raises(ConfigError):
        RuntimeConfig.from_mapping({"recall": {"fusion": "magic"}})
    with pytest.raises(ConfigError):
        RuntimeConfig.from_mapping({"unknown": 1})
    with pytest.raises(ConfigError):
        remem.Runtime.open(tmp_path, backend="postgres")
    with pytest.raises(ConfigError):
        remem.Runtime.open(tmp_path, backend="oracle")


async def test_full_text_language_is_configured_and_reaches_the_episodic_store(
    tmp_path: Path,
) -> None:
    cfg = RuntimeConfig.from_mapping({"path": str(tmp_path), "full_text": {"language": "none"}})
    assert cfg.full_text.language is None
    assert "full_text.language = none" in remem.Runtime(cfg).describe()
    with pytest.raises(ConfigError, match="klingon"):
        RuntimeConfig.from_mapping({"full_text": {"language": "klingon"}})
    with pytest.raises(ConfigError):
        RuntimeConfig.from_mapping({"full_text": {"stemmer": "english"}})
    assert "full_text.language = english" in remem.Runtime.open(tmp_path / "d").describe()
    async with remem.Runtime.open(tmp_path / "e", clock=ManualClock(T0)) as rt:
        turn = await rt.controller.record_turn("s1", "we went hiking by the lake", "")
        hits = await rt.controller.recall("hikes", k=5)
        assert turn.id in [h.record.id for h in hits]  # stemmed by default


async def _lives(rt: remem.Runtime) -> dict[str, bool]:
    """Whether each keyed city fact's value is still current."""
    facts = await rt.controller.keyed_facts(attributes=["city"], include_superseded=True)
    return {str(f.metadata["value"]): f.valid_to is None for f in facts}


async def _move_twice(rt: remem.Runtime) -> None:
    """Lisbon, then a day later Porto (a newer fact wins by time, never by a tie-break)."""
    clock = rt.clock
    assert isinstance(clock, ManualClock)
    await rt.controller.record_turn("s1", "I live in Lisbon.", "Nice!")
    await rt.controller.flush_extraction()
    clock.advance(timedelta(days=1))
    await rt.controller.record_turn("s2", "I moved to Porto.", "Oh!")
    await rt.controller.flush_extraction()


async def test_an_extracted_fact_supersedes_the_one_it_contradicts(tmp_path: Path) -> None:
    """With an extractor, each background batch ends the keyed facts its new facts contradict
    ([extraction] supersede, on by default); off, both values stay current."""
    async with remem.Runtime.open(
        tmp_path / "on", clock=ManualClock(T0), extractor=RuleExtractor()
    ) as rt:
        await _move_twice(rt)
        assert await _lives(rt) == {"Lisbon": False, "Porto": True}
        assert rt.controller.failures() == []
    off = RuntimeConfig.from_mapping(
        {"path": str(tmp_path / "off"), "extraction": {"supersede": False}}
    )
    assert "extraction.supersede = false" in remem.Runtime(off).describe()
    async with remem.Runtime(off, clock=ManualClock(T0), extractor=RuleExtractor()) as rt:
        await _move_twice(rt)
        assert await _lives(rt) == {"Lisbon": True, "Porto": True}
    with pytest.raises(ConfigError, match=r"extraction\.supersede must be true or false"):
        RuntimeConfig.from_mapping({"extraction": {"supersede": "yes"}})


async def test_a_failing_supersession_is_recorded_as_the_batch_failure(tmp_path: Path) -> None:
    async with remem.Runtime.open(
        tmp_path / "m", clock=ManualClock(T0), extractor=RuleExtractor()
    ) as rt:

        async def broken(records: object) -> None:
            raise RuntimeError("the store went away")

        rt.controller.after_extraction(broken)
        await _move_twice(rt)
        failures = rt.controller.failures()
        assert [f.operation for f in failures] == ["extraction", "extraction"]
        assert "the store went away" in str(failures[0].error)
        # the facts themselves were written; only the follow-up failed
        assert await _lives(rt) == {"Lisbon": True, "Porto": True}


@pytest.mark.postgres
async def test_postgres_supersedes_extracted_facts(pg_dsn: str, tmp_path: Path) -> None:
    async with remem.Runtime.open(
        tmp_path, backend="postgres", dsn=pg_dsn, clock=ManualClock(T0), extractor=RuleExtractor()
    ) as rt:
        await _move_twice(rt)
        assert await _lives(rt) == {"Lisbon": False, "Porto": True}


@pytest.mark.postgres
async def test_postgres_main_flows(pg_dsn: str, tmp_path: Path) -> None:
    clock = ManualClock(T0)
    async with remem.Runtime.open(tmp_path, backend="postgres", dsn=pg_dsn, clock=clock) as rt:
        c = rt.controller
        old = await c.remember("Ana lives in Porto")
        new = await c.remember("Ana lives in Lisbon now")
        gone = await c.remember("the wifi password is on the fridge")
        turn = await c.record_turn("s1", "Ana moved last week", "to Lisbon?")
        hits = await c.recall("where does Ana live", k=10)
        assert {h.record.id for h in hits} >= {old.id, new.id, turn.id}
        await c.supersede(old.id, new.id)
        await c.forget([gone.id])
        ids = [h.record.id for h in await c.recall("where does Ana live", k=10)]
        assert old.id not in ids
        assert new.id in ids
        assert await c.recall("wifi password fridge", stages=["short_term"]) == []
        many = await c.recall_many(["Ana Lisbon", "moved last week"], k=3)
        single = [await c.recall(q, k=3) for q in ["Ana Lisbon", "moved last week"]]
        assert [[h.record.id for h in r] for r in many] == [
            [h.record.id for h in r] for r in single
        ]
    async with remem.Runtime.open(tmp_path, backend="postgres", dsn=pg_dsn, clock=clock) as rt:
        (kept,) = await (await rt.controller.settled()).records.get([old.id])
        assert kept.superseded_by == new.id
        assert await rt.controller.collection_manager.count(MemoryStage.SHORT_TERM) == 1
