"""Type stub for remem._native, the compiled core. Checked by mypy.stubtest.

Every function validates its arrays (dtype, C-contiguity, lengths) and raises the classes of
remem.errors; use remem.kernels, the typed façade, rather than calling these directly.
"""

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

__version__: str

def after_fork_in_child() -> None: ...
def configured_threads() -> int: ...

# --- scoring (decay, promotion, inclusion, fused) ---------------------------------------------

# --- selection (budgeted knapsack) ------------------------------------------------------------

# --- tokens (estimate, exact count) -----------------------------------------------------------

def estimate_tokens(texts: Sequence[str]) -> NDArray[np.int64]: ...
def count_tokens(texts: Sequence[str], encoding: str = "o200k_base") -> NDArray[np.int64]: ...
def estimate_tokens_one(text: str) -> int: ...
def count_tokens_one(text: str, encoding: str = "o200k_base") -> int: ...

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
