//! The AVX2/FMA bodies of the top-k dot products, chosen at run time by `use_avx2` (the
//! portable module is the fallback and the reference for their results).

use super::*;
use std::arch::x86_64::*;

#[inline(always)]
unsafe fn hsum(v: __m256) -> f32 {
    let mut l = [0.0f32; 8];
    _mm256_storeu_ps(l.as_mut_ptr(), v);
    hsum_lanes(l)
}

/// Load 8 floats at `p`, or the `w < 8` there zero-padded.
#[inline(always)]
unsafe fn load(p: *const f32, w: usize) -> __m256 {
    if w == 8 {
        _mm256_loadu_ps(p)
    } else {
        let mut b = [0.0f32; 8];
        std::ptr::copy_nonoverlapping(p, b.as_mut_ptr(), w);
        _mm256_loadu_ps(b.as_ptr())
    }
}

#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn tile<const MQ: usize, const MR: usize, const NORM: bool>(
    q: &[f32],
    qi: usize,
    rows: &[f32],
    rj: usize,
    d: usize,
    dots: &mut [f32],
    nr: usize,
    norms: &mut [f32],
) {
    let mut acc = [[_mm256_setzero_ps(); MR]; MQ];
    let mut nacc = [_mm256_setzero_ps(); MR];
    let qp = q.as_ptr().add(qi * d);
    let rp = rows.as_ptr().add(rj * d);
    let full = d - d % 8;
    let mut off = 0;
    while off < full {
        let mut rv = [_mm256_setzero_ps(); MR];
        for (b, v) in rv.iter_mut().enumerate() {
            *v = _mm256_loadu_ps(rp.add(b * d + off));
        }
        for (a, accq) in acc.iter_mut().enumerate() {
            let qv = _mm256_loadu_ps(qp.add(a * d + off));
            for b in 0..MR {
                accq[b] = _mm256_fmadd_ps(qv, rv[b], accq[b]);
            }
        }
        if NORM {
            for b in 0..MR {
                nacc[b] = _mm256_fmadd_ps(rv[b], rv[b], nacc[b]);
            }
        }
        off += 8;
    }
    if off < d {
        let w = d - off;
        let mut rv = [_mm256_setzero_ps(); MR];
        for (b, v) in rv.iter_mut().enumerate() {
            *v = load(rp.add(b * d + off), w);
        }
        for (a, accq) in acc.iter_mut().enumerate() {
            let qv = load(qp.add(a * d + off), w);
            for b in 0..MR {
                accq[b] = _mm256_fmadd_ps(qv, rv[b], accq[b]);
            }
        }
        if NORM {
            for b in 0..MR {
                nacc[b] = _mm256_fmadd_ps(rv[b], rv[b], nacc[b]);
            }
        }
    }
    for (a, accq) in acc.iter().enumerate() {
        for (b, v) in accq.iter().enumerate() {
            dots[(qi + a) * nr + rj + b] = hsum(*v);
        }
    }
    if NORM {
        for (b, v) in nacc.iter().enumerate() {
            norms[b] = hsum(*v).sqrt();
        }
    }
}

#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn dot_block(
    q: &[f32],
    nq: usize,
    rows: &[f32],
    nr: usize,
    d: usize,
    dots: &mut [f32],
    norms: Option<&mut [f32]>,
) {
    tiled_block!(tile, q, nq, rows, nr, d, dots, norms);
}

#[inline(always)]
unsafe fn hsum_i32(v: __m256i) -> i64 {
    let mut l = [0i32; 8];
    _mm256_storeu_si256(l.as_mut_ptr().cast(), v);
    l.iter().map(|&x| i64::from(x)).sum()
}

#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn int_dots(q: &[i16], codes: &[i8], nr: usize, d: usize, out: &mut [i64]) {
    let full = d - d % 16;
    let qp = q.as_ptr();
    let mut j = 0;
    // Four rows share each load of the query.
    while j + 4 <= nr {
        let mut tot = [0i64; 4];
        let mut start = 0;
        while start < full {
            let end = (start + INT_CHUNK).min(full);
            let mut acc = [_mm256_setzero_si256(); 4];
            let mut off = start;
            while off < end {
                let qv = _mm256_loadu_si256(qp.add(off).cast());
                for (b, a) in acc.iter_mut().enumerate() {
                    let c = _mm_loadu_si128(codes.as_ptr().add((j + b) * d + off).cast());
                    let c16 = _mm256_cvtepi8_epi16(c);
                    *a = _mm256_add_epi32(*a, _mm256_madd_epi16(qv, c16));
                }
                off += 16;
            }
            for b in 0..4 {
                tot[b] += hsum_i32(acc[b]);
            }
            start = end;
        }
        for (b, t) in tot.iter().enumerate() {
            let row = &codes[(j + b) * d..(j + b + 1) * d];
            let tail: i64 = (full..d).map(|t| i64::from(q[t]) * i64::from(row[t])).sum();
            out[j + b] = t + tail;
        }
        j += 4;
    }
    if j < nr {
        super::portable::int_dots(q, &codes[j * d..], nr - j, d, &mut out[j..]);
    }
}
