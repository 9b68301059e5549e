"""Type stub for remem._native, the compiled core. Checked by mypy.stubtest.

Every function validates its arrays (dtype, C-contiguity, lengths) and raises the classes of
remem.errors; use remem.kernels, the typed façade, rather than calling these directly.
"""

__version__: str

def after_fork_in_child() -> None: ...
def configured_threads() -> int: ...

# --- scoring (decay, promotion, inclusion, fused) ---------------------------------------------

# --- selection (budgeted knapsack) ------------------------------------------------------------

# --- tokens (estimate, exact count) -----------------------------------------------------------

# --- top-k (f32 exact, int8 quantized) --------------------------------------------------------
