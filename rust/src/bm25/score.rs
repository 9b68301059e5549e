//! Term-at-a-time accumulation of one query's scores in a reusable thread-local scratch.
//!
//! The scratch is a dense score array with a generation stamp per doc: a doc's slot is valid only
//! when its stamp equals the current query's generation, so nothing is cleared between queries
//! (a query over 1M docs touching 100 of them costs 100 slots, not an 8 MB memset) and only the
//! touched docs are visited when selecting.

use std::cell::RefCell;

use super::select::best_with_ties;
use super::{out_of_range, Params, Postings, Queries, Ranges};
use crate::error::{KernelError, KernelResult};

#[derive(Default)]
struct Scratch {
    scores: Vec<f64>,
    stamps: Vec<u32>,
    generation: u32,
    touched: Vec<u32>,
}

impl Scratch {
    /// Start a query over `n` docs: a fresh generation, slots for every doc.
    fn begin(&mut self, n: usize) {
        if self.scores.len() < n {
            self.scores.resize(n, 0.0);
            self.stamps.resize(n, 0);
        }
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            // Wrapped after 2^32 queries: old stamps could look current, so clear them once.
            self.stamps.fill(0);
            self.generation = 1;
        }
        self.touched.clear();
    }
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// Score query `q` (its terms' posting ranges already checked) and select its hits.
pub(super) fn search_one(
    index: &Postings<'_>,
    queries: &Queries<'_>,
    q: usize,
    ranges: &Ranges,
    params: &Params<'_>,
) -> KernelResult<Vec<(f64, u32)>> {
    if params.k == 0 || ranges.is_empty() {
        return Ok(Vec::new());
    }
    SCRATCH.with(|cell| {
        // A nested borrow cannot happen (no callback runs inside), but never panic on it.
        let mut guard = cell.try_borrow_mut().map_err(|_| KernelError::Internal {
            detail: "bm25 scratch re-entered".into(),
        })?;
        let scratch = &mut *guard;
        scratch.begin(index.doc_lengths.len());
        let first = queries.offsets[q] as usize; // checked by check_queries
        for (j, &(lo, hi)) in ranges.iter().enumerate() {
            accumulate(index, queries.idf[first + j], lo, hi, params, scratch)?;
        }
        let candidates: Vec<(f64, u32)> = scratch
            .touched
            .iter()
            .map(|&d| (scratch.scores[d as usize], d))
            .collect();
        if let Some(&(s, d)) = candidates.iter().find(|(s, _)| !s.is_finite()) {
            return Err(out_of_range(
                "k1",
                format!("the score of doc {d} overflowed to {s}; use a smaller k1 or idf"),
            ));
        }
        Ok(best_with_ties(candidates, params.k))
    })
}

/// Add one term's contribution to every doc of `docs[lo..hi]` (checking each posting).
fn accumulate(
    index: &Postings<'_>,
    idf: f64,
    lo: usize,
    hi: usize,
    params: &Params<'_>,
    scratch: &mut Scratch,
) -> KernelResult<()> {
    let n = index.doc_lengths.len();
    let (k1, b, avgdl) = (params.k1, params.b, params.avgdl);
    let generation = scratch.generation;
    let mut previous: i64 = -1;
    for (&doc, &tf) in index.docs[lo..hi].iter().zip(&index.tfs[lo..hi]) {
        let d = usize::try_from(doc)
            .ok()
            .filter(|&d| d < n)
            .ok_or_else(|| {
                out_of_range(
                    "docs",
                    format!("doc {doc} is not one of the {n} docs of doc_lengths"),
                )
            })?;
        if i64::from(doc) <= previous {
            return Err(KernelError::Invalid {
                detail: format!(
                    "docs must be strictly ascending within each term, got {previous} then {doc}"
                ),
            });
        }
        previous = i64::from(doc);
        if tf == 0 {
            return Err(out_of_range(
                "tfs",
                format!("doc {doc} has term frequency 0; a posting's tf must be >= 1"),
            ));
        }
        if params.mask.is_some_and(|m| !m[d]) {
            continue;
        }
        // FTS5's exact operation order: idf * ((f * (k1 + 1)) / (f + k1 * (1 - b + b * D / avgdl))).
        let f = f64::from(tf);
        let len = f64::from(index.doc_lengths[d]);
        let term = idf * ((f * (k1 + 1.0)) / (f + k1 * ((1.0 - b) + b * len / avgdl)));
        if scratch.stamps[d] == generation {
            scratch.scores[d] += term;
        } else {
            scratch.stamps[d] = generation;
            // 0.0 + term, as FTS5 starts each row's sum at 0.0 (identical for term >= 0).
            scratch.scores[d] = 0.0 + term;
            scratch.touched.push(d as u32);
        }
    }
    Ok(())
}
