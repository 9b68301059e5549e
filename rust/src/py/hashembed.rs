//! Binding for the hashing embedder's feature accumulation (CSR batch of token ids).

use numpy::{PyArray1, PyArrayMethods};
use pyo3::prelude::*;

use super::{array1, detach, slice, to_pyerr};
use crate::error::KernelError;
use crate::hashembed::{self, Batch, Params};

/// A Python int as `T`, or InvalidArgumentError naming the accepted range.
fn int<'py, T: for<'a> FromPyObject<'a, 'py>>(
    obj: &Bound<'py, PyAny>,
    name: &'static str,
    range: &str,
) -> PyResult<T> {
    obj.extract::<T>().map_err(|_| {
        to_pyerr(
            obj.py(),
            KernelError::OutOfRange {
                name,
                detail: format!("{obj} is not an int in {range}"),
            },
        )
    })
}

/// A `(lo, hi)` pair (any 2-item sequence of ints >= 0).
fn pair(obj: &Bound<'_, PyAny>, name: &'static str) -> PyResult<(usize, usize)> {
    match int::<Vec<usize>>(obj, name, "a (lo, hi) pair of ints >= 0")?[..] {
        [lo, hi] => Ok((lo, hi)),
        _ => Err(to_pyerr(
            obj.py(),
            KernelError::OutOfRange {
                name,
                detail: format!("{obj} is not a (lo, hi) pair"),
            },
        )),
    }
}

/// Vectors of a tokenised batch: float32 of shape (n_texts, dimension).
#[pyfunction]
#[pyo3(signature = (text_offsets, ids, hashes, char_offsets, chars, *, dimension, ngram_range, char_ngrams, seed, empty_hash))]
#[allow(clippy::too_many_arguments)]
fn hash_embed<'py>(
    py: Python<'py>,
    text_offsets: &Bound<'py, PyAny>,
    ids: &Bound<'py, PyAny>,
    hashes: &Bound<'py, PyAny>,
    char_offsets: &Bound<'py, PyAny>,
    chars: &Bound<'py, PyAny>,
    dimension: &Bound<'py, PyAny>,
    ngram_range: &Bound<'py, PyAny>,
    char_ngrams: &Bound<'py, PyAny>,
    seed: &Bound<'py, PyAny>,
    empty_hash: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let params = Params {
        dimension: int(dimension, "dimension", "[2, 1048576]")?,
        ngram_range: pair(ngram_range, "ngram_range")?,
        char_ngrams: if char_ngrams.is_none() {
            None
        } else {
            Some(pair(char_ngrams, "char_ngrams")?)
        },
        seed: int(seed, "seed", "[0, 2**64)")?,
        empty_hash: int(empty_hash, "empty_hash", "[0, 2**64)")?,
    };
    let text_offsets = array1::<i64>(text_offsets, "text_offsets", "int64")?;
    let ids = array1::<i64>(ids, "ids", "int64")?;
    let hashes = array1::<u64>(hashes, "hashes", "uint64")?;
    let char_offsets = array1::<i64>(char_offsets, "char_offsets", "int64")?;
    let chars = array1::<u32>(chars, "chars", "uint32")?;
    let batch = Batch {
        text_offsets: slice(py, &text_offsets, "text_offsets")?,
        ids: slice(py, &ids, "ids")?,
        hashes: slice(py, &hashes, "hashes")?,
        char_offsets: slice(py, &char_offsets, "char_offsets")?,
        chars: slice(py, &chars, "chars")?,
    };
    let n = batch.text_offsets.len().saturating_sub(1);
    let d = params.dimension;
    let out = detach(py, move || hashembed::embed(&batch, &params))?;
    Ok(PyArray1::from_vec(py, out).reshape([n, d])?.into_any())
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(hash_embed, m)?)?;
    Ok(())
}
