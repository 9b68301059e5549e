//! Budgeted selection: choose items (token cost, value) within a token budget.
//!
//! The specification, step by step (`remem.reference.selection` mirrors it line by line, so the
//! chosen index sets are identical, not merely equally good):
//! 1. costs ≥ 0 (integers), values finite, budget ≥ 0, lengths equal.
//! 2. Must-keep items are always chosen; if their total cost exceeds the budget → `Infeasible`.
//!    `cap` = budget − must-keep cost.
//! 3. Candidates: not must-keep, value > 0, cost ≤ cap (index order). Their value sum must be finite.
//! 4. If all candidates fit together, all are chosen (exact, for either strategy).
//! 5. `Greedy`: candidates by (value/cost desc — cost 0 is +inf —, value desc, index asc); each is
//!    taken if it still fits. No approximation bound is claimed (guarantee 0).
//! 6. `Optimal`: zero-cost candidates are taken; the rest go to the exact DP ([`dp`]) when
//!    n × (cap + 1) ≤ `cell_limit`, after LP-bound variable fixing ([`reduce`]) shrinks it to the
//!    undecided items at the residual capacity (same set as the unreduced DP). Above it, the best (by total value, earlier wins ties) of
//!    an FPTAS solution, the greedy solution and the best single item is returned, with the proven
//!    ratio `max(½, 1 − n·K / LB)` where K is the profit-scaling step and LB the best value found.

mod dp;
mod reduce;

use std::cmp::Reverse;

use crate::error::{KernelError, KernelResult};

/// Default exact-DP size limit in cells (n × (cap+1)): 2^27 cells is a 16 MiB choice bitset and
/// roughly 20–40 ms of DP on one core.
pub const DEFAULT_CELL_LIMIT: u64 = 1 << 27;

/// Which algorithm to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    Greedy,
    Optimal,
}

impl Strategy {
    /// Parse "greedy" or "optimal".
    pub fn parse(name: &str) -> KernelResult<Self> {
        match name {
            "greedy" => Ok(Self::Greedy),
            "optimal" => Ok(Self::Optimal),
            other => Err(KernelError::Invalid {
                detail: format!("unknown strategy {other:?}; use \"optimal\" or \"greedy\""),
            }),
        }
    }
}

/// Which method produced a selection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// Provably optimal (DP or a shortcut).
    Exact,
    /// The greedy strategy as asked for; no bound claimed.
    Greedy,
    /// Above the cell limit: value ≥ guarantee × optimum.
    Approximate,
}

impl Method {
    pub fn name(self) -> &'static str {
        match self {
            Self::Exact => "exact",
            Self::Greedy => "greedy",
            Self::Approximate => "approximate",
        }
    }
}

/// Chosen indices (ascending) plus how they were found.
#[derive(Debug, Clone, PartialEq)]
pub struct Selection {
    pub indices: Vec<i64>,
    pub method: Method,
    /// Proven lower bound on value / optimum (1.0 exact, 0.0 for greedy, ≥ 0.5 approximate).
    pub guarantee: f64,
}

fn total_value(values: &[f64], idx: &[usize]) -> f64 {
    let mut sorted = idx.to_vec();
    sorted.sort_unstable();
    let mut total = 0.0;
    for i in sorted {
        total += values[i];
    }
    total
}

fn finish(mut idx: Vec<usize>, method: Method, guarantee: f64) -> Selection {
    idx.sort_unstable();
    Selection {
        indices: idx.into_iter().map(|i| i as i64).collect(),
        method,
        guarantee,
    }
}

/// Greedy by density over `cands`; returns chosen indices (unsorted).
fn greedy(costs: &[u64], values: &[f64], cands: &[usize], cap: u64) -> Vec<usize> {
    let density = |i: usize| {
        if costs[i] == 0 {
            f64::INFINITY
        } else {
            values[i] / costs[i] as f64
        }
    };
    // Densities and values are ≥ +0.0 here (candidates have value > 0), where the IEEE bit
    // pattern orders like the number: sorting integer keys is ~3× faster than float compares
    // through the index (measured, 1,000 candidates: greedy 82 → 32 µs per call).
    let mut order: Vec<(Reverse<u64>, Reverse<u64>, usize)> = cands
        .iter()
        .map(|&i| {
            (
                Reverse(density(i).to_bits()),
                Reverse(values[i].to_bits()),
                i,
            )
        })
        .collect();
    order.sort_unstable();
    let mut left = cap;
    let mut chosen = Vec::new();
    for (_, _, i) in order {
        if costs[i] <= left {
            left -= costs[i];
            chosen.push(i);
        }
    }
    chosen
}

fn validate(costs: &[i64], values: &[f64], must_keep: Option<&[bool]>) -> KernelResult<Vec<u64>> {
    if values.len() != costs.len() {
        return Err(KernelError::Length {
            name: "values",
            expected: costs.len(),
            actual: values.len(),
        });
    }
    if let Some(mk) = must_keep {
        if mk.len() != costs.len() {
            return Err(KernelError::Length {
                name: "must_keep",
                expected: costs.len(),
                actual: mk.len(),
            });
        }
    }
    crate::decay::check_finite("values", values)?;
    costs
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            u64::try_from(c).map_err(|_| KernelError::OutOfRange {
                name: "costs",
                detail: format!("element {i} is {c}; token costs must be >= 0"),
            })
        })
        .collect()
}

/// Choose items within `budget` (see the module docs for the full specification).
pub fn select_within_budget(
    costs: &[i64],
    values: &[f64],
    budget: i64,
    strategy: Strategy,
    must_keep: Option<&[bool]>,
    cell_limit: u64,
) -> KernelResult<Selection> {
    let costs = validate(costs, values, must_keep)?;
    let budget = u64::try_from(budget).map_err(|_| KernelError::OutOfRange {
        name: "budget",
        detail: format!("{budget}; use a token budget >= 0"),
    })?;
    let keep = |i: usize| must_keep.is_some_and(|mk| mk[i]);
    let kept: Vec<usize> = (0..costs.len()).filter(|&i| keep(i)).collect();
    let required = kept.iter().fold(0u64, |s, &i| s.saturating_add(costs[i]));
    if required > budget {
        return Err(KernelError::Infeasible { required, budget });
    }
    let cap = budget - required;
    let cands: Vec<usize> = (0..costs.len())
        .filter(|&i| !keep(i) && values[i] > 0.0 && costs[i] <= cap)
        .collect();
    if !total_value(values, &cands).is_finite() {
        return Err(KernelError::OutOfRange {
            name: "values",
            detail: "the positive values sum past the f64 range; rescale them".into(),
        });
    }
    let cand_cost = cands.iter().fold(0u64, |s, &i| s.saturating_add(costs[i]));
    if cand_cost <= cap {
        return Ok(finish([kept, cands].concat(), Method::Exact, 1.0));
    }
    if strategy == Strategy::Greedy {
        let chosen = greedy(&costs, values, &cands, cap);
        return Ok(finish([kept, chosen].concat(), Method::Greedy, 0.0));
    }
    let (zero, dp_items): (Vec<usize>, Vec<usize>) = cands.iter().partition(|&&i| costs[i] == 0);
    let n = dp_items.len() as u64;
    if n.saturating_mul(cap.saturating_add(1)) <= cell_limit {
        let cap = cap as usize; // ≤ cell_limit, so it fits in memory and in usize
        let items: Vec<(usize, f64)> = dp_items
            .iter()
            .map(|&i| (costs[i] as usize, values[i]))
            .collect();
        let (fixed_in, free) = reduce::fix_variables(&items, cap);
        let residual = cap - fixed_in.iter().map(|&j| items[j].0).sum::<usize>();
        // Free items that no longer fit would never be taken by the DP; leave them out of it.
        let free: Vec<usize> = free
            .into_iter()
            .filter(|&j| items[j].0 <= residual)
            .collect();
        let free_items: Vec<(usize, f64)> = free.iter().map(|&j| items[j]).collect();
        let chosen = dp::knapsack_exact(&free_items, residual)
            .into_iter()
            .map(|k| free[k])
            .chain(fixed_in)
            .map(|j| dp_items[j]);
        return Ok(finish(
            kept.into_iter().chain(zero).chain(chosen).collect(),
            Method::Exact,
            1.0,
        ));
    }
    approximate(
        &costs, values, cap, kept, &zero, &dp_items, &cands, cell_limit,
    )
}

/// Above the cell limit: best of FPTAS, greedy and best single item, with a proven ratio.
#[allow(clippy::too_many_arguments)]
fn approximate(
    costs: &[u64],
    values: &[f64],
    cap: u64,
    kept: Vec<usize>,
    zero: &[usize],
    dp_items: &[usize],
    cands: &[usize],
    cell_limit: u64,
) -> KernelResult<Selection> {
    let n = dp_items.len();
    let mut options: Vec<Vec<usize>> = Vec::new();
    // FPTAS: profits scaled by K so that the profit table (n × (P + 1)) stays within the limit.
    let p_budget = (cell_limit / n as u64).saturating_sub(1);
    let sum_v = total_value(values, dp_items);
    let mut step = f64::INFINITY;
    if p_budget >= 1 {
        step = sum_v / p_budget as f64;
        let scaled: Vec<(u64, usize)> = dp_items
            .iter()
            .map(|&i| (costs[i], (values[i] / step).floor() as usize))
            .collect();
        let (idx, items): (Vec<usize>, Vec<(u64, usize)>) = scaled
            .into_iter()
            .enumerate()
            .filter(|(_, (_, p))| *p >= 1)
            .unzip();
        let chosen = dp::knapsack_by_profit(&items, cap);
        options.push(
            zero.iter()
                .copied()
                .chain(chosen.into_iter().map(|j| dp_items[idx[j]]))
                .collect(),
        );
    }
    options.push(greedy(costs, values, cands, cap));
    // Best single item: highest value, lowest index on ties (dp_items is non-empty here).
    let mut best = dp_items[0];
    for &i in dp_items {
        if values[i] > values[best] {
            best = i;
        }
    }
    options.push(zero.iter().copied().chain([best]).collect());
    let mut winner = 0;
    let mut winner_value = total_value(values, &options[0]);
    for (k, o) in options.iter().enumerate().skip(1) {
        let v = total_value(values, o);
        if v > winner_value {
            winner = k;
            winner_value = v;
        }
    }
    // Each item loses < K of value when scaled, so FPTAS ≥ OPT − n·K, and OPT ≥ winner_value.
    let fptas_ratio = if winner_value > 0.0 && step.is_finite() {
        1.0 - n as f64 * step / winner_value
    } else {
        0.0
    };
    let guarantee = fptas_ratio.max(0.5);
    let chosen = options.swap_remove(winner);
    Ok(finish(
        [kept, chosen].concat(),
        Method::Approximate,
        guarantee,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn must_keep_and_infeasible() {
        let s = select_within_budget(
            &[5, 5, 5],
            &[1.0, 2.0, 3.0],
            10,
            Strategy::Optimal,
            Some(&[true, false, false]),
            DEFAULT_CELL_LIMIT,
        )
        .unwrap();
        assert_eq!(s.indices, vec![0, 2]);
        let e = select_within_budget(
            &[5, 6],
            &[1.0, 2.0],
            10,
            Strategy::Optimal,
            Some(&[true, true]),
            DEFAULT_CELL_LIMIT,
        );
        assert_eq!(
            e,
            Err(KernelError::Infeasible {
                required: 11,
                budget: 10
            })
        );
    }

    #[test]
    fn approximate_is_feasible_and_bounded() {
        let costs: Vec<i64> = (0..50).map(|i| 20 + (i * 37) % 300).collect();
        let values: Vec<f64> = (0..50).map(|i| 1.0 + ((i * 13) % 17) as f64).collect();
        let exact = select_within_budget(
            &costs,
            &values,
            2000,
            Strategy::Optimal,
            None,
            DEFAULT_CELL_LIMIT,
        )
        .unwrap();
        let approx =
            select_within_budget(&costs, &values, 2000, Strategy::Optimal, None, 5000).unwrap();
        assert_eq!(approx.method, Method::Approximate);
        let val = |s: &Selection| s.indices.iter().map(|&i| values[i as usize]).sum::<f64>();
        let cost: i64 = approx.indices.iter().map(|&i| costs[i as usize]).sum();
        assert!(cost <= 2000);
        assert!(val(&approx) >= approx.guarantee * val(&exact) - 1e-9);
    }
}
