//! Sentence vectors from token vectors: the pooling modes and L2 normalisation.

use super::Pooling;

/// Pool each sequence's rows of `x`, then normalise if asked.
pub(super) fn pool(
    x: &[f32],
    h: usize,
    spans: &[(usize, usize)],
    pooling: Pooling,
    normalize: bool,
) -> Vec<f32> {
    let mut out = vec![0.0f32; spans.len() * h];
    for (row, &(start, len)) in out.chunks_exact_mut(h).zip(spans) {
        let tokens = x[start * h..(start + len) * h].chunks_exact(h);
        match pooling {
            Pooling::Cls => row.copy_from_slice(&x[start * h..(start + 1) * h]),
            Pooling::Max => {
                row.fill(f32::NEG_INFINITY);
                for t in tokens {
                    for (o, &v) in row.iter_mut().zip(t) {
                        *o = o.max(v);
                    }
                }
            }
            Pooling::Mean | Pooling::MeanSqrtLen => {
                for t in tokens {
                    for (o, &v) in row.iter_mut().zip(t) {
                        *o += v;
                    }
                }
                let div = if pooling == Pooling::Mean {
                    len as f32
                } else {
                    (len as f32).sqrt()
                };
                row.iter_mut().for_each(|o| *o /= div);
            }
        }
        if normalize {
            let n = row.iter().map(|v| v * v).sum::<f32>().sqrt().max(1e-12);
            row.iter_mut().for_each(|o| *o /= n);
        }
    }
    out
}
