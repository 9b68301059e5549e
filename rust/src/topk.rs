//! Vector top-k (cosine, dot, int8 scan with float32 rescoring). Filled in by the native-core work.
