//! The encoder's non-GEMM steps: layer norm (with the residual add), GELU, attention, pooling.
//!
//! Each is plain Rust written so LLVM vectorises it, compiled twice by [`dispatch!`]: once for
//! the baseline target and once with AVX2+FMA enabled, chosen at run time like the GEMM. `exp`
//! is a polynomial (Cephes `expf`, relative error < 2e-7) because `f32::exp` is a libm call that
//! does not vectorise; `erf` is Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7), the same formula
//! as the numpy encoder.

/// Define `pub(crate) fn $name`, whose body is compiled for AVX2+FMA and for the baseline, and
/// which runs the AVX2 copy when the CPU has it.
macro_rules! dispatch {
    ($(#[$meta:meta])* fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $body:block) => {
        $(#[$meta])*
        pub(crate) fn $name($($arg: $ty),*) {
            #[inline(always)]
            fn imp($($arg: $ty),*) $body
            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx2,fma")]
            unsafe fn avx2($($arg: $ty),*) {
                imp($($arg),*)
            }
            #[cfg(target_arch = "x86_64")]
            if super::gemm::use_avx2() {
                // SAFETY: the CPU has avx2 and fma (checked once per process).
                return unsafe { avx2($($arg),*) };
            }
            imp($($arg),*)
        }
    };
}

/// `e^x` for `x` in float32's range (clamped below at -87.3, where it is 2⁻¹²⁶).
#[inline(always)]
pub(crate) fn exp(x: f32) -> f32 {
    let x = x.clamp(-87.336_54, 88.376_26);
    let n = (x * std::f32::consts::LOG2_E + 0.5).floor();
    let r = x - n * 0.693_359_4 + n * 2.121_944_4e-4;
    let mut p = 1.987_569_1e-4f32;
    p = p * r + 1.398_199_9e-3;
    p = p * r + 8.333_452e-3;
    p = p * r + 4.166_579_6e-2;
    p = p * r + 0.166_666_65;
    p = p * r + 0.5;
    let y = p * r * r + r + 1.0;
    y * f32::from_bits(((n as i32 + 127) as u32) << 23)
}

/// Abramowitz & Stegun 7.1.26.
#[inline(always)]
pub(crate) fn erf(x: f32) -> f32 {
    let a = x.abs();
    let t = 1.0 / (1.0 + 0.327_591_1 * a);
    let poly = t
        * (0.254_829_6
            + t * (-0.284_496_74 + t * (1.421_413_8 + t * (-1.453_152 + t * 1.061_405_4))));
    (1.0 - poly * exp(-a * a)).copysign(x)
}

dispatch! {
    /// `x ← 0.5·x·(1 + erf(x/√2))`, the exact GELU of HuggingFace's `"gelu"`.
    fn gelu(x: &mut [f32]) {
        for v in x.iter_mut() {
            *v = 0.5 * *v * (1.0 + erf(*v * std::f32::consts::FRAC_1_SQRT_2));
        }
    }
}

dispatch! {
    /// Row by row (`weight.len()` columns): `x ← LayerNorm(x + delta)`; `delta` may be empty
    /// (no residual). Mean and variance are float32 sums in 8 lanes.
    fn add_layer_norm(x: &mut [f32], delta: &[f32], weight: &[f32], bias: &[f32], eps: f32) {
        let h = weight.len();
        for (r, row) in x.chunks_exact_mut(h).enumerate() {
            if !delta.is_empty() {
                for (v, d) in row.iter_mut().zip(&delta[r * h..(r + 1) * h]) {
                    *v += d;
                }
            }
            let mean = lanes_sum(row, |v| v) / h as f32;
            let var = lanes_sum(row, |v| (v - mean) * (v - mean)) / h as f32;
            let inv = 1.0 / (var + eps).sqrt();
            for ((v, w), b) in row.iter_mut().zip(weight).zip(bias) {
                *v = (*v - mean) * inv * w + b;
            }
        }
    }
}

/// `Σ f(v)` over `row` in 8 independent lanes (vectorisable; float addition is not reassociated
/// by the compiler otherwise).
#[inline(always)]
fn lanes_sum(row: &[f32], f: impl Fn(f32) -> f32) -> f32 {
    let mut lanes = [0.0f32; 8];
    let chunks = row.chunks_exact(8);
    let rest = chunks.remainder();
    for c in chunks {
        for (l, &v) in lanes.iter_mut().zip(c) {
            *l += f(v);
        }
    }
    let tail: f32 = rest.iter().map(|&v| f(v)).sum();
    lanes.iter().sum::<f32>() + tail
}

#[inline(always)]
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut lanes = [0.0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in ca.zip(cb) {
        for l in 0..8 {
            lanes[l] += x[l] * y[l];
        }
    }
    lanes.iter().sum::<f32>() + tail
}

dispatch! {
    /// Self-attention of one sequence: `qkv` is `t × 3h` (query | key | value, each `heads ×
    /// head_dim`), `ctx` (`t × h`) receives `softmax(q·kᵀ/√d)·v` per head; `scores` is `t`
    /// floats of scratch. Every token of the sequence attends to every other: padding never
    /// reaches the kernel, so there is nothing to mask.
    fn attention(qkv: &[f32], t: usize, heads: usize, ctx: &mut [f32], scores: &mut [f32]) {
        let h3 = qkv.len() / t;
        let h = h3 / 3;
        let d = h / heads;
        let scale = 1.0 / (d as f32).sqrt();
        ctx.fill(0.0);
        for head in 0..heads {
            let (qo, ko, vo) = (head * d, h + head * d, 2 * h + head * d);
            for i in 0..t {
                let q = &qkv[i * h3 + qo..][..d];
                let mut max = f32::NEG_INFINITY;
                for (j, s) in scores[..t].iter_mut().enumerate() {
                    *s = dot(q, &qkv[j * h3 + ko..][..d]) * scale;
                    max = max.max(*s);
                }
                let mut sum = 0.0f32;
                for s in scores[..t].iter_mut() {
                    *s = exp(*s - max);
                    sum += *s;
                }
                let inv = 1.0 / sum;
                let out = &mut ctx[i * h + head * d..][..d];
                for (j, &p) in scores[..t].iter().enumerate() {
                    let w = p * inv;
                    for (o, &v) in out.iter_mut().zip(&qkv[j * h3 + vo..][..d]) {
                        *o += w * v;
                    }
                }
            }
        }
    }
}
