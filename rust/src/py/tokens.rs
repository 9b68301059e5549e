//! Bindings for the tokens kernels: `estimate_tokens`, `count_tokens` and their scalar forms.
//!
//! Strings are copied into owned Rust `String`s while the GIL is held (tokenizers style), then the
//! GIL is released for the kernel. A `str` holding a lone surrogate cannot be encoded as UTF-8:
//! it raises InvalidArgumentError naming the offending item, never a panic.

use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple};

use super::{detach, to_pyerr};
use crate::error::KernelError;
use crate::tokens::{self, Encoding};

fn invalid(py: Python<'_>, detail: String) -> PyErr {
    to_pyerr(py, KernelError::Invalid { detail })
}

fn owned_text(item: &Bound<'_, PyAny>, index: usize) -> PyResult<String> {
    let py = item.py();
    let s = item.cast::<PyString>().map_err(|_| {
        let ty = item
            .get_type()
            .name()
            .map(|n| n.to_string())
            .unwrap_or_else(|_| "?".into());
        invalid(py, format!("texts[{index}] is {ty}, expected str"))
    })?;
    match s.to_str() {
        Ok(text) => Ok(text.to_owned()),
        Err(_) => Err(invalid(
            py,
            format!(
                "texts[{index}] contains a lone surrogate; encode it with errors='replace' \
                 (or 'surrogatepass' and decode) first"
            ),
        )),
    }
}

/// Copy a sequence of `str` into owned strings (a bare `str` is rejected, not split into chars).
fn owned_texts(texts: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    let py = texts.py();
    if texts.is_instance_of::<PyString>() {
        return Err(invalid(
            py,
            "texts must be a sequence of strings, not a single str; wrap it in a list".into(),
        ));
    }
    if let Ok(list) = texts.cast::<PyList>() {
        return list
            .iter()
            .enumerate()
            .map(|(i, t)| owned_text(&t, i))
            .collect();
    }
    if let Ok(tuple) = texts.cast::<PyTuple>() {
        return tuple
            .iter()
            .enumerate()
            .map(|(i, t)| owned_text(&t, i))
            .collect();
    }
    let iter = texts.try_iter().map_err(|_| {
        invalid(
            py,
            "texts must be a sequence of str, e.g. a list of strings".into(),
        )
    })?;
    iter.enumerate().map(|(i, t)| owned_text(&t?, i)).collect()
}

/// Estimated o200k_base token count of each text.
#[pyfunction]
fn estimate_tokens<'py>(
    py: Python<'py>,
    texts: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let owned = owned_texts(texts)?;
    let out = detach(py, move || Ok(tokens::estimate_tokens(&owned)))?;
    Ok(PyArray1::from_vec(py, out))
}

/// Exact token count of each text under `encoding`.
#[pyfunction]
#[pyo3(signature = (texts, encoding = "o200k_base"))]
fn count_tokens<'py>(
    py: Python<'py>,
    texts: &Bound<'py, PyAny>,
    encoding: &str,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let enc = Encoding::parse(encoding).map_err(|e| to_pyerr(py, e))?;
    let owned = owned_texts(texts)?;
    let out = detach(py, move || Ok(tokens::count_tokens(&owned, enc)))?;
    Ok(PyArray1::from_vec(py, out))
}

/// Estimated o200k_base token count of one text.
#[pyfunction]
fn estimate_tokens_one(py: Python<'_>, text: &Bound<'_, PyAny>) -> PyResult<i64> {
    let owned = owned_text(text, 0)?;
    detach(py, move || Ok(tokens::estimate_one(&owned)))
}

/// Exact token count of one text under `encoding`.
#[pyfunction]
#[pyo3(signature = (text, encoding = "o200k_base"))]
fn count_tokens_one(py: Python<'_>, text: &Bound<'_, PyAny>, encoding: &str) -> PyResult<i64> {
    let enc = Encoding::parse(encoding).map_err(|e| to_pyerr(py, e))?;
    let owned = owned_text(text, 0)?;
    detach(py, move || Ok(tokens::count_one(&owned, enc)))
}

/// Test oracle: `count_tokens` through the `bpe-openai` crate's own regex pre-tokenizer.
#[pyfunction]
#[pyo3(signature = (texts, encoding = "o200k_base"))]
fn _count_tokens_crate<'py>(
    py: Python<'py>,
    texts: &Bound<'py, PyAny>,
    encoding: &str,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let enc = Encoding::parse(encoding).map_err(|e| to_pyerr(py, e))?;
    let owned = owned_texts(texts)?;
    let out = detach(py, move || {
        Ok(owned
            .iter()
            .map(|t| tokens::count_one_crate(t, enc))
            .collect::<Vec<i64>>())
    })?;
    Ok(PyArray1::from_vec(py, out))
}

/// Test hook: the pre-tokenizer pieces of `text` (the crate's regex split when `oracle`).
#[pyfunction]
#[pyo3(signature = (text, encoding = "o200k_base", oracle = false))]
fn _pretokenize(
    py: Python<'_>,
    text: &Bound<'_, PyAny>,
    encoding: &str,
    oracle: bool,
) -> PyResult<Vec<String>> {
    let enc = Encoding::parse(encoding).map_err(|e| to_pyerr(py, e))?;
    let owned = owned_text(text, 0)?;
    detach(py, move || Ok(tokens::pieces(&owned, enc, oracle)))
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(estimate_tokens, m)?)?;
    m.add_function(wrap_pyfunction!(count_tokens, m)?)?;
    m.add_function(wrap_pyfunction!(estimate_tokens_one, m)?)?;
    m.add_function(wrap_pyfunction!(count_tokens_one, m)?)?;
    m.add_function(wrap_pyfunction!(_count_tokens_crate, m)?)?;
    m.add_function(wrap_pyfunction!(_pretokenize, m)?)?;
    Ok(())
}
