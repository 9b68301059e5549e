//! Array contracts checked up front: dtype, contiguity, length. The kernel never copies.

use numpy::{
    Element, PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2,
    PyUntypedArray, PyUntypedArrayMethods,
};
use pyo3::prelude::*;

use super::to_pyerr;
use crate::error::KernelError;

fn dtype_of(obj: &Bound<'_, PyAny>) -> String {
    match obj.cast::<PyUntypedArray>() {
        Ok(arr) => format!("a {}-d array of dtype {}", arr.ndim(), arr.dtype()),
        Err(_) => format!(
            "{} (not a numpy array)",
            obj.get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_else(|_| "?".into())
        ),
    }
}

/// Borrow a 1-d C-contiguous array of `T` read-only, or raise DTypeError / ShapeError / LayoutError.
pub(crate) fn array1<'py, T: Element>(
    obj: &Bound<'py, PyAny>,
    name: &'static str,
    expected: &'static str,
) -> PyResult<PyReadonlyArray1<'py, T>> {
    let py = obj.py();
    if let Ok(untyped) = obj.cast::<PyUntypedArray>() {
        if untyped.ndim() != 1 {
            return Err(to_pyerr(
                py,
                KernelError::Invalid {
                    detail: format!(
                        "{name} must be a 1-d array, got {} dimensions",
                        untyped.ndim()
                    ),
                },
            ));
        }
    }
    let arr = obj.cast::<PyArray1<T>>().map_err(|_| {
        to_pyerr(
            py,
            KernelError::DType {
                name,
                expected,
                actual: dtype_of(obj),
            },
        )
    })?;
    let ro = arr.try_readonly().map_err(|e| {
        to_pyerr(
            py,
            KernelError::Invalid {
                detail: format!("{name} is being written elsewhere: {e}"),
            },
        )
    })?;
    if !ro.is_c_contiguous() {
        return Err(to_pyerr(py, KernelError::NotContiguous { name }));
    }
    Ok(ro)
}

/// Borrow a 2-d C-contiguous array of `T` read-only, with the same typed errors as [`array1`].
pub(crate) fn array2<'py, T: Element>(
    obj: &Bound<'py, PyAny>,
    name: &'static str,
    expected: &'static str,
) -> PyResult<PyReadonlyArray2<'py, T>> {
    let py = obj.py();
    if let Ok(untyped) = obj.cast::<PyUntypedArray>() {
        if untyped.ndim() != 2 {
            return Err(to_pyerr(
                py,
                KernelError::Invalid {
                    detail: format!(
                        "{name} must be a 2-d array, got {} dimensions",
                        untyped.ndim()
                    ),
                },
            ));
        }
    }
    let arr = obj.cast::<PyArray2<T>>().map_err(|_| {
        to_pyerr(
            py,
            KernelError::DType {
                name,
                expected,
                actual: dtype_of(obj),
            },
        )
    })?;
    let ro = arr.try_readonly().map_err(|e| {
        to_pyerr(
            py,
            KernelError::Invalid {
                detail: format!("{name} is being written elsewhere: {e}"),
            },
        )
    })?;
    if !ro.is_c_contiguous() {
        return Err(to_pyerr(py, KernelError::NotContiguous { name }));
    }
    Ok(ro)
}

/// Raise ShapeError unless `actual == expected`.
pub(crate) fn require_len(
    py: Python<'_>,
    name: &'static str,
    expected: usize,
    actual: usize,
) -> PyResult<()> {
    if expected == actual {
        Ok(())
    } else {
        Err(to_pyerr(
            py,
            KernelError::Length {
                name,
                expected,
                actual,
            },
        ))
    }
}

/// The contiguous data of a read-only 1-d array, or LayoutError naming it.
pub(crate) fn slice<'a, T: Element>(
    py: Python<'_>,
    arr: &'a PyReadonlyArray1<'_, T>,
    name: &'static str,
) -> PyResult<&'a [T]> {
    arr.as_slice()
        .map_err(|_| to_pyerr(py, KernelError::NotContiguous { name }))
}
