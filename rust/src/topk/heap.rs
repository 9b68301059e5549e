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

/// A sort key with [`better`]'s order (smaller = better), so that a selection compares integers:
/// the score's bits mapped to an unsigned order and flipped (so higher scores come first; `+ 0.0`
/// makes -0.0 tie with 0.0; NaN last), then the row.
#[inline(always)]
fn rank(h: Hit) -> (u32, usize) {
    let r = if h.0.is_nan() {
        u32::MAX
    } else {
        !ordered(h.0)
    };
    (r, h.1)
}

/// The same selection as [`TopK`] (the ranking is total, so the k best are one set), for large k
/// and streams where hits enter often: a hit at or above the floor is appended unsorted, and when
/// `2k` have gathered a linear-time selection on integer keys keeps the k best and raises the
/// floor. That costs O(1) per hit against a heap's O(log k) sifts with float comparisons — the
/// int8 scan's pool of 100 admits hundreds of hits per query before its floor settles.
pub(crate) struct Pool {
    k: usize,
    items: Vec<((u32, usize), f32)>,
    /// Scores strictly below this cannot enter: the highest k-th best score at the selections so
    /// far (NaN ones aside), -inf before the first.
    floor: f32,
}

impl Pool {
    pub(crate) fn new(k: usize) -> Self {
        Self {
            k,
            items: Vec::new(),
            floor: f32::NEG_INFINITY,
        }
    }

    /// Current floor; it only rises, so scores below a value read earlier may be skipped.
    #[inline(always)]
    pub(crate) fn floor(&self) -> f32 {
        self.floor
    }

    #[inline(always)]
    pub(crate) fn push(&mut self, hit: Hit) {
        if hit.0 < self.floor || self.k == 0 {
            return;
        }
        self.items.push((rank(hit), hit.0));
        if self.items.len() >= self.k.saturating_mul(2) {
            self.select();
        }
    }

    /// Keep the k best and raise the floor to the k-th best's score (a NaN leaves it).
    fn select(&mut self) {
        if self.items.len() <= self.k {
            return;
        }
        let (_, kth, _) = self.items.select_nth_unstable_by_key(self.k - 1, |e| e.0);
        let score = kth.1;
        self.items.truncate(self.k);
        if score > self.floor {
            self.floor = score;
        }
    }

    /// Absorb a selection over other hits (for merging per-thread results).
    pub(crate) fn absorb(&mut self, other: Pool) {
        for ((_, row), score) in other.items {
            self.push((score, row));
        }
    }

    /// The k best, best first.
    pub(crate) fn into_sorted(mut self) -> Vec<Hit> {
        self.select();
        self.items.sort_unstable_by_key(|e| e.0);
        self.items
            .into_iter()
            .map(|((_, row), s)| (s, row))
            .collect()
    }
}

/// A non-NaN score as an unsigned integer with the same order (-0.0 maps like 0.0).
#[inline(always)]
fn ordered(f: f32) -> u32 {
    let b = (f + 0.0).to_bits();
    if b >> 31 == 1 {
        !b
    } else {
        b | 0x8000_0000
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

    #[test]
    fn rank_orders_like_better() {
        let scores = [
            f32::NAN,
            f32::NEG_INFINITY,
            -1.5,
            -0.0,
            0.0,
            1e-40,
            2.0,
            f32::INFINITY,
        ];
        for (i, &a) in scores.iter().enumerate() {
            for (j, &b) in scores.iter().enumerate() {
                for (ra, rb) in [(3usize, 5usize), (5, 3), (4, 4)] {
                    let (x, y) = ((a, ra), (b, rb));
                    assert_eq!(better(x, y), rank(x) < rank(y), "{i} {j} {ra} {rb}");
                }
            }
        }
    }

    #[test]
    fn pool_selects_what_top_k_selects() {
        // Many ties, NaN and ±0, in an order that makes the floor rise several times.
        let scores: Vec<f32> = (0..500usize)
            .map(|i| match i % 11 {
                0 => f32::NAN,
                1 => -0.0,
                2 => 0.0,
                _ => ((i * 7919) % 37) as f32 - 18.0,
            })
            .collect();
        for k in [0usize, 1, 3, 10, 64, 499, 500, 600] {
            let mut t = TopK::new(k);
            let mut p = Pool::new(k);
            for (i, &s) in scores.iter().enumerate() {
                t.push((s, i));
                p.push((s, i));
            }
            let want: Vec<usize> = t.into_sorted().iter().map(|h| h.1).collect();
            let got: Vec<usize> = p.into_sorted().iter().map(|h| h.1).collect();
            assert_eq!(got, want, "k={k}");
            // Three interleaved parts, merged.
            let mut parts: Vec<Pool> = (0..3).map(|_| Pool::new(k)).collect();
            for (i, &s) in scores.iter().enumerate() {
                parts[i % 3].push((s, i));
            }
            let mut merged = Pool::new(k);
            for part in parts {
                merged.absorb(part);
            }
            let got: Vec<usize> = merged.into_sorted().iter().map(|h| h.1).collect();
            assert_eq!(got, want, "k={k}, merged");
        }
    }
}
