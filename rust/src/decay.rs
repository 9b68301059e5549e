//! Decay kernels (lifecycle). Filled in by the native-core work.
