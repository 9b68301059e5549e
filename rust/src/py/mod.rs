//! Python bindings: the only place (with lib.rs) that touches pyo3 or numpy.
//!
//! Every binding follows one shape: extract → validate (typed errors naming expected vs actual) →
//! release the GIL → run the kernel → move the owned result into a fresh numpy array.

mod arrays;
mod bert;
mod bm25;
mod errors;
mod hashembed;
mod scoring;
mod select;
mod tokens;
mod topk;

use pyo3::prelude::*;

pub(crate) use arrays::{array1, array2, require_len, slice};
pub(crate) use errors::{detach, to_pyerr};

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(after_fork_in_child, m)?)?;
    m.add_function(wrap_pyfunction!(configured_threads, m)?)?;
    bert::register(m)?;
    bm25::register(m)?;
    hashembed::register(m)?;
    scoring::register(m)?;
    select::register(m)?;
    tokens::register(m)?;
    topk::register(m)?;
    Ok(())
}

/// Switch the shared thread pool off in a forked child (registered with os.register_at_fork).
#[pyfunction]
fn after_fork_in_child() {
    crate::parallel::disable_after_fork();
}

/// Worker threads the kernels may use (REMEM_NUM_THREADS, else the core count).
#[pyfunction]
fn configured_threads() -> usize {
    crate::parallel::configured_threads()
}
