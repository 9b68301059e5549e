//! int8 scalar quantization: scan a quarter of the bytes for a candidate pool, rescore it exactly.
//!
//! Design: symmetric per-row scale. Row `i` is stored as `codes[i][j] = round(x[i][j] / s_i)` with
//! `s_i = max_j |x[i][j]| / 127` (rounding half away from zero; an all-zero row has `s_i = 0`), plus
//! its exact float32 norm. A query is quantized to int16 with its own scale (so it adds no visible
//! error), the scan computes exact integer dots, and the approximate score is
//! `s_q · s_i · Σ q16·code` (divided by `|q|·|r_i|` for cosine). The best `candidates` rows by that
//! score are then rescored from the float32 matrix with the exact kernel, so returned scores are
//! bit-identical to [`super::top_k`]'s and only the membership can differ (recall < 1).
//!
//! A batch is scanned together (`scan`): the codes stream from memory once per call, chunks of
//! rows run in parallel, and register tiles of 4 queries × 2 rows reuse each load, so 64 queries
//! cost 15–20× one query instead of 64× (~0.75× the exact float32 batch kernel's time at
//! 100k × 384; one query stays memory-bound, ~4× faster than the exact scan). Integer dots are
//! exact, so a batch picks the same candidates as its queries one at a time. Rescoring is one query
//! per task, in parallel for a batch.

use rayon::prelude::*;

use super::heap::{Hit, TopK};
use super::{collect, cosine, simd, validate, Hits, Matrix, Metric, Options};
use crate::error::{KernelError, KernelResult};
use scan::{Scan, ScanQueries};

mod scan;

/// Scans with fewer integer multiply-adds (queries × rows × dim) than this stay on the calling
/// thread. Measured (release, 2-core EPYC, d=384, one query, where it is one per code byte): the
/// int8 scan runs ~4× faster per row than the f32 one, so it pays for the pool hand-off from about
/// 8k rows (~3M bytes, ~150 µs single-threaded). A batch does more work per byte and so splits
/// sooner.
const QUANT_PAR_WORK: usize = 3 << 20;
/// Rescoring (queries × candidates × dim multiply-adds) below this stays on the calling thread.
/// Measured (release, 2-core EPYC, 100k × 384, pool 100, best of 40): one query rescores in ~40 µs
/// alone and ~100 µs through the pool; two threads break even at 2 queries and win from 3 (107 vs
/// 132 µs); 64 queries take 1.5 ms instead of 2.9.
const RESCORE_PAR_WORK: usize = 100_000;

/// An int8-quantized copy of a matrix: codes (`rows × dim`), one scale and one exact norm per row.
#[derive(Debug, Clone, PartialEq)]
pub struct Quantized {
    pub codes: Vec<i8>,
    pub scales: Vec<f32>,
    pub norms: Vec<f32>,
}

/// A borrowed [`Quantized`].
#[derive(Debug, Clone, Copy)]
pub struct QuantizedView<'a> {
    pub codes: &'a [i8],
    pub scales: &'a [f32],
    pub norms: &'a [f32],
}

/// Quantize every row of `matrix`. Errors with `NonFinite` on a NaN or infinity (a quantized index
/// has no way to rank them), `Length` when `data` is not `rows × dim` long.
pub fn quantize(matrix: Matrix<'_>) -> KernelResult<Quantized> {
    let (n, d) = (matrix.rows, matrix.dim);
    if n.checked_mul(d) != Some(matrix.data.len()) {
        return Err(KernelError::Length {
            name: "matrix",
            expected: n.saturating_mul(d),
            actual: matrix.data.len(),
        });
    }
    if let Some((index, &value)) = matrix.data.iter().enumerate().find(|(_, v)| !v.is_finite()) {
        return Err(KernelError::NonFinite {
            name: "matrix",
            index,
            value: f64::from(value),
        });
    }
    let mut codes = vec![0i8; n * d];
    let mut scales = vec![0.0f32; n];
    let mut norms = vec![0.0f32; n];
    if d > 0 {
        for (i, (row, out)) in matrix
            .data
            .chunks_exact(d)
            .zip(codes.chunks_exact_mut(d))
            .enumerate()
        {
            let amax = row.iter().fold(0.0f32, |a, &x| a.max(x.abs()));
            let scale = amax / 127.0;
            scales[i] = scale;
            norms[i] = simd::norm(row);
            if scale > 0.0 {
                for (c, &x) in out.iter_mut().zip(row) {
                    *c = (x / scale).round().clamp(-127.0, 127.0) as i8;
                }
            }
        }
    }
    Ok(Quantized {
        codes,
        scales,
        norms,
    })
}

/// Default candidate pool: `max(10·k, 100)`.
pub fn default_candidates(k: usize) -> usize {
    k.saturating_mul(10).max(100)
}

/// Like [`super::top_k`], but picks `candidates` rows per query with the int8 scan (default
/// [`default_candidates`]) and rescores only those in float32. `candidates < k` is an error.
pub fn top_k_quantized(
    queries: &[f32],
    nq: usize,
    quant: QuantizedView<'_>,
    matrix: Matrix<'_>,
    opts: &Options<'_>,
    candidates: Option<usize>,
) -> KernelResult<Hits> {
    let eligible = validate(queries, nq, &matrix, opts)?;
    let (n, d) = (matrix.rows, matrix.dim);
    if quant.codes.len() != matrix.data.len() {
        return Err(KernelError::Length {
            name: "codes",
            expected: matrix.data.len(),
            actual: quant.codes.len(),
        });
    }
    for (name, v) in [("scales", quant.scales), ("norms", quant.norms)] {
        if v.len() != n {
            return Err(KernelError::Length {
                name,
                expected: n,
                actual: v.len(),
            });
        }
    }
    let pool = match candidates {
        Some(c) if c < opts.k => {
            return Err(KernelError::OutOfRange {
                name: "candidates",
                detail: format!(
                    "{c} is smaller than k = {}; pass candidates >= k or leave it unset",
                    opts.k
                ),
            })
        }
        Some(c) => c,
        None => default_candidates(opts.k),
    };
    let k = opts.k.min(eligible);
    if k == 0 || nq == 0 {
        return Ok(Hits {
            indices: Vec::new(),
            scores: Vec::new(),
            k,
        });
    }
    let pool = pool.min(eligible);
    let cos = opts.metric == Metric::Cosine;
    let scan_queries = ScanQueries::new(queries, nq, d);
    let scan = Scan {
        quant,
        d,
        cos,
        mask: opts.mask,
        pool,
    };
    let found = scan::candidates(&scan_queries, scan, n, QUANT_PAR_WORK);
    let rescore = |(i, cand): (usize, &Vec<Hit>)| {
        let q = &queries[i * d..(i + 1) * d];
        let mut best = TopK::new(k);
        let (mut dot, mut rn) = ([0.0f32], [0.0f32]);
        for &(_, row) in cand {
            let r = &matrix.data[row * d..(row + 1) * d];
            simd::dot_block(q, 1, r, 1, d, &mut dot, Some(&mut rn));
            let score = if cos {
                cosine(dot[0], scan_queries.norms[i], rn[0])
            } else {
                dot[0]
            };
            best.push((score, row));
        }
        best
    };
    let work = nq.saturating_mul(pool).saturating_mul(d.max(1));
    let heaps = crate::parallel::run(
        work,
        RESCORE_PAR_WORK,
        || found.par_iter().enumerate().map(rescore).collect(),
        || found.iter().enumerate().map(rescore).collect(),
    );
    Ok(collect(heaps, k))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_pool_equals_exact() {
        let (n, d) = (300, 10);
        let m: Vec<f32> = (0..n * d)
            .map(|i| ((i * 7919) % 1009) as f32 / 1009.0 - 0.5)
            .collect();
        let q: Vec<f32> = (0..2 * d).map(|i| ((i * 31) % 17) as f32 - 8.0).collect();
        let matrix = Matrix {
            data: &m,
            rows: n,
            dim: d,
        };
        let qz = quantize(matrix).unwrap();
        let view = QuantizedView {
            codes: &qz.codes,
            scales: &qz.scales,
            norms: &qz.norms,
        };
        for metric in [Metric::Cosine, Metric::Dot] {
            let o = Options {
                k: 7,
                metric,
                mask: None,
            };
            let exact = super::super::top_k(&q, 2, matrix, &o).unwrap();
            let approx = top_k_quantized(&q, 2, view, matrix, &o, Some(n)).unwrap();
            assert_eq!(exact, approx);
        }
    }

    /// Uniform values in [-1, 1) from a fixed xorshift stream.
    fn noise(len: usize, mut state: u64) -> Vec<f32> {
        (0..len)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state >> 40) as f32 / (1u64 << 23) as f32 - 1.0
            })
            .collect()
    }

    #[test]
    fn batch_equals_one_query_at_a_time() {
        // n is no multiple of a tile or block, d no multiple of 16, 9 queries leave a partial
        // query tile. The first batch scans on the rayon pool (its single queries do not), the
        // last one rescores there with the default pool of 100.
        for (n, d) in [(9001usize, 45usize), (1237, 19), (300, 400)] {
            let nq = 9;
            let mut m = noise(n * d, 0x9E37_79B9_7F4A_7C15 ^ n as u64);
            m[3 * d..4 * d].fill(0.0);
            let q = noise(nq * d, 0xD1B5_4A32_D192_ED03 ^ d as u64);
            let mask: Vec<bool> = noise(n, 7).iter().map(|&v| v < 0.4).collect();
            let matrix = Matrix {
                data: &m,
                rows: n,
                dim: d,
            };
            let qz = quantize(matrix).unwrap();
            let view = QuantizedView {
                codes: &qz.codes,
                scales: &qz.scales,
                norms: &qz.norms,
            };
            for metric in [Metric::Cosine, Metric::Dot] {
                for mask in [None, Some(&mask[..])] {
                    let o = Options { k: 8, metric, mask };
                    for pool in [Some(20), None] {
                        let batch = top_k_quantized(&q, nq, view, matrix, &o, pool).unwrap();
                        assert_eq!(batch.k, 8);
                        for i in 0..nq {
                            let qi = &q[i * d..(i + 1) * d];
                            let one = top_k_quantized(qi, 1, view, matrix, &o, pool).unwrap();
                            assert_eq!(one.indices, batch.indices[i * 8..(i + 1) * 8]);
                            assert_eq!(one.scores, batch.scores[i * 8..(i + 1) * 8]);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn quantize_rejects_nan() {
        let m = [1.0, f32::NAN];
        let r = quantize(Matrix {
            data: &m,
            rows: 1,
            dim: 2,
        });
        assert!(matches!(r, Err(KernelError::NonFinite { index: 1, .. })));
    }
}
