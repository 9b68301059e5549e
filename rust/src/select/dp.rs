//! Exact 0/1 knapsack by row DP over capacities, with a choice bitset for reconstruction.
//!
//! Two rows are double-buffered; row j's choice bits cover capacities w ≥ cost_j only (packed from
//! bit 0), so every 64-capacity block starts on a word boundary and the inner loop has no branches.
//! On x86-64 the row update is compiled a second time with AVX2 enabled and picked at run time.

/// Scalar update of capacities `c + lo .. len` (a partial last block, or everything).
#[inline(always)]
fn row_tail(old: &[f64], new: &mut [f64], bits: &mut [u64], c: usize, v: f64, lo: usize) {
    let m = old.len() - c;
    let mut k = lo / 64;
    let mut mask = 0u64;
    for q in lo..m {
        let t = old[q] + v;
        let take = t > old[c + q];
        new[c + q] = if take { t } else { old[c + q] };
        mask |= (take as u64) << (q % 64);
        if q % 64 == 63 {
            bits[k] = mask;
            mask = 0;
            k += 1;
        }
    }
    if !m.is_multiple_of(64) && lo < m {
        bits[k] = mask;
    }
}

/// Update one row: `new[w] = max(old[w], old[w − c] + v)` (take only when strictly better) and
/// record the take decisions for w ≥ c in `bits` (bit k of the row ↔ capacity c + k).
fn row_update_generic(old: &[f64], new: &mut [f64], bits: &mut [u64], c: usize, v: f64) {
    new[..c].copy_from_slice(&old[..c]);
    row_tail(old, new, bits, c, v, 0);
}

/// The same update with AVX2: 4 lanes, and `movemask` packs 4 decisions per compare.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn row_update_avx2(old: &[f64], new: &mut [f64], bits: &mut [u64], c: usize, v: f64) {
    use std::arch::x86_64::*;
    new[..c].copy_from_slice(&old[..c]);
    let m = old.len() - c;
    let full = m / 64;
    let vv = _mm256_set1_pd(v);
    let src = old.as_ptr();
    let dst = new.as_mut_ptr();
    for (k, word) in bits.iter_mut().enumerate().take(full) {
        let mut mask = 0u64;
        for g in 0..16 {
            let o = k * 64 + g * 4;
            // SAFETY: o + 3 < full·64 ≤ m, so src[o..o+4] and old/new[c+o..c+o+4] are in bounds
            // (c + m = len).
            unsafe {
                let s = _mm256_loadu_pd(src.add(o));
                let a = _mm256_loadu_pd(src.add(c + o));
                let t = _mm256_add_pd(s, vv);
                let gt = _mm256_cmp_pd::<_CMP_GT_OQ>(t, a);
                _mm256_storeu_pd(dst.add(c + o), _mm256_blendv_pd(a, t, gt));
                mask |= (_mm256_movemask_pd(gt) as u64) << (g * 4);
            }
        }
        *word = mask;
    }
    row_tail(old, new, bits, c, v, full * 64);
}

fn words_for(cap: usize, c: usize) -> usize {
    (cap + 1 - c).div_ceil(64)
}

/// Exact optimum over `items` (cost ≥ 1, value > 0, cost ≤ cap each) for capacity `cap`.
///
/// Returns the chosen positions into `items`, ascending. Tie-break (so the set is canonical):
/// items are processed in the given order and an item is taken only when that strictly improves
/// the row value; reconstruction walks back from capacity `cap`.
pub fn knapsack_exact(items: &[(usize, f64)], cap: usize) -> Vec<usize> {
    let mut offsets = Vec::with_capacity(items.len() + 1);
    let mut total = 0usize;
    for &(c, _) in items {
        offsets.push(total);
        total += words_for(cap, c);
    }
    let mut bits = vec![0u64; total];
    let mut old = vec![0.0f64; cap + 1];
    let mut new = vec![0.0f64; cap + 1];
    #[cfg(target_arch = "x86_64")]
    let avx2 = std::arch::is_x86_feature_detected!("avx2");
    for (j, &(c, v)) in items.iter().enumerate() {
        let row = &mut bits[offsets[j]..offsets[j] + words_for(cap, c)];
        #[cfg(target_arch = "x86_64")]
        {
            if avx2 {
                // SAFETY: AVX2 support was detected at run time just above.
                unsafe { row_update_avx2(&old, &mut new, row, c, v) };
            } else {
                row_update_generic(&old, &mut new, row, c, v);
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        row_update_generic(&old, &mut new, row, c, v);
        std::mem::swap(&mut old, &mut new);
    }
    let mut chosen = Vec::new();
    let mut w = cap;
    for (j, &(c, _)) in items.iter().enumerate().rev() {
        if w >= c {
            let k = w - c;
            if bits[offsets[j] + k / 64] >> (k % 64) & 1 == 1 {
                chosen.push(j);
                w -= c;
            }
        }
    }
    chosen.reverse();
    chosen
}

/// Minimum-cost DP over integer profits (the FPTAS core): the set of `items` (cost, profit ≥ 1)
/// with the largest total profit whose cost is ≤ `cap`. Same tie rule as [`knapsack_exact`]:
/// take only on a strictly smaller cost; walk back from the largest reachable profit.
pub fn knapsack_by_profit(items: &[(u64, usize)], cap: u64) -> Vec<usize> {
    let total_p: usize = items.iter().map(|&(_, p)| p).sum();
    let width = total_p + 1;
    let mut offsets = Vec::with_capacity(items.len());
    let mut words = 0usize;
    for &(_, p) in items {
        offsets.push(words);
        words += (width - p).div_ceil(64);
    }
    let mut bits = vec![0u64; words];
    let mut old = vec![u64::MAX; width];
    old[0] = 0;
    let mut new = old.clone();
    for (j, &(c, p)) in items.iter().enumerate() {
        new[..p].copy_from_slice(&old[..p]);
        let base = offsets[j];
        for q in p..width {
            let t = old[q - p].saturating_add(c);
            let take = t < old[q];
            new[q] = if take { t } else { old[q] };
            let k = q - p;
            bits[base + k / 64] |= (take as u64) << (k % 64);
        }
        std::mem::swap(&mut old, &mut new);
    }
    let mut q = old.iter().rposition(|&c| c <= cap).unwrap_or(0);
    let mut chosen = Vec::new();
    for (j, &(_, p)) in items.iter().enumerate().rev() {
        if q >= p {
            let k = q - p;
            if bits[offsets[j] + k / 64] >> (k % 64) & 1 == 1 {
                chosen.push(j);
                q -= p;
            }
        }
    }
    chosen.reverse();
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_small() {
        // cap 10: best is items 1+2 (cost 4+6, value 40+50 = 90) over item 0 (cost 10, value 60).
        let items = [(10, 60.0), (4, 40.0), (6, 50.0), (3, 1.0)];
        assert_eq!(knapsack_exact(&items, 10), vec![1, 2]);
        assert_eq!(
            knapsack_by_profit(&[(10, 60), (4, 40), (6, 50), (3, 1)], 10),
            vec![1, 2]
        );
    }

    #[test]
    fn exact_long_rows_cross_words() {
        let items: Vec<(usize, f64)> = (1..40).map(|c| (c * 7, (c * c) as f64)).collect();
        let chosen = knapsack_exact(&items, 300);
        let cost: usize = chosen.iter().map(|&j| items[j].0).sum();
        assert!(cost <= 300);
    }
}
