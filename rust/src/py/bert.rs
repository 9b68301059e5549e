//! Binding for the native BERT encoder: a Python object owning the packed weights.

use numpy::{PyArray1, PyArrayMethods, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use super::{array1, detach, slice, to_pyerr};
use crate::bert::{bf16_accelerated, Config, Encoder, LayerWeights, Pooling, Precision, Weights};
use crate::error::KernelError;

/// A loaded BERT model (weights copied and packed once); `encode` runs without the GIL.
#[pyclass(frozen, module = "remem._native")]
pub(crate) struct BertEncoder {
    inner: Encoder,
}

/// The layer-independent tensor names, then each layer's (after `encoder.layer.{i}.`).
const EMBEDDING_NAMES: [&str; 5] = [
    "embeddings.word_embeddings.weight",
    "embeddings.position_embeddings.weight",
    "embeddings.token_type_embeddings.weight",
    "embeddings.LayerNorm.weight",
    "embeddings.LayerNorm.bias",
];
const LAYER_NAMES: [&str; 16] = [
    "attention.self.query.weight",
    "attention.self.query.bias",
    "attention.self.key.weight",
    "attention.self.key.bias",
    "attention.self.value.weight",
    "attention.self.value.bias",
    "attention.output.dense.weight",
    "attention.output.dense.bias",
    "attention.output.LayerNorm.weight",
    "attention.output.LayerNorm.bias",
    "intermediate.dense.weight",
    "intermediate.dense.bias",
    "output.dense.weight",
    "output.dense.bias",
    "output.LayerNorm.weight",
    "output.LayerNorm.bias",
];

fn tensor<'py>(tensors: &Bound<'py, PyDict>, key: String) -> PyResult<PyReadonlyArray1<'py, f32>> {
    let py = tensors.py();
    let obj = tensors.get_item(&key)?.ok_or_else(|| {
        to_pyerr(
            py,
            KernelError::Invalid {
                detail: format!("tensors has no {key:?}; pass every tensor of a BertModel"),
            },
        )
    })?;
    array1::<f32>(&obj, "tensor", "float32")
}

#[pymethods]
impl BertEncoder {
    #[new]
    #[pyo3(signature = (tensors, *, hidden, layers, heads, intermediate, max_positions, eps, precision="float32"))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        tensors: &Bound<'_, PyDict>,
        hidden: usize,
        layers: usize,
        heads: usize,
        intermediate: usize,
        max_positions: usize,
        eps: f32,
        precision: &str,
    ) -> PyResult<Self> {
        let precision = Precision::parse(precision).map_err(|e| to_pyerr(py, e))?;
        let names: Vec<String> = EMBEDDING_NAMES
            .iter()
            .map(|n| (*n).to_owned())
            .chain((0..layers).flat_map(|l| {
                LAYER_NAMES
                    .iter()
                    .map(move |n| format!("encoder.layer.{l}.{n}"))
            }))
            .collect();
        let arrays = names
            .into_iter()
            .map(|key| tensor(tensors, key))
            .collect::<PyResult<Vec<_>>>()?;
        let s = arrays
            .iter()
            .map(|a| slice(py, a, "tensor"))
            .collect::<PyResult<Vec<&[f32]>>>()?;
        let per_vocab = |len: usize| len / hidden.max(1);
        let config = Config {
            hidden,
            layers,
            heads,
            intermediate,
            max_positions,
            vocab: per_vocab(s[0].len()),
            type_vocab: per_vocab(s[2].len()),
            eps,
        };
        let weights = Weights {
            word: s[0],
            position: s[1],
            token_type: s[2],
            embedding_norm: (s[3], s[4]),
            layers: s[5..]
                .chunks_exact(LAYER_NAMES.len())
                .map(|t| LayerWeights {
                    query: (t[0], t[1]),
                    key: (t[2], t[3]),
                    value: (t[4], t[5]),
                    attention_out: (t[6], t[7]),
                    attention_norm: (t[8], t[9]),
                    intermediate: (t[10], t[11]),
                    output: (t[12], t[13]),
                    output_norm: (t[14], t[15]),
                })
                .collect(),
        };
        let inner = detach(py, || Encoder::new(config, &weights, precision))?;
        Ok(Self { inner })
    }

    /// Width of the sentence vectors.
    #[getter]
    fn dimension(&self) -> usize {
        self.inner.config().hidden
    }

    /// Sentence vectors `(n_sequences, hidden)` float32 of a CSR batch of token ids.
    #[pyo3(signature = (ids, offsets, type_ids=None, *, pooling, normalize))]
    fn encode<'py>(
        &self,
        py: Python<'py>,
        ids: &Bound<'py, PyAny>,
        offsets: &Bound<'py, PyAny>,
        type_ids: Option<&Bound<'py, PyAny>>,
        pooling: &str,
        normalize: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let pooling = Pooling::parse(pooling).map_err(|e| to_pyerr(py, e))?;
        let ids = array1::<i64>(ids, "ids", "int64")?;
        let offsets = array1::<i64>(offsets, "offsets", "int64")?;
        let types = type_ids
            .map(|t| array1::<i64>(t, "type_ids", "int64"))
            .transpose()?;
        let ids_s = slice(py, &ids, "ids")?;
        let offsets_s = slice(py, &offsets, "offsets")?;
        let types_s = types
            .as_ref()
            .map(|t| slice(py, t, "type_ids"))
            .transpose()?;
        let n = offsets_s.len().saturating_sub(1);
        let h = self.inner.config().hidden;
        let inner = &self.inner;
        let out = detach(py, move || {
            inner.encode(ids_s, offsets_s, types_s, pooling, normalize)
        })?;
        Ok(PyArray1::from_vec(py, out).reshape([n, h])?.into_any())
    }
}

/// Whether `precision="bfloat16"` runs on the CPU's AVX512_BF16 kernel (else a portable one).
#[pyfunction]
fn bert_bf16_accelerated() -> bool {
    bf16_accelerated()
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<BertEncoder>()?;
    m.add_function(wrap_pyfunction!(bert_bf16_accelerated, m)?)?;
    Ok(())
}
