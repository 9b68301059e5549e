//! The one error type of the native core.
//!
//! Kernels return `Result<_, KernelError>`; the bindings in `py/` map each variant to a class of the
//! Python exception tree in `remem.errors` (see `py/errors.rs`). No pyo3 here: the kernels stay
//! testable with plain `cargo test`.

use std::fmt;

/// Everything a kernel (or the argument checks in front of it) can reject.
///
/// Messages are complete sentences a user can act on: what was wrong, expected vs actual.
#[derive(Debug, Clone, PartialEq)]
pub enum KernelError {
    /// An array had the wrong element type.
    DType {
        name: &'static str,
        expected: &'static str,
        actual: String,
    },
    /// An array was not C-contiguous; the façade copies, the kernel never does.
    NotContiguous { name: &'static str },
    /// Two arrays that must have the same length did not.
    Length {
        name: &'static str,
        expected: usize,
        actual: usize,
    },
    /// A vector or matrix had the wrong number of dimensions or columns.
    Dimension {
        name: &'static str,
        expected: usize,
        actual: usize,
    },
    /// A NaN or infinity where only finite values are allowed.
    NonFinite {
        name: &'static str,
        index: usize,
        value: f64,
    },
    /// A scalar or element outside its documented range.
    OutOfRange { name: &'static str, detail: String },
    /// The must-keep items alone cost more than the budget.
    Infeasible { required: u64, budget: u64 },
    /// A tokenizer encoding that is not built in.
    UnknownEncoding { name: String, known: &'static str },
    /// Any other invalid argument (bad strategy name, bad metric, ...).
    Invalid { detail: String },
    /// A bug in the native core (a caught panic). Never caused by user input.
    Internal { detail: String },
}

impl fmt::Display for KernelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::DType {
                name,
                expected,
                actual,
            } => write!(
                f,
                "{name} must be a numpy array of dtype {expected}, got {actual}; convert it with .astype(np.{expected})"
            ),
            Self::NotContiguous { name } => write!(
                f,
                "{name} must be C-contiguous; pass np.ascontiguousarray({name})"
            ),
            Self::Length {
                name,
                expected,
                actual,
            } => write!(
                f,
                "{name} has length {actual} but {expected} was expected; pass one value per item"
            ),
            Self::Dimension {
                name,
                expected,
                actual,
            } => write!(
                f,
                "{name} has dimension {actual} but {expected} was expected; use vectors of one dimension throughout"
            ),
            Self::NonFinite { name, index, value } => write!(
                f,
                "{name}[{index}] is {value}, but only finite values are allowed; remove or replace it"
            ),
            Self::OutOfRange { name, detail } => write!(f, "{name} is out of range: {detail}"),
            Self::Infeasible { required, budget } => write!(
                f,
                "the must-keep items cost {required} tokens but the budget is {budget}; raise the budget or keep fewer items"
            ),
            Self::UnknownEncoding { name, known } => write!(
                f,
                "unknown encoding {name:?}; use one of {known}, or estimate_tokens for an unknown model"
            ),
            Self::Invalid { detail } => write!(f, "{detail}"),
            Self::Internal { detail } => write!(
                f,
                "internal error in remem's native core ({detail}); this is a bug, please report it"
            ),
        }
    }
}

impl std::error::Error for KernelError {}

/// Shorthand used by every kernel.
pub type KernelResult<T> = Result<T, KernelError>;
