//! Token estimation and exact counting. Filled in by the native-core work.
