"""MemoryController.prime: every PrimingConfig field changes what a new session starts with.

Real embedded stores (a Runtime in tmp_path); each test would fail if the field were ignored.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

import remem
from remem.brains import ScriptedBrain
from remem.companion import Companion, CompanionConfig
from remem.context import Priming, PrimingConfig, Section
from remem.controller import ControllerConfig, ExtractedRelationship, ExtractionResult
from remem.errors import ConfigError, InvalidArgumentError
from remem.models import ManualClock, MemoryKind
from remem.runtime_config import RuntimeConfig

T0 = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)
BASE = PrimingConfig.controller_fallback()


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(T0)


@pytest.fixture
async def runtime(tmp_path: Path, clock: ManualClock) -> AsyncIterator[remem.Runtime]:
    async with remem.Runtime.open(tmp_path / "memory", clock=clock) as rt:
        c = rt.controller
        for day, text in enumerate(["Ada sleeps badly before deadlines.", "Ada loves Sundays."]):
            await c.remember(text, kind=MemoryKind.INSIGHT, valid_from=T0 + timedelta(days=day))
        for day in range(3):
            await c.remember(
                f"Day {day + 1}: Ada talked about her garden.",
                kind=MemoryKind.SUMMARY,
                valid_from=T0 + timedelta(days=day),
            )
        await c.remember("Ada lives in Lisbon.")  # a fact: never primed as an insight
        clock.advance(timedelta(days=4))
        yield rt


def _texts(priming: Priming, section: Section) -> list[str]:
    return [c.text for c in priming.candidates if c.section is section]


async def test_max_insights_and_max_summaries_limit_the_primed_sections(
    runtime: remem.Runtime,
) -> None:
    c = runtime.controller
    none = await c.prime("s", config=BASE.merged({"max_insights": 0, "max_summaries": 0}))
    assert _texts(none, Section.INSIGHTS) == []
    assert _texts(none, Section.SUMMARIES) == []

    some = await c.prime("s", config=BASE.merged({"max_insights": 2, "max_summaries": 1}))
    insights = _texts(some, Section.INSIGHTS)
    assert len(insights) == 2
    assert any("Ada loves Sundays." in t for t in insights)
    # The newest summary wins the one slot, and it is dated.
    assert _texts(some, Section.SUMMARIES) == ["[2026-05-03] Day 3: Ada talked about her garden."]
    one = await c.prime("s", config=BASE.merged({"max_insights": 1}))
    assert _texts(one, Section.INSIGHTS) == ["[2026-05-02] Ada loves Sundays."]
    assert not any("Lisbon" in x.text for x in some.candidates)


async def test_recency_days_drops_older_items(runtime: remem.Runtime) -> None:
    c = runtime.controller
    # now = T0 + 4 days: two days back keeps the summary of day 3 (T0 + 2) only.
    recent = await c.prime("s", config=BASE.merged({"recency_days": 2}))
    assert _texts(recent, Section.SUMMARIES) == ["[2026-05-03] Day 3: Ada talked about her garden."]
    assert _texts(recent, Section.INSIGHTS) == []
    assert "too_old" in {reason for _, reason in recent.dropped}
    unlimited = await c.prime("s", config=BASE.merged({"recency_days": 0}))
    assert len(_texts(unlimited, Section.SUMMARIES)) == 3


async def test_token_budget_caps_the_priming(runtime: remem.Runtime) -> None:
    c = runtime.controller
    wide = await c.prime("s", config=BASE)
    tight = await c.prime("s", config=BASE.merged({"token_budget": 30}))
    assert wide.tokens > 30
    assert 0 < tight.tokens <= 30
    assert len(tight.candidates) < len(wide.candidates)
    assert "over_budget" in {reason for _, reason in tight.dropped}


async def test_disabled_priming_is_empty(runtime: remem.Runtime) -> None:
    primed = await runtime.controller.prime("s", config=BASE.merged({"enabled": False}))
    assert primed.candidates == ()
    assert primed.history == ()


async def test_the_controllers_priming_is_the_default(tmp_path: Path, clock: ManualClock) -> None:
    config = RuntimeConfig(path=tmp_path / "m", priming=BASE.merged({"max_insights": 0}))
    async with remem.Runtime.open(tmp_path / "m", clock=clock, config=config) as rt:
        c = rt.controller
        await c.remember("Ada sleeps badly before deadlines.", kind=MemoryKind.INSIGHT)
        assert c.priming.max_insights == 0
        assert _texts(await c.prime("s"), Section.INSIGHTS) == []
        assert len(_texts(await c.prime("s", config=BASE), Section.INSIGHTS)) == 1
        # A companion told to use the controller's priming primes nothing from insights …
        follows = Companion(
            ScriptedBrain(default="ok"), rt, config=CompanionConfig(priming="controller")
        )
        prompt = await follows.build_prompt("hello", session_id="s1")
        assert "insights" not in prompt.sections
        # … and one with its own config primes them.
        own = Companion(ScriptedBrain(default="ok"), rt, config=CompanionConfig(priming=BASE))
        prompt = await own.build_prompt("hello", session_id="s2")
        assert "Ada sleeps badly" in prompt.section_text("insights")


async def test_the_priming_default_lives_in_the_controller_config(
    runtime: remem.Runtime,
) -> None:
    """MemoryController has no ``priming=`` parameter: ``ControllerConfig.priming`` is the
    default of prime(); ``from_parts(priming=)`` folds into it; a runtime sets it from
    ``RuntimeConfig.priming``."""
    stores = await runtime.controller.settled()
    quiet = BASE.merged({"max_insights": 0})
    built = remem.MemoryController(
        stores,
        runtime.controller.collection_manager,
        config=ControllerConfig(priming=quiet),
    )
    assert built.priming == built.config.priming == quiet
    assert _texts(await built.prime("s"), Section.INSIGHTS) == []
    assert len(_texts(await runtime.controller.prime("s"), Section.INSIGHTS)) > 0
    legacy = remem.MemoryController.from_parts(
        stores.vectors,
        stores.graph,
        stores.episodic,
        runtime.controller.collection_manager,
        record_store=stores.records,
        config=ControllerConfig(candidates=40),
        priming=quiet,
    )
    assert (legacy.priming, legacy.config.candidates) == (quiet, 40)
    params = inspect.signature(remem.MemoryController).parameters
    assert "priming" not in params
    assert len(params) <= 8
    with pytest.raises(ConfigError, match="priming must be a PrimingConfig"):
        ControllerConfig(priming={"max_insights": 0})  # type: ignore[arg-type]


async def test_prime_checks_its_arguments(runtime: remem.Runtime) -> None:
    with pytest.raises(InvalidArgumentError):
        await runtime.controller.prime("")
    with pytest.raises(InvalidArgumentError, match="PrimingConfig"):
        await runtime.controller.prime("s", config={"max_insights": 1})  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="priming"):
        CompanionConfig(priming="chat")  # type: ignore[arg-type]


def test_memory_priming_is_settable_in_toml(tmp_path: Path) -> None:
    toml = tmp_path / "remem.toml"
    toml.write_text(
        "[memory.priming]\n"
        'preset = "chat_template"\n'
        "max_insights = 2\nrecency_days = 7\ntoken_budget = 500\nenabled = true\n"
    )
    cfg = RuntimeConfig.from_toml(toml)
    assert cfg.priming == PrimingConfig.chat_template().merged(
        {"max_insights": 2, "recency_days": 7, "token_budget": 500}
    )
    assert "memory.priming.max_insights = 2" in cfg.describe()
    plain = RuntimeConfig.from_mapping({"memory": {"priming": {"max_summaries": 0}}})
    assert plain.priming == BASE.merged({"max_summaries": 0})
    assert RuntimeConfig.from_mapping({}).priming == BASE
    cases: list[tuple[dict[str, Any], str]] = [
        ({"memory": {"priming": {"max_insight": 1}}}, "unknown priming setting"),
        ({"memory": {"priming": {"preset": "everything"}}}, "preset"),
        ({"memory": {"priming": {"token_budget": -1}}}, "token_budget"),
        ({"memory": {"priming": 3}}, "must be a table"),
        ({"memory": {"recall": {}}}, "unknown keys"),
    ]
    for bad, match in cases:
        with pytest.raises(ConfigError, match=match):
            RuntimeConfig.from_mapping(bad)


async def test_primed_known_facts_are_dated(runtime: remem.Runtime) -> None:
    c = runtime.controller
    result = ExtractionResult(
        relationships=(
            ExtractedRelationship("Ada", "lives_in", "Lisbon", valid_from=T0 + timedelta(days=1)),
        )
    )
    entry = await c.record_turn("s0", "I live in Lisbon now", "Nice!")
    await c.apply_extraction(result, [entry])
    primed = await c.prime("s", config=BASE)
    assert "Ada lives_in Lisbon (since 2026-05-02)" in _texts(primed, Section.KNOWN_FACTS)
    assert (
        _texts(await c.prime("s", config=BASE.merged({"max_known_facts": 0})), Section.KNOWN_FACTS)
        == []
    )
