"""The re-ranker's fit: deterministic, it learns what a hand-made dump rewards, its figures are
the benchmark's, LOCO holds each conversation out, and the dump survives a round trip."""

from __future__ import annotations

from pathlib import Path

import pytest

from remem.controller.stages import RerankConfig, RerankRow, rerank_factors
from remem.eval.locomo.rerank_fit import (
    Question,
    figures,
    fit_averaged,
    fit_weights,
    load_rows,
    loco,
    save_rows,
)


def _row(key: str, score: float, vector: tuple[int, float] | None, words: int) -> RerankRow:
    text = " ".join(["w"] * words)
    return RerankRow(key, score, (1, score), vector, 0.0, 1.0, 1.0, 1.0, "s", text, True)


def _question(conv: str, i: int) -> Question:
    """Full text prefers three distractors; the evidence is the one the vector is sure of."""
    rows = (
        _row(f"{conv}/{i}/x", 3.0, (3, 0.2), 5 + i),
        _row(f"{conv}/{i}/y", 2.5, None, 9),
        _row(f"{conv}/{i}/z", 2.0, (2, 0.3), 12 - i),
        _row(f"{conv}/{i}/e", 1.0 + 0.1 * i, (1, 0.8), 7),
    )
    dias = ("x", "y", "z", f"e{i}")
    return Question(conv, str(1 + i % 4), f"What did Ana say {i}?", (f"e{i}",), rows, dias)


QUESTIONS = [_question(c, i) for c in ("c1", "c2", "c3") for i in range(4)]


def test_the_fit_is_deterministic_and_learns_the_signal() -> None:
    first = fit_weights(QUESTIONS, 0.1)
    assert first == fit_weights(QUESTIONS, 0.1)
    assert first["vector_cos"] > 0
    before, after = figures(QUESTIONS, None), figures(QUESTIONS, first)
    assert before["MRR"] == pytest.approx(25.0)
    assert after["MRR"] == pytest.approx(100.0)
    assert after["R@10"] == before["R@10"] == 100.0  # a block of 4: every id is in the first 10


def test_the_fitted_weights_reorder_recall_rows_the_same_way() -> None:
    w = fit_weights(QUESTIONS, 0.1)
    q = QUESTIONS[0]
    f = rerank_factors(q.question, q.rows, RerankConfig(enabled=True, depth=40, weights=w))
    new = {r.key: r.score * f[r.key] for r in q.rows}
    assert max(new, key=lambda k: new[k]) == "c1/0/e"


def test_loco_holds_each_conversation_out() -> None:
    held, none = loco(QUESTIONS)
    assert none == {}
    assert held["MRR"] == pytest.approx(100.0)
    nested, lams = loco(QUESTIONS, nested=True)
    assert sorted(lams) == ["c1", "c2", "c3"]
    assert nested["MRR"] == pytest.approx(100.0)


def test_the_averaged_fit_is_deterministic() -> None:
    first = fit_averaged(QUESTIONS)
    assert first == fit_averaged(QUESTIONS)
    assert figures(QUESTIONS, first)["MRR"] == pytest.approx(100.0)


def test_rows_survive_a_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    save_rows(path, QUESTIONS)
    assert load_rows(path) == QUESTIONS
