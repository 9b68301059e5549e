"""Evidence metrics: hand-computed values, numpy == the pure-Python specification."""

from __future__ import annotations

import math
import random

import pytest

from remem.errors import InvalidArgumentError
from remem.eval.locomo import evidence_metrics, evidence_metrics_reference, per_question_metrics

RANKINGS = [["a", "x", "b", "y"], ["x", "y", "c"], ["x", "y"]]
EVIDENCE = [["a", "b"], ["c"], ["d"]]


def test_hand_computed_values() -> None:
    m = evidence_metrics(RANKINGS, EVIDENCE, ks=(1, 3))
    # q1: a@1, b@3 of {a, b}; q2: c@3 of {c}; q3: d never retrieved.
    assert m["recall@1"] == pytest.approx((0.5 + 0 + 0) / 3)
    assert m["recall@3"] == pytest.approx((1 + 1 + 0) / 3)
    assert m["all@1"] == pytest.approx(0.0)
    assert m["all@3"] == pytest.approx(2 / 3)
    assert m["mrr"] == pytest.approx((1 + 1 / 3 + 0) / 3)
    q1 = (1 + 1 / math.log2(4)) / (1 + 1 / math.log2(3))
    q2 = (1 / math.log2(4)) / 1
    assert m["ndcg@10"] == pytest.approx((q1 + q2 + 0) / 3)


def test_per_question_values() -> None:
    per = per_question_metrics(RANKINGS, EVIDENCE, ks=(1, 3))
    assert per["recall@1"].tolist() == [0.5, 0.0, 0.0]
    assert per["mrr"].tolist() == pytest.approx([1.0, 1 / 3, 0.0])
    assert per["all@3"].tolist() == [1.0, 1.0, 0.0]


def test_duplicates_in_a_ranking_count_once_at_their_first_position() -> None:
    m = evidence_metrics([["a", "a", "b"]], [["b", "b"]], ks=(2,))
    assert m["recall@2"] == 1.0  # distinct ranking: [a, b]; evidence {b}
    assert m["mrr"] == 0.5


def test_evidence_beyond_ten_caps_the_ideal_dcg() -> None:
    evidence = [[f"e{i}" for i in range(15)]]
    m = evidence_metrics([[f"e{i}" for i in range(10)]], evidence, ks=(10,))
    assert m["ndcg@10"] == pytest.approx(1.0)
    assert m["recall@10"] == pytest.approx(10 / 15)
    assert m["all@10"] == 0.0


def test_numpy_matches_the_reference_on_random_rankings() -> None:
    rng = random.Random(3)
    ids = [f"D{i}" for i in range(40)]
    rankings = [rng.sample(ids, rng.randint(0, 25)) for _ in range(300)]
    evidence = [rng.sample(ids, rng.randint(1, 4)) for _ in range(300)]
    fast = evidence_metrics(rankings, evidence, ks=(1, 5, 10, 20))
    slow = evidence_metrics_reference(rankings, evidence, ks=(1, 5, 10, 20))
    assert fast.keys() == slow.keys()
    for name in fast:
        assert fast[name] == pytest.approx(slow[name], abs=1e-12), name


def test_empty_ranking_scores_zero() -> None:
    assert evidence_metrics([[]], [["a"]], ks=(1,)) == {
        "recall@1": 0.0,
        "all@1": 0.0,
        "mrr": 0.0,
        "ndcg@10": 0.0,
    }


@pytest.mark.parametrize(
    ("rankings", "evidence", "ks"),
    [([["a"]], [], (1,)), ([["a"]], [[]], (1,)), ([["a"]], [["a"]], (0,)), ([["a"]], [["a"]], ())],
)
def test_bad_input_is_a_typed_error(
    rankings: list[list[str]], evidence: list[list[str]], ks: tuple[int, ...]
) -> None:
    with pytest.raises(InvalidArgumentError):
        evidence_metrics(rankings, evidence, ks=ks)
