//! The fused scorer's inner loop: one chunk of items, compiled twice (portable and AVX2).

use std::sync::OnceLock;

use super::{FusedInputs, FusedParams};
use crate::decay::{age_hours, exp_fast};
use crate::error::KernelResult;

/// Counts below this use the ln(1 + n) lookup table.
pub const LN1P_TABLE: usize = 4096;
pub(super) const CHUNK: usize = 1024;

fn ln1p_table() -> &'static [f64] {
    static TABLE: OnceLock<Vec<f64>> = OnceLock::new();
    TABLE.get_or_init(|| (0..LN1P_TABLE).map(|n| (n as f64).ln_1p()).collect())
}

/// `ln(1 + n)` for a non-negative count: table lookup below [`LN1P_TABLE`], libm above.
#[inline]
pub fn ln1p_count(n: i64) -> f64 {
    match usize::try_from(n) {
        Ok(i) if i < LN1P_TABLE => ln1p_table()[i],
        _ => (n as f64).ln_1p(),
    }
}

/// One chunk of the three outputs, numbered.
pub(super) type ChunkOut<'a> = (usize, ((&'a mut [f64], &'a mut [f64]), &'a mut [f64]));

/// Score one chunk (≤ [`CHUNK`] items) into the output slices.
#[inline(always)]
fn score_chunk_generic(
    x: &FusedInputs<'_>,
    p: &FusedParams,
    d: &mut [f64],
    pr: &mut [f64],
    inc: &mut [f64],
) {
    let n = d.len();
    // Scalar pre-pass: table lookups and i64 → f64 conversions (no AVX2 instruction for the
    // latter) would otherwise keep the main loop from vectorising.
    let mut ln_hits = [0.0f64; CHUNK];
    let mut acc = [0.0f64; CHUNK];
    let mut rel = [0.0f64; CHUNK];
    for i in 0..n {
        ln_hits[i] = ln1p_count(x.accesses[i]);
        acc[i] = x.accesses[i] as f64;
        rel[i] = x.relationships[i] as f64;
    }
    // Re-slicing everything to `n` lets the compiler drop the bounds checks in the main loop.
    let (base, reference, created) = (&x.base[..n], &x.reference[..n], &x.created[..n]);
    let (confidence, similarity) = (&x.confidence[..n], &x.similarity[..n]);
    let (ln_hits, acc, rel) = (&ln_hits[..n], &acc[..n], &rel[..n]);
    let (pr, inc) = (&mut pr[..n], &mut inc[..n]);
    let inv_age = 1.0 / p.age_norm_hours;
    let inv_acc = 1.0 / p.access_norm;
    let inv_rel = 1.0 / p.relationship_norm;
    for i in 0..n {
        let age_ref = age_hours(p.now, reference[i]);
        let age_created = age_hours(p.now, created[i]);
        d[i] = (base[i] * exp_fast(-p.decay_rate * age_ref)).clamp(0.0, 1.0);
        pr[i] = p.w_age * (age_created * inv_age).min(1.0)
            + p.w_access * (acc[i] * inv_acc).min(1.0)
            + p.w_confidence * confidence[i].clamp(0.0, 1.0)
            + p.w_relationships * (rel[i] * inv_rel).min(1.0);
        inc[i] = similarity[i]
            * exp_fast(-p.recency_rate * age_created)
            * (1.0 + p.hit_weight * ln_hits[i]);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn score_chunk_avx2(
    x: &FusedInputs<'_>,
    p: &FusedParams,
    d: &mut [f64],
    pr: &mut [f64],
    inc: &mut [f64],
) {
    score_chunk_generic(x, p, d, pr, inc)
}

/// The same loop compiled twice; AVX2 (4 lanes instead of SSE2's 2) roughly halves the time of
/// the arithmetic part on x86-64 machines that have it.
pub(super) fn score_chunk(
    avx2: bool,
    offset: usize,
    x: &FusedInputs<'_>,
    p: &FusedParams,
    d: &mut [f64],
    pr: &mut [f64],
    inc: &mut [f64],
) -> KernelResult<()> {
    x.check_values(offset)?;
    #[cfg(target_arch = "x86_64")]
    if avx2 {
        // SAFETY: `avx2` is true only when the CPU was detected to support AVX2.
        unsafe { score_chunk_avx2(x, p, d, pr, inc) };
        return Ok(());
    }
    let _ = avx2;
    score_chunk_generic(x, p, d, pr, inc);
    Ok(())
}

/// Whether the AVX2 build of the hot loops can run here.
pub fn has_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}
