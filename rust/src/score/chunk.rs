//! The fused scorer's inner loop: one chunk of items in a single branch-free pass, compiled three
//! times (portable, AVX2 + FMA, AVX-512) and chosen once per process by CPU detection.
//!
//! Validation rides along in the same pass as integer OR reductions, which vectorise: a NaN or
//! ±inf is the value whose exponent bits are all ones, so `(bits & EXP) + 2^52` carries into the
//! sign bit exactly then, and a negative count has its sign bit set already. Only a chunk whose
//! accumulator flags something makes the caller look for the culprit (score.rs).
//!
//! Two fast paths are exact only for small counts: `ln(1 + accesses)` from a table below
//! [`LN1P_TABLE`], and i64 → f64 by the exponent-bits trick below 2^52 (AVX2 has no instruction
//! for it). Larger counts set a second flag and their items are scored again one by one with
//! libm's `ln_1p` and a plain conversion, so every count gets the reference's value.

use std::sync::OnceLock;

use super::{FusedInputs, Out};
use crate::decay::exp_with;

/// Counts below this use the ln(1 + n) lookup table.
pub const LN1P_TABLE: usize = 4096;
const LN1P_BITS: u32 = LN1P_TABLE.trailing_zeros();
pub(super) const CHUNK: usize = 4096;

// Ages multiply by 1/3600 instead of dividing by 3600: two divisions per item were the loop's
// costliest instructions (vdivpd), and the extra ≤ 1 ulp in an age moves exp(−rate·age) by
// ≤ |rate·age|·2.2e−16 relative, ≤ 1.6e−13 where the result is above the 1e−300 floor.
const HOURS_PER_SECOND: f64 = 1.0 / 3600.0;
const EXP_BITS: u64 = 0x7ff0_0000_0000_0000;
const EXP_ONE: u64 = 1 << 52;
// 2^52 as f64 and its bits: OR-ing an integer below 2^52 into the mantissa of 2^52 and
// subtracting 2^52 converts it exactly.
const TWO52: f64 = 4_503_599_627_370_496.0;
const TWO52_BITS: u64 = 0x4330_0000_0000_0000;
const MANTISSA: u64 = EXP_ONE - 1;

fn ln1p_table() -> &'static [f64; LN1P_TABLE] {
    static TABLE: OnceLock<Box<[f64; LN1P_TABLE]>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = Box::new([0.0; LN1P_TABLE]);
        for (n, v) in t.iter_mut().enumerate() {
            *v = (n as f64).ln_1p();
        }
        t
    })
}

/// `ln(1 + n)` for a non-negative count: table lookup below [`LN1P_TABLE`], libm above.
#[inline]
pub fn ln1p_count(n: i64) -> f64 {
    match usize::try_from(n) {
        Ok(i) if i < LN1P_TABLE => ln1p_table()[i],
        _ => (n as f64).ln_1p(),
    }
}

/// The fused scorer's scalars, with the reciprocals the loop multiplies by taken once.
#[derive(Debug, Clone, Copy)]
pub(super) struct Folded {
    pub now: f64,
    pub decay_rate: f64,
    pub recency_rate: f64,
    pub hit_weight: f64,
    pub w_age: f64,
    pub w_access: f64,
    pub w_confidence: f64,
    pub w_relationships: f64,
    pub inv_age: f64,
    pub inv_acc: f64,
    pub inv_rel: f64,
}

/// What a chunk's reductions found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Chunk {
    /// Every item valid and scored.
    Scored,
    /// Some input is NaN/±inf or some count negative; the outputs are garbage.
    Invalid,
}

/// The CPU-specific build of the loop to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Isa {
    Portable,
    Avx2Fma,
    Avx512,
}

impl Isa {
    /// The fastest build this CPU can run (detected once).
    pub fn detect() -> Isa {
        static ISA: OnceLock<Isa> = OnceLock::new();
        *ISA.get_or_init(|| {
            #[cfg(target_arch = "x86_64")]
            {
                use std::arch::is_x86_feature_detected as has;
                if has!("avx512f") && has!("avx2") && has!("fma") {
                    return Isa::Avx512;
                }
                if has!("avx2") && has!("fma") {
                    return Isa::Avx2Fma;
                }
            }
            Isa::Portable
        })
    }

    /// Every build this CPU can run, fastest last (for tests that compare them).
    pub fn available() -> Vec<Isa> {
        let best = Isa::detect();
        [Isa::Portable, Isa::Avx2Fma, Isa::Avx512]
            .into_iter()
            .filter(|&i| i as u8 <= best as u8)
            .collect()
    }
}

/// Bit 63 set iff `x` is NaN or ±inf.
#[inline(always)]
fn non_finite_bit(x: f64) -> u64 {
    (x.to_bits() & EXP_BITS).wrapping_add(EXP_ONE)
}

// `if` forms, not f64::max/min: they compile to one maxpd/minpd instead of a NaN-aware blend,
// and give what the reference's Python max(0.0, x) and min(1.0, x) give for every input.
#[inline(always)]
fn max0(x: f64) -> f64 {
    if x > 0.0 {
        x
    } else {
        0.0
    }
}

#[inline(always)]
fn min1(x: f64) -> f64 {
    if x < 1.0 {
        x
    } else {
        1.0
    }
}

/// The three scores of one item (formulas in score.rs's module docs). `acc`, `rel` are the
/// counts as f64 and `ln_hits` is ln(1 + accesses).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn item<const FMA: bool>(
    k: &Folded,
    base: f64,
    reference: f64,
    created: f64,
    acc: f64,
    ln_hits: f64,
    confidence: f64,
    rel: f64,
    similarity: f64,
) -> (f64, f64, f64) {
    let madd = |a: f64, b: f64, c: f64| if FMA { a.mul_add(b, c) } else { a * b + c };
    let age_ref = max0((k.now - reference) * HOURS_PER_SECOND);
    let age_created = max0((k.now - created) * HOURS_PER_SECOND);
    let decay = min1(max0(base * exp_with::<FMA>(-k.decay_rate * age_ref)));
    let promotion = madd(
        k.w_relationships,
        min1(rel * k.inv_rel),
        madd(
            k.w_confidence,
            min1(max0(confidence)),
            madd(
                k.w_access,
                min1(acc * k.inv_acc),
                k.w_age * min1(age_created * k.inv_age),
            ),
        ),
    );
    let inclusion = similarity
        * exp_with::<FMA>(-k.recency_rate * age_created)
        * madd(k.hit_weight, ln_hits, 1.0);
    (decay, promotion, inclusion)
}

/// Score one chunk into the output slices (all of `d.len()` items).
#[inline(always)]
fn score_chunk_body<const FMA: bool>(
    x: &FusedInputs<'_>,
    k: &Folded,
    d: &mut [Out],
    pr: &mut [Out],
    inc: &mut [Out],
) -> Chunk {
    let n = d.len();
    let table = ln1p_table();
    // Re-slicing everything to `n` lets the compiler drop the bounds checks in the loop.
    let (base, reference, created) = (&x.base[..n], &x.reference[..n], &x.created[..n]);
    let (accesses, relationships) = (&x.accesses[..n], &x.relationships[..n]);
    let (confidence, similarity) = (&x.confidence[..n], &x.similarity[..n]);
    let (pr, inc) = (&mut pr[..n], &mut inc[..n]);
    let (mut invalid, mut slow) = (0u64, 0u64);
    for i in 0..n {
        let (a, l) = (accesses[i] as u64, relationships[i] as u64);
        invalid |= non_finite_bit(base[i])
            | non_finite_bit(reference[i])
            | non_finite_bit(created[i])
            | non_finite_bit(confidence[i])
            | non_finite_bit(similarity[i])
            | a
            | l;
        slow |= (a >> LN1P_BITS) | (l >> 52);
        let acc = f64::from_bits((a & MANTISSA) | TWO52_BITS) - TWO52;
        let rel = f64::from_bits((l & MANTISSA) | TWO52_BITS) - TWO52;
        let ln_hits = table[a.min(LN1P_TABLE as u64 - 1) as usize];
        let (dv, pv, iv) = item::<FMA>(
            k,
            base[i],
            reference[i],
            created[i],
            acc,
            ln_hits,
            confidence[i],
            rel,
            similarity[i],
        );
        d[i] = Out::new(dv);
        pr[i] = Out::new(pv);
        inc[i] = Out::new(iv);
    }
    if invalid >> 63 != 0 {
        return Chunk::Invalid;
    }
    if slow != 0 {
        for i in 0..n {
            let (a, l) = (accesses[i], relationships[i]);
            if a as u64 >> LN1P_BITS != 0 || l as u64 >> 52 != 0 {
                let (dv, pv, iv) = item::<FMA>(
                    k,
                    base[i],
                    reference[i],
                    created[i],
                    a as f64,
                    (a as f64).ln_1p(),
                    confidence[i],
                    l as f64,
                    similarity[i],
                );
                (d[i], pr[i], inc[i]) = (Out::new(dv), Out::new(pv), Out::new(iv));
            }
        }
    }
    Chunk::Scored
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn score_chunk_avx2(
    x: &FusedInputs<'_>,
    k: &Folded,
    d: &mut [Out],
    pr: &mut [Out],
    inc: &mut [Out],
) -> Chunk {
    score_chunk_body::<true>(x, k, d, pr, inc)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2,fma")]
fn score_chunk_avx512(
    x: &FusedInputs<'_>,
    k: &Folded,
    d: &mut [Out],
    pr: &mut [Out],
    inc: &mut [Out],
) -> Chunk {
    score_chunk_body::<true>(x, k, d, pr, inc)
}

/// Score one chunk with the given build. An `isa` the CPU lacks falls back to the portable loop.
pub(super) fn score_chunk(
    isa: Isa,
    x: &FusedInputs<'_>,
    k: &Folded,
    d: &mut [Out],
    pr: &mut [Out],
    inc: &mut [Out],
) -> Chunk {
    #[cfg(target_arch = "x86_64")]
    {
        let best = Isa::detect();
        if isa == Isa::Avx512 && best == Isa::Avx512 {
            // SAFETY: detect() found avx512f, avx2 and fma on this CPU.
            return unsafe { score_chunk_avx512(x, k, d, pr, inc) };
        }
        if isa != Isa::Portable && best != Isa::Portable {
            // SAFETY: detect() found avx2 and fma on this CPU.
            return unsafe { score_chunk_avx2(x, k, d, pr, inc) };
        }
    }
    let _ = isa;
    score_chunk_body::<false>(x, k, d, pr, inc)
}
