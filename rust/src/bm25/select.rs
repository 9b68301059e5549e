//! The best `k` scored docs plus every doc tied with the k-th, best first.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

/// A finite score with a total order (scores are checked finite before selection).
#[derive(Clone, Copy, PartialEq)]
struct Score(f64);

impl Eq for Score {}

impl PartialOrd for Score {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Score {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// Higher score first, then lower doc.
#[inline]
fn rank(a: &(f64, u32), b: &(f64, u32)) -> Ordering {
    b.0.total_cmp(&a.0).then(a.1.cmp(&b.1))
}

/// The k-th best of `scores` (`k ≥ 1`, `scores.len() > k`): a bounded min-heap of scores, so a
/// pass over 100k candidates costs one comparison each once the heap holds good scores,
/// instead of materialising and partitioning (score, doc) pairs.
fn kth_best(scores: impl Iterator<Item = f64>, k: usize) -> f64 {
    let mut heap: BinaryHeap<Reverse<Score>> = BinaryHeap::with_capacity(k + 1);
    for s in scores {
        if heap.len() < k {
            heap.push(Reverse(Score(s)));
        } else if let Some(mut worst) = heap.peek_mut() {
            if s > worst.0 .0 {
                *worst = Reverse(Score(s));
            }
        }
    }
    heap.peek().map_or(f64::NEG_INFINITY, |w| w.0 .0)
}

/// The `k` best candidates (docs given by `docs`, scores by `score_of`) by (score desc, doc
/// asc), then every further candidate whose score equals the k-th best score, sorted the same
/// way. `k == 0` gives nothing.
pub(super) fn best_with_ties(
    docs: &[u32],
    score_of: impl Fn(u32) -> f64,
    k: usize,
) -> Vec<(f64, u32)> {
    if k == 0 {
        return Vec::new();
    }
    let mut chosen: Vec<(f64, u32)> = if docs.len() > k {
        let cut = kth_best(docs.iter().map(|&d| score_of(d)), k);
        docs.iter()
            .map(|&d| (score_of(d), d))
            .filter(|&(s, _)| s >= cut)
            .collect()
    } else {
        docs.iter().map(|&d| (score_of(d), d)).collect()
    };
    chosen.sort_unstable_by(rank);
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pick(c: &[(f64, u32)], k: usize) -> Vec<(f64, u32)> {
        let docs: Vec<u32> = c.iter().map(|x| x.1).collect();
        let score_of = |d: u32| c.iter().find(|x| x.1 == d).map_or(f64::NAN, |x| x.0);
        best_with_ties(&docs, score_of, k)
    }

    #[test]
    fn keeps_ties_at_the_cut() {
        let c = [(1.0, 4), (3.0, 0), (2.0, 1), (2.0, 3), (2.0, 2), (0.5, 5)];
        assert_eq!(pick(&c, 2), vec![(3.0, 0), (2.0, 1), (2.0, 2), (2.0, 3)]);
        assert_eq!(pick(&c, 1), vec![(3.0, 0)]);
        assert_eq!(pick(&c, 0), vec![]);
        assert_eq!(pick(&c, 6).len(), 6);
        assert_eq!(pick(&c, 99).len(), 6);
        assert_eq!(pick(&c, 5).last(), Some(&(1.0, 4)));
    }
}
