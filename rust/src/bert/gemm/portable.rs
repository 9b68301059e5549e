//! The portable micro-kernels (any CPU) and the bf16 conversions.

use super::{MR, MR_BF16, NR};

/// `x` rounded to bfloat16 (nearest, ties to even; NaN stays NaN), as the low 16 bits.
#[inline(always)]
pub(crate) fn bf16(x: f32) -> u32 {
    let b = x.to_bits();
    if x.is_nan() {
        (b >> 16) | 0x40
    } else {
        (b + 0x7FFF + ((b >> 16) & 1)) >> 16
    }
}

/// The float32 value of a bfloat16 held in the low 16 bits.
#[inline(always)]
pub(crate) fn from_bf16(h: u32) -> f32 {
    f32::from_bits(h << 16)
}

/// Rows of `k` floats → rows of `⌈k/2⌉` bf16 pairs (even input low, odd input high).
pub(super) fn to_pairs(a: &[f32], rows: usize, k: usize) -> Vec<u32> {
    let depth = k.div_ceil(2);
    let mut out = vec![0u32; rows * depth];
    for (src, dst) in a
        .chunks_exact(k)
        .take(rows)
        .zip(out.chunks_exact_mut(depth))
    {
        for (d, pair) in dst.iter_mut().zip(src.chunks(2)) {
            let hi = pair.get(1).map_or(0, |&v| bf16(v));
            *d = bf16(pair[0]) | (hi << 16);
        }
    }
    out
}

#[allow(clippy::too_many_arguments)]
pub(super) fn portable_tile(
    a: &[f32],
    mr: usize,
    k: usize,
    panel: &[f32],
    bias: &[f32],
    c: &mut [f32],
    ldc: usize,
    nr: usize,
) {
    let mut acc = [[0.0f32; NR]; MR];
    for (kk, b) in panel.chunks_exact(NR).enumerate() {
        for r in 0..mr {
            let x = a[r * k + kk];
            for (o, &bv) in acc[r].iter_mut().zip(b) {
                *o += x * bv;
            }
        }
    }
    for r in 0..mr {
        for j in 0..nr {
            c[r * ldc + j] = acc[r][j] + bias[j];
        }
    }
}

#[allow(clippy::too_many_arguments)]
pub(super) fn portable_tile_bf16(
    a: &[u32],
    mr: usize,
    depth: usize,
    panel: &[u32],
    bias: &[f32],
    c: &mut [f32],
    ldc: usize,
    nr: usize,
) {
    let mut acc = [[0.0f32; NR]; MR_BF16];
    for (kp, b) in panel.chunks_exact(NR).enumerate() {
        for r in 0..mr {
            let x = a[r * depth + kp];
            let (xl, xh) = (from_bf16(x & 0xFFFF), from_bf16(x >> 16));
            for (o, &bv) in acc[r].iter_mut().zip(b) {
                *o += xl * from_bf16(bv & 0xFFFF) + xh * from_bf16(bv >> 16);
            }
        }
    }
    for r in 0..mr {
        for j in 0..nr {
            c[r * ldc + j] = acc[r][j] + bias[j];
        }
    }
}
