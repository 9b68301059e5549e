//! Promotion and inclusion scoring, and the fused scorer (decay + promotion + inclusion, one pass).
//!
//! Formulas (ages in hours, future times count as age 0):
//! - decay      = clamp(base · exp(−decay_rate · age_since_reference), 0, 1)
//! - promotion  = w_age·min(1, age_since_created/age_norm) + w_access·min(1, accesses/access_norm)
//!   + w_conf·clamp(confidence, 0, 1) + w_rel·min(1, relationships/rel_norm)
//! - inclusion  = similarity · exp(−recency_rate · age_since_created) · (1 + hit_weight·ln(1 + accesses))
//!
//! The loop is chunked: a scalar pre-pass fills ln(1 + accesses) for a chunk from a lookup table
//! (counts below [`LN1P_TABLE`], libm above), then a branch-free pass the compiler vectorises
//! computes all three outputs with [`exp_fast`].

mod chunk;

pub use chunk::{has_avx2, ln1p_count, LN1P_TABLE};

use crate::decay::{check_finite, check_finite_scalar, check_rate};
use crate::error::{KernelError, KernelResult};
use chunk::{score_chunk, ChunkOut, CHUNK};

/// Items at which the fused scorer goes parallel. Measured (release, 2 shared and busy cores,
/// best of 30): at 200k items 2 threads took 2.6–4.0 ms against 5.6–9.0 ms on one; at 100k the
/// sequential pass is ~1.7 ms, where pool wake-up and core contention make a split a gamble.
pub const PAR_THRESHOLD: usize = 200_000;

/// Scalars of the fused scorer (all validated by [`FusedParams::validate`]).
#[derive(Debug, Clone, Copy)]
pub struct FusedParams {
    pub now: f64,
    pub decay_rate: f64,
    pub w_age: f64,
    pub w_access: f64,
    pub w_confidence: f64,
    pub w_relationships: f64,
    pub age_norm_hours: f64,
    pub access_norm: f64,
    pub relationship_norm: f64,
    pub recency_rate: f64,
    pub hit_weight: f64,
}

fn positive(name: &'static str, x: f64) -> KernelResult<()> {
    check_finite_scalar(name, x)?;
    if x > 0.0 {
        Ok(())
    } else {
        Err(KernelError::OutOfRange {
            name,
            detail: format!("{x}; use a value > 0"),
        })
    }
}

fn non_negative(name: &'static str, x: f64) -> KernelResult<()> {
    check_finite_scalar(name, x)?;
    if x >= 0.0 {
        Ok(())
    } else {
        Err(KernelError::OutOfRange {
            name,
            detail: format!("{x}; use a value >= 0"),
        })
    }
}

impl FusedParams {
    /// Check every scalar: finite; rate in range; weights ≥ 0 summing to 1 ± 0.01; norms > 0.
    pub fn validate(&self) -> KernelResult<()> {
        check_finite_scalar("now", self.now)?;
        check_rate("decay_rate", self.decay_rate)?;
        let weights = [
            ("w_age", self.w_age),
            ("w_access", self.w_access),
            ("w_confidence", self.w_confidence),
            ("w_relationships", self.w_relationships),
        ];
        for (name, w) in weights {
            non_negative(name, w)?;
        }
        let sum: f64 = weights.iter().map(|(_, w)| w).sum();
        if (sum - 1.0).abs() > 0.01 {
            return Err(KernelError::OutOfRange {
                name: "promotion weights",
                detail: format!("they sum to {sum}; make them sum to 1.0 (±0.01)"),
            });
        }
        positive("age_norm_hours", self.age_norm_hours)?;
        positive("access_norm", self.access_norm)?;
        positive("relationship_norm", self.relationship_norm)?;
        non_negative("recency_rate", self.recency_rate)?;
        non_negative("hit_weight", self.hit_weight)
    }
}

/// Per-item inputs of the fused scorer, all the same length.
#[derive(Debug, Clone, Copy)]
pub struct FusedInputs<'a> {
    pub base: &'a [f64],
    pub reference: &'a [f64],
    pub created: &'a [f64],
    pub accesses: &'a [i64],
    pub confidence: &'a [f64],
    pub relationships: &'a [i64],
    pub similarity: &'a [f64],
}

impl FusedInputs<'_> {
    fn check_lengths(&self) -> KernelResult<()> {
        let n = self.base.len();
        let lens = [
            ("reference_times", self.reference.len()),
            ("created_times", self.created.len()),
            ("access_counts", self.accesses.len()),
            ("confidence", self.confidence.len()),
            ("relationship_counts", self.relationships.len()),
            ("similarity", self.similarity.len()),
        ];
        for (name, actual) in lens {
            if actual != n {
                return Err(KernelError::Length {
                    name,
                    expected: n,
                    actual,
                });
            }
        }
        Ok(())
    }

    /// Value checks for a chunk starting at item `offset` (run chunk by chunk, while the chunk is
    /// in cache, instead of as separate passes over every array).
    fn check_values(&self, offset: usize) -> KernelResult<()> {
        let shift = |e: KernelError| match e {
            KernelError::NonFinite { name, index, value } => KernelError::NonFinite {
                name,
                index: index + offset,
                value,
            },
            other => other,
        };
        check_finite("base_scores", self.base).map_err(shift)?;
        check_finite("reference_times", self.reference).map_err(shift)?;
        check_finite("created_times", self.created).map_err(shift)?;
        check_finite("confidence", self.confidence).map_err(shift)?;
        check_finite("similarity", self.similarity).map_err(shift)?;
        for (name, xs) in [
            ("access_counts", self.accesses),
            ("relationship_counts", self.relationships),
        ] {
            // OR keeps any sign bit and vectorises (AVX2 has no 64-bit integer min).
            if xs.iter().fold(0i64, |m, &c| m | c) < 0 {
                let index = xs.iter().position(|&c| c < 0).unwrap_or(0);
                return Err(KernelError::OutOfRange {
                    name,
                    detail: format!(
                        "element {} is {}; counts must be >= 0",
                        index + offset,
                        xs[index]
                    ),
                });
            }
        }
        Ok(())
    }
}

/// The three score arrays of the fused scorer.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FusedScores {
    pub decay: Vec<f64>,
    pub promotion: Vec<f64>,
    pub inclusion: Vec<f64>,
}

fn sub<'a>(x: &FusedInputs<'a>, lo: usize, hi: usize) -> FusedInputs<'a> {
    FusedInputs {
        base: &x.base[lo..hi],
        reference: &x.reference[lo..hi],
        created: &x.created[lo..hi],
        accesses: &x.accesses[lo..hi],
        confidence: &x.confidence[lo..hi],
        relationships: &x.relationships[lo..hi],
        similarity: &x.similarity[lo..hi],
    }
}

/// Decay, promotion and inclusion scores for every item in one pass (formulas in the module docs).
pub fn fused_scores(x: &FusedInputs<'_>, p: &FusedParams) -> KernelResult<FusedScores> {
    let n = x.base.len();
    let mut out = FusedScores {
        decay: vec![0.0; n],
        promotion: vec![0.0; n],
        inclusion: vec![0.0; n],
    };
    fused_scores_into(x, p, &mut out.decay, &mut out.promotion, &mut out.inclusion)?;
    Ok(out)
}

/// [`fused_scores`] writing into caller-provided outputs (each of the inputs' length).
///
/// The bindings pass fresh numpy buffers: numpy backs large arrays with transparent huge pages,
/// and writing into them measured 3–10× faster at 1M items than faulting in a fresh `Vec`
/// 4 KiB page by page.
pub fn fused_scores_into(
    x: &FusedInputs<'_>,
    p: &FusedParams,
    decay: &mut [f64],
    promotion: &mut [f64],
    inclusion: &mut [f64],
) -> KernelResult<()> {
    p.validate()?;
    x.check_lengths()?;
    let n = x.base.len();
    for (name, len) in [
        ("decay output", decay.len()),
        ("promotion output", promotion.len()),
        ("inclusion output", inclusion.len()),
    ] {
        if len != n {
            return Err(KernelError::Length {
                name,
                expected: n,
                actual: len,
            });
        }
    }
    let avx2 = has_avx2();
    let body = |(k, ((d, pr), inc)): ChunkOut<'_>| {
        let lo = k * CHUNK;
        score_chunk(avx2, lo, &sub(x, lo, lo + d.len()), p, d, pr, inc)
    };
    // Only one of the two paths runs; each takes the output slices from this slot.
    let slot = std::sync::Mutex::new(Some((decay, promotion, inclusion)));
    let take = || {
        slot.lock()
            .ok()
            .and_then(|mut s| s.take())
            .ok_or_else(|| KernelError::Internal {
                detail: "fused output slot taken twice".into(),
            })
    };
    crate::parallel::run(
        n,
        PAR_THRESHOLD,
        || {
            use rayon::prelude::*;
            let (decay, promotion, inclusion) = take()?;
            decay
                .par_chunks_mut(CHUNK)
                .zip(promotion.par_chunks_mut(CHUNK))
                .zip(inclusion.par_chunks_mut(CHUNK))
                .enumerate()
                .try_for_each(body)
        },
        || {
            let (decay, promotion, inclusion) = take()?;
            decay
                .chunks_mut(CHUNK)
                .zip(promotion.chunks_mut(CHUNK))
                .zip(inclusion.chunks_mut(CHUNK))
                .enumerate()
                .try_for_each(body)
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> FusedParams {
        FusedParams {
            now: 72.0 * 3600.0,
            decay_rate: 0.01,
            w_age: 0.2,
            w_access: 0.4,
            w_confidence: 0.2,
            w_relationships: 0.2,
            age_norm_hours: 72.0,
            access_norm: 5.0,
            relationship_norm: 3.0,
            recency_rate: 0.005,
            hit_weight: 0.1,
        }
    }

    #[test]
    fn fused_matches_formulas() {
        let x = FusedInputs {
            base: &[1.0, 0.5],
            reference: &[0.0, 100.0 * 3600.0],
            created: &[0.0, 0.0],
            accesses: &[5, 10_000],
            confidence: &[0.8, 2.0],
            relationships: &[3, 0],
            similarity: &[0.9, 0.7],
        };
        let out = fused_scores(&x, &params()).unwrap();
        assert!((out.decay[0] - (-0.72f64).exp()).abs() < 1e-15);
        assert_eq!(out.decay[1], 0.5);
        assert!((out.promotion[0] - (0.2 + 0.4 + 0.16 + 0.2)).abs() < 1e-15);
        assert!((out.promotion[1] - (0.2 + 0.4 + 0.2)).abs() < 1e-15);
        let inc = 0.7 * (-0.36f64).exp() * (1.0 + 0.1 * 10_000f64.ln_1p());
        assert!((out.inclusion[1] - inc).abs() < 1e-14);
    }

    #[test]
    fn rejects_bad_weights_and_counts() {
        let mut p = params();
        p.w_age = 0.5;
        let x = FusedInputs {
            base: &[],
            reference: &[],
            created: &[],
            accesses: &[],
            confidence: &[],
            relationships: &[],
            similarity: &[],
        };
        assert!(matches!(
            fused_scores(&x, &p),
            Err(KernelError::OutOfRange { .. })
        ));
        let x = FusedInputs {
            accesses: &[-1],
            base: &[1.0],
            reference: &[0.0],
            created: &[0.0],
            confidence: &[0.0],
            relationships: &[0],
            similarity: &[0.0],
        };
        assert!(matches!(
            fused_scores(&x, &params()),
            Err(KernelError::OutOfRange { .. })
        ));
    }
}
