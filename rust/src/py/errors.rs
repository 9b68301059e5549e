//! Mapping `KernelError` to the Python exception tree, and the one GIL-release helper.

use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::prelude::*;
use pyo3::types::PyType;

use crate::error::{KernelError, KernelResult};

/// The class in `remem.errors` that each variant raises. The tree itself is defined in Python so
/// that users catch one hierarchy whether an error starts in Rust or in Python.
fn class_name(err: &KernelError) -> &'static str {
    match err {
        KernelError::DType { .. } => "DTypeError",
        KernelError::NotContiguous { .. } => "LayoutError",
        KernelError::Length { .. } | KernelError::Dimension { .. } => "ShapeError",
        KernelError::NonFinite { .. } => "NonFiniteError",
        KernelError::OutOfRange { .. } | KernelError::Invalid { .. } => "InvalidArgumentError",
        KernelError::Infeasible { .. } => "BudgetError",
        KernelError::UnknownEncoding { .. } => "UnknownEncodingError",
        KernelError::Internal { .. } => "NativeError",
    }
}

pub(crate) fn to_pyerr(py: Python<'_>, err: KernelError) -> PyErr {
    let message = err.to_string();
    let class = py
        .import("remem.errors")
        .and_then(|m| m.getattr(class_name(&err)))
        .and_then(|c| c.cast_into::<PyType>().map_err(PyErr::from));
    match class {
        Ok(cls) => PyErr::from_type(cls, message),
        Err(import_failure) => import_failure,
    }
}

/// Release the GIL, run `f`, and turn both its error and any panic into a Python exception.
///
/// Inputs must already be owned or borrowed read-only views (numpy readonly borrows), so no Python
/// object is touched while the GIL is released.
pub(crate) fn detach<T, F>(py: Python<'_>, f: F) -> PyResult<T>
where
    T: Send,
    F: FnOnce() -> KernelResult<T> + Send,
{
    let outcome = py.detach(|| catch_unwind(AssertUnwindSafe(f)));
    match outcome {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(err)) => Err(to_pyerr(py, err)),
        Err(panic) => {
            let detail = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "panic".to_owned());
            Err(to_pyerr(py, KernelError::Internal { detail }))
        }
    }
}
