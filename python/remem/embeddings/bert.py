"""A BERT encoder in numpy: enough of the transformer to run sentence-transformers models on CPU.

Weights come from a HuggingFace ``model.safetensors`` (``BertModel`` layout); tokenisation is the
caller's. Arithmetic is float32 throughout. GELU is the exact (erf) form HuggingFace's "gelu"
uses; numpy has no erf, so it uses Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7, below float32's
resolution of the activations).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from remem.errors import ConfigError

__all__ = ["BertConfig", "NumpyBertEncoder"]

F32 = NDArray[np.float32]


@dataclass(frozen=True, slots=True)
class BertConfig:
    """The fields of a HuggingFace ``config.json`` the encoder needs."""

    hidden_size: int
    num_hidden_layers: int
    num_attention_heads: int
    intermediate_size: int
    max_position_embeddings: int
    layer_norm_eps: float = 1e-12
    hidden_act: str = "gelu"

    @classmethod
    def from_json(cls, data: Mapping[str, object], *, source: str) -> BertConfig:
        if data.get("model_type", "bert") != "bert":
            raise ConfigError(
                f"{source}: model_type {data.get('model_type')!r} is not supported; the numpy "
                "encoder runs BERT models only (install sentence-transformers for others)"
            )
        try:
            config = cls(
                hidden_size=int(data["hidden_size"]),  # type: ignore[call-overload]
                num_hidden_layers=int(data["num_hidden_layers"]),  # type: ignore[call-overload]
                num_attention_heads=int(data["num_attention_heads"]),  # type: ignore[call-overload]
                intermediate_size=int(data["intermediate_size"]),  # type: ignore[call-overload]
                max_position_embeddings=int(data["max_position_embeddings"]),  # type: ignore[call-overload]
                layer_norm_eps=float(data.get("layer_norm_eps", 1e-12)),  # type: ignore[arg-type]
                hidden_act=str(data.get("hidden_act", "gelu")),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ConfigError(f"{source}: missing or invalid field {exc}") from exc
        if config.hidden_act != "gelu":
            raise ConfigError(f"{source}: hidden_act {config.hidden_act!r} is not supported")
        if config.hidden_size % config.num_attention_heads:
            raise ConfigError(f"{source}: hidden_size is not a multiple of num_attention_heads")
        return config


def _erf(x: F32) -> F32:
    sign = np.sign(x)
    a = np.abs(x)
    t = np.float32(1.0) / (np.float32(1.0) + np.float32(0.3275911) * a)
    poly = t * (
        np.float32(0.254829592)
        + t
        * (
            np.float32(-0.284496736)
            + t
            * (
                np.float32(1.421413741)
                + t * (np.float32(-1.453152027) + t * np.float32(1.061405429))
            )
        )
    )
    out: F32 = sign * (np.float32(1.0) - poly * np.exp(-a * a))
    return out


def _gelu(x: F32) -> F32:
    return np.float32(0.5) * x * (np.float32(1.0) + _erf(x * np.float32(1 / np.sqrt(2.0))))


def _layer_norm(x: F32, weight: F32, bias: F32, eps: float) -> F32:
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    var = (centred * centred).mean(axis=-1, keepdims=True)
    out: F32 = centred / np.sqrt(var + np.float32(eps)) * weight + bias
    return out


@dataclass(frozen=True, slots=True)
class _Layer:
    qkv_w: F32  # (hidden, 3*hidden): query|key|value fused into one matmul
    qkv_b: F32
    out_w: F32
    out_b: F32
    ln1_w: F32
    ln1_b: F32
    ff_in_w: F32
    ff_in_b: F32
    ff_out_w: F32
    ff_out_b: F32
    ln2_w: F32
    ln2_b: F32


class NumpyBertEncoder:
    """``BertModel`` forward pass (no pooler): token ids → last hidden states, in numpy.

    Example::

        encoder = NumpyBertEncoder(config, load_file("model.safetensors"))
        hidden = encoder(ids, attention_mask)   # (batch, seq, hidden) float32
    """

    def __init__(self, config: BertConfig, weights: Mapping[str, NDArray[np.generic]]) -> None:
        self.config = config
        prefix = "bert." if "bert.embeddings.word_embeddings.weight" in weights else ""

        def w(name: str) -> F32:
            key = prefix + name
            if key not in weights:
                raise ConfigError(f"model.safetensors has no tensor {key!r}; is this a BERT model?")
            return np.ascontiguousarray(weights[key], dtype=np.float32)

        def linear_t(name: str) -> F32:
            # torch Linear stores (out, in); x @ W.T is faster as x @ (W.T contiguous).
            return np.ascontiguousarray(w(name + ".weight").T)

        self._word = w("embeddings.word_embeddings.weight")
        self._position = w("embeddings.position_embeddings.weight")
        self._token_type = w("embeddings.token_type_embeddings.weight")
        self._emb_ln = (w("embeddings.LayerNorm.weight"), w("embeddings.LayerNorm.bias"))
        self._layers: list[_Layer] = []
        for i in range(config.num_hidden_layers):
            p = f"encoder.layer.{i}."
            att = p + "attention.self."
            self._layers.append(
                _Layer(
                    qkv_w=np.ascontiguousarray(
                        np.concatenate(
                            [
                                linear_t(att + "query"),
                                linear_t(att + "key"),
                                linear_t(att + "value"),
                            ],
                            axis=1,
                        )
                    ),
                    qkv_b=np.concatenate(
                        [w(att + "query.bias"), w(att + "key.bias"), w(att + "value.bias")]
                    ),
                    out_w=linear_t(p + "attention.output.dense"),
                    out_b=w(p + "attention.output.dense.bias"),
                    ln1_w=w(p + "attention.output.LayerNorm.weight"),
                    ln1_b=w(p + "attention.output.LayerNorm.bias"),
                    ff_in_w=linear_t(p + "intermediate.dense"),
                    ff_in_b=w(p + "intermediate.dense.bias"),
                    ff_out_w=linear_t(p + "output.dense"),
                    ff_out_b=w(p + "output.dense.bias"),
                    ln2_w=w(p + "output.LayerNorm.weight"),
                    ln2_b=w(p + "output.LayerNorm.bias"),
                )
            )
        if self._word.shape[1] != config.hidden_size:
            raise ConfigError(
                f"word embeddings are {self._word.shape[1]} wide, config says {config.hidden_size}"
            )

    def __call__(
        self,
        input_ids: NDArray[np.int64],
        attention_mask: NDArray[np.int64],
        token_type_ids: NDArray[np.int64] | None = None,
    ) -> F32:
        """Last hidden states ``(batch, seq, hidden)`` for padded ``(batch, seq)`` inputs."""
        cfg = self.config
        batch, seq = input_ids.shape
        if seq > cfg.max_position_embeddings:
            raise ConfigError(
                f"sequence of {seq} tokens exceeds max_position_embeddings "
                f"{cfg.max_position_embeddings}; truncate the input"
            )
        if token_type_ids is None:
            token_type_ids = np.zeros_like(input_ids)
        x = (
            self._word[input_ids]
            + self._position[:seq][None, :, :]
            + self._token_type[token_type_ids]
        )
        # Hidden states stay 2-D (batch·seq, hidden): one large GEMM per linear layer is much
        # faster than numpy's stacked 3-D matmul, especially when BLAS threads are contended.
        x = _layer_norm(x.reshape(batch * seq, cfg.hidden_size), *self._emb_ln, cfg.layer_norm_eps)
        heads = cfg.num_attention_heads
        head_dim = cfg.hidden_size // heads
        scale = np.float32(1.0 / np.sqrt(head_dim))
        # Padding keys get the most negative float32 so softmax gives them exactly 0 weight.
        mask_bias = np.where(attention_mask[:, None, None, :] > 0, 0.0, np.finfo(np.float32).min)
        mask_bias = mask_bias.astype(np.float32)
        for layer in self._layers:
            qkv = (x @ layer.qkv_w + layer.qkv_b).reshape(batch, seq, 3, heads, head_dim)
            # Contiguous (batch, heads, seq, head_dim) stacks: numpy's matmul reaches BLAS only
            # for contiguous stacks and loops naively over transposed views.
            q = np.ascontiguousarray(qkv[:, :, 0].transpose(0, 2, 1, 3))
            k_t = np.ascontiguousarray(qkv[:, :, 1].transpose(0, 2, 3, 1))
            v = np.ascontiguousarray(qkv[:, :, 2].transpose(0, 2, 1, 3))
            scores = (q @ k_t) * scale + mask_bias
            scores -= scores.max(axis=-1, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(axis=-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch * seq, cfg.hidden_size)
            attended = context @ layer.out_w + layer.out_b
            x = _layer_norm(x + attended, layer.ln1_w, layer.ln1_b, cfg.layer_norm_eps)
            hidden = _gelu(x @ layer.ff_in_w + layer.ff_in_b)
            x = _layer_norm(
                x + (hidden @ layer.ff_out_w + layer.ff_out_b),
                layer.ln2_w,
                layer.ln2_b,
                cfg.layer_norm_eps,
            )
        x = x.reshape(batch, seq, cfg.hidden_size)
        return np.ascontiguousarray(x, dtype=np.float32)
