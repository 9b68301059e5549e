"""The dense (Rocchio) feedback stage: the moved query, its batching, its config, and in recall."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from numpy.typing import NDArray

from remem.controller import ControllerConfig
from remem.controller.stages import (
    DenseFeedbackConfig,
    RecallStagesConfig,
    dense_feedback,
    rocchio,
)
from remem.controller.stages.dense_feedback import merge_hits
from remem.errors import ConfigError, RememError
from remem.models import MemoryStage, VectorItem
from remem.staging import StagedScore
from tests.controller.conftest import Factory
from tests.controller.stages.test_stages_in_recall import ALL_OFF

DIM = 384
ST, LT = MemoryStage.SHORT_TERM, MemoryStage.LONG_TERM


def _unit(**parts: float) -> NDArray[np.float32]:
    v = np.zeros(DIM, dtype=np.float32)
    for axis, value in parts.items():
        v[int(axis[1:])] = value
    return v / np.linalg.norm(v)


def test_rocchio_moves_towards_the_weighted_mean_and_renormalises() -> None:
    q = np.stack([_unit(e0=1.0), _unit(e0=1.0)])
    docs = [[(_unit(e1=1.0), 3.0), (_unit(e2=1.0), 1.0)], []]
    moved = rocchio(q, docs, beta=0.5)
    expected = _unit(e0=1.0, e1=0.375, e2=0.125)
    np.testing.assert_allclose(moved[0], expected, atol=1e-6)
    np.testing.assert_array_equal(moved[1], q[1])  # no documents: unchanged
    assert moved is not q
    np.testing.assert_array_equal(q[0], _unit(e0=1.0))  # the input is not written


async def test_one_fetch_per_stage_and_one_search_for_the_queries_that_move() -> None:
    fetches: list[tuple[list[str], MemoryStage]] = []
    searches: list[int] = []
    stored = {"a": _unit(e1=1.0), "b": _unit(e2=1.0)}

    async def fetch(ids: list[str], stage: MemoryStage) -> list[VectorItem]:
        fetches.append((ids, stage))
        return [VectorItem(id=i, vector=tuple(stored[i].tolist())) for i in ids if i in stored]

    async def search(batch: NDArray[np.float32]) -> list[list[StagedScore]]:
        searches.append(len(batch))
        return [[StagedScore("new", 0.9, ST)] for _ in range(len(batch))]

    vectors = np.stack([_unit(e0=1.0), _unit(e0=1.0), _unit(e0=1.0)])
    firsts = [
        [StagedScore("a", 0.8, ST), StagedScore("b", 0.7, LT), StagedScore("c", 0.6, ST)],
        [StagedScore("gone", 0.5, ST)],  # no stored vector: keeps its hits
        [],
    ]
    cfg = DenseFeedbackConfig(enabled=True, docs=2, beta=0.5)
    out = await dense_feedback(vectors, firsts, cfg, fetch, search)
    assert sorted(fetches, key=lambda f: f[1].value) == sorted(
        [(["a", "gone"], ST), (["b"], LT)], key=lambda f: f[1].value
    )
    assert searches == [1]
    assert [h.id for h in out[0]] == ["new"]
    assert out[1] == firsts[1]
    assert out[2] == []
    off = await dense_feedback(vectors, firsts, DenseFeedbackConfig(), fetch, search)
    assert off is firsts
    assert searches == [1]


def test_keep_first_merges_each_id_at_its_better_score() -> None:
    first = [StagedScore("a", 0.9, ST), StagedScore("b", 0.5, ST), StagedScore("c", 0.4, ST)]
    second = [StagedScore("d", 0.8, ST), StagedScore("b", 0.7, ST), StagedScore("e", 0.1, ST)]
    merged = merge_hits(first, second)
    assert [(h.id, h.score) for h in merged] == [("a", 0.9), ("d", 0.8), ("b", 0.7)]
    assert merge_hits([], []) == []
    tie = merge_hits([StagedScore("z", 0.5, ST)], [StagedScore("y", 0.5, LT)])
    assert [h.id for h in tie] == ["y"]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"docs": 0},
        {"docs": True},
        {"beta": 0.0},
        {"beta": 11.0},
        {"enabled": "on"},
        {"keep_first": 1},
    ],
)
def test_bad_settings_are_refused(kwargs: dict[str, object]) -> None:
    with pytest.raises(ConfigError, match="dense_feedback") as info:
        DenseFeedbackConfig(**kwargs)  # type: ignore[arg-type]
    assert isinstance(info.value, RememError)


def test_the_stage_is_off_by_default_and_switchable() -> None:
    assert RecallStagesConfig().dense_feedback.enabled is False
    stages = RecallStagesConfig.from_mapping({"dense_feedback": {"enabled": True, "beta": 1.0}})
    assert stages.dense_feedback == DenseFeedbackConfig(enabled=True, beta=1.0)
    assert stages.without("dense_feedback").dense_feedback.enabled is False


@pytest.mark.parametrize("keep", [True, False])
async def test_keep_first_holds_the_questions_own_hits(make_stack: Factory, keep: bool) -> None:
    dense = DenseFeedbackConfig(enabled=True, docs=1, beta=10.0, keep_first=keep)
    s = await make_stack(
        config=ControllerConfig(stages=dataclasses.replace(ALL_OFF, dense_feedback=dense))
    )
    c = s.controller
    best = await c.remember("the best hit", vector=_unit(e0=0.9, e1=0.436))
    # cos 0.4 with the question, about 0 with q' (moved ten times the best hit's way): below
    # the hashing embedder's floor (0.08), so the second search alone never returns it.
    near_question = await c.remember("near the question", vector=_unit(e0=0.4, e1=-0.917))
    beside_best = await c.remember("beside the best hit", vector=_unit(e0=0.3, e1=0.954))
    hits = await c.recall(
        "anything", k=3, vector=_unit(e0=1.0), sources=["vector"], stages=["short_term"]
    )
    ids = [h.record.id for h in hits]
    assert ids[:2] == [best.id, beside_best.id]
    assert (near_question.id in ids) is keep


@pytest.mark.parametrize("on", [True, False])
async def test_a_memory_near_the_best_hit_overtakes_one_near_the_question_only(
    make_stack: Factory, on: bool
) -> None:
    dense = DenseFeedbackConfig(enabled=True, docs=1, beta=1.0)
    stages = dataclasses.replace(ALL_OFF, dense_feedback=dense) if on else ALL_OFF
    s = await make_stack(config=ControllerConfig(stages=stages))
    c = s.controller
    best = await c.remember("the best hit", vector=_unit(e0=0.9, e1=0.436))
    # cos with the question: near 0.7 (no link to the best hit) vs 0.6 (beside the best hit)
    near_question = await c.remember("near the question", vector=_unit(e0=0.7, e2=0.714))
    beside_best = await c.remember("beside the best hit", vector=_unit(e0=0.6, e1=0.8))
    hits = await c.recall(
        "anything", k=3, vector=_unit(e0=1.0), sources=["vector"], stages=["short_term"]
    )
    ids = [h.record.id for h in hits]
    assert ids[0] == best.id
    expected = [beside_best.id, near_question.id] if on else [near_question.id, beside_best.id]
    assert ids[1:] == expected
