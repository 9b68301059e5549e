//! Binding for the BM25 top-k kernel (CSR postings index, CSR batch of queries).

use numpy::PyArray1;
use pyo3::prelude::*;

use super::{array1, detach, require_len, slice, to_pyerr};
use crate::bm25::{self, Params, Postings, Queries};
use crate::error::KernelError;

type HitArrays<'py> = (
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<f64>>,
);

/// BM25 top-k (plus ties at the k-th score) of a batch of queries over a postings index;
/// returns (hit offsets int64 (n_queries + 1), docs int64, scores float64).
#[pyfunction]
#[pyo3(signature = (offsets, docs, tfs, doc_lengths, query_offsets, term_ids, idf, avgdl, k, *, k1 = 1.2, b = 0.75, mask = None))]
#[allow(clippy::too_many_arguments)]
fn bm25_top_k<'py>(
    py: Python<'py>,
    offsets: &Bound<'py, PyAny>,
    docs: &Bound<'py, PyAny>,
    tfs: &Bound<'py, PyAny>,
    doc_lengths: &Bound<'py, PyAny>,
    query_offsets: &Bound<'py, PyAny>,
    term_ids: &Bound<'py, PyAny>,
    idf: &Bound<'py, PyAny>,
    avgdl: f64,
    k: i64,
    k1: f64,
    b: f64,
    mask: Option<&Bound<'py, PyAny>>,
) -> PyResult<HitArrays<'py>> {
    let k = usize::try_from(k).map_err(|_| {
        to_pyerr(
            py,
            KernelError::OutOfRange {
                name: "k",
                detail: format!("{k} is negative; pass k >= 0"),
            },
        )
    })?;
    let offsets = array1::<i64>(offsets, "offsets", "int64")?;
    let docs = array1::<i32>(docs, "docs", "int32")?;
    let tfs = array1::<u32>(tfs, "tfs", "uint32")?;
    let lens = array1::<u32>(doc_lengths, "doc_lengths", "uint32")?;
    let qoff = array1::<i64>(query_offsets, "query_offsets", "int64")?;
    let terms = array1::<i64>(term_ids, "term_ids", "int64")?;
    let idf = array1::<f64>(idf, "idf", "float64")?;
    let mask = match mask {
        Some(m) if !m.is_none() => Some(array1::<bool>(m, "mask", "bool")?),
        _ => None,
    };
    let index = Postings {
        offsets: slice(py, &offsets, "offsets")?,
        docs: slice(py, &docs, "docs")?,
        tfs: slice(py, &tfs, "tfs")?,
        doc_lengths: slice(py, &lens, "doc_lengths")?,
    };
    require_len(py, "tfs", index.docs.len(), index.tfs.len())?;
    let queries = Queries {
        offsets: slice(py, &qoff, "query_offsets")?,
        terms: slice(py, &terms, "term_ids")?,
        idf: slice(py, &idf, "idf")?,
    };
    require_len(py, "idf", queries.terms.len(), queries.idf.len())?;
    let mask = mask.as_ref().map(|m| slice(py, m, "mask")).transpose()?;
    if let Some(m) = mask {
        require_len(py, "mask", index.doc_lengths.len(), m.len())?;
    }
    let params = Params {
        k1,
        b,
        avgdl,
        k,
        mask,
    };
    let hits = detach(py, move || bm25::top_k(index, queries, &params))?;
    Ok((
        PyArray1::from_vec(py, hits.offsets),
        PyArray1::from_vec(py, hits.docs),
        PyArray1::from_vec(py, hits.scores),
    ))
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(bm25_top_k, m)?)?;
    Ok(())
}
