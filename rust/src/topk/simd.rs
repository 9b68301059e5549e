//! Dot-product kernels: a register-tiled float32 block kernel and an int8 × int16 one.
//!
//! Every float dot product has one canonical summation order, whichever tile computes it: eight
//! lanes each accumulate `q[8c+l] * r[8c+l]` over chunks `c` in order (the last partial chunk is
//! zero-padded), then the lanes are added as `((l0+l4)+(l2+l6)) + ((l1+l5)+(l3+l7))`. So a single
//! query, a batch, and the rescoring step of the int8 scan all produce bit-identical scores. Row
//! norms accumulate `r*r` the same way, in the same pass as the dot.
//!
//! Integer dots (the int8 scan) are exact, so any tiling gives the same results: int16 queries ×
//! int8 codes widened to int16, `madd` into i32 lanes for up to [`INT_CHUNK`] columns, then i64.
//! On AVX2 a batch runs in tiles of 4 queries × 2 rows: per 16 columns, 2 widened code loads and 4
//! query loads feed 8 `madd`s. The `madd` + `add` pair is the bound: the tile runs at ~85% of that
//! pair's rate in a register-only loop, ~1.4× the float32 kernel's multiply-adds per second; 4×3
//! needs 17 registers and spills, and 3×3, 6×2, 2×4 and 8×1 measured no faster. One query takes
//! rows four at a time (memory-bound there). Every tile, float or integer, prefetches the rows
//! eight tiles ahead at the pace it reads its own: without it one query's int8 scan waited on
//! its loads, at about half the rate the codes stream from memory. The scan's approximate scores are plain float
//! multiplies and divides, vectorised ([`approx_scores`]).
//!
//! Dispatch: AVX2+FMA on x86_64 when the CPU has it (checked once), else portable code that the
//! compiler vectorises (separate multiply and add, so the two paths differ in the last bits; a
//! process only ever uses one). The integer dots go one step wider where AVX-512 VNNI is present
//! (`vpdpwssd` fuses the `madd` + `add` pair; [`vnni`]); being exact, every body of them gives the
//! same results.

/// Queries per register tile (× [`TILE_ROWS`] rows: 12 accumulators + 3 row registers).
pub(crate) const TILE_QUERIES: usize = 4;
/// Rows per register tile in the batch kernel.
const TILE_ROWS: usize = 3;
/// Rows per tile when only one query is left (4 dot + 4 norm accumulators hide FMA latency).
const SOLO_ROWS: usize = 4;
/// Integer dots accumulate in i32 for at most this many columns, then in i64: the sum of this many
/// products `|q16·code| ≤ 32767·128` stays below 2³¹ (2 147 418 112), so neither a lane nor the
/// horizontal sum of all lanes of one chunk can overflow, even for a code of -128.
pub(crate) const INT_CHUNK: usize = 512;

/// AVX2 and FMA both present, checked once per process. x86_64 only: elsewhere the portable
/// kernels are the only path.
#[cfg(target_arch = "x86_64")]
fn use_avx2() -> bool {
    static AVX2: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *AVX2.get_or_init(|| is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma"))
}

/// AVX-512 F, BW and VNNI all present (the integer dots' widest body), checked once per process.
#[cfg(target_arch = "x86_64")]
fn use_vnni() -> bool {
    static VNNI: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *VNNI.get_or_init(|| {
        is_x86_feature_detected!("avx512f")
            && is_x86_feature_detected!("avx512bw")
            && is_x86_feature_detected!("avx512vnni")
    })
}

/// Dot products of `nq` queries with `nr` rows (both row-major with `d` columns) into
/// `dots[i * nr + j]`; when `norms` is given, also the rows' Euclidean norms.
pub(crate) fn dot_block(
    queries: &[f32],
    nq: usize,
    rows: &[f32],
    nr: usize,
    d: usize,
    dots: &mut [f32],
    norms: Option<&mut [f32]>,
) {
    assert!(queries.len() >= nq * d && rows.len() >= nr * d && dots.len() >= nq * nr);
    if let Some(n) = norms.as_deref() {
        // Norms come out of the first query's pass, so they need at least one query.
        assert!(n.len() >= nr && nq >= 1);
    }
    #[cfg(target_arch = "x86_64")]
    if use_avx2() {
        // SAFETY: the CPU supports avx2 and fma (checked above); slice bounds asserted above.
        unsafe { x86::dot_block(queries, nq, rows, nr, d, dots, norms) };
        return;
    }
    portable::dot_block(queries, nq, rows, nr, d, dots, norms);
}

/// Euclidean norm of one vector, with the canonical summation order.
pub(crate) fn norm(v: &[f32]) -> f32 {
    let mut dot = [0.0f32];
    let mut n = [0.0f32];
    dot_block(v, 1, v, 1, v.len(), &mut dot, Some(&mut n));
    n[0]
}

/// Exact integer dot products of `nq` int16 queries with `nr` int8 rows (both row-major with `d`
/// columns) into `out[i * nr + j]`.
pub(crate) fn int_dots(q: &[i16], nq: usize, codes: &[i8], nr: usize, d: usize, out: &mut [i64]) {
    assert!(q.len() >= nq * d && codes.len() >= nr * d && out.len() >= nq * nr);
    #[cfg(target_arch = "x86_64")]
    if use_vnni() {
        // SAFETY: avx512f, avx512bw and avx512vnni checked; bounds asserted above.
        unsafe { vnni::int_dots(q, nq, codes, nr, d, out) };
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if use_avx2() {
        // SAFETY: avx2 checked; bounds asserted above.
        unsafe { x86::int_dots(q, nq, codes, nr, d, out) };
        return;
    }
    portable::int_dots(q, nq, codes, nr, d, out);
}

/// The int8 scan's approximate scores of one query against `out.len()` rows:
/// `(idot as f32) * (qscale * scales[j])`, divided by `qn · norms[j]` for cosine (0 when either norm
/// is 0). Plain IEEE multiplies and divides, so the vector code gives the scalar code's bits.
pub(crate) fn approx_scores(s: ApproxScores<'_>, out: &mut [f32]) {
    assert!(s.idots.len() >= out.len() && s.scales.len() >= out.len());
    assert!(s.norms.len() >= out.len());
    #[cfg(target_arch = "x86_64")]
    if use_avx2() {
        // SAFETY: avx2 checked; bounds asserted above.
        unsafe { x86::approx_scores(s, out) };
        return;
    }
    portable::approx_scores(s, out);
}

/// The inputs of [`approx_scores`] for one query and a block of rows.
#[derive(Clone, Copy)]
pub(crate) struct ApproxScores<'a> {
    pub idots: &'a [i64],
    /// Every dot fits in i32 (true when `d <= INT_CHUNK`), so it converts through i32, which
    /// vectorises, to the same float.
    pub fits_i32: bool,
    pub qscale: f32,
    pub qn: f32,
    pub scales: &'a [f32],
    pub norms: &'a [f32],
    pub cos: bool,
}

#[inline(always)]
fn hsum_lanes(l: [f32; 8]) -> f32 {
    ((l[0] + l[4]) + (l[2] + l[6])) + ((l[1] + l[5]) + (l[3] + l[7]))
}

/// Drive a tile kernel `$tile::<MQ, MR, NORM>` over all queries × rows. The norms come from a
/// pass of the first query alone (8 accumulators + 4 rows fit the 16 registers; folding them into
/// the 4×3 tile would spill), the other queries go through 4×3 tiles.
macro_rules! tiled_block {
    ($tile:ident, $q:ident, $nq:ident, $rows:ident, $nr:ident, $d:ident, $dots:ident, $norms:ident) => {{
        let mut none: [f32; 0] = [];
        let mut i = 0;
        if let Some(norms) = $norms {
            let mut j = 0;
            while j + SOLO_ROWS <= $nr {
                $tile::<1, SOLO_ROWS, true>(
                    $q,
                    0,
                    $rows,
                    j,
                    $d,
                    $dots,
                    $nr,
                    &mut norms[j..j + SOLO_ROWS],
                );
                j += SOLO_ROWS;
            }
            while j < $nr {
                $tile::<1, 1, true>($q, 0, $rows, j, $d, $dots, $nr, &mut norms[j..j + 1]);
                j += 1;
            }
            i = 1;
        }
        while i + TILE_QUERIES <= $nq {
            let mut j = 0;
            while j + TILE_ROWS <= $nr {
                $tile::<TILE_QUERIES, TILE_ROWS, false>($q, i, $rows, j, $d, $dots, $nr, &mut none);
                j += TILE_ROWS;
            }
            while j < $nr {
                $tile::<TILE_QUERIES, 1, false>($q, i, $rows, j, $d, $dots, $nr, &mut none);
                j += 1;
            }
            i += TILE_QUERIES;
        }
        while i < $nq {
            let mut j = 0;
            while j + SOLO_ROWS <= $nr {
                $tile::<1, SOLO_ROWS, false>($q, i, $rows, j, $d, $dots, $nr, &mut none);
                j += SOLO_ROWS;
            }
            while j < $nr {
                $tile::<1, 1, false>($q, i, $rows, j, $d, $dots, $nr, &mut none);
                j += 1;
            }
            i += 1;
        }
    }};
}

mod portable {
    use super::*;

    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn tile<const MQ: usize, const MR: usize, const NORM: bool>(
        q: &[f32],
        qi: usize,
        rows: &[f32],
        rj: usize,
        d: usize,
        dots: &mut [f32],
        nr: usize,
        norms: &mut [f32],
    ) {
        let mut acc = [[[0.0f32; 8]; MR]; MQ];
        let mut nacc = [[0.0f32; 8]; MR];
        let mut qb = [[0.0f32; 8]; MQ];
        let mut rb = [[0.0f32; 8]; MR];
        let mut off = 0;
        while off < d {
            let w = (d - off).min(8);
            for (a, buf) in qb.iter_mut().enumerate() {
                let s = &q[(qi + a) * d + off..(qi + a) * d + off + w];
                buf[..w].copy_from_slice(s);
                buf[w..].fill(0.0);
            }
            for (b, buf) in rb.iter_mut().enumerate() {
                let s = &rows[(rj + b) * d + off..(rj + b) * d + off + w];
                buf[..w].copy_from_slice(s);
                buf[w..].fill(0.0);
            }
            for a in 0..MQ {
                for b in 0..MR {
                    for l in 0..8 {
                        acc[a][b][l] += qb[a][l] * rb[b][l];
                    }
                }
            }
            if NORM {
                for b in 0..MR {
                    for l in 0..8 {
                        nacc[b][l] += rb[b][l] * rb[b][l];
                    }
                }
            }
            off += 8;
        }
        for a in 0..MQ {
            for b in 0..MR {
                dots[(qi + a) * nr + rj + b] = hsum_lanes(acc[a][b]);
            }
        }
        if NORM {
            for b in 0..MR {
                norms[b] = hsum_lanes(nacc[b]).sqrt();
            }
        }
    }

    pub(super) fn dot_block(
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
    pub(super) fn approx_scores(s: ApproxScores<'_>, out: &mut [f32]) {
        let n = out.len();
        if s.fits_i32 {
            for (o, &v) in out.iter_mut().zip(&s.idots[..n]) {
                *o = (v as i32) as f32;
            }
        } else {
            for (o, &v) in out.iter_mut().zip(&s.idots[..n]) {
                *o = v as f32;
            }
        }
        for (o, &scale) in out.iter_mut().zip(&s.scales[..n]) {
            *o *= s.qscale * scale;
        }
        if s.cos {
            for (o, &rn) in out.iter_mut().zip(&s.norms[..n]) {
                *o = crate::topk::cosine(*o, s.qn, rn);
            }
        }
    }

    pub(super) fn int_dots(
        q: &[i16],
        nq: usize,
        codes: &[i8],
        nr: usize,
        d: usize,
        out: &mut [i64],
    ) {
        // Rows outer: each row's codes stay in cache while every query meets them.
        for (j, row) in codes.chunks_exact(d.max(1)).take(nr).enumerate() {
            for (i, qrow) in q.chunks_exact(d.max(1)).take(nq).enumerate() {
                let mut total = 0i64;
                for (qc, rc) in qrow[..d].chunks(INT_CHUNK).zip(row[..d].chunks(INT_CHUNK)) {
                    let s: i32 = qc
                        .iter()
                        .zip(rc)
                        .map(|(&a, &b)| i32::from(a) * i32::from(b))
                        .sum();
                    total += i64::from(s);
                }
                out[i * nr + j] = total;
            }
        }
        if d == 0 {
            out[..nq * nr].fill(0);
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod vnni;
#[cfg(target_arch = "x86_64")]
mod x86;

#[cfg(test)]
mod tests;
