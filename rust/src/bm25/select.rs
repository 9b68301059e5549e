//! The best `k` scored docs plus every doc tied with the k-th, best first.

use std::cmp::Ordering;

/// Higher score first, then lower doc. Scores are finite here (checked by the caller).
#[inline]
fn rank(a: &(f64, u32), b: &(f64, u32)) -> Ordering {
    b.0.total_cmp(&a.0).then(a.1.cmp(&b.1))
}

/// The `k` best of `candidates` by (score desc, doc asc), then every further candidate whose score
/// equals the k-th best score, sorted the same way. `k == 0` gives nothing.
pub(super) fn best_with_ties(mut candidates: Vec<(f64, u32)>, k: usize) -> Vec<(f64, u32)> {
    if k == 0 {
        return Vec::new();
    }
    if candidates.len() > k {
        // O(m) partition: everything before k-1 ranks at least as high as the k-th.
        candidates.select_nth_unstable_by(k - 1, rank);
        let cut = candidates[k - 1].0;
        let mut tail: Vec<(f64, u32)> = candidates[k..]
            .iter()
            .copied()
            .filter(|c| c.0 == cut)
            .collect();
        candidates.truncate(k);
        candidates.append(&mut tail);
    }
    candidates.sort_unstable_by(rank);
    candidates
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_ties_at_the_cut() {
        let c = vec![(1.0, 4), (3.0, 0), (2.0, 1), (2.0, 3), (2.0, 2), (0.5, 5)];
        let got = best_with_ties(c.clone(), 2);
        assert_eq!(got, vec![(3.0, 0), (2.0, 1), (2.0, 2), (2.0, 3)]);
        assert_eq!(best_with_ties(c.clone(), 1), vec![(3.0, 0)]);
        assert_eq!(best_with_ties(c.clone(), 0), vec![]);
        assert_eq!(best_with_ties(c, 99).len(), 6);
    }
}
