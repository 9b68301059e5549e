//! Decay kernels (lifecycle): `score · exp(−rate · hours since reference)`, clamped to [0, 1].
//!
//! Decay is always computed from a stored *base* score and its *reference time*; nothing here ever
//! multiplies an already-decayed score again, so running maintenance often cannot compound decay.
//! Reinforcement (an access) rebases: new base = min(1, decayed score + boost), reference = access
//! time.
//!
//! Times are f64 UNIX seconds. A reference time in the future (clock skew) counts as age 0.
//!
//! [`exp_fast`] is the vectorisable exponential the fused scorer relies on: a plain `f64::exp` call
//! is opaque to the auto-vectoriser, and a scalar libm loop is slower than numpy's SIMD exp.

use crate::error::{KernelError, KernelResult};

/// Valid decay rates per hour, inclusive (mirrors `DecayConfig.decay_rate`).
pub const DECAY_RATE_MIN: f64 = 0.001;
/// Upper end of the valid decay-rate range.
pub const DECAY_RATE_MAX: f64 = 0.5;

const SECONDS_PER_HOUR: f64 = 3600.0;
// The exponent field of an f64: all ones for NaN and the infinities.
const EXP_BITS: u64 = 0x7ff0_0000_0000_0000;
const LOG2E: f64 = std::f64::consts::LOG2_E;
// Cody–Waite split of ln 2 (fdlibm): n·LN2_HI is exact for |n| < 2^11.
const LN2_HI: f64 = 6.931_471_803_691_238e-1;
const LN2_LO: f64 = 1.908_214_929_270_587_7e-10;
// 1.5·2^52: adding it rounds to the nearest integer and leaves that integer in the low mantissa bits.
const ROUND_MAGIC: f64 = 6_755_399_441_055_744.0;
/// Below this `exp_fast` returns 0.0 (exp(−708) ≈ 3.3e−308, the edge of the normal range).
pub const EXP_FAST_MIN: f64 = -708.0;
/// Above this `exp_fast` saturates to +inf.
pub const EXP_FAST_MAX: f64 = 709.0;

// Taylor coefficients 1/k! for k = 12 down to 2; on |r| ≤ ln2/2 the truncation error is < 2e−16.
const C: [f64; 11] = [
    1.0 / 479_001_600.0,
    1.0 / 39_916_800.0,
    1.0 / 3_628_800.0,
    1.0 / 362_880.0,
    1.0 / 40_320.0,
    1.0 / 5_040.0,
    1.0 / 720.0,
    1.0 / 120.0,
    1.0 / 24.0,
    1.0 / 6.0,
    0.5,
];

/// Branch-free exp for f64, written so that a loop over it auto-vectorises.
///
/// Range reduction x = n·ln2 + r (|r| ≤ ln2/2, Cody–Waite), a degree-12 polynomial for e^r, and
/// 2^n built directly in the exponent bits. Relative error ≤ 1e−14 against a correctly rounded exp
/// on [−708, 709] (tested; typically a few ulp). Outside: x < −708 → 0.0, x > 709 → +inf.
/// NaN in gives an unspecified value; callers validate finiteness first.
#[inline(always)]
pub fn exp_fast(x: f64) -> f64 {
    exp_with::<false>(x)
}

/// [`exp_fast`] with the polynomial's multiply-adds fused when `FMA` is true.
///
/// Fusing only removes roundings, so the error bound of [`exp_fast`] holds for both forms. Call
/// the `FMA = true` form only from code compiled with the `fma` target feature: elsewhere
/// `f64::mul_add` is a libm call, which would also stop the loop from vectorising.
#[inline(always)]
pub fn exp_with<const FMA: bool>(x: f64) -> f64 {
    let madd = |a: f64, b: f64, c: f64| if FMA { a.mul_add(b, c) } else { a * b + c };
    let xc = x.clamp(EXP_FAST_MIN, EXP_FAST_MAX);
    let t = xc * LOG2E + ROUND_MAGIC;
    let n = t - ROUND_MAGIC;
    let r = madd(-n, LN2_LO, madd(-n, LN2_HI, xc));
    let mut p = C[0];
    for &c in &C[1..] {
        p = madd(p, r, c);
    }
    p = madd(madd(p, r, 1.0), r, 1.0);
    // Low bits of t hold n (two's complement); shifting drops the magic's own bits.
    let scale = f64::from_bits(t.to_bits().wrapping_add(1023) << 52);
    let y = p * scale;
    let y = if x < EXP_FAST_MIN { 0.0 } else { y };
    if x > EXP_FAST_MAX {
        f64::INFINITY
    } else {
        y
    }
}

/// Reject a decay rate outside [`DECAY_RATE_MIN`, `DECAY_RATE_MAX`] (or non-finite).
pub fn check_rate(name: &'static str, rate: f64) -> KernelResult<()> {
    if !rate.is_finite() {
        return Err(KernelError::NonFinite {
            name,
            index: 0,
            value: rate,
        });
    }
    if !(DECAY_RATE_MIN..=DECAY_RATE_MAX).contains(&rate) {
        return Err(KernelError::OutOfRange {
            name,
            detail: format!("{rate} per hour; use a value in [{DECAY_RATE_MIN}, {DECAY_RATE_MAX}]"),
        });
    }
    Ok(())
}

/// Raise NonFinite for the first NaN/inf in `xs`.
pub fn check_finite(name: &'static str, xs: &[f64]) -> KernelResult<()> {
    // NaN and ±inf are the values whose exponent bits are all ones. Counting them is an integer
    // reduction, which the compiler vectorises (a float sum is a serial chain of dependent adds:
    // it is never reassociated, and it cost more than the scoring itself at 1M items). Only on
    // failure do we look for the culprit.
    let bad = xs
        .iter()
        .filter(|&&x| x.to_bits() & EXP_BITS == EXP_BITS)
        .count();
    if bad == 0 {
        return Ok(());
    }
    match xs.iter().position(|x| !x.is_finite()) {
        Some(index) => Err(KernelError::NonFinite {
            name,
            index,
            value: xs[index],
        }),
        None => Ok(()),
    }
}

/// Raise NonFinite unless the scalar is finite.
pub fn check_finite_scalar(name: &'static str, x: f64) -> KernelResult<()> {
    if x.is_finite() {
        Ok(())
    } else {
        Err(KernelError::NonFinite {
            name,
            index: 0,
            value: x,
        })
    }
}

/// Hours from `reference` to `now`, with a future reference (clock skew) counted as 0.
#[inline(always)]
pub fn age_hours(now: f64, reference: f64) -> f64 {
    ((now - reference) / SECONDS_PER_HOUR).max(0.0)
}

/// One decayed score: `clamp(base · exp(−rate · age_h), 0, 1)`.
#[inline(always)]
pub fn decayed(base: f64, reference: f64, now: f64, rate: f64) -> f64 {
    (base * exp_fast(-rate * age_hours(now, reference))).clamp(0.0, 1.0)
}

fn check_common(base: &[f64], reference: &[f64], now: f64, rate: f64) -> KernelResult<()> {
    if reference.len() != base.len() {
        return Err(KernelError::Length {
            name: "reference_times",
            expected: base.len(),
            actual: reference.len(),
        });
    }
    check_finite("base_scores", base)?;
    check_finite("reference_times", reference)?;
    check_finite_scalar("now", now)?;
    check_rate("decay_rate", rate)
}

/// Decayed scores for every item (see the module docs for the formula).
pub fn decay_scores(
    base: &[f64],
    reference: &[f64],
    now: f64,
    rate: f64,
) -> KernelResult<Vec<f64>> {
    check_common(base, reference, now, rate)?;
    Ok(base
        .iter()
        .zip(reference)
        .map(|(&b, &r)| decayed(b, r, now, rate))
        .collect())
}

/// New base scores after every item is accessed at `now`: `min(1, decayed + boost)`, then clamped
/// to [0, 1]. The new reference time of every item is `now`.
pub fn reinforce(
    base: &[f64],
    reference: &[f64],
    now: f64,
    rate: f64,
    boost: f64,
) -> KernelResult<Vec<f64>> {
    check_common(base, reference, now, rate)?;
    check_finite_scalar("access_boost", boost)?;
    if !(0.0..=1.0).contains(&boost) {
        return Err(KernelError::OutOfRange {
            name: "access_boost",
            detail: format!("{boost}; use a value in [0, 1]"),
        });
    }
    Ok(base
        .iter()
        .zip(reference)
        .map(|(&b, &r)| (decayed(b, r, now, rate) + boost).clamp(0.0, 1.0))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_fast_matches_libm() {
        let mut worst = 0.0f64;
        let mut x = -708.0;
        while x <= 709.0 {
            let (a, b) = (exp_fast(x), x.exp());
            worst = worst.max(((a - b) / b).abs());
            x += 0.013_7;
        }
        assert!(worst <= 1e-14, "worst relative error {worst}");
        assert_eq!(exp_fast(0.0), 1.0);
        assert_eq!(exp_fast(-1e300), 0.0);
        assert_eq!(exp_fast(1e300), f64::INFINITY);
    }

    #[test]
    fn decay_matches_seed_example() {
        let day = 24.0 * 3600.0;
        let out = decay_scores(&[1.0, 1.0, 1.0], &[0.0; 3], 0.0, 0.01).unwrap();
        assert_eq!(out, vec![1.0; 3]);
        let out = decay_scores(&[1.0], &[0.0], day, 0.01).unwrap();
        assert!((out[0] - (-0.24f64).exp()).abs() < 1e-15);
        // Future reference time: age 0.
        let out = decay_scores(&[0.5], &[day], 0.0, 0.01).unwrap();
        assert_eq!(out, vec![0.5]);
    }

    #[test]
    fn rejects_bad_inputs() {
        assert!(matches!(
            decay_scores(&[f64::NAN], &[0.0], 0.0, 0.01),
            Err(KernelError::NonFinite { .. })
        ));
        assert!(matches!(
            decay_scores(&[1.0], &[0.0], 0.0, 0.9),
            Err(KernelError::OutOfRange { .. })
        ));
        assert!(matches!(
            decay_scores(&[1.0], &[], 0.0, 0.01),
            Err(KernelError::Length { .. })
        ));
        assert!(matches!(
            reinforce(&[1.0], &[0.0], 0.0, 0.01, 2.0),
            Err(KernelError::OutOfRange { .. })
        ));
    }

    #[test]
    fn reinforce_rebases() {
        let out = reinforce(&[0.9, 0.1], &[0.0, 0.0], 0.0, 0.01, 0.2).unwrap();
        assert_eq!(out[0], 1.0);
        assert!((out[1] - 0.3).abs() < 1e-15);
    }
}
