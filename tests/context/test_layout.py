"""PromptArchitect layout: order of parts, chat shapes, fixed section names."""

from __future__ import annotations

from datetime import timedelta

import remem.context
from remem.context import (
    SUPPORTING_ORDER,
    AssemblerConfig,
    ContextAssembler,
    ContextCandidate,
    PromptArchitect,
    Section,
)
from tests.context.factories import T0, session


def _ctx() -> remem.context.AssembledContext:
    cands = [
        ContextCandidate("s1", Section.SUMMARIES, "Last week: planned the trip.", 0.9),
        ContextCandidate("core", Section.CORE_MEMORY, "User: Ana, prefers short answers.", 0.1),
        ContextCandidate("lt1", Section.LONG_TERM, "Ana lives in Lisbon.", 0.8),
        ContextCandidate("e1", Section.ENTITIES, "Ana (person)", 0.7),
    ]
    return ContextAssembler(AssemblerConfig(budget=4000)).assemble(
        query="Where should we meet?",
        system="You are a helpful companion.",
        candidates=cands,
        current_history=session("now", 3, T0),
        prior_history=session("old", 2, T0 - timedelta(days=2), seed=5),
    )


def test_system_first_history_chronological_context_just_before_query() -> None:
    ctx = _ctx()
    msgs = ctx.messages
    assert msgs[0].role == "system"
    assert msgs[0].content == "You are a helpful companion."
    last = msgs[-1]
    assert last.role == "user"
    assert last.content.startswith("<context>\n")
    assert last.content.endswith("</context>\n\nWhere should we meet?")
    history = msgs[1:-1]
    assert [m.role for m in history] == ["user", "assistant"] * 5
    stamps = [m.content[1:17] for m in history if m.role == "user"]
    assert stamps == sorted(stamps)
    assert "earlier session]" in history[0].content
    assert "earlier session" not in history[-2].content
    assert history[-2].content.startswith("[2026-10-01 09:03 UTC] ")


def test_supporting_sections_in_fixed_order_with_titles() -> None:
    block = _ctx().messages[-1].content
    headers = [line for line in block.splitlines() if line.startswith("## ")]
    assert headers == [
        "## Core memory",
        "## Known entities",
        "## Long-term memories",
        "## Summaries",
    ]
    assert block.index("- User: Ana") < block.index("- Ana (person)")


def test_section_names_are_fixed() -> None:
    assert [s.value for s in Section] == [
        "core_memory",
        "entities",
        "known_facts",
        "long_term",
        "short_term",
        "insights",
        "summaries",
        "prior_history",
        "current_history",
    ]
    assert SUPPORTING_ORDER[0] is Section.CORE_MEMORY


def test_openai_anthropic_and_text_shapes_agree() -> None:
    ctx = _ctx()
    openai = ctx.to_openai()
    assert openai[0] == {"role": "system", "content": "You are a helpful companion."}
    anthropic = ctx.to_anthropic()
    assert anthropic["system"] == "You are a helpful companion."
    assert anthropic["messages"] == openai[1:]
    assert anthropic["messages"][0]["role"] == "user"
    text = ctx.to_text()
    assert text.startswith("### system\nYou are a helpful companion.\n\n### user\n[")
    assert text.endswith("Where should we meet?\n\n")
    for m in openai:
        assert m["content"] in text


def test_empty_context_and_no_system() -> None:
    ctx = ContextAssembler().assemble(query="Hello")
    assert ctx.to_openai() == [{"role": "user", "content": "Hello"}]
    assert ctx.to_anthropic() == {"messages": [{"role": "user", "content": "Hello"}]}
    assert "<context>" not in ctx.to_text()


def test_multiline_item_stays_under_its_bullet() -> None:
    piece = PromptArchitect().item_piece(ContextCandidate("m", Section.SHORT_TERM, "a\nb"))
    assert piece == "- a\n  b\n"


def test_docstring_says_placement_is_not_a_guarantee() -> None:
    doc = remem.context.architect.__doc__ or ""
    assert "not a guarantee" in doc
