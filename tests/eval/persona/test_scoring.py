"""Value matching and LLM-free scoring on hand-built contexts."""

from __future__ import annotations

import pytest

from remem.errors import InvalidArgumentError
from remem.eval.persona import mentions
from remem.eval.persona.llm_free import percentile, score_context
from remem.eval.persona.quiz import Question


def _q(evidence: tuple[str, ...], stale: tuple[str, ...] = ()) -> Question:
    return Question(
        "p:current:city:0",
        "p",
        "current",
        "city",
        "Where do I live?",
        "x",
        evidence,
        evidence,
        stale,
        3,
        10,
    )


@pytest.mark.parametrize(
    ("text", "value", "expected"),
    [
        ("I LIVE IN PORTO!", "Porto", True),
        ("walked down Portobello Road", "Porto", False),
        ("moved to krakow, finally", "Kraków", True),
        ("the commute from Alfama is brutal", "Lisbon", True),
        ("Harbor and Finch hired me", "Harbor & Finch", True),
        ("born on the 14th of June", "June 14", True),
        ("born on June 4", "June 14", False),
        ("two software engineers", "software engineer", True),
        ("Tromso in winter", "Tromsø", True),
        ("", "Porto", False),
    ],
)
def test_mentions(text: str, value: str, expected: bool) -> None:
    assert mentions(text, value) is expected


def test_current_value_present() -> None:
    score = score_context(
        _q(("Porto",), ("Lisbon",)), "Memory: moved from Lisbon to Porto", tokens=9, latency_ms=1.5
    )
    assert (score.recall, score.stale_only, score.tokens, score.latency_ms) == (True, False, 9, 1.5)


def test_stale_only() -> None:
    score = score_context(
        _q(("Porto",), ("Lisbon",)), "User lives in lisbon.", tokens=4, latency_ms=1
    )
    assert score.recall is False
    assert score.stale_only is True


def test_neither_present() -> None:
    score = score_context(_q(("Porto",), ("Lisbon",)), "User likes tea.", tokens=4, latency_ms=1)
    assert score.recall is False
    assert score.stale_only is False


def test_not_applicable_without_evidence_or_stale() -> None:
    assert score_context(_q(()), "anything", tokens=1, latency_ms=1).recall is None
    score = score_context(_q(("Porto",)), "Porto", tokens=1, latency_ms=1)
    assert score.recall is True
    assert score.stale_only is None


def test_percentile() -> None:
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 50) == pytest.approx(50.5)
    assert percentile(values, 95) == pytest.approx(95.05)
    with pytest.raises(InvalidArgumentError):
        percentile([], 50)
