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
def _count_tokens_crate(
    texts: Sequence[str], encoding: str = "o200k_base"
) -> NDArray[np.int64]: ...
def _pretokenize(text: str, encoding: str = "o200k_base", oracle: bool = False) -> list[str]: ...

# --- top-k (f32 exact, int8 quantized) --------------------------------------------------------
