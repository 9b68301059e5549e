"""The native BERT encoder against the numpy reference encoder on tiny random BERT models.

Tolerance: cosine >= 0.99999 per pooled vector and max |diff| <= 1e-5 per component (float32
with a different summation order; the bundled-MiniLM twin is in
tests/embeddings/test_sentence_transformer.py).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from remem.embeddings.bert import BertConfig, NumpyBertEncoder
from remem.errors import ConfigError, InvalidArgumentError, ShapeError
from remem.kernels.bert import NativeBertEncoder

VOCAB, TYPES, POSITIONS = 40, 2, 16


def _model(
    seed: int, hidden: int, heads: int, layers: int, intermediate: int
) -> tuple[BertConfig, dict[str, np.ndarray]]:
    rng = np.random.default_rng(seed)
    config = BertConfig(hidden, layers, heads, intermediate, POSITIONS)
    w: dict[str, np.ndarray] = {
        "embeddings.word_embeddings.weight": rng.normal(size=(VOCAB, hidden)),
        "embeddings.position_embeddings.weight": 0.5 * rng.normal(size=(POSITIONS, hidden)),
        "embeddings.token_type_embeddings.weight": 0.5 * rng.normal(size=(TYPES, hidden)),
        "embeddings.LayerNorm.weight": 1 + 0.2 * rng.normal(size=hidden),
        "embeddings.LayerNorm.bias": 0.1 * rng.normal(size=hidden),
    }
    for i in range(layers):
        p = f"encoder.layer.{i}."
        shapes = {
            "attention.self.query": (hidden, hidden),
            "attention.self.key": (hidden, hidden),
            "attention.self.value": (hidden, hidden),
            "attention.output.dense": (hidden, hidden),
            "intermediate.dense": (intermediate, hidden),
            "output.dense": (hidden, intermediate),
        }
        for name, (n, k) in shapes.items():
            w[p + name + ".weight"] = rng.normal(size=(n, k)) / np.sqrt(k)
            w[p + name + ".bias"] = 0.1 * rng.normal(size=n)
        for norm in ("attention.output.LayerNorm", "output.LayerNorm"):
            w[p + norm + ".weight"] = 1 + 0.2 * rng.normal(size=hidden)
            w[p + norm + ".bias"] = 0.1 * rng.normal(size=hidden)
    return config, {k: v.astype(np.float32) for k, v in w.items()}


def _numpy_pooled(
    config: BertConfig,
    weights: dict[str, np.ndarray],
    seqs: list[list[int]],
    types: list[list[int]],
) -> np.ndarray:
    """The reference: a padded batch through NumpyBertEncoder, masked mean, L2."""
    width = max(map(len, seqs))
    ids = np.zeros((len(seqs), width), dtype=np.int64)
    mask = np.zeros_like(ids)
    tt = np.zeros_like(ids)
    for i, (s, t) in enumerate(zip(seqs, types, strict=True)):
        ids[i, : len(s)], mask[i, : len(s)], tt[i, : len(t)] = s, 1, t
    hidden = NumpyBertEncoder(config, weights)(ids, mask, tt)
    pooled = (hidden * mask[:, :, None]).sum(1) / mask.sum(1, keepdims=True)
    out: np.ndarray = pooled / np.linalg.norm(pooled, axis=1, keepdims=True)
    return out


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    shape=st.sampled_from([(8, 2, 1, 16), (24, 4, 2, 40), (32, 1, 2, 8), (48, 12, 1, 96)]),
    seqs=st.lists(
        st.lists(st.integers(0, VOCAB - 1), min_size=1, max_size=POSITIONS), min_size=1, max_size=5
    ),
    data=st.data(),
)
def test_native_matches_numpy_reference(
    seed: int, shape: tuple[int, int, int, int], seqs: list[list[int]], data: st.DataObject
) -> None:
    config, weights = _model(seed, *shape)
    types = [
        data.draw(st.lists(st.integers(0, TYPES - 1), min_size=len(s), max_size=len(s)))
        for s in seqs
    ]
    got = NativeBertEncoder(config, weights).encode(seqs, types)
    want = _numpy_pooled(config, weights, seqs, types)
    assert got.shape == want.shape
    assert got.dtype == np.float32
    assert float(np.min(np.sum(got * want, axis=1))) >= 0.99999
    assert float(np.max(np.abs(got - want))) <= 1e-5


def test_bert_prefix_other_poolings_and_no_normalisation() -> None:
    config, weights = _model(3, 16, 4, 2, 24)
    enc = NativeBertEncoder(config, {"bert." + k: v for k, v in weights.items()})
    seqs = [[1, 2, 3], [4, 5, 6, 7, 8]]
    hidden = NumpyBertEncoder(config, weights)(np.array([seqs[1]]), np.ones((1, 5), np.int64))[0]
    np.testing.assert_allclose(
        enc.encode(seqs[1:], pooling="cls_token", normalize=False)[0], hidden[0], atol=1e-5
    )
    np.testing.assert_allclose(
        enc.encode(seqs[1:], pooling="max_tokens", normalize=False)[0], hidden.max(0), atol=1e-5
    )
    np.testing.assert_allclose(
        enc.encode(seqs[1:], pooling="mean_sqrt_len_tokens", normalize=False)[0],
        hidden.sum(0) / np.sqrt(5),
        atol=1e-5,
    )
    assert enc.dimension == 16
    assert enc.encode([]).shape == (0, 16)


def test_bad_inputs_are_typed_errors() -> None:
    config, weights = _model(4, 8, 2, 1, 16)
    enc = NativeBertEncoder(config, weights)
    with pytest.raises(InvalidArgumentError, match="at least one"):
        enc.encode([[1], []])
    with pytest.raises(InvalidArgumentError, match="max_position_embeddings"):
        enc.encode([[1] * (POSITIONS + 1)])
    with pytest.raises(InvalidArgumentError, match=r"ids\[1\] = 40"):
        enc.encode([[1, VOCAB]])
    with pytest.raises(InvalidArgumentError, match="pooling"):
        enc.encode([[1]], pooling="mean")  # type: ignore[arg-type]
    with pytest.raises(ShapeError):
        enc.encode([[1, 2]], [[0]])
    broken = dict(weights)
    del broken["encoder.layer.0.output.dense.bias"]
    with pytest.raises(ConfigError, match=r"output\.dense\.bias"):
        NativeBertEncoder(config, broken)
    broken = dict(weights, **{"embeddings.LayerNorm.bias": np.zeros(7, np.float32)})
    with pytest.raises(ShapeError):
        NativeBertEncoder(config, broken)


@settings(max_examples=15, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    shape=st.sampled_from([(8, 2, 1, 16), (24, 4, 2, 40), (48, 12, 1, 96)]),
    seqs=st.lists(
        st.lists(st.integers(0, VOCAB - 1), min_size=1, max_size=POSITIONS), min_size=1, max_size=5
    ),
)
def test_bfloat16_stays_close_to_the_numpy_reference(
    seed: int, shape: tuple[int, int, int, int], seqs: list[list[int]]
) -> None:
    """bf16 weights and activations (float32 sums): cosine >= 0.99 on random models, whose
    unit-variance weights are far rougher than a trained model's (MiniLM: >= 0.999, tested in
    tests/embeddings/test_sentence_transformer.py)."""
    config, weights = _model(seed, *shape)
    got = NativeBertEncoder(config, weights, precision="bfloat16").encode(seqs)
    want = _numpy_pooled(config, weights, seqs, [[0] * len(s) for s in seqs])
    assert got.shape == want.shape
    assert float(np.min(np.sum(got * want, axis=1))) >= 0.99


def test_unknown_precision_is_a_config_error() -> None:
    config, weights = _model(4, 8, 2, 1, 16)
    with pytest.raises(ConfigError, match="float32 or bfloat16"):
        NativeBertEncoder(config, weights, precision="float16")  # type: ignore[arg-type]
    assert NativeBertEncoder(config, weights, precision="bfloat16").precision == "bfloat16"
