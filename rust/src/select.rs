//! Budgeted selection (greedy and optimal 0/1 knapsack). Filled in by the native-core work.
