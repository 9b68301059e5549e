"""The fusion fit: offline re-fusion matches recall's rules, the metrics match the benchmark's,
coordinate ascent is deterministic and finds the weights a hand-made dump rewards, and the
embedding cache survives a restart."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from remem.controller.fusion import candidate_features
from remem.embeddings import HashingEmbedder
from remem.eval.locomo.candidates import (
    Candidate,
    FileEmbeddingCache,
    QuestionCandidates,
    load_dump,
    save_dump,
)
from remem.eval.locomo.fit import _lists, coordinate_ascent, evaluate, fit, prepare
from remem.eval.locomo.metrics import evidence_metrics

FEATURES = ("fulltext", "vector")


def _turn(key: str, dia: str, rank: int, raw: float) -> Candidate:
    return Candidate(key, dia, True, None, {"fulltext": (rank, raw)}, {})


def _memory(key: str, dia: str, ranks: dict[str, tuple[int, float]], turn_id: str) -> Candidate:
    return Candidate(key, dia, False, turn_id, ranks, {})


def _question(conv: str, qid: str, evidence: str, category: str = "4") -> QuestionCandidates:
    """Full text prefers the distractor ``x``; the vector prefers the evidence ``e``."""
    cands = (
        _turn(f"{conv}/x", "x", 1, 9.0),
        _memory(f"{conv}/x/memory", "x", {"fulltext": (2, 9.0), "vector": (2, 0.1)}, f"{conv}/x"),
        _turn(f"{conv}/e", evidence, 3, 6.0),
        _memory(f"{conv}/e/memory", evidence, {"vector": (1, 0.9)}, f"{conv}/e"),
        _turn(f"{conv}/y", "y", 4, 1.0),
    )
    return QuestionCandidates(conv, qid, category, (evidence,), cands)


def test_lists_cut_each_retriever_and_merge_copies() -> None:
    q = _question("c", "q1", "e")
    merged = {r.retriever: r.items for r in _lists(q, depth=3, merge=True)}
    # x's turn becomes its memory (listed by the vector); e's turn becomes e's memory.
    assert merged["fulltext"] == [("c/x/memory", 9.0), ("c/e/memory", 6.0)]
    assert merged["vector"] == [("c/e/memory", 0.9), ("c/x/memory", 0.1)]
    apart = {r.retriever: r.items for r in _lists(q, depth=3, merge=False)}
    assert [k for k, _ in apart["fulltext"]] == ["c/x", "c/x/memory", "c/e"]


def test_offline_metrics_equal_the_benchmarks() -> None:
    questions = [_question("c", f"q{i}", "e", category=str(1 + i % 4)) for i in range(4)]
    prepared = prepare(questions, depth=10, merge=True, features=FEATURES)
    w = np.array([1.0, 0.5])
    got = evaluate(prepared, w, [1] * len(prepared))
    rankings = []
    for _p in prepared:
        rows = candidate_features(_lists(questions[0], 10, True))
        score = {k: rows[k].get("fulltext", 0.0) + 0.5 * rows[k].get("vector", 0.0) for k in rows}
        dia = {c.key: str(c.dia_id) for c in questions[0].candidates}
        rankings.append([dia[k] for k in sorted(score, key=lambda k: (-score[k], k))])
    want = evidence_metrics(rankings, [["e"]] * len(rankings), ks=(10,))
    assert got["recall@10"] == pytest.approx(100 * want["recall@10"])
    assert got["mrr"] == pytest.approx(100 * want["mrr"])
    assert got["all@10"] == pytest.approx(100 * want["all@10"])


def test_category_5_is_not_scored() -> None:
    assert (
        prepare([_question("c", "q", "e", category="5")], depth=5, merge=True, features=FEATURES)
        == []
    )


def test_coordinate_ascent_finds_the_rewarded_weight_deterministically() -> None:
    questions = [_question(c, f"{c}-q{i}", "e") for c in ("a", "b", "c") for i in range(3)]
    prepared = prepare(questions, depth=10, merge=True, features=FEATURES)
    sizes = [1] * len(prepared)
    w = coordinate_ascent(prepared, sizes, FEATURES)
    assert w["fulltext"] == 1.0
    assert w["vector"] > 0.0
    assert evaluate(prepared, np.array([w[f] for f in FEATURES]), sizes)["mrr"] == 100.0
    assert coordinate_ascent(prepared, sizes, FEATURES) == w
    result = fit(questions, depth=10, merge=True, features=FEATURES)
    assert result.weights == w
    assert result.loco["mrr"] == 100.0


def test_dump_round_trip(tmp_path: Path) -> None:
    questions = [_question("c", "q1", "e")]
    save_dump(tmp_path / "d.jsonl", questions)
    assert load_dump(tmp_path / "d.jsonl") == questions


async def test_embedding_cache_survives_a_restart_and_keeps_floors(tmp_path: Path) -> None:
    inner = HashingEmbedder()
    cache = FileEmbeddingCache(inner, tmp_path / "e.npz")
    docs = await cache.embed_documents(["a cat", "a dog"])
    query = await cache.embed_query("a cat")
    cache.save()
    again = FileEmbeddingCache(inner, tmp_path / "e.npz")
    assert np.array_equal(await again.embed_documents(["a dog", "a cat"]), docs[::-1])
    assert np.array_equal(await again.embed_query("a cat"), query)
    assert again.recommended_floors == inner.recommended_floors
    assert again.model_name == inner.model_name
