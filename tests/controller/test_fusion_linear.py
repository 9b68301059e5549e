"""Linear (fitted) fusion: the features, the weighted sum, named extras, and copy merging."""

from __future__ import annotations

import pytest

from remem.controller import ControllerConfig, FusionConfig, RankedList
from remem.controller.config import (
    DEFAULT_FUSION,
    LEXICAL_WEIGHTS,
    SEMANTIC_WEIGHTS,
    fitted_weights,
)
from remem.controller.fusion import candidate_features, fuse, linear_fusion
from remem.errors import ConfigError
from tests.controller.conftest import Factory


def test_features_scale_rank_and_cosine() -> None:
    lists = [
        RankedList("vector", [("a", 0.9), ("b", 0.5), ("a", 0.4)]),  # a again: best position
        RankedList("fulltext", [("b", 12.0), ("c", 4.0)]),
    ]
    rows = candidate_features(lists)
    assert rows["a"] == {"vector": 1.0, "vector_rr": 1.0, "vector_cos": 0.9}
    # b is last of vector's distinct keys (scaled 0, omitted) but first of full text's.
    assert rows["b"] == {"vector_rr": 0.5, "vector_cos": 0.5, "fulltext": 1.0, "fulltext_rr": 1.0}
    assert rows["c"] == {"fulltext_rr": 0.5}


def test_lone_hit_and_negative_cosine() -> None:
    rows = candidate_features([RankedList("vector", [("a", -0.2)])])
    assert rows["a"] == {"vector": 1.0, "vector_rr": 1.0}  # a negative cosine adds nothing


def test_linear_fusion_is_the_weighted_sum_with_extras() -> None:
    lists = [
        RankedList("vector", [("a", 0.8), ("b", 0.2)]),
        RankedList("fulltext", [("b", 3.0), ("a", 1.0)]),
    ]
    weights = {"vector": 2.0, "fulltext": 1.0, "speaker": 0.5}
    fused = linear_fusion(lists, weights=weights, extras={"b": {"speaker": 1.0}})
    assert fused["a"].score == pytest.approx(2.0)
    assert fused["b"].score == pytest.approx(1.0 + 0.5)
    assert fused["b"].features["speaker"] == 1.0
    rank, raw, part = fused["a"].parts["vector"]
    assert (rank, raw) == (1, 0.8)
    assert part == pytest.approx(2.0)
    assert fused["b"].parts["fulltext"][0] == 1
    # An extra for a key no retriever listed is ignored: extras re-rank, never add candidates.
    assert "z" not in linear_fusion(lists, weights=weights, extras={"z": {"speaker": 1.0}})


def test_a_feature_without_weight_contributes_nothing() -> None:
    lists = [RankedList("vector", [("a", 0.8)]), RankedList("fulltext", [("b", 2.0)])]
    fused = linear_fusion(lists, weights={"fulltext": 1.0})
    assert fused["a"].score == 0.0
    assert fused["b"].score == 1.0


def test_fuse_dispatches_on_method() -> None:
    lists = [RankedList("fulltext", [("a", 2.0), ("b", 1.0)])]
    config = FusionConfig(method="linear", features={"fulltext_rr": 1.0})
    fused = fuse(lists, config)
    assert fused["b"].score == pytest.approx(0.5)


def test_default_is_linear_with_the_weights_fitted_for_the_embedder() -> None:
    config = FusionConfig()
    assert DEFAULT_FUSION == "linear"
    assert config.method == "linear"
    assert config.features is None
    assert config.merge_copies is True
    assert fitted_weights("remem-hashing-v1-384") is LEXICAL_WEIGHTS
    assert fitted_weights("sentence-transformers/all-MiniLM-L6-v2") is SEMANTIC_WEIGHTS
    lexical = config.for_embedder("remem-hashing-v1-384")
    assert lexical.features == dict(LEXICAL_WEIGHTS)
    mine = FusionConfig(features={"fulltext": 1.0})
    assert mine.for_embedder("remem-hashing-v1-384") is mine  # given weights are kept
    with pytest.raises(ConfigError, match="for_embedder"):
        fuse([RankedList("fulltext", [("a", 1.0)])], config)


def test_feature_weights_are_validated() -> None:
    with pytest.raises(ConfigError, match="finite"):
        FusionConfig(features={"vector": -0.1})
    with pytest.raises(ConfigError, match="finite"):
        FusionConfig(features={"vector": float("nan")})
    with pytest.raises(ConfigError, match="non-empty"):
        FusionConfig(features={"": 1.0})
    with pytest.raises(ConfigError, match="merge_copies"):
        FusionConfig(merge_copies="yes")  # type: ignore[arg-type]


@pytest.mark.parametrize("merge", [True, False])
async def test_a_turn_and_its_memory_copy_are_one_candidate(
    make_stack: Factory, merge: bool
) -> None:
    config = ControllerConfig(fusion=FusionConfig(merge_copies=merge))
    s = await make_stack(config=config, name=f"merge-{merge}")
    said = "Ana: I adopted a grey cat called Miso last spring"
    await s.controller.record_turn("chat", said, "")
    await s.controller.remember(said, memory_id="ana-cat")
    await s.controller.record_turn("chat", "Bruno: the weather is lovely today", "")
    hits = await s.controller.recall("Ana's cat Miso", k=5)
    copies = [h for h in hits if "Miso" in h.record.text]
    if merge:
        assert [h.record.id for h in copies] == ["ana-cat"]
        assert set(copies[0].sources) == {"vector", "fulltext"}
    else:
        assert len(copies) == 2
        assert {h.record.metadata.get("source") for h in copies} >= {"turn"}


async def test_merge_keeps_a_turn_with_other_words(make_stack: Factory) -> None:
    s = await make_stack(name="merge-different")
    await s.controller.record_turn("chat", "Ana: Miso the cat is mine", "")
    await s.controller.remember("Ana: Miso the cat is mine, since May", memory_id="ana-cat")
    hits = await s.controller.recall("Miso cat", k=5)
    assert len([h for h in hits if "Miso" in h.record.text]) == 2
