"""The native BERT encoder (:class:`remem._native.BertEncoder`) behind a typed façade.

:class:`NativeBertEncoder` takes the same ``BertConfig`` and HuggingFace tensors as
:class:`~remem.embeddings.bert.NumpyBertEncoder` (the reference), copies and packs them once into
Rust-owned memory, and turns token-id lists into pooled sentence vectors in one GIL-free call.
Sequences are not padded: a batch goes in as CSR (all ids concatenated + offsets), each sequence
attends over its own tokens only (what the numpy encoder's padding mask computes).

Agreement with the numpy reference (tests/native/test_bert.py): cosine ≥ 0.99999 per vector and
max |Δ| ≤ 1e-5 per component, on the bundled MiniLM and on tiny random BERT configs; measured
on MiniLM and chat turns: cosine ≥ 0.9999999, max |Δ| 2.4e-7.

``precision="bfloat16"`` packs the linear layers' weights as bf16 (half the memory traffic; on a
CPU with AVX512_BF16 the ``vdpbf16ps`` kernel, elsewhere a portable one) and rounds their inputs
to bf16; the sums stay float32. Vectors then agree with float32 to cosine ≥ 0.999 (measured on
MiniLM: ≥ 0.99993 on real sentences and LoCoMo turns), not 1e-6
(tests/embeddings/test_sentence_transformer.py holds this on real sentences), so a collection
keeps one precision. :func:`bf16_accelerated` says whether this CPU runs the bf16 kernel (then
bf16 is also the faster precision); the bundled MiniLM's ``precision="auto"`` picks by it.

Example::

    encoder = NativeBertEncoder(config, safetensors.numpy.load_file("model.safetensors"))
    vectors = encoder.encode([[101, 7592, 102], [101, 102]], pooling="mean_tokens", normalize=True)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import accumulate, chain
from typing import TYPE_CHECKING, Literal

import numpy as np
from numpy.typing import NDArray

from remem import _native
from remem.errors import ConfigError, InvalidArgumentError

if TYPE_CHECKING:
    from remem.embeddings.bert import BertConfig

__all__ = ["NativeBertEncoder", "PackedTokens", "Pooling", "Precision", "bf16_accelerated", "pack"]

Pooling = Literal["mean_tokens", "cls_token", "max_tokens", "mean_sqrt_len_tokens"]
Precision = Literal["float32", "bfloat16"]


def bf16_accelerated() -> bool:
    """True when ``precision="bfloat16"`` runs on this CPU's AVX512_BF16 kernel (``vdpbf16ps``;
    AVX-512F and AVX512_BF16 both present), False when it would run the portable bf16 kernel,
    which is slower than float32's AVX2 one. Checked once per process by the native core."""
    return _native.bert_bf16_accelerated()


class NativeBertEncoder:
    """A BERT model loaded into the native core: token ids → pooled sentence vectors.

    ``weights`` maps HuggingFace tensor names (``BertModel`` layout, with or without the
    ``bert.`` prefix) to arrays; they are converted to float32 here and copied into the encoder
    once, so the mapping may be dropped afterwards. ``precision`` is how the linear layers are
    stored and multiplied (module docs). Raises ConfigError for a missing tensor or an unknown
    precision, ShapeError for a tensor whose size does not match ``config``.
    """

    def __init__(
        self,
        config: BertConfig,
        weights: Mapping[str, NDArray[np.generic]],
        *,
        precision: Precision = "float32",
    ) -> None:
        if precision not in ("float32", "bfloat16"):
            raise ConfigError(f"precision must be float32 or bfloat16, not {precision!r}")
        prefix = "bert." if "bert.embeddings.word_embeddings.weight" in weights else ""
        tensors = {
            name[len(prefix) :]: np.ascontiguousarray(value, dtype=np.float32).reshape(-1)
            for name, value in weights.items()
            if name.startswith(prefix)
        }
        try:
            self._native = _native.BertEncoder(
                tensors,
                hidden=config.hidden_size,
                layers=config.num_hidden_layers,
                heads=config.num_attention_heads,
                intermediate=config.intermediate_size,
                max_positions=config.max_position_embeddings,
                eps=config.layer_norm_eps,
                precision=precision,
            )
        except InvalidArgumentError as exc:
            raise ConfigError(f"the weights do not form a BERT model: {exc}") from exc
        self.config = config
        self.precision: Precision = precision

    @property
    def dimension(self) -> int:
        return self._native.dimension

    def encode(
        self,
        token_ids: Sequence[Sequence[int]],
        type_ids: Sequence[Sequence[int]] | None = None,
        *,
        pooling: Pooling = "mean_tokens",
        normalize: bool = True,
    ) -> NDArray[np.float32]:
        """``(len(token_ids), hidden)`` float32: one pooled (and, if asked, L2-normalised) row
        per sequence.

        Every sequence needs at least one token and at most ``max_position_embeddings``
        (InvalidArgumentError otherwise, as for an id outside the vocabulary).
        """
        return self.encode_packed(pack(token_ids, type_ids), pooling=pooling, normalize=normalize)

    def encode_packed(
        self, tokens: PackedTokens, *, pooling: Pooling = "mean_tokens", normalize: bool = True
    ) -> NDArray[np.float32]:
        """:meth:`encode` of tokens already :func:`pack`-ed: the native call alone, which holds
        the GIL only to start and to return (an encode on a worker thread then waits for no
        Python work of the caller's while it runs)."""
        ids, offsets, types = tokens
        return self._native.encode(ids, offsets, types, pooling=pooling, normalize=normalize)


PackedTokens = tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64] | None]
"""A batch as the native encoder takes it: every id concatenated, the offsets of each sequence
(``len + 1``, from 0) and the token type ids (or None)."""


def pack(
    token_ids: Sequence[Sequence[int]], type_ids: Sequence[Sequence[int]] | None = None
) -> PackedTokens:
    """``token_ids`` (and ``type_ids``) as the CSR arrays
    :meth:`NativeBertEncoder.encode_packed` takes."""
    offsets = np.fromiter(
        accumulate(map(len, token_ids), initial=0), dtype=np.int64, count=len(token_ids) + 1
    )
    ids = np.fromiter(chain.from_iterable(token_ids), dtype=np.int64, count=int(offsets[-1]))
    types = None
    if type_ids is not None:
        types = np.fromiter(chain.from_iterable(type_ids), dtype=np.int64)
    return ids, offsets, types
