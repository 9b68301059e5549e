//! Bindings for budgeted selection.

use numpy::PyArray1;
use pyo3::prelude::*;

use super::{array1, detach, require_len, to_pyerr};
use crate::error::KernelError;
use crate::select::{Strategy, DEFAULT_CELL_LIMIT};

/// Choose items within a token budget; returns (indices ascending, method, guarantee).
#[pyfunction]
#[pyo3(signature = (costs, values, budget, *, strategy = "optimal", must_keep = None, cell_limit = DEFAULT_CELL_LIMIT))]
fn select_within_budget<'py>(
    py: Python<'py>,
    costs: &Bound<'py, PyAny>,
    values: &Bound<'py, PyAny>,
    budget: i64,
    strategy: &str,
    must_keep: Option<&Bound<'py, PyAny>>,
    cell_limit: u64,
) -> PyResult<(Bound<'py, PyArray1<i64>>, &'static str, f64)> {
    let strategy = Strategy::parse(strategy).map_err(|e| to_pyerr(py, e))?;
    let c = array1::<i64>(costs, "costs", "int64")?;
    let v = array1::<f64>(values, "values", "float64")?;
    let mk = must_keep
        .map(|m| array1::<bool>(m, "must_keep", "bool"))
        .transpose()?;
    let not_contig = |name| to_pyerr(py, KernelError::NotContiguous { name });
    let cs = c.as_slice().map_err(|_| not_contig("costs"))?;
    let vs = v.as_slice().map_err(|_| not_contig("values"))?;
    require_len(py, "values", cs.len(), vs.len())?;
    let ms = match &mk {
        Some(m) => {
            let s = m.as_slice().map_err(|_| not_contig("must_keep"))?;
            require_len(py, "must_keep", cs.len(), s.len())?;
            Some(s)
        }
        None => None,
    };
    let sel = detach(py, move || {
        crate::select::select_within_budget(cs, vs, budget, strategy, ms, cell_limit)
    })?;
    Ok((
        PyArray1::from_vec(py, sel.indices),
        sel.method.name(),
        sel.guarantee,
    ))
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(select_within_budget, m)?)?;
    Ok(())
}
