//! The int8 scan for a whole batch of queries at once: per query, the `pool` best rows by
//! approximate score.
//!
//! Rows are taken in blocks of about 24 KiB of codes; [`simd::int_dots`] computes every query's
//! exact integer dots with the block (register tiles of 4 queries × 2 rows, so the codes stream
//! from memory once per call however many queries there are), and each query then scores the block
//! and keeps its best `pool` rows. Integer dots are exact and the scores are the same float
//! operations in the same order, so a batch selects exactly what one query at a time selects.
//!
//! Parallelism: row chunks as in [`crate::topk::over_rows`], but each worker thread keeps one
//! [`Pool`] per query for all the chunks it runs, merged at the end. A pool of 100 admits hundreds
//! of rows before its floor settles; paying that once per thread rather than once per chunk is
//! what makes a 64-query batch over 10k rows scale to two threads.

use std::sync::{Mutex, PoisonError};

use rayon::prelude::*;

use crate::topk::heap::{Hit, Pool};
use crate::topk::{simd, QuantizedView, MIN_CHUNK_ROWS};

/// Code bytes per block of the scan (see [`block_rows`]).
const BLOCK_BYTES: usize = 24 * 1024;
/// Rows per block at most, so the integer dots of a batch stay small for short rows.
const MAX_BLOCK_ROWS: usize = 256;

/// The query as int16 codes and their scale (`q ≈ scale · q16`).
fn quantize_query(q: &[f32]) -> (Vec<i16>, f32) {
    let amax = q.iter().fold(0.0f32, |a, &x| a.max(x.abs()));
    if amax == 0.0 {
        return (vec![0; q.len()], 0.0);
    }
    let scale = amax / 32767.0;
    let codes = q
        .iter()
        .map(|&x| (x / scale).round().clamp(-32767.0, 32767.0) as i16)
        .collect();
    (codes, scale)
}

/// The queries as the scan sees them: int16 codes (`count × dim`), their scales and exact norms.
pub(super) struct ScanQueries {
    codes: Vec<i16>,
    scales: Vec<f32>,
    pub(super) norms: Vec<f32>,
    count: usize,
}

impl ScanQueries {
    /// Quantize `nq` queries of `d` columns (row-major in `queries`).
    pub(super) fn new(queries: &[f32], nq: usize, d: usize) -> Self {
        let mut codes = Vec::with_capacity(nq * d);
        let mut scales = Vec::with_capacity(nq);
        let mut norms = Vec::with_capacity(nq);
        for q in (0..nq).map(|i| &queries[i * d..(i + 1) * d]) {
            let (q16, scale) = quantize_query(q);
            codes.extend_from_slice(&q16);
            scales.push(scale);
            norms.push(simd::norm(q));
        }
        Self {
            codes,
            scales,
            norms,
            count: nq,
        }
    }
}

/// Rows per block: the block's codes (about 24 KiB) stay in L1 while every query meets them.
fn block_rows(d: usize) -> usize {
    (BLOCK_BYTES / d.max(1)).clamp(4, MAX_BLOCK_ROWS)
}

/// What to scan for, besides the queries.
#[derive(Clone, Copy)]
pub(super) struct Scan<'a> {
    pub quant: QuantizedView<'a>,
    pub d: usize,
    pub cos: bool,
    pub mask: Option<&'a [bool]>,
    /// Candidates to keep per query.
    pub pool: usize,
}

/// Per query, the `pool` best of the `n` rows by approximate score, best first. Runs on the
/// rayon pool from `threshold` multiply-adds (queries × rows × dim) of work.
pub(super) fn candidates(
    qs: &ScanQueries,
    scan: Scan<'_>,
    n: usize,
    threshold: usize,
) -> Vec<Vec<Hit>> {
    let fresh = || {
        (0..qs.count)
            .map(|_| Pool::new(scan.pool))
            .collect::<Vec<_>>()
    };
    let work = qs.count.saturating_mul(n).saturating_mul(scan.d.max(1));
    let pools = crate::parallel::run(
        work,
        threshold,
        || {
            let slots: Vec<Mutex<Vec<Pool>>> = (0..rayon::current_num_threads())
                .map(|_| Mutex::new(fresh()))
                .collect();
            let chunks = (slots.len() * 4).min(n.div_ceil(MIN_CHUNK_ROWS)).max(1);
            let step = n.div_ceil(chunks).max(1);
            (0..chunks).into_par_iter().for_each(|c| {
                // A chunk runs start to end on one thread, which nothing else then uses, so the
                // lock is never contended.
                let slot = rayon::current_thread_index().unwrap_or(0) % slots.len();
                let mut pools = slots[slot].lock().unwrap_or_else(PoisonError::into_inner);
                scan_rows(
                    &mut pools,
                    qs,
                    scan,
                    (c * step).min(n),
                    ((c + 1) * step).min(n),
                );
            });
            let mut parts = slots
                .into_iter()
                .map(|m| m.into_inner().unwrap_or_else(PoisonError::into_inner));
            let mut merged = parts.next().unwrap_or_default();
            for part in parts {
                for (m, p) in merged.iter_mut().zip(part) {
                    m.absorb(p);
                }
            }
            merged
        },
        || {
            let mut pools = fresh();
            scan_rows(&mut pools, qs, scan, 0, n);
            pools
        },
    );
    pools.into_iter().map(Pool::into_sorted).collect()
}

/// Add rows `[start, end)` to every query's pool.
fn scan_rows(pools: &mut [Pool], qs: &ScanQueries, scan: Scan<'_>, start: usize, end: usize) {
    let (nq, d) = (qs.count, scan.d);
    let rb = block_rows(d);
    let mut idots = vec![0i64; nq * rb];
    let mut scores = vec![0.0f32; rb];
    let fits_i32 = d <= simd::INT_CHUNK;
    let mut b0 = start;
    while b0 < end {
        let nr = rb.min(end - b0);
        let block_mask = scan.mask.map(|m| &m[b0..b0 + nr]);
        if block_mask.is_some_and(|m| !m.contains(&true)) {
            b0 += nr;
            continue;
        }
        let idots = &mut idots[..nq * nr];
        let codes = &scan.quant.codes[b0 * d..(b0 + nr) * d];
        simd::int_dots(&qs.codes, nq, codes, nr, d, idots);
        for (i, best) in pools.iter_mut().enumerate() {
            let scores = &mut scores[..nr];
            let s = simd::ApproxScores {
                idots: &idots[i * nr..(i + 1) * nr],
                fits_i32,
                qscale: qs.scales[i],
                qn: qs.norms[i],
                scales: &scan.quant.scales[b0..b0 + nr],
                norms: &scan.quant.norms[b0..b0 + nr],
                cos: scan.cos,
            };
            simd::approx_scores(s, scores);
            push_block(best, scores, block_mask, b0);
        }
        b0 += nr;
    }
}

/// Push the scores of rows `b0..` (where the mask allows). Each run of eight is compared with the
/// pool's floor at once and only the rows at or above it are pushed: once the pool has filled,
/// that is a few rows in a thousand.
#[inline(always)]
fn push_block(best: &mut Pool, scores: &[f32], mask: Option<&[bool]>, b0: usize) {
    for (c, run) in scores.chunks(8).enumerate() {
        let floor = best.floor();
        // NaN passes too; `push` ranks it itself.
        let mut pass = run.iter().enumerate().fold(0u32, |m, (t, &s)| {
            m | (u32::from((s >= floor) | s.is_nan()) << t)
        });
        while pass != 0 {
            let j = c * 8 + pass.trailing_zeros() as usize;
            pass &= pass - 1;
            if mask.is_none_or(|m| m[j]) {
                best.push((scores[j], b0 + j));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topk::{cosine, TopK};

    /// Rows and score bits, best first, per query.
    type Picks = Vec<Vec<(u32, usize)>>;

    fn picks(found: Vec<Vec<Hit>>) -> Picks {
        let bits = |h: &Vec<Hit>| h.iter().map(|&(s, r)| (s.to_bits(), r)).collect();
        found.iter().map(bits).collect()
    }

    /// The scan as one query at a time over every row, with a plain heap: the selection the
    /// batch scan must reproduce exactly.
    fn plain(qs: &ScanQueries, scan: Scan<'_>, mask: &[bool]) -> Picks {
        let (d, quant) = (scan.d, scan.quant);
        let found = (0..qs.count)
            .map(|i| {
                let q = &qs.codes[i * d..(i + 1) * d];
                let mut heap = TopK::new(scan.pool);
                for (row, _) in mask.iter().enumerate().filter(|(_, &ok)| ok) {
                    let c = &quant.codes[row * d..(row + 1) * d];
                    let idot: i64 = q
                        .iter()
                        .zip(c)
                        .map(|(&a, &b)| i64::from(a) * i64::from(b))
                        .sum();
                    let approx = (idot as f32) * (qs.scales[i] * quant.scales[row]);
                    let score = if scan.cos {
                        cosine(approx, qs.norms[i], quant.norms[row])
                    } else {
                        approx
                    };
                    heap.push((score, row));
                }
                heap.into_sorted()
            })
            .collect();
        picks(found)
    }

    #[test]
    fn batch_scan_selects_what_a_plain_scan_selects() {
        let (n, d, nq) = (3001usize, 45usize, 6usize);
        // Small integers with a short period: only 13 distinct rows, so many exact ties.
        let m: Vec<f32> = (0..n * d).map(|i| ((i * 7919 % 13) as f32) - 6.0).collect();
        let q: Vec<f32> = (0..nq * d)
            .map(|i| ((i * 104_729 % 997) as f32) / 997.0 - 0.5)
            .collect();
        let qz = crate::topk::quantize(crate::topk::Matrix {
            data: &m,
            rows: n,
            dim: d,
        })
        .unwrap();
        let quant = QuantizedView {
            codes: &qz.codes,
            scales: &qz.scales,
            norms: &qz.norms,
        };
        let mask: Vec<bool> = (0..n).map(|i| i % 7 != 3).collect();
        let qs = ScanQueries::new(&q, nq, d);
        for cos in [true, false] {
            let scan = Scan {
                quant,
                d,
                cos,
                mask: Some(&mask),
                pool: 30,
            };
            let want = plain(&qs, scan, &mask);
            // Serial, then on the rayon pool (threshold 0).
            assert_eq!(picks(candidates(&qs, scan, n, usize::MAX)), want);
            assert_eq!(picks(candidates(&qs, scan, n, 0)), want);
            // Uneven chunks in turn into the same pools.
            let mut pools: Vec<Pool> = (0..nq).map(|_| Pool::new(30)).collect();
            for (start, end) in [(0, 1000), (1000, 1001), (1001, 2999), (2999, n)] {
                scan_rows(&mut pools, &qs, scan, start, end);
            }
            assert_eq!(
                picks(pools.into_iter().map(Pool::into_sorted).collect()),
                want
            );
        }
    }
}
