//! A BERT encoder (sentence-transformers style): token ids in, pooled sentence vectors out.
//!
//! Contract (the reference is `remem.embeddings.bert.NumpyBertEncoder` plus the pooling of
//! `SentenceTransformerEmbedder`; the Python tests hold native ≈ numpy):
//! - weights arrive once, in HuggingFace `BertModel` layout (torch `Linear` weights are
//!   `out × in`), and are copied into an [`Encoder`] that owns them, the linear layers packed for
//!   [`gemm::gemm`]; nothing is read from disk here;
//! - a batch is CSR: sequence `i` is `ids[offsets[i]..offsets[i+1]]` (with `type_ids` alongside,
//!   or all 0). Sequences are never padded: all tokens of a batch go through each linear layer
//!   as one `(Σt) × h` matrix, and attention runs per sequence over its own tokens only — exactly
//!   what a padding mask computes, without the padded rows;
//! - forward pass: word + position + token-type embeddings → LayerNorm; per layer fused QKV →
//!   softmax attention → output dense + residual → LayerNorm → GELU (erf) FFN + residual →
//!   LayerNorm; then the [`Pooling`] over each sequence's tokens and, if asked, L2 normalisation
//!   (`v / max(‖v‖, 1e-12)`).
//!
//! Arithmetic is float32 with FMA where the CPU has it; the numpy encoder differs in summation
//! order, so results agree to ~1e-6 per component, not bit for bit. With [`Precision::Bf16`]
//! the linear layers multiply bf16-rounded weights and activations (float32 sums): sentence
//! vectors then stay within cosine 0.999 of float32 (the Python tests' bound on real sentences;
//! measured on MiniLM: ≥ 0.99993), not 1e-6.
//!
//! Parallelism (in `forward`): a batch splits into groups of whole sequences, one per thread; a
//! short query's GEMMs split their output panels, so each thread streams part of the weights.

mod forward;
mod gemm;
mod ops;
mod pool;

use crate::error::{KernelError, KernelResult};
pub use gemm::{Packed, Precision};

/// Whether [`Precision::Bf16`] runs on this CPU's AVX512_BF16 kernel (`vdpbf16ps`) rather than
/// the portable one: the bf16 weights are then the faster choice, not only the smaller one.
/// Checked once per process.
pub fn bf16_accelerated() -> bool {
    gemm::use_avx512_bf16()
}

/// The shape of the model (HuggingFace `config.json`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Config {
    pub hidden: usize,
    pub layers: usize,
    pub heads: usize,
    pub intermediate: usize,
    pub max_positions: usize,
    pub vocab: usize,
    pub type_vocab: usize,
    pub eps: f32,
}

/// How token vectors become one sentence vector (sentence-transformers' pooling modes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pooling {
    Mean,
    Cls,
    Max,
    MeanSqrtLen,
}

impl Pooling {
    /// From the sentence-transformers name (`mean_tokens`, `cls_token`, `max_tokens`,
    /// `mean_sqrt_len_tokens`).
    pub fn parse(name: &str) -> KernelResult<Self> {
        Ok(match name {
            "mean_tokens" => Self::Mean,
            "cls_token" => Self::Cls,
            "max_tokens" => Self::Max,
            "mean_sqrt_len_tokens" => Self::MeanSqrtLen,
            _ => {
                return Err(KernelError::Invalid {
                    detail: format!(
                        "unknown pooling {name:?}; use mean_tokens, cls_token, max_tokens or \
                         mean_sqrt_len_tokens"
                    ),
                })
            }
        })
    }
}

/// One layer's tensors, borrowed, in `BertModel` layout.
#[derive(Debug, Clone, Copy)]
pub struct LayerWeights<'a> {
    pub query: (&'a [f32], &'a [f32]),
    pub key: (&'a [f32], &'a [f32]),
    pub value: (&'a [f32], &'a [f32]),
    pub attention_out: (&'a [f32], &'a [f32]),
    pub attention_norm: (&'a [f32], &'a [f32]),
    pub intermediate: (&'a [f32], &'a [f32]),
    pub output: (&'a [f32], &'a [f32]),
    pub output_norm: (&'a [f32], &'a [f32]),
}

/// All tensors of a model, borrowed.
#[derive(Debug, Clone)]
pub struct Weights<'a> {
    pub word: &'a [f32],
    pub position: &'a [f32],
    pub token_type: &'a [f32],
    pub embedding_norm: (&'a [f32], &'a [f32]),
    pub layers: Vec<LayerWeights<'a>>,
}

#[derive(Debug, Clone)]
struct Layer {
    qkv: Packed,
    attention_out: Packed,
    attention_norm: (Vec<f32>, Vec<f32>),
    intermediate: Packed,
    output: Packed,
    output_norm: (Vec<f32>, Vec<f32>),
}

/// A loaded model: packed weights, immutable, shareable across threads.
#[derive(Debug, Clone)]
pub struct Encoder {
    config: Config,
    word: Vec<f32>,
    position: Vec<f32>,
    token_type: Vec<f32>,
    embedding_norm: (Vec<f32>, Vec<f32>),
    layers: Vec<Layer>,
}

fn check_len(name: &'static str, v: &[f32], expected: usize) -> KernelResult<()> {
    if v.len() == expected {
        Ok(())
    } else {
        Err(KernelError::Length {
            name,
            expected,
            actual: v.len(),
        })
    }
}

fn linear(
    name: &'static str,
    (w, b): (&[f32], &[f32]),
    n: usize,
    k: usize,
) -> KernelResult<(Vec<f32>, Vec<f32>)> {
    check_len(name, w, n * k)?;
    check_len(name, b, n)?;
    Ok((w.to_vec(), b.to_vec()))
}

fn norm(
    name: &'static str,
    (w, b): (&[f32], &[f32]),
    h: usize,
) -> KernelResult<(Vec<f32>, Vec<f32>)> {
    linear(name, (w, b), h, 1)
}

impl Encoder {
    /// Check every tensor's length against `config` and pack the linear layers, in float32 or
    /// bf16 ([`Precision`]; embeddings and layer norms stay float32 either way).
    ///
    /// Errors: `OutOfRange` for a zero size, `hidden` not a multiple of `heads`, or a layer count
    /// that differs from `weights.layers`; `Length` naming the first tensor of the wrong size.
    pub fn new(config: Config, weights: &Weights<'_>, precision: Precision) -> KernelResult<Self> {
        let c = config;
        let sizes = [
            ("hidden", c.hidden),
            ("heads", c.heads),
            ("intermediate", c.intermediate),
            ("max_positions", c.max_positions),
            ("vocab", c.vocab),
            ("type_vocab", c.type_vocab),
        ];
        if let Some((name, _)) = sizes.iter().find(|(_, v)| *v == 0) {
            return Err(KernelError::OutOfRange {
                name,
                detail: "it is 0; every size of the model must be positive".into(),
            });
        }
        if !c.hidden.is_multiple_of(c.heads) {
            return Err(KernelError::OutOfRange {
                name: "heads",
                detail: format!("hidden {} is not a multiple of heads {}", c.hidden, c.heads),
            });
        }
        if weights.layers.len() != c.layers {
            return Err(KernelError::OutOfRange {
                name: "layers",
                detail: format!(
                    "the config has {} layers but {} were given",
                    c.layers,
                    weights.layers.len()
                ),
            });
        }
        if !(c.eps.is_finite() && c.eps > 0.0) {
            return Err(KernelError::OutOfRange {
                name: "eps",
                detail: format!("{} is not a positive finite number", c.eps),
            });
        }
        let (h, i) = (c.hidden, c.intermediate);
        check_len("word_embeddings", weights.word, c.vocab * h)?;
        check_len("position_embeddings", weights.position, c.max_positions * h)?;
        check_len(
            "token_type_embeddings",
            weights.token_type,
            c.type_vocab * h,
        )?;
        let embedding_norm = norm("embeddings.LayerNorm", weights.embedding_norm, h)?;
        let mut layers = Vec::with_capacity(c.layers);
        for l in &weights.layers {
            let mut qkv_w = Vec::with_capacity(3 * h * h);
            let mut qkv_b = Vec::with_capacity(3 * h);
            for part in [l.query, l.key, l.value] {
                let (w, b) = linear("attention.self", part, h, h)?;
                qkv_w.extend_from_slice(&w);
                qkv_b.extend_from_slice(&b);
            }
            let (ao_w, ao_b) = linear("attention.output.dense", l.attention_out, h, h)?;
            let (in_w, in_b) = linear("intermediate.dense", l.intermediate, i, h)?;
            let (out_w, out_b) = linear("output.dense", l.output, h, i)?;
            layers.push(Layer {
                qkv: Packed::new(&qkv_w, &qkv_b, 3 * h, h, precision),
                attention_out: Packed::new(&ao_w, &ao_b, h, h, precision),
                attention_norm: norm("attention.output.LayerNorm", l.attention_norm, h)?,
                intermediate: Packed::new(&in_w, &in_b, i, h, precision),
                output: Packed::new(&out_w, &out_b, h, i, precision),
                output_norm: norm("output.LayerNorm", l.output_norm, h)?,
            });
        }
        Ok(Self {
            config: c,
            word: weights.word.to_vec(),
            position: weights.position.to_vec(),
            token_type: weights.token_type.to_vec(),
            embedding_norm,
            layers,
        })
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Validate the batch; the `(start, len)` of each sequence.
    pub(crate) fn check_batch(
        &self,
        ids: &[i64],
        offsets: &[i64],
        type_ids: Option<&[i64]>,
    ) -> KernelResult<Vec<(usize, usize)>> {
        let c = &self.config;
        let bad = |name, detail: String| KernelError::OutOfRange { name, detail };
        if offsets.is_empty() {
            return Err(KernelError::Invalid {
                detail: "offsets is empty; it needs n_sequences + 1 entries (at least [0])".into(),
            });
        }
        if offsets[0] != 0 {
            return Err(bad(
                "offsets",
                format!("it starts at {}, not 0", offsets[0]),
            ));
        }
        let mut spans = Vec::with_capacity(offsets.len() - 1);
        for (s, w) in offsets.windows(2).enumerate() {
            let len = w[1] - w[0];
            if len <= 0 {
                return Err(bad(
                    "offsets",
                    format!("sequence {s} has {len} tokens; every sequence needs at least one"),
                ));
            }
            if len as u64 > c.max_positions as u64 {
                return Err(bad(
                    "offsets",
                    format!(
                        "sequence {s} has {len} tokens, more than max_position_embeddings {}; \
                         truncate it",
                        c.max_positions
                    ),
                ));
            }
            spans.push((w[0] as usize, len as usize));
        }
        let last = offsets[offsets.len() - 1];
        if usize::try_from(last).ok() != Some(ids.len()) {
            return Err(bad(
                "offsets",
                format!("it ends at {last}, but there are {} ids", ids.len()),
            ));
        }
        let check_ids = |name, v: &[i64], limit: usize| match v
            .iter()
            .position(|&id| usize::try_from(id).map_or(true, |u| u >= limit))
        {
            Some(i) => Err(bad(
                name,
                format!("{name}[{i}] = {} is not in [0, {limit})", v[i]),
            )),
            None => Ok(()),
        };
        check_ids("ids", ids, c.vocab)?;
        if let Some(t) = type_ids {
            if t.len() != ids.len() {
                return Err(KernelError::Length {
                    name: "type_ids",
                    expected: ids.len(),
                    actual: t.len(),
                });
            }
            check_ids("type_ids", t, c.type_vocab)?;
        }
        Ok(spans)
    }
}

#[cfg(test)]
mod tests;
