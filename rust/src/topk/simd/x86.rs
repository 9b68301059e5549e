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

/// How many tiles ahead the float dots prefetch the rows.
const PREFETCH_TILES: usize = 8;

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
        // The rows ahead, at the pace this tile reads its own (MR · 32 bytes a step).
        let ahead = rp.wrapping_add(PREFETCH_TILES * MR * d + off * MR);
        _mm_prefetch::<_MM_HINT_T0>(ahead.cast());
        _mm_prefetch::<_MM_HINT_T0>(ahead.wrapping_add(16).cast());
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

/// Queries per register tile of the integer dots (× [`INT_TILE_ROWS`]: 8 accumulators, 2 widened
/// code registers, a query and a product register).
const INT_TILE_QUERIES: usize = 4;
/// Rows per register tile of the integer dots.
const INT_TILE_ROWS: usize = 2;
/// How many tiles ahead the integer dots prefetch the codes.
const INT_PREFETCH_TILES: usize = 8;

/// The exact sums of four i32 accumulators. The horizontal adds cannot overflow: every partial
/// sum adds a subset of one chunk's products, whose absolute sum [`INT_CHUNK`] keeps below 2³¹.
#[inline(always)]
unsafe fn hsum4_i32(a: __m256i, b: __m256i, c: __m256i, d: __m256i) -> [i32; 4] {
    let ab = _mm256_hadd_epi32(a, b);
    let cd = _mm256_hadd_epi32(c, d);
    let abcd = _mm256_hadd_epi32(ab, cd);
    let s = _mm_add_epi32(
        _mm256_castsi256_si128(abcd),
        _mm256_extracti128_si256::<1>(abcd),
    );
    let mut l = [0i32; 4];
    _mm_storeu_si128(l.as_mut_ptr().cast(), s);
    l
}

/// Exact integer dots of queries `qi..qi+MQ` with rows `rj..rj+MR` into `out[q * nr + r]`. Each
/// 16-column step widens the MR rows' codes once and loads each query once, for MQ·MR `madd`s.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn int_tile<const MQ: usize, const MR: usize>(
    q: &[i16],
    qi: usize,
    codes: &[i8],
    rj: usize,
    d: usize,
    out: &mut [i64],
    nr: usize,
) {
    let full = d - d % 16;
    let qp = q.as_ptr().add(qi * d);
    let cp = codes.as_ptr().add(rj * d);
    let mut tot = [[0i64; MR]; MQ];
    let mut start = 0;
    while start < full {
        let end = (start + INT_CHUNK).min(full);
        let mut acc = [[_mm256_setzero_si256(); MR]; MQ];
        let mut off = start;
        while off < end {
            // The rows ahead, at the pace this tile reads its own (MR · 16 bytes a step).
            _mm_prefetch::<_MM_HINT_T0>(
                cp.wrapping_add(INT_PREFETCH_TILES * MR * d + off * MR)
                    .cast(),
            );
            let mut cv = [_mm256_setzero_si256(); MR];
            for (b, v) in cv.iter_mut().enumerate() {
                *v = _mm256_cvtepi8_epi16(_mm_loadu_si128(cp.add(b * d + off).cast()));
            }
            for (a, accq) in acc.iter_mut().enumerate() {
                let qv = _mm256_loadu_si256(qp.add(a * d + off).cast());
                for b in 0..MR {
                    accq[b] = _mm256_add_epi32(accq[b], _mm256_madd_epi16(qv, cv[b]));
                }
            }
            off += 16;
        }
        // Reduce four accumulators at a time (zero vectors pad the last group).
        let zero = _mm256_setzero_si256();
        let at = |t: usize| {
            if t < MQ * MR {
                acc[t / MR][t % MR]
            } else {
                zero
            }
        };
        let mut t = 0;
        while t < MQ * MR {
            let s = hsum4_i32(at(t), at(t + 1), at(t + 2), at(t + 3));
            for (u, &v) in s.iter().enumerate() {
                if t + u < MQ * MR {
                    tot[(t + u) / MR][(t + u) % MR] += i64::from(v);
                }
            }
            t += 4;
        }
        start = end;
    }
    for (a, tq) in tot.iter().enumerate() {
        let qrow = &q[(qi + a) * d..(qi + a + 1) * d];
        for (b, &t) in tq.iter().enumerate() {
            let row = &codes[(rj + b) * d..(rj + b + 1) * d];
            let tail: i64 = (full..d)
                .map(|c| i64::from(qrow[c]) * i64::from(row[c]))
                .sum();
            out[(qi + a) * nr + rj + b] = t + tail;
        }
    }
}

/// Run `int_tile` over all `nq × nr` pairs: MQ×MR tiles, then narrower ones at the edges. One
/// query alone takes rows four at a time (the scan is memory-bound there).
#[inline(always)]
unsafe fn int_tiles<const MQ: usize, const MR: usize>(
    q: &[i16],
    nq: usize,
    codes: &[i8],
    nr: usize,
    d: usize,
    out: &mut [i64],
) {
    let mut i = 0;
    while i + MQ <= nq {
        let mut j = 0;
        while j + MR <= nr {
            int_tile::<MQ, MR>(q, i, codes, j, d, out, nr);
            j += MR;
        }
        while j < nr {
            int_tile::<MQ, 1>(q, i, codes, j, d, out, nr);
            j += 1;
        }
        i += MQ;
    }
    while i < nq {
        let mut j = 0;
        while j + 4 <= nr {
            int_tile::<1, 4>(q, i, codes, j, d, out, nr);
            j += 4;
        }
        while j < nr {
            int_tile::<1, 1>(q, i, codes, j, d, out, nr);
            j += 1;
        }
        i += 1;
    }
}

/// The portable body, compiled for AVX2 so that it vectorises 8 wide.
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn approx_scores(s: ApproxScores<'_>, out: &mut [f32]) {
    super::portable::approx_scores(s, out);
}

#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn int_dots(
    q: &[i16],
    nq: usize,
    codes: &[i8],
    nr: usize,
    d: usize,
    out: &mut [i64],
) {
    int_tiles::<INT_TILE_QUERIES, INT_TILE_ROWS>(q, nq, codes, nr, d, out);
}
