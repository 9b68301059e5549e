//! remem's native core, importable as `remem._native`.
//!
//! Module registration only: the kernels live in their own files (pure Rust over slices, no
//! pyo3) and the bindings in `py/`.

pub mod bert;
pub mod bm25;
pub mod decay;
pub mod error;
pub mod hashembed;
pub mod parallel;
pub mod score;
pub mod select;
pub mod tokens;
pub mod topk;

mod py;

use pyo3::prelude::*;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    py::register(m)
}
