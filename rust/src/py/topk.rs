//! Bindings for the top-k kernels (exact float32 and int8 quantized).

use numpy::{
    PyArray1, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArray,
    PyUntypedArrayMethods,
};
use pyo3::prelude::*;

use super::{array1, array2, detach, require_len, to_pyerr};
use crate::error::KernelError;
use crate::topk::{self, Hits, Matrix, Metric, Options, QuantizedView};

type HitArrays<'py> = (Bound<'py, PyAny>, Bound<'py, PyAny>);

/// One query (1-d) or a batch (2-d), borrowed read-only.
enum Queries<'py> {
    One(PyReadonlyArray1<'py, f32>),
    Batch(PyReadonlyArray2<'py, f32>),
}

impl Queries<'_> {
    fn extract<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Queries<'py>> {
        let ndim = obj.cast::<PyUntypedArray>().map(|a| a.ndim()).unwrap_or(1);
        match ndim {
            1 => Ok(Queries::One(array1::<f32>(obj, "queries", "float32")?)),
            2 => Ok(Queries::Batch(array2::<f32>(obj, "queries", "float32")?)),
            other => Err(to_pyerr(
                obj.py(),
                KernelError::Invalid {
                    detail: format!(
                        "queries must be a 1-d vector or a 2-d batch, got {other} dimensions"
                    ),
                },
            )),
        }
    }

    /// (values, number of queries, dimension)
    fn parts(&self) -> PyResult<(&[f32], usize, usize)> {
        Ok(match self {
            Queries::One(a) => {
                let s = a.as_slice()?;
                (s, 1, s.len())
            }
            Queries::Batch(a) => {
                let sh = a.shape();
                (a.as_slice()?, sh[0], sh[1])
            }
        })
    }
}

fn parse_k(py: Python<'_>, k: i64, name: &'static str) -> PyResult<usize> {
    usize::try_from(k).map_err(|_| {
        to_pyerr(
            py,
            KernelError::OutOfRange {
                name,
                detail: format!("{k} is negative; pass {name} >= 0"),
            },
        )
    })
}

fn to_arrays<'py>(py: Python<'py>, hits: Hits, batch: Option<usize>) -> PyResult<HitArrays<'py>> {
    let k = hits.k;
    let idx = PyArray1::from_vec(py, hits.indices);
    let sc = PyArray1::from_vec(py, hits.scores);
    Ok(match batch {
        None => (idx.into_any(), sc.into_any()),
        Some(nq) => (
            idx.reshape([nq, k])?.into_any(),
            sc.reshape([nq, k])?.into_any(),
        ),
    })
}

struct Common<'py> {
    queries: Queries<'py>,
    matrix: PyReadonlyArray2<'py, f32>,
    mask: Option<PyReadonlyArray1<'py, bool>>,
    metric: Metric,
    k: usize,
}

impl<'py> Common<'py> {
    fn extract(
        queries: &Bound<'py, PyAny>,
        matrix: &Bound<'py, PyAny>,
        k: i64,
        metric: &str,
        mask: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Self> {
        let py = queries.py();
        let metric = Metric::parse(metric).map_err(|e| to_pyerr(py, e))?;
        let k = parse_k(py, k, "k")?;
        let queries = Queries::extract(queries)?;
        let matrix = array2::<f32>(matrix, "matrix", "float32")?;
        let (_, _, dq) = queries.parts()?;
        let (n, d) = (matrix.shape()[0], matrix.shape()[1]);
        if dq != d {
            return Err(to_pyerr(
                py,
                KernelError::Dimension {
                    name: "queries",
                    expected: d,
                    actual: dq,
                },
            ));
        }
        let mask = match mask {
            Some(m) if !m.is_none() => {
                let m = array1::<bool>(m, "mask", "bool")?;
                require_len(py, "mask", n, m.len())?;
                Some(m)
            }
            _ => None,
        };
        Ok(Self {
            queries,
            matrix,
            mask,
            metric,
            k,
        })
    }

    fn batch(&self) -> Option<usize> {
        match &self.queries {
            Queries::One(_) => None,
            Queries::Batch(a) => Some(a.shape()[0]),
        }
    }
}

/// Top-k rows of `matrix` by cosine or dot product; returns (indices int64, scores float32).
#[pyfunction]
#[pyo3(signature = (queries, matrix, k, *, metric = "cosine", mask = None))]
fn top_k<'py>(
    queries: &Bound<'py, PyAny>,
    matrix: &Bound<'py, PyAny>,
    k: i64,
    metric: &str,
    mask: Option<&Bound<'py, PyAny>>,
) -> PyResult<HitArrays<'py>> {
    let py = queries.py();
    let c = Common::extract(queries, matrix, k, metric, mask)?;
    let (q, nq, d) = c.queries.parts()?;
    let m = Matrix {
        data: c.matrix.as_slice()?,
        rows: c.matrix.shape()[0],
        dim: d,
    };
    let mask = c.mask.as_ref().map(|m| m.as_slice()).transpose()?;
    let opts = Options {
        k: c.k,
        metric: c.metric,
        mask,
    };
    let hits = detach(py, move || topk::top_k(q, nq, m, &opts))?;
    to_arrays(py, hits, c.batch())
}

/// int8 codes (n × d), per-row scales and exact norms of a float32 matrix.
#[pyfunction]
#[allow(clippy::type_complexity)]
fn quantize<'py>(
    matrix: &Bound<'py, PyAny>,
) -> PyResult<(
    Bound<'py, PyAny>,
    Bound<'py, PyArray1<f32>>,
    Bound<'py, PyArray1<f32>>,
)> {
    let py = matrix.py();
    let arr = array2::<f32>(matrix, "matrix", "float32")?;
    let (n, d) = (arr.shape()[0], arr.shape()[1]);
    let m = Matrix {
        data: arr.as_slice()?,
        rows: n,
        dim: d,
    };
    let q = detach(py, move || topk::quantize(m))?;
    let codes = PyArray1::from_vec(py, q.codes).reshape([n, d])?.into_any();
    Ok((
        codes,
        PyArray1::from_vec(py, q.scales),
        PyArray1::from_vec(py, q.norms),
    ))
}

/// Top-k by an int8 scan over `codes` for a candidate pool, rescored exactly from `matrix`.
#[pyfunction]
#[pyo3(signature = (queries, codes, scales, norms, matrix, k, *, metric = "cosine", mask = None, candidates = None))]
#[allow(clippy::too_many_arguments)]
fn top_k_quantized<'py>(
    queries: &Bound<'py, PyAny>,
    codes: &Bound<'py, PyAny>,
    scales: &Bound<'py, PyAny>,
    norms: &Bound<'py, PyAny>,
    matrix: &Bound<'py, PyAny>,
    k: i64,
    metric: &str,
    mask: Option<&Bound<'py, PyAny>>,
    candidates: Option<i64>,
) -> PyResult<HitArrays<'py>> {
    let py = queries.py();
    let c = Common::extract(queries, matrix, k, metric, mask)?;
    let candidates = candidates
        .map(|v| parse_k(py, v, "candidates"))
        .transpose()?;
    let codes = array2::<i8>(codes, "codes", "int8")?;
    let scales = array1::<f32>(scales, "scales", "float32")?;
    let norms = array1::<f32>(norms, "norms", "float32")?;
    let (n, d) = (c.matrix.shape()[0], c.matrix.shape()[1]);
    require_len(py, "codes", n, codes.shape()[0])?;
    if codes.shape()[1] != d {
        let actual = codes.shape()[1];
        return Err(to_pyerr(
            py,
            KernelError::Dimension {
                name: "codes",
                expected: d,
                actual,
            },
        ));
    }
    let (q, nq, _) = c.queries.parts()?;
    let m = Matrix {
        data: c.matrix.as_slice()?,
        rows: n,
        dim: d,
    };
    let view = QuantizedView {
        codes: codes.as_slice()?,
        scales: scales.as_slice()?,
        norms: norms.as_slice()?,
    };
    let mask = c.mask.as_ref().map(|m| m.as_slice()).transpose()?;
    let opts = Options {
        k: c.k,
        metric: c.metric,
        mask,
    };
    let hits = detach(py, move || {
        topk::top_k_quantized(q, nq, view, m, &opts, candidates)
    })?;
    to_arrays(py, hits, c.batch())
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(top_k, m)?)?;
    m.add_function(wrap_pyfunction!(quantize, m)?)?;
    m.add_function(wrap_pyfunction!(top_k_quantized, m)?)?;
    Ok(())
}
