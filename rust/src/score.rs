//! Promotion and inclusion scoring, and the fused scorer (decay + promotion + inclusion, one pass).
//!
//! Formulas (ages in hours, future times count as age 0):
//! - decay      = clamp(base · exp(−decay_rate · age_since_reference), 0, 1)
//! - promotion  = w_age·min(1, age_since_created/age_norm) + w_access·min(1, accesses/access_norm)
//!   + w_conf·clamp(confidence, 0, 1) + w_rel·min(1, relationships/rel_norm)
//! - inclusion  = similarity · exp(−recency_rate · age_since_created) · (1 + hit_weight·ln(1 + accesses))
//!
//! One branch-free pass per chunk computes all three outputs and the validity of the chunk's
//! inputs (chunk.rs); ln(1 + accesses) comes from a table below [`LN1P_TABLE`] and the
//! exponentials from [`crate::decay::exp_with`]. Only when a chunk flags a bad value do the
//! exact checks run, over the whole input, so the error names the same first culprit, in the same
//! order of arrays, as the reference's checks.

mod chunk;

pub use chunk::{ln1p_count, Isa, LN1P_TABLE};

use crate::decay::{check_finite, check_finite_scalar, check_rate};
use crate::error::{KernelError, KernelResult};
use chunk::{score_chunk, Chunk, Folded, CHUNK};

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

    /// The exact value checks, in the reference's order (run only after the scoring pass
    /// flagged something, to find the culprit).
    fn check_values(&self) -> KernelResult<()> {
        check_finite("base_scores", self.base)?;
        check_finite("reference_times", self.reference)?;
        check_finite("created_times", self.created)?;
        check_finite("confidence", self.confidence)?;
        check_finite("similarity", self.similarity)?;
        for (name, xs) in [
            ("access_counts", self.accesses),
            ("relationship_counts", self.relationships),
        ] {
            // OR keeps any sign bit and vectorises (AVX2 has no 64-bit integer min).
            if xs.iter().fold(0i64, |m, &c| m | c) < 0 {
                let index = xs.iter().position(|&c| c < 0).unwrap_or(0);
                return Err(KernelError::OutOfRange {
                    name,
                    detail: format!("element {index} is {}; counts must be >= 0", xs[index]),
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
    fused_scores_isa(Isa::detect(), x, p)
}

/// [`fused_scores`] with the loop's build chosen by the caller (see [`fused_scores_into_isa`]).
pub fn fused_scores_isa(
    isa: Isa,
    x: &FusedInputs<'_>,
    p: &FusedParams,
) -> KernelResult<FusedScores> {
    let n = x.base.len();
    let (mut d, mut pr, mut inc) = (
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
    );
    fused_scores_into_isa(
        isa,
        x,
        p,
        &mut d.spare_capacity_mut()[..n],
        &mut pr.spare_capacity_mut()[..n],
        &mut inc.spare_capacity_mut()[..n],
    )?;
    // SAFETY: on success the kernel has written all n elements of each spare capacity.
    unsafe {
        d.set_len(n);
        pr.set_len(n);
        inc.set_len(n);
    }
    Ok(FusedScores {
        decay: d,
        promotion: pr,
        inclusion: inc,
    })
}

/// An output element: the kernel writes every one and reads none, so outputs may start
/// uninitialised (no zeroing pass over 24 MB at 1M items).
pub type Out = std::mem::MaybeUninit<f64>;

/// [`fused_scores`] writing into caller-provided outputs (each of the inputs' length). On
/// success every element of the three outputs is written; on error their contents are
/// unspecified.
///
/// The bindings pass fresh numpy buffers: numpy backs large arrays with transparent huge pages,
/// and writing into them measured 3–10× faster at 1M items than faulting in a fresh `Vec`
/// 4 KiB page by page.
pub fn fused_scores_into(
    x: &FusedInputs<'_>,
    p: &FusedParams,
    decay: &mut [Out],
    promotion: &mut [Out],
    inclusion: &mut [Out],
) -> KernelResult<()> {
    fused_scores_into_isa(Isa::detect(), x, p, decay, promotion, inclusion)
}

/// [`fused_scores_into`] with the loop's build chosen by the caller (an `isa` the CPU lacks runs
/// the portable loop); tests use it to hold every build to the same results.
pub fn fused_scores_into_isa(
    isa: Isa,
    x: &FusedInputs<'_>,
    p: &FusedParams,
    decay: &mut [Out],
    promotion: &mut [Out],
    inclusion: &mut [Out],
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
    let k = Folded {
        now: p.now,
        decay_rate: p.decay_rate,
        recency_rate: p.recency_rate,
        hit_weight: p.hit_weight,
        w_age: p.w_age,
        w_access: p.w_access,
        w_confidence: p.w_confidence,
        w_relationships: p.w_relationships,
        inv_age: 1.0 / p.age_norm_hours,
        inv_acc: 1.0 / p.access_norm,
        inv_rel: 1.0 / p.relationship_norm,
    };
    // Err(()) stops the other chunks early: some input is bad, and check_values names it.
    let body = |(c, ((d, pr), inc)): ChunkOut<'_>| {
        let lo = c * CHUNK;
        match score_chunk(isa, &sub(x, lo, lo + d.len()), &k, d, pr, inc) {
            Chunk::Scored => Ok(()),
            Chunk::Invalid => Err(()),
        }
    };
    // parallel::run's two closures cannot both borrow the outputs mutably; this is its rule
    // (the shared pool above a benchmark-chosen size) written out.
    let scored = match crate::parallel::pool() {
        Some(pool) if n >= PAR_THRESHOLD => pool.install(|| {
            use rayon::prelude::*;
            decay
                .par_chunks_mut(CHUNK)
                .zip(promotion.par_chunks_mut(CHUNK))
                .zip(inclusion.par_chunks_mut(CHUNK))
                .enumerate()
                .try_for_each(body)
        }),
        _ => decay
            .chunks_mut(CHUNK)
            .zip(promotion.chunks_mut(CHUNK))
            .zip(inclusion.chunks_mut(CHUNK))
            .enumerate()
            .try_for_each(body),
    };
    match scored {
        Ok(()) => Ok(()),
        Err(()) => {
            x.check_values()?;
            Err(KernelError::Internal {
                detail: "the fused scorer flagged an input that the exact checks accept".into(),
            })
        }
    }
}

/// One chunk of the three outputs, numbered.
type ChunkOut<'a> = (usize, ((&'a mut [Out], &'a mut [Out]), &'a mut [Out]));

#[cfg(test)]
mod tests;
