//! Vector top-k: exact float32 scan (cosine or dot) and an int8 scan with float32 rescoring.
//!
//! Contract (the Python reference `remem.reference.topk` is the full specification):
//! - results are sorted by score descending, ties by lower row index; rows whose score is NaN (a
//!   NaN or infinity in the matrix) rank below every other score;
//! - each query gets `k' = min(k, eligible rows)` hits; `k = 0` gives empty results;
//! - cosine is `dot / (|q|·|r|)`, and 0 when either vector is zero; row norms are computed in the
//!   same pass over memory as the dots (no precomputed norms needed, no extra pass);
//! - scores accumulate in float32 with eight lanes per dot (see `simd`), so they differ from a
//!   float64 computation by a few ulps of `|q|·|r|`·√d at most in practice.
//!
//! Parallelism: rows are split into chunks, each chunk keeps its own k-best per query, and the
//! chunks are merged. That holds for a batch too, so the matrix streams from memory once per call
//! however many queries there are (splitting the queries instead would stream it once per thread).

mod heap;
mod quantized;
mod simd;

use rayon::prelude::*;

use crate::error::{KernelError, KernelResult};
use heap::TopK;

pub use quantized::{quantize, top_k_quantized, Quantized, QuantizedView};

/// Scans with fewer multiply-adds than this (queries × rows × dim) stay on the calling thread.
/// Measured (release, 2-core EPYC, d=384, one query): 2 threads win from about 2k rows (~0.8M
/// multiply-adds, where a scan takes ~100 µs); below that the pool hand-off costs more than it saves.
const PAR_WORK: usize = 1 << 20;
/// Rows per parallel chunk, at least, so chunks are not dominated by merge overhead.
const MIN_CHUNK_ROWS: usize = 1024;

/// Similarity between a query and a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    /// `dot / (|q|·|r|)`, 0 when either vector is zero.
    Cosine,
    /// The plain dot product.
    Dot,
}

impl Metric {
    /// Parse `"cosine"` or `"dot"`.
    pub fn parse(name: &str) -> KernelResult<Self> {
        match name {
            "cosine" => Ok(Self::Cosine),
            "dot" => Ok(Self::Dot),
            other => Err(KernelError::Invalid {
                detail: format!("unknown metric {other:?}; use \"cosine\" or \"dot\""),
            }),
        }
    }
}

/// A row-major float32 matrix: `rows × dim` values.
#[derive(Debug, Clone, Copy)]
pub struct Matrix<'a> {
    pub data: &'a [f32],
    pub rows: usize,
    pub dim: usize,
}

/// What to search for, beyond the queries.
#[derive(Debug, Clone, Copy)]
pub struct Options<'a> {
    pub k: usize,
    pub metric: Metric,
    /// Eligible rows (`true` = may be returned); length must equal the matrix's rows.
    pub mask: Option<&'a [bool]>,
}

/// Hits of every query, row-major: query `i` owns `[i*k .. (i+1)*k]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Hits {
    pub indices: Vec<i64>,
    pub scores: Vec<f32>,
    /// Hits per query, `min(k, eligible rows)`.
    pub k: usize,
}

/// The cosine of a dot product given both norms; 0 when either norm is zero.
#[inline(always)]
pub(crate) fn cosine(dot: f32, qn: f32, rn: f32) -> f32 {
    if qn == 0.0 || rn == 0.0 {
        0.0
    } else {
        dot / (qn * rn)
    }
}

/// Check shapes, mask and query finiteness; return the number of eligible rows.
pub(crate) fn validate(
    queries: &[f32],
    nq: usize,
    m: &Matrix<'_>,
    opts: &Options<'_>,
) -> KernelResult<usize> {
    let expect = m.rows.checked_mul(m.dim);
    if expect != Some(m.data.len()) {
        return Err(KernelError::Length {
            name: "matrix",
            expected: expect.unwrap_or(usize::MAX),
            actual: m.data.len(),
        });
    }
    if nq.checked_mul(m.dim) != Some(queries.len()) {
        return Err(KernelError::Dimension {
            name: "queries",
            expected: m.dim,
            actual: queries.len().checked_div(nq).unwrap_or(0),
        });
    }
    if let Some((index, &value)) = queries.iter().enumerate().find(|(_, v)| !v.is_finite()) {
        return Err(KernelError::NonFinite {
            name: "queries",
            index,
            value: f64::from(value),
        });
    }
    match opts.mask {
        Some(mask) if mask.len() != m.rows => Err(KernelError::Length {
            name: "mask",
            expected: m.rows,
            actual: mask.len(),
        }),
        Some(mask) => Ok(mask.iter().filter(|&&b| b).count()),
        None => Ok(m.rows),
    }
}

/// Rows per cache block: the block (about 128 KiB) stays in L2 while every query scans it.
fn block_rows(dim: usize) -> usize {
    let rows = (128 * 1024) / (4 * dim.max(1));
    (rows / 12 * 12).clamp(12, 1020)
}

/// Run `chunk(start, end)` over row ranges (in parallel above `threshold` work) and merge the
/// per-query selections.
pub(crate) fn over_rows<F>(n: usize, work: usize, threshold: usize, chunk: F) -> Vec<TopK>
where
    F: Fn(usize, usize) -> Vec<TopK> + Sync,
{
    crate::parallel::run(
        work,
        threshold,
        || {
            let threads = crate::parallel::configured_threads();
            let chunks = (threads * 4).min(n.div_ceil(MIN_CHUNK_ROWS)).max(1);
            let step = n.div_ceil(chunks).max(1);
            let parts: Vec<Vec<TopK>> = (0..chunks)
                .into_par_iter()
                .map(|c| chunk((c * step).min(n), ((c + 1) * step).min(n)))
                .collect();
            let mut it = parts.into_iter();
            let mut merged = it.next().unwrap_or_default();
            for part in it {
                for (m, p) in merged.iter_mut().zip(part) {
                    m.extend(p);
                }
            }
            merged
        },
        || chunk(0, n),
    )
}

/// Flatten per-query selections into [`Hits`] of exactly `k` per query.
pub(crate) fn collect(heaps: Vec<TopK>, k: usize) -> Hits {
    let mut indices = Vec::with_capacity(heaps.len() * k);
    let mut scores = Vec::with_capacity(heaps.len() * k);
    for h in heaps {
        for (s, i) in h.into_sorted() {
            indices.push(i as i64);
            scores.push(s);
        }
    }
    Hits { indices, scores, k }
}

/// The `k` best rows of `matrix` for each of the `nq` queries (row-major, `nq × dim`).
///
/// Errors: `Dimension` when the queries' length is not `nq × dim`, `Length` for a mask of the
/// wrong length, `NonFinite` for a NaN or infinity in the queries.
pub fn top_k(
    queries: &[f32],
    nq: usize,
    matrix: Matrix<'_>,
    opts: &Options<'_>,
) -> KernelResult<Hits> {
    let eligible = validate(queries, nq, &matrix, opts)?;
    let k = opts.k.min(eligible);
    if k == 0 || nq == 0 {
        return Ok(Hits {
            indices: Vec::new(),
            scores: Vec::new(),
            k,
        });
    }
    let d = matrix.dim;
    let qnorms: Vec<f32> = (0..nq)
        .map(|i| simd::norm(&queries[i * d..(i + 1) * d]))
        .collect();
    let chunk =
        |start: usize, end: usize| exact_chunk(queries, nq, &qnorms, &matrix, opts, k, start, end);
    let work = nq.saturating_mul(matrix.rows).saturating_mul(d.max(1));
    let heaps = over_rows(matrix.rows, work, PAR_WORK, chunk);
    Ok(collect(heaps, k))
}

#[allow(clippy::too_many_arguments)]
fn exact_chunk(
    queries: &[f32],
    nq: usize,
    qnorms: &[f32],
    m: &Matrix<'_>,
    opts: &Options<'_>,
    k: usize,
    start: usize,
    end: usize,
) -> Vec<TopK> {
    let d = m.dim;
    let mut heaps: Vec<TopK> = (0..nq).map(|_| TopK::new(k)).collect();
    let rb = block_rows(d);
    let mut dots = vec![0.0f32; nq * rb];
    let mut norms = vec![0.0f32; rb];
    let cos = opts.metric == Metric::Cosine;
    let mut b0 = start;
    while b0 < end {
        let nr = rb.min(end - b0);
        let block_mask = opts.mask.map(|mk| &mk[b0..b0 + nr]);
        if block_mask.is_some_and(|mk| !mk.contains(&true)) {
            b0 += nr;
            continue;
        }
        let rows = &m.data[b0 * d..(b0 + nr) * d];
        let dots = &mut dots[..nq * nr];
        simd::dot_block(
            queries,
            nq,
            rows,
            nr,
            d,
            dots,
            cos.then_some(&mut norms[..nr]),
        );
        for (i, heap) in heaps.iter_mut().enumerate() {
            let row = &mut dots[i * nr..(i + 1) * nr];
            if cos {
                let qn = qnorms[i];
                for (s, &rn) in row.iter_mut().zip(&norms[..nr]) {
                    *s = cosine(*s, qn, rn);
                }
            }
            match block_mask {
                Some(mk) => {
                    for (j, (&s, &ok)) in row.iter().zip(mk).enumerate() {
                        if ok {
                            heap.push((s, b0 + j));
                        }
                    }
                }
                None => {
                    for (j, &s) in row.iter().enumerate() {
                        heap.push((s, b0 + j));
                    }
                }
            }
        }
        b0 += nr;
    }
    heaps
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(q: &[f32], nq: usize, m: &[f32], n: usize, d: usize, k: usize, metric: Metric) -> Hits {
        let matrix = Matrix {
            data: m,
            rows: n,
            dim: d,
        };
        top_k(
            q,
            nq,
            matrix,
            &Options {
                k,
                metric,
                mask: None,
            },
        )
        .unwrap()
    }

    #[test]
    fn sorted_with_ties_and_nan_last() {
        let m = [1.0, 0.0, f32::NAN, 0.0, 1.0, 0.0, 2.0, 0.0, 0.0, 0.0];
        let h = run(&[1.0, 0.0], 1, &m, 5, 2, 10, Metric::Cosine);
        assert_eq!(h.indices, vec![0, 2, 3, 4, 1]);
        assert_eq!(&h.scores[..4], &[1.0, 1.0, 1.0, 0.0]);
        assert!(h.scores[4].is_nan());
        let h = run(&[1.0, 0.0], 1, &m, 5, 2, 2, Metric::Dot);
        assert_eq!(h.indices, vec![3, 0]);
    }

    #[test]
    fn batch_equals_singles_and_parallel_equals_serial() {
        let (n, d, nq) = (5000, 19, 7);
        let m: Vec<f32> = (0..n * d)
            .map(|i| ((i * 7919) % 1009) as f32 / 1009.0 - 0.5)
            .collect();
        let q: Vec<f32> = (0..nq * d)
            .map(|i| ((i * 104_729) % 997) as f32 / 997.0 - 0.5)
            .collect();
        let batch = run(&q, nq, &m, n, d, 13, Metric::Cosine);
        for i in 0..nq {
            let one = run(&q[i * d..(i + 1) * d], 1, &m, n, d, 13, Metric::Cosine);
            assert_eq!(one.indices, batch.indices[i * 13..(i + 1) * 13]);
            assert_eq!(one.scores, batch.scores[i * 13..(i + 1) * 13]);
        }
    }

    #[test]
    fn rejects_bad_input() {
        let m = [1.0f32; 6];
        let matrix = Matrix {
            data: &m,
            rows: 3,
            dim: 2,
        };
        let o = Options {
            k: 1,
            metric: Metric::Dot,
            mask: None,
        };
        assert!(matches!(
            top_k(&[1.0; 3], 1, matrix, &o),
            Err(KernelError::Dimension { .. })
        ));
        assert!(matches!(
            top_k(&[f32::NAN, 1.0], 1, matrix, &o),
            Err(KernelError::NonFinite { .. })
        ));
        let mask = [true];
        let o = Options {
            mask: Some(&mask),
            ..o
        };
        assert!(matches!(
            top_k(&[1.0; 2], 1, matrix, &o),
            Err(KernelError::Length { .. })
        ));
        assert!(Metric::parse("l2").is_err());
    }
}
