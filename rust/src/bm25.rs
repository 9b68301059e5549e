//! BM25 top-k over an in-memory CSR postings index, bit-compatible with SQLite FTS5's `bm25()`.
//!
//! Contract (the Python reference `remem.reference.bm25` is the full specification):
//! - the index is CSR: term `t` owns `docs[offsets[t]..offsets[t+1]]` (doc indices, strictly
//!   ascending) with their term frequencies `tfs` (≥ 1); `doc_lengths[d]` is doc `d`'s tokens;
//! - a query is a list of term ids with one idf each (computed by the caller from *global*
//!   statistics, so one index may be split into segments sharing them). Duplicated ids count once
//!   per occurrence, as FTS5 counts a repeated phrase;
//! - `score(d) = Σ_t idf_t · (tf·(k1+1)) / (tf + k1·((1−b) + b·len_d/avgdl))` over the query's
//!   terms present in `d`, accumulated in f64 in query-term order with exactly FTS5's operation
//!   order (`fts5Bm25Function` in ext/fts5/fts5_aux.c), so scores are bit-identical to SQLite's
//!   where neither side fuses multiply-adds;
//! - only docs holding at least one query term (and allowed by `mask`) are candidates; the result
//!   is the best `k` by score descending, ties by lower doc index, **plus every further doc whose
//!   score equals the k-th best** (the caller applies its own tie-break, as SQL's `cut` does).
//!
//! Validation is O(1) on the index's shape and O(what the query reads) on its content: every
//! offset pair and posting a query touches is checked (range, ascending docs, tf ≥ 1), so a
//! malformed index is a typed error, never a panic, without an O(postings) scan per call.
//!
//! Parallelism: a batch is split over queries (each has its own thread-local accumulator).

mod score;
mod select;

use rayon::prelude::*;

use crate::error::{KernelError, KernelResult};

/// A batch whose queries read fewer postings than this runs on the calling thread. Measured
/// (release, 2-core EPYC shared with other jobs, `benches/bench_bm25.py` corpus, threshold
/// forced to 1): a posting costs ~4-5 ns; 2 threads lost to 1 (0.45-0.98x) for batches of up to
/// 1.2M postings (the pool hand-off costs ~15-40 µs, and a busy second core gives little) and
/// won 1.36x at 8M postings (64 queries over 100k docs). So only batches of about 5 ms of work
/// or more are spread.
const PAR_POSTINGS: usize = 1 << 20;

/// FTS5's constants (`fts5Bm25Function`).
pub const FTS5_K1: f64 = 1.2;
pub const FTS5_B: f64 = 0.75;

/// The postings index, borrowed.
#[derive(Debug, Clone, Copy)]
pub struct Postings<'a> {
    /// `n_terms + 1` offsets into `docs`/`tfs`.
    pub offsets: &'a [i64],
    pub docs: &'a [i32],
    pub tfs: &'a [u32],
    /// Tokens per doc; its length is the number of docs.
    pub doc_lengths: &'a [u32],
}

/// Queries, CSR too: query `q` is `terms[query_offsets[q]..query_offsets[q+1]]` with `idf`.
#[derive(Debug, Clone, Copy)]
pub struct Queries<'a> {
    pub offsets: &'a [i64],
    pub terms: &'a [i64],
    pub idf: &'a [f64],
}

/// Scoring parameters and the selection size.
#[derive(Debug, Clone, Copy)]
pub struct Params<'a> {
    pub k1: f64,
    pub b: f64,
    pub avgdl: f64,
    pub k: usize,
    /// Eligible docs (`true` = may be returned), one per doc.
    pub mask: Option<&'a [bool]>,
}

/// Hits of every query: query `q` owns `docs[offsets[q]..offsets[q+1]]`, best first.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Hits {
    pub offsets: Vec<i64>,
    pub docs: Vec<i64>,
    pub scores: Vec<f64>,
}

/// The posting range of each term of one query, checked.
type Ranges = Vec<(usize, usize)>;

fn out_of_range(name: &'static str, detail: String) -> KernelError {
    KernelError::OutOfRange { name, detail }
}

fn check_index(index: &Postings<'_>, params: &Params<'_>) -> KernelResult<()> {
    let n_post = index.docs.len();
    if index.tfs.len() != n_post {
        return Err(KernelError::Length {
            name: "tfs",
            expected: n_post,
            actual: index.tfs.len(),
        });
    }
    match (index.offsets.first(), index.offsets.last()) {
        (Some(&0), Some(&last)) if usize::try_from(last).ok() == Some(n_post) => {}
        (None, _) => return Err(KernelError::Invalid {
            detail:
                "offsets is empty; an index of n terms needs n + 1 offsets (pass [0] for no terms)"
                    .into(),
        }),
        (Some(&first), Some(&last)) => {
            return Err(out_of_range(
                "offsets",
                format!(
                    "it must start at 0 and end at len(docs) = {n_post}, got {first} .. {last}"
                ),
            ))
        }
        (Some(_), None) => unreachable!("a non-empty slice has a last element"),
    }
    if let Some(mask) = params.mask {
        if mask.len() != index.doc_lengths.len() {
            return Err(KernelError::Length {
                name: "mask",
                expected: index.doc_lengths.len(),
                actual: mask.len(),
            });
        }
    }
    let finite_ge = |name: &'static str, v: f64, lo: f64| {
        if v.is_finite() && v >= lo {
            Ok(())
        } else {
            Err(out_of_range(
                name,
                format!("{v} must be a finite number >= {lo}"),
            ))
        }
    };
    finite_ge("k1", params.k1, 0.0)?;
    finite_ge("b", params.b, 0.0)?;
    if params.b > 1.0 {
        return Err(out_of_range(
            "b",
            format!("{} must be between 0 and 1", params.b),
        ));
    }
    if !(params.avgdl.is_finite() && params.avgdl > 0.0) {
        return Err(out_of_range(
            "avgdl",
            format!(
                "{} must be a finite number > 0 (total tokens / docs; pass 1.0 for an empty index)",
                params.avgdl
            ),
        ));
    }
    Ok(())
}

/// Check the queries and the offsets they read; return each query's posting ranges.
fn check_queries(index: &Postings<'_>, queries: &Queries<'_>) -> KernelResult<Vec<Ranges>> {
    if queries.idf.len() != queries.terms.len() {
        return Err(KernelError::Length {
            name: "idf",
            expected: queries.terms.len(),
            actual: queries.idf.len(),
        });
    }
    if let Some((i, &v)) = queries.idf.iter().enumerate().find(|(_, v)| !v.is_finite()) {
        return Err(KernelError::NonFinite {
            name: "idf",
            index: i,
            value: v,
        });
    }
    if let Some(v) = queries.idf.iter().find(|&&v| v < 0.0) {
        return Err(out_of_range(
            "idf",
            format!("{v} is negative; FTS5 clamps idf to 1e-6, pass idf >= 0"),
        ));
    }
    let n_terms = index.offsets.len() - 1;
    let n_post = index.docs.len();
    let bounds = |a: i64, b: i64| -> Option<(usize, usize)> {
        let (a, b) = (usize::try_from(a).ok()?, usize::try_from(b).ok()?);
        (a <= b && b <= n_post).then_some((a, b))
    };
    let qo = queries.offsets;
    match (qo.first(), qo.last()) {
        (Some(&0), Some(&last)) if usize::try_from(last).ok() == Some(queries.terms.len()) => {}
        _ => {
            return Err(out_of_range(
                "query_offsets",
                format!(
                    "it must hold n_queries + 1 offsets from 0 to len(term_ids) = {}",
                    queries.terms.len()
                ),
            ))
        }
    }
    let n_query_terms = queries.terms.len();
    qo.windows(2)
        .map(|w| {
            let range = usize::try_from(w[0])
                .ok()
                .zip(usize::try_from(w[1]).ok())
                .filter(|&(lo, hi)| lo <= hi && hi <= n_query_terms);
            let (lo, hi) = range.ok_or_else(|| {
                out_of_range(
                    "query_offsets",
                    format!("{} .. {} is not a non-decreasing range", w[0], w[1]),
                )
            })?;
            queries.terms[lo..hi]
                .iter()
                .map(|&t| {
                    let ti = usize::try_from(t)
                        .ok()
                        .filter(|&ti| ti < n_terms)
                        .ok_or_else(|| {
                            out_of_range(
                                "term_ids",
                                format!("{t} is not a term of this index (0 .. {n_terms})"),
                            )
                        })?;
                    let (a, b) = (index.offsets[ti], index.offsets[ti + 1]);
                    bounds(a, b).ok_or_else(|| {
                        out_of_range(
                            "offsets",
                            format!(
                                "term {ti} spans {a} .. {b}, outside the {n_post} postings or decreasing"
                            ),
                        )
                    })
                })
                .collect()
        })
        .collect()
}

/// The best `params.k` docs (plus ties at the k-th score) of each query; see the module docs.
///
/// Errors: `Length` for mismatched `tfs`/`idf`/`mask`, `NonFinite` for a NaN/inf idf,
/// `OutOfRange` for bad offsets, term ids, docs, tfs, k1, b, avgdl or an overflowing score,
/// `Invalid` for unsorted docs within a term.
pub fn top_k(index: Postings<'_>, queries: Queries<'_>, params: &Params<'_>) -> KernelResult<Hits> {
    check_index(&index, params)?;
    let ranges = check_queries(&index, &queries)?;
    let work: usize = ranges
        .iter()
        .flat_map(|r| r.iter().map(|(a, b)| b - a))
        .sum();
    let one = |(q, r): (usize, &Ranges)| score::search_one(&index, &queries, q, r, params);
    // One query is never split (its accumulator is one array): no pool hand-off for it.
    let work = if ranges.len() > 1 { work } else { 0 };
    let per_query: Vec<KernelResult<Vec<(f64, u32)>>> = crate::parallel::run(
        work,
        PAR_POSTINGS,
        || ranges.par_iter().enumerate().map(one).collect(),
        || ranges.iter().enumerate().map(one).collect(),
    );
    let mut hits = Hits {
        offsets: Vec::with_capacity(ranges.len() + 1),
        ..Hits::default()
    };
    hits.offsets.push(0);
    for result in per_query {
        for (s, d) in result? {
            hits.docs.push(i64::from(d));
            hits.scores.push(s);
        }
        hits.offsets.push(hits.docs.len() as i64);
    }
    Ok(hits)
}

#[cfg(test)]
mod tests;
