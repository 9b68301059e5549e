"""Screening: decayed, superseded, thresholds, duplicates; and the inspectable account."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz import fuzz, process

from remem.context import (
    AssemblerConfig,
    ContextAssembler,
    ContextCandidate,
    DropReason,
    Section,
)
from remem.context.filters import _similar_pairs, normalise
from remem.errors import InvalidArgumentError, NaiveDatetimeError


def _assemble(cands: list[ContextCandidate], **cfg: object) -> dict[str, object]:
    ctx = ContextAssembler(AssemblerConfig(**cfg)).assemble(query="q", candidates=cands)  # type: ignore[arg-type]
    return {r.id: (r.reason if not r.kept else "kept") for r in ctx.items}


def test_decayed_superseded_and_threshold() -> None:
    cands = [
        ContextCandidate("ok", Section.LONG_TERM, "Ana likes tea.", 0.8),
        ContextCandidate("old", Section.LONG_TERM, "Ana likes coffee.", 0.9, decayed=True),
        ContextCandidate("sup", Section.LONG_TERM, "Ana likes juice.", 0.9, superseded=True),
        ContextCandidate("weak", Section.SHORT_TERM, "Ana saw a bird.", 0.1),
        ContextCandidate("core", Section.CORE_MEMORY, "Ana's core block.", 0.0, decayed=True),
    ]
    fates = _assemble(cands, min_score=0.2)
    assert fates == {
        "ok": "kept",
        "old": DropReason.DECAYED,
        "sup": DropReason.SUPERSEDED,
        "weak": DropReason.BELOW_THRESHOLD,
        "core": "kept",
    }
    per_section = _assemble(cands, section_min_score={Section.LONG_TERM: 0.85})
    assert per_section["ok"] == DropReason.BELOW_THRESHOLD
    assert per_section["weak"] == "kept"


def test_zero_weight_section_is_below_threshold() -> None:
    cands = [ContextCandidate("s", Section.SUMMARIES, "A summary.", 0.9)]
    fates = _assemble(cands, section_weights={Section.SUMMARIES: 0.0})
    assert fates == {"s": DropReason.BELOW_THRESHOLD}


def test_duplicates_keep_the_higher_valued_copy() -> None:
    cands = [
        ContextCandidate("a", Section.SHORT_TERM, "Ana lives in Lisbon.", 0.5),
        ContextCandidate("b", Section.LONG_TERM, "ana lives in lisbon", 0.9),
        ContextCandidate("c", Section.LONG_TERM, "Ana lives in Lisbon!!", 0.2),
        ContextCandidate("d", Section.KNOWN_FACTS, "Ana lives in Lisboa.", 0.4),
        ContextCandidate("e", Section.INSIGHTS, "Completely different.", 0.3),
    ]
    ctx = ContextAssembler().assemble(query="q", candidates=cands)
    reports = {r.id: r for r in ctx.items}
    assert reports["b"].kept
    assert reports["e"].kept
    for dup in ("a", "c"):
        assert reports[dup].reason == DropReason.DUPLICATE
        assert reports[dup].detail == "duplicate of b"
    assert reports["d"].reason == DropReason.DUPLICATE
    assert reports["d"].detail == "near-duplicate of b"
    # Fuzzy matching off: only exact normalised duplicates go.
    off = ContextAssembler(AssemblerConfig(duplicate_threshold=100.0)).assemble(
        query="q", candidates=cands
    )
    assert {r.id for r in off.kept()} == {"b", "d", "e"}


def test_core_is_never_dropped_as_a_duplicate() -> None:
    cands = [
        ContextCandidate("m", Section.LONG_TERM, "Ana lives in Lisbon.", 1.0),
        ContextCandidate("core", Section.CORE_MEMORY, "Ana lives in Lisbon.", 0.0),
    ]
    ctx = ContextAssembler().assemble(query="q", candidates=cands)
    reports = {r.id: r for r in ctx.items}
    assert reports["core"].kept
    assert reports["m"].detail == "duplicate of core"


def test_normalise() -> None:
    assert normalise("  Ana — LIVES, in “Lisbon”!\n") == "ana lives in lisbon"


def test_explain_shows_budget_sections_and_reasons() -> None:
    cands = [
        ContextCandidate("kept1", Section.LONG_TERM, "Ana lives in Lisbon.", 0.8),
        ContextCandidate("gone", Section.LONG_TERM, "Old fact.", 0.9, decayed=True),
    ]
    ctx = ContextAssembler(AssemblerConfig(budget=3000, output_reserve=500)).assemble(
        query="q", candidates=cands
    )
    text = ctx.explain()
    assert "budget 3000 = output 500" in text
    assert "long_term" in text
    assert "dropped: decayed" in text
    assert "kept1" in text
    assert "exact o200k_base" in text
    long_term = next(s for s in ctx.sections if s.section is Section.LONG_TERM)
    assert (long_term.kept, long_term.dropped) == (1, 1)
    assert long_term.tokens > ctx.items[0].tokens  # includes the section header


def test_candidate_validation() -> None:
    with pytest.raises(InvalidArgumentError, match="HistoryTurn"):
        ContextCandidate("h", Section.CURRENT_HISTORY, "x")
    with pytest.raises(InvalidArgumentError, match="finite"):
        ContextCandidate("n", Section.LONG_TERM, "x", float("nan"))
    with pytest.raises(InvalidArgumentError, match="NUL"):
        ContextCandidate("z", Section.LONG_TERM, "a\x00b")
    with pytest.raises(NaiveDatetimeError):
        ContextCandidate("t", Section.LONG_TERM, "x", timestamp=datetime(2026, 1, 1))
    ContextCandidate("t", Section.LONG_TERM, "x", timestamp=datetime(2026, 1, 1, tzinfo=UTC))


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.text(alphabet="abcde ", min_size=0, max_size=40).map(lambda t: t.strip()),
        min_size=2,
        max_size=24,
    ),
    st.sampled_from([0.5, 50.0, 80.0, 90.0, 92.0, 95.0, 99.5]),
    st.randoms(use_true_random=False),
)
def test_similar_pairs_equal_the_full_cdist(keys: list[str], cutoff: float, rnd: Any) -> None:
    # Near-copies (one edit) make pairs straddle the cutoff.
    keys = keys + [k[: rnd.randint(0, len(k))] + "x" + k[rnd.randint(0, len(k)) :] for k in keys]
    sims = process.cdist(keys, keys, scorer=fuzz.ratio, score_cutoff=cutoff, dtype=np.uint8)
    expected = np.tril(sims, -1) > 0
    assert (_similar_pairs(keys, cutoff) == expected).all()
