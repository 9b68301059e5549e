//! LP-bound variable fixing before the exact DP (the knapsack "core"; Martello & Toth, 1990).
//!
//! Items are ordered by value density (desc, index asc). The Dantzig bound `lp(w)` is the
//! fractional-knapsack value at capacity `w`: the whole items whose prefix cost fits, plus the
//! next item's density times the room left. `s` is the critical position (the first item of the
//! order that does not fit whole at `cap`) and `lb` the value of greedy-with-fill (the prefix
//! before `s`, then every later item that still fits, in order) — a feasible selection.
//!
//! - An item before `s` is fixed *in* when `lp(cap + c) − v + tol < lb`: every selection without
//!   it is worth less than a feasible one (the LP over all items at `cap + c` holds it whole, so
//!   subtracting it is the LP over the others at `cap`).
//! - An item after `s` is fixed *out* when `v + lp(cap − c) + tol < lb` (the LP at `cap − c`
//!   stops before `s`, so it never counts the item itself).
//!
//! Every selection within `tol` of the optimum therefore agrees with the fixes, and the exact
//! optimum over the free items at the residual capacity, plus the fixed-in items, is an optimum of
//! the whole problem. It is also the one the unreduced DP picks: that DP keeps, among optimal sets,
//! the one that leaves out the highest-index items first, and the fixed items are the same in all
//! of them. `tol = Σv · (1e-9 + 1e-15 · m)` is far above the rounding of any sum of the values
//! (≤ m · 2⁻⁵³ · Σv), so a fix is never made on a near-tie. The Python reference repeats these
//! operations one for one, so both fix the same items.

use std::cmp::Reverse;

/// Items (cost ≥ 1, value > 0, each cost ≤ `cap`) → `(fixed_in, free)`, positions ascending.
///
/// When all items fit together nothing is fixed (everything is free).
pub fn fix_variables(items: &[(usize, f64)], cap: usize) -> (Vec<usize>, Vec<usize>) {
    let m = items.len();
    let density: Vec<f64> = items.iter().map(|&(c, v)| v / c as f64).collect();
    // Density desc, index asc. Densities are ≥ +0.0, where the IEEE bits order like the number.
    let mut keyed: Vec<(Reverse<u64>, usize)> = density
        .iter()
        .enumerate()
        .map(|(j, d)| (Reverse(d.to_bits()), j))
        .collect();
    keyed.sort_unstable();
    let order: Vec<usize> = keyed.into_iter().map(|(_, j)| j).collect();
    let mut pc = Vec::with_capacity(m); // prefix costs in density order
    let mut pv = Vec::with_capacity(m); // prefix values in density order
    let (mut sc, mut sv) = (0usize, 0.0f64);
    for &j in &order {
        sc = sc.saturating_add(items[j].0);
        sv += items[j].1;
        pc.push(sc);
        pv.push(sv);
    }
    let s = pc.partition_point(|&p| p <= cap);
    if s >= m {
        return (Vec::new(), (0..m).collect());
    }
    let lp = |w: usize| -> f64 {
        let k = pc.partition_point(|&p| p <= w);
        let (whole, used) = if k > 0 {
            (pv[k - 1], pc[k - 1])
        } else {
            (0.0, 0)
        };
        let frac = if k < m {
            (w - used) as f64 * density[order[k]]
        } else {
            0.0
        };
        whole + frac
    };
    let mut lb = if s > 0 { pv[s - 1] } else { 0.0 };
    let mut room = cap - if s > 0 { pc[s - 1] } else { 0 };
    for &j in &order[s + 1..] {
        if room == 0 {
            break;
        }
        let (c, v) = items[j];
        if c <= room {
            room -= c;
            lb += v;
        }
    }
    let tol = pv[m - 1] * (1e-9 + 1e-15 * m as f64);
    let mut fixed = vec![0i8; m]; // 1 in, -1 out, 0 free
    for &j in &order[..s] {
        let (c, v) = items[j];
        if lp(cap.saturating_add(c)) - v + tol < lb {
            fixed[j] = 1;
        }
    }
    for &j in &order[s + 1..] {
        let (c, v) = items[j];
        if v + lp(cap - c) + tol < lb {
            fixed[j] = -1;
        }
    }
    let fixed_in = (0..m).filter(|&j| fixed[j] == 1).collect();
    let free = (0..m).filter(|&j| fixed[j] == 0).collect();
    (fixed_in, free)
}

#[cfg(test)]
mod tests {
    use super::super::dp::knapsack_exact;
    use super::*;

    /// The reduced solve: fixed-in items plus the DP over the free items that still fit.
    fn reduced(items: &[(usize, f64)], cap: usize) -> Vec<usize> {
        let (fixed_in, free) = fix_variables(items, cap);
        let residual = cap - fixed_in.iter().map(|&j| items[j].0).sum::<usize>();
        let sub: Vec<usize> = free
            .into_iter()
            .filter(|&j| items[j].0 <= residual)
            .collect();
        let sub_items: Vec<(usize, f64)> = sub.iter().map(|&j| items[j]).collect();
        let mut out: Vec<usize> = fixed_in
            .into_iter()
            .chain(
                knapsack_exact(&sub_items, residual)
                    .into_iter()
                    .map(|k| sub[k]),
            )
            .collect();
        out.sort_unstable();
        out
    }

    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self, n: u64) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (self.0 >> 33) % n
        }
    }

    #[test]
    fn same_set_as_the_unreduced_dp_with_integer_values() {
        // Integer-valued floats sum exactly, so the two DPs face the same ties; the reduced one
        // must still pick the very same set (not merely an equally good one).
        let mut rng = Lcg(7);
        for round in 0..300 {
            let n = 1 + rng.next(60) as usize;
            let cap = 1 + rng.next(400) as usize;
            let vmax = if round % 3 == 0 { 3 } else { 1000 }; // small range: many ties
            let items: Vec<(usize, f64)> = (0..n)
                .map(|_| {
                    let c = 1 + rng.next(cap.min(80) as u64) as usize;
                    (c, 1.0 + rng.next(vmax) as f64)
                })
                .collect();
            assert_eq!(
                reduced(&items, cap),
                knapsack_exact(&items, cap),
                "{items:?} {cap}"
            );
        }
    }

    #[test]
    fn fixes_most_items_of_a_large_instance() {
        let mut rng = Lcg(5);
        let items: Vec<(usize, f64)> = (0..1000)
            .map(|_| {
                (
                    20 + rng.next(381) as usize,
                    (1 + rng.next(10_000)) as f64 / 1000.0,
                )
            })
            .collect();
        let (fixed_in, free) = fix_variables(&items, 4000);
        assert!(!fixed_in.is_empty());
        assert!(free.len() < 150, "{} free", free.len());
        let a = reduced(&items, 4000);
        let b = knapsack_exact(&items, 4000);
        let val = |s: &[usize]| s.iter().map(|&j| items[j].1).sum::<f64>();
        assert!((val(&a) - val(&b)).abs() <= 1e-9 * val(&b));
    }

    #[test]
    fn everything_fits_or_ties_fix_nothing_wrongly() {
        assert_eq!(
            fix_variables(&[(2, 1.0), (3, 1.0)], 5),
            (vec![], vec![0, 1])
        );
        // Equal densities everywhere: all bounds tie with lb, so nothing can be fixed.
        let items = [(2, 1.0), (2, 1.0), (2, 1.0), (2, 1.0), (2, 1.0)];
        assert_eq!(fix_variables(&items, 7), (vec![], vec![0, 1, 2, 3, 4]));
        assert_eq!(reduced(&items, 7), vec![0, 1, 2]);
    }
}
