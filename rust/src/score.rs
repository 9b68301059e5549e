//! Promotion and inclusion scoring, and the fused scorer. Filled in by the native-core work.
