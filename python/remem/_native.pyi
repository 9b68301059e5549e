"""Type stub for remem._native, the compiled core. Checked by mypy.stubtest.

Every function validates its arrays (dtype, C-contiguity, lengths) and raises the classes of
remem.errors; use remem.kernels, the typed façade, rather than calling these directly.
"""

from collections.abc import Sequence
from typing import final

import numpy as np
from numpy.typing import NDArray

__version__: str

def after_fork_in_child() -> None: ...
def configured_threads() -> int: ...

# --- scoring (decay, promotion, inclusion, fused) ---------------------------------------------

def exp_fast(x: NDArray[np.float64]) -> NDArray[np.float64]: ...
def decay_scores(
    base_scores: NDArray[np.float64],
    reference_times: NDArray[np.float64],
    *,
    now: float,
    decay_rate: float,
) -> NDArray[np.float64]: ...
def reinforce_scores(
    base_scores: NDArray[np.float64],
    reference_times: NDArray[np.float64],
    *,
    now: float,
    decay_rate: float,
    access_boost: float,
) -> NDArray[np.float64]: ...
def fused_scores(
    base_scores: NDArray[np.float64],
    reference_times: NDArray[np.float64],
    created_times: NDArray[np.float64],
    access_counts: NDArray[np.int64],
    confidence: NDArray[np.float64],
    relationship_counts: NDArray[np.int64],
    similarity: NDArray[np.float64],
    *,
    now: float,
    decay_rate: float,
    w_age: float,
    w_access: float,
    w_confidence: float,
    w_relationships: float,
    age_norm_hours: float,
    access_norm: float,
    relationship_norm: float,
    recency_rate: float,
    hit_weight: float,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]: ...

# --- selection (budgeted knapsack) ------------------------------------------------------------

def select_within_budget(
    costs: NDArray[np.int64],
    values: NDArray[np.float64],
    budget: int,
    *,
    strategy: str = "optimal",
    must_keep: NDArray[np.bool_] | None = None,
    cell_limit: int = ...,
) -> tuple[NDArray[np.int64], str, float]: ...

# --- tokens (estimate, exact count) -----------------------------------------------------------

def estimate_tokens(texts: Sequence[str]) -> NDArray[np.int64]: ...
def count_tokens(texts: Sequence[str], encoding: str = "o200k_base") -> NDArray[np.int64]: ...
def estimate_tokens_one(text: str) -> int: ...
def count_tokens_one(text: str, encoding: str = "o200k_base") -> int: ...
def _count_tokens_crate(
    texts: Sequence[str], encoding: str = "o200k_base"
) -> NDArray[np.int64]: ...
def _pretokenize(text: str, encoding: str = "o200k_base", oracle: bool = False) -> list[str]: ...

# --- top-k (f32 exact, int8 quantized) --------------------------------------------------------

def top_k(
    queries: NDArray[np.float32],
    matrix: NDArray[np.float32],
    k: int,
    *,
    metric: str = "cosine",
    mask: NDArray[np.bool_] | None = None,
) -> tuple[NDArray[np.int64], NDArray[np.float32]]: ...
def quantize(
    matrix: NDArray[np.float32],
) -> tuple[NDArray[np.int8], NDArray[np.float32], NDArray[np.float32]]: ...
def top_k_quantized(
    queries: NDArray[np.float32],
    codes: NDArray[np.int8],
    scales: NDArray[np.float32],
    norms: NDArray[np.float32],
    matrix: NDArray[np.float32],
    k: int,
    *,
    metric: str = "cosine",
    mask: NDArray[np.bool_] | None = None,
    candidates: int | None = None,
) -> tuple[NDArray[np.int64], NDArray[np.float32]]: ...

# --- bm25 (full-text top-k over a CSR postings index) ------------------------------------------

def bm25_top_k(
    offsets: NDArray[np.int64],
    docs: NDArray[np.int32],
    tfs: NDArray[np.uint32],
    doc_lengths: NDArray[np.uint32],
    query_offsets: NDArray[np.int64],
    term_ids: NDArray[np.int64],
    idf: NDArray[np.float64],
    avgdl: float,
    k: int,
    *,
    k1: float = 1.2,
    b: float = 0.75,
    mask: NDArray[np.bool_] | None = None,
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.float64]]: ...

# --- hashembed (HashingEmbedder feature accumulation over a CSR batch of hashed tokens) --------

def hash_embed(
    text_offsets: NDArray[np.int64],
    ids: NDArray[np.int64],
    hashes: NDArray[np.uint64],
    char_offsets: NDArray[np.int64],
    chars: NDArray[np.uint32],
    *,
    dimension: int,
    ngram_range: tuple[int, int],
    char_ngrams: tuple[int, int] | None,
    seed: int,
    empty_hash: int,
) -> NDArray[np.float32]: ...

# --- bert (a BERT encoder owning its packed weights; CSR batches of token ids) -----------------

def bert_bf16_accelerated() -> bool: ...

@final
class BertEncoder:
    def __new__(
        cls,
        tensors: dict[str, NDArray[np.float32]],
        *,
        hidden: int,
        layers: int,
        heads: int,
        intermediate: int,
        max_positions: int,
        eps: float,
        precision: str = "float32",
    ) -> BertEncoder: ...
    @property
    def dimension(self) -> int: ...
    def encode(
        self,
        ids: NDArray[np.int64],
        offsets: NDArray[np.int64],
        type_ids: NDArray[np.int64] | None = None,
        *,
        pooling: str,
        normalize: bool,
    ) -> NDArray[np.float32]: ...
