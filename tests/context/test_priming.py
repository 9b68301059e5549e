"""PrimingConfig presets and merging; the Primer; priming reaching the prompt."""

from __future__ import annotations

import dataclasses
from datetime import timedelta

import pytest

from remem.context import (
    AssemblerConfig,
    ContextAssembler,
    ContextCandidate,
    Primer,
    PrimingConfig,
    Section,
)
from remem.errors import ConfigError
from tests.context.factories import T0, session

NOW = T0 + timedelta(days=1)


def test_presets_differ_on_previous_sessions() -> None:
    fallback = PrimingConfig.controller_fallback()
    template = PrimingConfig.chat_template()
    assert fallback.previous_sessions == 0
    assert template.previous_sessions == 2
    assert fallback.enabled
    assert template.enabled


def test_the_two_presets_are_pinned() -> None:
    # The presets are a documented contract (module table of remem.context.priming): a change
    # here is a change of every application's defaults, so it must be deliberate.
    assert dataclasses.asdict(PrimingConfig.controller_fallback()) == {
        "enabled": True,
        "top_entities": 10,
        "max_insights": 5,
        "max_summaries": 3,
        "max_known_facts": 10,
        "recency_days": 30,
        "token_budget": 1000,
        "previous_sessions": 0,
        "previous_session_turns": 0,
    }
    assert dataclasses.asdict(PrimingConfig.chat_template()) == {
        "enabled": True,
        "top_entities": 15,
        "max_insights": 10,
        "max_summaries": 5,
        "max_known_facts": 20,
        "recency_days": 30,
        "token_budget": 2000,
        "previous_sessions": 2,
        "previous_session_turns": 6,
    }


def test_no_implicit_default() -> None:
    with pytest.raises(TypeError):
        PrimingConfig()  # type: ignore[call-arg]


def test_partial_config_merges_field_by_field() -> None:
    base = PrimingConfig.chat_template()
    merged = base.merged({"top_entities": 3, "token_budget": 500})
    assert merged.top_entities == 3
    assert merged.token_budget == 500
    assert merged.previous_sessions == base.previous_sessions
    assert merged.max_insights == base.max_insights
    assert base.merged({}) == base


@pytest.mark.parametrize(
    ("partial", "match"),
    [
        ({"top_entitys": 3}, "unknown priming setting"),
        ({"top_entities": -1}, "top_entities"),
        ({"token_budget": 1.5}, "token_budget"),
        ({"previous_sessions": True}, "previous_sessions"),
        ({"enabled": "yes"}, "enabled"),
    ],
)
def test_invalid_settings_are_config_errors(partial: dict[str, object], match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        PrimingConfig.controller_fallback().merged(partial)


def _inputs() -> dict[str, object]:
    return {
        "entities": [
            ContextCandidate(f"e{i}", Section.ENTITIES, f"Entity {i} (person)", i / 20)
            for i in range(20)
        ],
        "known_facts": [
            ContextCandidate("f1", Section.KNOWN_FACTS, "Ana works_at Acme", 0.9),
            ContextCandidate("f2", Section.KNOWN_FACTS, "Ana lives_in Porto", 0.9, superseded=True),
        ],
        "insights": [
            ContextCandidate("i1", Section.INSIGHTS, "Ana prefers mornings.", 0.7, timestamp=T0),
            ContextCandidate(
                "i2", Section.INSIGHTS, "Stale insight.", 0.9, timestamp=T0 - timedelta(days=90)
            ),
        ],
        "summaries": [ContextCandidate("s1", Section.SUMMARIES, "Planned a trip.", 0.5)],
        "previous_sessions": [
            session("a", 8, T0 - timedelta(days=3), seed=1),
            session("b", 8, T0 - timedelta(days=2), seed=2),
            session("c", 8, T0 - timedelta(days=1), seed=3),
        ],
    }


def test_primer_applies_limits_recency_and_sessions() -> None:
    cfg = PrimingConfig.chat_template().merged({"top_entities": 4})
    priming = Primer(cfg).prime(now=NOW, **_inputs())  # type: ignore[arg-type]
    ids = {c.id for c in priming.candidates}
    assert {"e19", "e18", "e17", "e16", "f1", "i1", "s1"} <= ids
    assert not ids & {"e15", "f2", "i2"}
    dropped = dict(priming.dropped)
    assert dropped["f2"] == "superseded"
    assert dropped["i2"] == "too_old"
    assert dropped["e0"] == "limit"
    sessions = {t.session_id for t in priming.history}
    assert sessions == {"b", "c"}  # the two most recent earlier sessions
    assert len(priming.history) == 12  # six turns each
    assert [t.turn_number for t in priming.history if t.session_id == "c"] == [3, 4, 5, 6, 7, 8]
    assert priming.tokens <= cfg.token_budget
    assert all(c.source == "priming" for c in priming.candidates)


def test_controller_fallback_primes_no_turns() -> None:
    priming = Primer(PrimingConfig.controller_fallback()).prime(now=NOW, **_inputs())  # type: ignore[arg-type]
    assert priming.history == ()
    assert priming.candidates


def test_token_budget_caps_priming_newest_turns_first() -> None:
    cfg = PrimingConfig.chat_template().merged({"token_budget": 300})
    priming = Primer(cfg).prime(now=NOW, **_inputs())  # type: ignore[arg-type]
    assert 0 < priming.tokens <= 300
    if priming.history:
        newest = max(t.timestamp for s in _inputs()["previous_sessions"] for t in s)  # type: ignore[attr-defined]
        assert priming.history[-1].timestamp == newest


def test_disabled_primes_nothing() -> None:
    cfg = PrimingConfig.chat_template().merged({"enabled": False})
    priming = Primer(cfg).prime(now=NOW, **_inputs())  # type: ignore[arg-type]
    assert priming.candidates == ()
    assert priming.history == ()


def test_priming_is_injected_into_the_assembled_context() -> None:
    priming = Primer(PrimingConfig.chat_template()).prime(now=NOW, **_inputs())  # type: ignore[arg-type]
    ctx = ContextAssembler(AssemblerConfig(budget=8000)).assemble(
        query="Good morning!",
        current_history=session("now", 2, NOW),
        priming=priming,
    )
    text = ctx.to_text()
    assert "Ana works_at Acme" in text
    assert "## Known entities" in text
    kept_prior = ctx.kept(Section.PRIOR_HISTORY)
    assert len(kept_prior) == len(priming.history)
    assert "earlier session]" in text
    # Earlier sessions come before the current session in the prompt.
    assert text.index("earlier session]") < text.index("[2026-10-02 09:01 UTC] ")
