"""Budget arithmetic, tool reservations, configuration validation and converters."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

import remem.context
from remem.context import (
    AssemblerConfig,
    ContextAssembler,
    ContextCandidate,
    HistoryTurn,
    Section,
    TokenCounter,
    ToolBudget,
)
from remem.errors import BudgetError, ConfigError
from remem.kernels import count_tokens
from remem.models import (
    Entity,
    MemoryKind,
    MemoryLifecycleMetadata,
    MemoryRecord,
    MemoryStage,
    Relationship,
    ScoredMemory,
    TranscriptEntry,
)
from tests.context.factories import candidates

NOW = datetime(2026, 10, 1, tzinfo=UTC)


def test_public_names() -> None:
    # Pinned; the order is ruff's (RUF022: constants, then classes).
    assert set(remem.context.__all__) == {
        "DEFAULT_SECTION_WEIGHTS",
        "EXACT_ENCODINGS",
        "SECTION_TITLES",
        "SUPPORTING_ORDER",
        "AssembledContext",
        "AssemblerConfig",
        "BudgetAccount",
        "ChatMessage",
        "ContextAssembler",
        "ContextCandidate",
        "DropReason",
        "EarlierValue",
        "FactTimeline",
        "HistoryTurn",
        "ItemReport",
        "Primer",
        "Priming",
        "PrimingConfig",
        "PromptArchitect",
        "Section",
        "SectionReport",
        "TokenCounter",
        "ToolBudget",
        "format_age",
    }
    assert len(remem.context.__all__) == len(set(remem.context.__all__))
    for name in remem.context.__all__:
        assert hasattr(remem.context, name)


def test_budget_reserves_output_tools_and_results() -> None:
    schemas = ['{"name": "search", "parameters": {}}'] * 5 + ["x " * 3000]
    cfg = AssemblerConfig(
        budget=6000,
        output_reserve=1000,
        tools=ToolBudget(
            max_schemas=4, schema_budget=5000, result_reservations=2, result_tokens=300
        ),
    )
    ctx = ContextAssembler(cfg).assemble(
        query="q", candidates=candidates(500), tool_schemas=schemas
    )
    per_schema = int(count_tokens([schemas[0]])[0])
    account = ctx.account
    assert ctx.tool_schemas_kept == (0, 1, 2, 3)  # count-limited
    assert account.tool_schema_tokens == 4 * per_schema
    assert account.tool_result_reserve == 600
    assert account.prompt_budget == 6000 - 1000 - 600 - 4 * per_schema
    assert account.rendered <= account.prompt_budget
    assert account.utilisation >= 0.95
    budget_limited = ContextAssembler(
        AssemblerConfig(tools=ToolBudget(schema_budget=per_schema * 2))
    ).assemble(query="q", tool_schemas=schemas)
    assert budget_limited.tool_schemas_kept == (0, 1)


def test_budget_error_when_fixed_parts_do_not_fit() -> None:
    with pytest.raises(BudgetError, match="system message and query"):
        ContextAssembler(AssemblerConfig(budget=50, output_reserve=40)).assemble(
            query="a long question " * 10
        )
    core = [ContextCandidate("c", Section.CORE_MEMORY, "core " * 200)]
    with pytest.raises(BudgetError, match="core memory"):
        ContextAssembler(AssemblerConfig(budget=100, output_reserve=0)).assemble(
            query="q", candidates=core
        )


@pytest.mark.parametrize(
    "kwargs",
    [
        {"budget": -1},
        {"output_reserve": 9000},
        {"strategy": "fast"},
        {"encoding": "gpt2", "count_mode": "exact"},
        {"section_weights": {Section.LONG_TERM: -1.0}},
        {"duplicate_threshold": 101.0},
        {"min_score": float("nan")},
        {"max_history_probes": 0},
        {"history_half_life_turns": 0.0},
    ],
)
def test_invalid_config(kwargs: dict[str, object]) -> None:
    with pytest.raises(ConfigError):
        AssemblerConfig(**kwargs)  # type: ignore[arg-type]


def test_tool_budget_validation() -> None:
    with pytest.raises(ConfigError, match="result_tokens"):
        ToolBudget(result_tokens=-5)


def test_token_counter_selection() -> None:
    assert TokenCounter.for_model("cl100k_base").name == "cl100k_base"
    assert TokenCounter.for_model("unknown").name == "estimate"
    assert TokenCounter.for_model(None).exact is False
    with pytest.raises(ConfigError):
        TokenCounter("p50k_base")
    with pytest.raises(ConfigError):
        TokenCounter.for_model("o200k_base", "sometimes")  # type: ignore[arg-type]


def _record(stage: MemoryStage, kind: MemoryKind = MemoryKind.FACT, **kw: object) -> MemoryRecord:
    life = MemoryLifecycleMetadata(stage=stage, score_reference_time=NOW, created_at=NOW)
    return MemoryRecord(id="r1", text="Ana lives in Lisbon.", kind=kind, lifecycle=life, **kw)  # type: ignore[arg-type]


def test_converters() -> None:
    lt = ContextCandidate.from_scored_memory(
        ScoredMemory(record=_record(MemoryStage.LONG_TERM), score=0.7, sources=("vector",))
    )
    assert (lt.section, lt.score, lt.source, lt.decayed) == (
        Section.LONG_TERM,
        0.7,
        "vector",
        False,
    )
    st = ContextCandidate.from_scored_memory(
        ScoredMemory(record=_record(MemoryStage.SHORT_TERM), score=0.5)
    )
    assert st.section is Section.SHORT_TERM
    decayed = ContextCandidate.from_scored_memory(
        ScoredMemory(record=_record(MemoryStage.DECAYED), score=0.5)
    )
    assert decayed.decayed
    sup = ContextCandidate.from_scored_memory(
        ScoredMemory(record=_record(MemoryStage.LONG_TERM, superseded_by="r2"), score=0.5)
    )
    assert sup.superseded
    insight = ContextCandidate.from_scored_memory(
        ScoredMemory(record=_record(MemoryStage.LONG_TERM, MemoryKind.INSIGHT), score=0.5)
    )
    assert insight.section is Section.INSIGHTS
    entity = ContextCandidate.from_entity(
        Entity(id="e1", name="Ana", entity_type="person", aliases=("Ana Silva",)), score=0.4
    )
    assert entity.text == "Ana (person; also: Ana Silva)"
    rel = Relationship(id="r", source_id="e1", target_id="e2", relation_type="works_at")
    fact = ContextCandidate.from_relationship(rel, {"e1": "Ana", "e2": "Acme"})
    assert (fact.section, fact.text, fact.superseded) == (
        Section.KNOWN_FACTS,
        "Ana works_at Acme",
        False,
    )
    ended = Relationship(
        id="r", source_id="e1", target_id="e2", relation_type="works_at", valid_to=NOW
    )
    assert ContextCandidate.from_relationship(ended, {}).superseded
    entry = TranscriptEntry(
        id="t1", session_id="s", turn_number=2, user_message="hi", assistant_message="hello"
    )
    turn = HistoryTurn.from_entry(entry)
    assert (turn.turn_number, turn.user_message, turn.assistant_message) == (2, "hi", "hello")
