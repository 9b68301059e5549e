//! Bounded selection of the k best (score, row) pairs.
//!
//! The ranking is total: higher score first, equal scores by lower row, and NaN scores below every
//! other score (NaN among NaN again by lower row). `-0.0 == 0.0`, so they tie.

/// A scored row.
pub(crate) type Hit = (f32, usize);

/// True when `a` ranks strictly above `b`.
#[inline(always)]
pub(crate) fn better(a: Hit, b: Hit) -> bool {
    match (a.0.is_nan(), b.0.is_nan()) {
        (false, false) => a.0 > b.0 || (a.0 == b.0 && a.1 < b.1),
        (false, true) => true,
        (true, false) => false,
        (true, true) => a.1 < b.1,
    }
}

/// A min-heap (worst hit at the root) holding at most `k` hits.
pub(crate) struct TopK {
    k: usize,
    items: Vec<Hit>,
    /// Once full: scores strictly below this cannot enter (the root's score, or -inf while the
    /// root is NaN). Lets most pushes exit after one comparison.
    floor: f32,
}

impl TopK {
    pub(crate) fn new(k: usize) -> Self {
        Self {
            k,
            items: Vec::with_capacity(k.min(1 << 16)),
            floor: f32::NEG_INFINITY,
        }
    }

    #[inline(always)]
    pub(crate) fn push(&mut self, hit: Hit) {
        if hit.0 < self.floor {
            return;
        }
        if self.items.len() < self.k {
            self.items.push(hit);
            self.sift_up(self.items.len() - 1);
        } else if self.k > 0 && better(hit, self.items[0]) {
            self.items[0] = hit;
            self.sift_down(0);
        } else {
            return;
        }
        if self.items.len() == self.k {
            let root = self.items[0].0;
            self.floor = if root.is_nan() {
                f32::NEG_INFINITY
            } else {
                root
            };
        }
    }

    fn sift_up(&mut self, mut i: usize) {
        while i > 0 {
            let p = (i - 1) / 2;
            if better(self.items[p], self.items[i]) {
                self.items.swap(p, i);
                i = p;
            } else {
                break;
            }
        }
    }

    fn sift_down(&mut self, mut i: usize) {
        let n = self.items.len();
        loop {
            let l = 2 * i + 1;
            if l >= n {
                break;
            }
            let r = l + 1;
            let worst = if r < n && better(self.items[l], self.items[r]) {
                r
            } else {
                l
            };
            if better(self.items[i], self.items[worst]) {
                self.items.swap(i, worst);
                i = worst;
            } else {
                break;
            }
        }
    }

    /// Absorb another selection (for merging per-thread results).
    pub(crate) fn extend(&mut self, other: TopK) {
        for h in other.items {
            self.push(h);
        }
    }

    /// The hits, best first.
    pub(crate) fn into_sorted(mut self) -> Vec<Hit> {
        self.items.sort_unstable_by(|&a, &b| {
            if better(a, b) {
                std::cmp::Ordering::Less
            } else if better(b, a) {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        });
        self.items
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_best_with_ties_and_nan() {
        let scores = [1.0, f32::NAN, 3.0, 3.0, -0.0, 0.0, f32::NAN, 2.0];
        let mut t = TopK::new(10);
        for (i, &s) in scores.iter().enumerate() {
            t.push((s, i));
        }
        let order: Vec<usize> = t.into_sorted().iter().map(|h| h.1).collect();
        assert_eq!(order, vec![2, 3, 7, 0, 4, 5, 1, 6]);
        let mut t = TopK::new(3);
        for (i, &s) in scores.iter().enumerate().rev() {
            t.push((s, i));
        }
        let order: Vec<usize> = t.into_sorted().iter().map(|h| h.1).collect();
        assert_eq!(order, vec![2, 3, 7]);
    }
}
