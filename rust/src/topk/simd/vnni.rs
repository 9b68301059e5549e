//! The AVX-512 VNNI body of the exact integer dots (`int_dots`), chosen at run time by
//! `use_vnni` ahead of the AVX2 one.
//!
//! Same arithmetic as the AVX2 body, wider and fused: per 32 columns a row's int8 codes are widened
//! to int16 once (`vpmovsxbw`), and `vpdpwssd` multiplies them with the query's int16 codes and
//! adds the pair sums into the i32 lanes in one instruction — the AVX2 body's `madd` + `add`
//! pair, which bounds it. The lanes accumulate at most [`INT_CHUNK`] columns before they are
//! summed into i64, so nothing can overflow (the bound of the AVX2 body holds lane by lane), and
//! the results are the exact integer dots, equal to the portable and AVX2 bodies' bit for bit.
//!
//! Tiles: one query takes rows four at a time; a batch runs 4 queries × 4 rows (16 accumulators,
//! 4 widened rows and a query register: 21 of the 32 registers).

use super::INT_CHUNK;
use std::arch::x86_64::*;

/// Columns per step: one zmm of int16.
const STEP: usize = 32;
/// Queries per register tile of a batch.
const TILE_QUERIES: usize = 4;
/// Rows per register tile (a batch's and a single query's).
const TILE_ROWS: usize = 4;
/// How many tiles ahead the codes are prefetched.
const PREFETCH_TILES: usize = 8;

/// Exact integer dots of queries `qi..qi+MQ` with rows `rj..rj+MR` into `out[q * nr + r]`.
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
    let full = d - d % STEP;
    let qp = q.as_ptr().add(qi * d);
    let cp = codes.as_ptr().add(rj * d);
    let mut tot = [[0i64; MR]; MQ];
    let mut start = 0;
    while start < full {
        // INT_CHUNK is a multiple of STEP, so chunks end on a step.
        let end = (start + INT_CHUNK).min(full);
        let mut acc = [[_mm512_setzero_si512(); MR]; MQ];
        let mut off = start;
        while off < end {
            // The rows ahead, at the pace this tile reads its own (MR · STEP bytes a step).
            let ahead = cp.wrapping_add(PREFETCH_TILES * MR * d + off * MR);
            _mm_prefetch::<_MM_HINT_T0>(ahead.cast());
            _mm_prefetch::<_MM_HINT_T0>(ahead.wrapping_add(64).cast());
            let mut cv = [_mm512_setzero_si512(); MR];
            for (b, v) in cv.iter_mut().enumerate() {
                *v = _mm512_cvtepi8_epi16(_mm256_loadu_si256(cp.add(b * d + off).cast()));
            }
            for (a, accq) in acc.iter_mut().enumerate() {
                let qv = _mm512_loadu_si512(qp.add(a * d + off).cast());
                for b in 0..MR {
                    accq[b] = _mm512_dpwssd_epi32(accq[b], qv, cv[b]);
                }
            }
            off += STEP;
        }
        for (tq, aq) in tot.iter_mut().zip(&acc) {
            for (t, &v) in tq.iter_mut().zip(aq) {
                *t += i64::from(_mm512_reduce_add_epi32(v));
            }
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

/// Exact integer dots of `nq` int16 queries with `nr` int8 rows into `out[i * nr + j]`.
///
/// # Safety
/// The CPU must support avx512f, avx512bw and avx512vnni; `q` must hold `nq · d` values, `codes`
/// `nr · d` and `out` `nq · nr` (the dispatcher asserts both).
#[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
pub(super) unsafe fn int_dots(
    q: &[i16],
    nq: usize,
    codes: &[i8],
    nr: usize,
    d: usize,
    out: &mut [i64],
) {
    let mut i = 0;
    while i + TILE_QUERIES <= nq {
        let mut j = 0;
        while j + TILE_ROWS <= nr {
            int_tile::<TILE_QUERIES, TILE_ROWS>(q, i, codes, j, d, out, nr);
            j += TILE_ROWS;
        }
        while j < nr {
            int_tile::<TILE_QUERIES, 1>(q, i, codes, j, d, out, nr);
            j += 1;
        }
        i += TILE_QUERIES;
    }
    while i < nq {
        let mut j = 0;
        while j + TILE_ROWS <= nr {
            int_tile::<1, TILE_ROWS>(q, i, codes, j, d, out, nr);
            j += TILE_ROWS;
        }
        while j < nr {
            int_tile::<1, 1>(q, i, codes, j, d, out, nr);
            j += 1;
        }
        i += 1;
    }
}
