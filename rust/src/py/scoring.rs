//! Bindings for the scoring kernels (decay, reinforcement, fused decay + promotion + inclusion).

use numpy::{PyArray1, PyArrayMethods};
use pyo3::prelude::*;

use super::{array1, detach, require_len, slice};
use crate::score::{FusedInputs, FusedParams, Out};

/// Vectorised exp (exposed so its accuracy can be tested against math.exp).
#[pyfunction]
fn exp_fast<'py>(py: Python<'py>, x: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let x = array1::<f64>(x, "x", "float64")?;
    let xs = slice(py, &x, "x")?;
    let out = detach(py, move || {
        Ok(xs.iter().map(|&v| crate::decay::exp_fast(v)).collect())
    })?;
    Ok(PyArray1::from_vec(py, out))
}

/// Decayed scores: clamp(base · exp(−rate · hours since reference), 0, 1).
#[pyfunction]
#[pyo3(signature = (base_scores, reference_times, *, now, decay_rate))]
fn decay_scores<'py>(
    py: Python<'py>,
    base_scores: &Bound<'py, PyAny>,
    reference_times: &Bound<'py, PyAny>,
    now: f64,
    decay_rate: f64,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let b = array1::<f64>(base_scores, "base_scores", "float64")?;
    let r = array1::<f64>(reference_times, "reference_times", "float64")?;
    let (bs, rs) = (
        slice(py, &b, "base_scores")?,
        slice(py, &r, "reference_times")?,
    );
    require_len(py, "reference_times", bs.len(), rs.len())?;
    let out = detach(py, move || {
        crate::decay::decay_scores(bs, rs, now, decay_rate)
    })?;
    Ok(PyArray1::from_vec(py, out))
}

/// New base scores after an access at `now`: min(1, decayed + access_boost).
#[pyfunction]
#[pyo3(signature = (base_scores, reference_times, *, now, decay_rate, access_boost))]
fn reinforce_scores<'py>(
    py: Python<'py>,
    base_scores: &Bound<'py, PyAny>,
    reference_times: &Bound<'py, PyAny>,
    now: f64,
    decay_rate: f64,
    access_boost: f64,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let b = array1::<f64>(base_scores, "base_scores", "float64")?;
    let r = array1::<f64>(reference_times, "reference_times", "float64")?;
    let (bs, rs) = (
        slice(py, &b, "base_scores")?,
        slice(py, &r, "reference_times")?,
    );
    require_len(py, "reference_times", bs.len(), rs.len())?;
    let out = detach(py, move || {
        crate::decay::reinforce(bs, rs, now, decay_rate, access_boost)
    })?;
    Ok(PyArray1::from_vec(py, out))
}

type Triple<'py> = (
    Bound<'py, PyArray1<f64>>,
    Bound<'py, PyArray1<f64>>,
    Bound<'py, PyArray1<f64>>,
);

/// Decay, promotion and inclusion scores for N items in one pass.
#[pyfunction]
#[pyo3(signature = (
    base_scores, reference_times, created_times, access_counts, confidence, relationship_counts,
    similarity, *, now, decay_rate, w_age, w_access, w_confidence, w_relationships,
    age_norm_hours, access_norm, relationship_norm, recency_rate, hit_weight
))]
#[allow(clippy::too_many_arguments)]
fn fused_scores<'py>(
    py: Python<'py>,
    base_scores: &Bound<'py, PyAny>,
    reference_times: &Bound<'py, PyAny>,
    created_times: &Bound<'py, PyAny>,
    access_counts: &Bound<'py, PyAny>,
    confidence: &Bound<'py, PyAny>,
    relationship_counts: &Bound<'py, PyAny>,
    similarity: &Bound<'py, PyAny>,
    now: f64,
    decay_rate: f64,
    w_age: f64,
    w_access: f64,
    w_confidence: f64,
    w_relationships: f64,
    age_norm_hours: f64,
    access_norm: f64,
    relationship_norm: f64,
    recency_rate: f64,
    hit_weight: f64,
) -> PyResult<Triple<'py>> {
    let b = array1::<f64>(base_scores, "base_scores", "float64")?;
    let r = array1::<f64>(reference_times, "reference_times", "float64")?;
    let c = array1::<f64>(created_times, "created_times", "float64")?;
    let a = array1::<i64>(access_counts, "access_counts", "int64")?;
    let f = array1::<f64>(confidence, "confidence", "float64")?;
    let l = array1::<i64>(relationship_counts, "relationship_counts", "int64")?;
    let s = array1::<f64>(similarity, "similarity", "float64")?;
    let x = FusedInputs {
        base: slice(py, &b, "base_scores")?,
        reference: slice(py, &r, "reference_times")?,
        created: slice(py, &c, "created_times")?,
        accesses: slice(py, &a, "access_counts")?,
        confidence: slice(py, &f, "confidence")?,
        relationships: slice(py, &l, "relationship_counts")?,
        similarity: slice(py, &s, "similarity")?,
    };
    let p = FusedParams {
        now,
        decay_rate,
        w_age,
        w_access,
        w_confidence,
        w_relationships,
        age_norm_hours,
        access_norm,
        relationship_norm,
        recency_rate,
        hit_weight,
    };
    // Outputs are numpy-allocated (huge pages for large arrays; see score::fused_scores_into)
    // and left uninitialised, as np.empty: zeroing them first (np.zeros reuses freed memory
    // through calloc, which then clears it) was a whole extra pass over 24 MB at 1M items.
    let n = x.base.len();
    // SAFETY: the three arrays live to the end of this function, and are returned only after
    // the kernel succeeded, that is wrote every element.
    let ((d, ds), (pr, ps), (inc, is)) = unsafe { (fresh(py, n), fresh(py, n), fresh(py, n)) };
    detach(py, move || {
        crate::score::fused_scores_into(&x, &p, ds, ps, is)
    })?;
    Ok((d, pr, inc))
}

/// A fresh, uninitialised float64 array of `n` elements and its buffer, which nothing else can
/// reach: the array was just created and no one else holds it yet.
///
/// # Safety
/// The caller must keep the array alive while it uses the buffer, and must write every element
/// before the array reaches Python.
unsafe fn fresh<'py>(py: Python<'py>, n: usize) -> (Bound<'py, PyArray1<f64>>, &'py mut [Out]) {
    // SAFETY: f64 is plain data, so the uninitialised array is safe to drop.
    let arr = unsafe { PyArray1::<f64>::new(py, n, false) };
    let buf = if n == 0 {
        &mut []
    } else {
        // SAFETY: a fresh C-contiguous array owns n aligned f64s at data(), uniquely (above);
        // the caller keeps it alive while the buffer is used.
        unsafe { std::slice::from_raw_parts_mut(arr.data().cast::<Out>(), n) }
    };
    (arr, buf)
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(exp_fast, m)?)?;
    m.add_function(wrap_pyfunction!(decay_scores, m)?)?;
    m.add_function(wrap_pyfunction!(reinforce_scores, m)?)?;
    m.add_function(wrap_pyfunction!(fused_scores, m)?)?;
    Ok(())
}
