"""Rendering: deterministic, every fact findable, and not aligned with a rule extractor."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime
from typing import Any

from benches.regex_extractor_baseline import extract_statements as regex_statements

from remem.brains import ScriptedBrain
from remem.eval.persona import BrainRenderer, generate_plans, mentions, render_plan
from remem.eval.persona.render import template_turns
from remem.extraction import extract_statements

# The textbook first-person forms a rule-based extractor is written for.
CANONICAL = re.compile(
    r"^(I live in|I moved to|I work at|I started a new job at|I am (a|an|now)?|I'm from|"
    r"I'm allergic to|My (partner|birthday|favourite food|hobby|sister|brother) is|"
    r"I have (a|an)? ?\w* ?named|I got a|I started|I have)\b",
    re.IGNORECASE,
)


def test_rendering_is_deterministic_and_seeded() -> None:
    (plan,) = generate_plans(1, seed=8)
    assert render_plan(plan, seed=1) == render_plan(plan, seed=1)
    assert render_plan(plan, seed=1) != render_plan(plan, seed=2)


def test_every_fact_turn_names_its_value_and_times_increase() -> None:
    for plan in generate_plans(6, seed=3):
        turns = render_plan(plan)
        assert [t.at for t in turns] == sorted(t.at for t in turns)
        for event in plan.events:
            text = " ".join(t.text for t in turns if t.event is event)
            needed = event.value if event.kind != "end" else event.previous
            assert needed is not None
            assert mentions(text, needed), (event, text)


def test_small_talk_lures_never_name_a_persona_value() -> None:
    for plan in generate_plans(6, seed=11):
        values = plan.all_values()
        for turn in render_plan(plan):
            if turn.event is None:
                assert not any(mentions(turn.text, v) for v in values), turn.text


def test_few_facts_are_stated_in_canonical_form() -> None:
    facts = canonical = 0
    styles: set[str] = set()
    for plan in generate_plans(10, seed=0):
        turns = render_plan(plan)
        for event in plan.events:
            texts = [t.text for t in turns if t.event is event]
            facts += 1
            canonical += any(CANONICAL.match(t) for t in texts)
            styles.update(t.style for t in turns if t.event is event)
    share = canonical / facts
    assert share < 0.3, f"{share:.0%} of facts are stated in a rule extractor's canonical form"
    assert {"paraphrase", "indirect", "split"} <= styles


def test_articles_follow_the_value() -> None:
    import random

    from remem.eval.persona.plan import FactEvent

    event = FactEvent(0, "job_title", "architect", "initial")
    for seed in range(30):
        _, texts = template_turns(event, random.Random(seed))
        assert " a architect" not in " ".join(texts)


def _recovery(extract: Callable[[str, datetime], list[Any]]) -> tuple[float, float, float]:
    """(overall, canonical, other styles) share of events whose value the extractor finds."""
    recovered: dict[bool, list[bool]] = {True: [], False: []}
    for plan in generate_plans(10, seed=0):
        turns = render_plan(plan)
        for event in plan.events:
            if event.value is None:
                continue
            mine = [t for t in turns if t.event is event]
            statements = [s for t in mine for s in extract(t.text, t.at)]
            found = any(mentions(s.value, event.value) for s in statements)
            recovered[mine[0].style == "canonical"].append(found)
    everything = recovered[True] + recovered[False]
    return (
        sum(everything) / len(everything),
        sum(recovered[True]) / len(recovered[True]),
        sum(recovered[False]) / len(recovered[False]),
    )


def test_the_rule_extractor_is_not_aligned_with_the_rendering() -> None:
    """The regex rule extractor the harness was written against recovers canonical sentences
    but few of the other styles; the grammar RuleExtractor recovers more of them, and still
    not most (the rendering is not tuned to either)."""
    overall, canonical, other = _recovery(regex_statements)
    assert overall < 0.4
    assert canonical > 0.5 > other + 0.3
    g_overall, g_canonical, g_other = _recovery(extract_statements)
    assert g_canonical > 0.5
    assert other < g_other < 0.5
    assert g_overall < 0.6


async def test_brain_renderer_uses_the_model_and_falls_back_to_templates() -> None:
    (plan,) = generate_plans(1, seed=5)
    echo = ScriptedBrain(rules=[(r"conveys, indirectly if natural: (.*?)\. Do not", r"So, \1!")])
    renderer = BrainRenderer(echo)
    turns = await renderer.render(plan)
    facts = [t for t in turns if t.event is not None]
    assert renderer.fallbacks == 0
    assert {t.style for t in facts} == {"model"}
    assert len(facts) == len(plan.events)
    assert len(echo.requests) == len(plan.events)
    vague = BrainRenderer(ScriptedBrain(default="Oh, you know how it is."))
    fallback = await vague.render(plan)
    assert vague.fallbacks == len(plan.events)
    assert fallback == render_plan(plan)
