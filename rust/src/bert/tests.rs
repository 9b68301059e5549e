//! The encoder against a naive float64 transcription of BERT on tiny random models, bf16 against
//! float32, and the approximations against libm (the GEMM kernels: `gemm/tests.rs`).

use super::ops::{erf, exp};
use super::*;

/// xorshift64*: deterministic weights in [-s, s).
pub(super) struct Rng(pub(super) u64);
impl Rng {
    fn next(&mut self, s: f32) -> f32 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let u = (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 40) as f32 / (1u64 << 24) as f32;
        (2.0 * u - 1.0) * s
    }
    pub(super) fn vec(&mut self, n: usize, s: f32) -> Vec<f32> {
        (0..n).map(|_| self.next(s)).collect()
    }
}

#[test]
fn bf16_encoder_stays_close_to_float32() {
    for (seed, h, heads, layers, i) in [(1, 8, 2, 1, 16), (2, 20, 4, 2, 36), (3, 32, 1, 3, 8)] {
        let m = tiny(seed, h, heads, layers, i);
        let f32_enc = Encoder::new(m.config, &weights(&m), Precision::F32).unwrap();
        let bf_enc = Encoder::new(m.config, &weights(&m), Precision::Bf16).unwrap();
        let ids = [4i64, 4, 29, 0, 7, 11, 6, 8, 13, 21, 2, 1, 3, 5];
        let offsets = [0, 12, 14];
        let want = f32_enc
            .encode(&ids, &offsets, None, Pooling::Mean, true)
            .unwrap();
        let got = bf_enc
            .encode(&ids, &offsets, None, Pooling::Mean, true)
            .unwrap();
        for (s, (g, w)) in got.chunks(h).zip(want.chunks(h)).enumerate() {
            let cos: f32 = g.iter().zip(w).map(|(a, b)| a * b).sum();
            assert!(cos > 0.995, "seed {seed} seq {s}: cos {cos}");
        }
    }
    assert!(Precision::parse("float16").is_err());
}

#[test]
fn exp_and_erf_are_within_float32_resolution() {
    for i in -2000..=2000 {
        let x = i as f32 * 0.04;
        let e = exp(x) as f64;
        let want = (x as f64).exp();
        assert!(
            (e - want).abs() <= 4e-7 * want,
            "exp({x}) = {e}, want {want}"
        );
        let x = i as f32 * 0.003;
        let err = (erf(x) as f64 - libm_erf(x as f64)).abs();
        assert!(err < 1e-6, "erf({x}) is off by {err}");
    }
    // Clamped, not a garbage exponent: a tiny positive normal number.
    let tiny = exp(-1000.0);
    assert!(tiny > 0.0 && tiny < 1.3e-38 && tiny.is_normal(), "{tiny}");
}

/// erf by its Maclaurin series (|x| <= 6 here, f64 is plenty).
fn libm_erf(x: f64) -> f64 {
    if x.abs() > 4.0 {
        return x.signum();
    }
    let (mut term, mut sum, mut n) = (x, x, 0.0f64);
    while term.abs() > 1e-17 {
        n += 1.0;
        term *= -x * x / n;
        sum += term / (2.0 * n + 1.0);
    }
    sum * 2.0 / std::f64::consts::PI.sqrt()
}

struct Model {
    config: Config,
    tensors: Vec<Vec<f32>>,
}

fn tiny(seed: u64, hidden: usize, heads: usize, layers: usize, intermediate: usize) -> Model {
    let mut rng = Rng(seed);
    let config = Config {
        hidden,
        layers,
        heads,
        intermediate,
        max_positions: 12,
        vocab: 30,
        type_vocab: 2,
        eps: 1e-12,
    };
    let (h, i) = (hidden, intermediate);
    let mut tensors = vec![
        rng.vec(30 * h, 1.0),
        rng.vec(12 * h, 0.5),
        rng.vec(2 * h, 0.5),
        rng.vec(h, 1.0).iter().map(|v| 1.0 + 0.2 * v).collect(),
        rng.vec(h, 0.1),
    ];
    for _ in 0..layers {
        for (n, k) in [
            (h, h),
            (h, h),
            (h, h),
            (h, h),
            (h, 1),
            (i, h),
            (h, i),
            (h, 1),
        ] {
            tensors.push(rng.vec(n * k, 1.0 / (k as f32).sqrt()));
            tensors.push(if k == 1 {
                vec![1.0; h]
            } else {
                rng.vec(n, 0.1)
            });
        }
    }
    Model { config, tensors }
}

fn weights(m: &Model) -> Weights<'_> {
    let t = &m.tensors;
    let pair = |j: usize| (&t[j][..], &t[j + 1][..]);
    Weights {
        word: &t[0],
        position: &t[1],
        token_type: &t[2],
        embedding_norm: (&t[3], &t[4]),
        layers: (0..m.config.layers)
            .map(|l| {
                let o = 5 + 16 * l;
                LayerWeights {
                    query: pair(o),
                    key: pair(o + 2),
                    value: pair(o + 4),
                    attention_out: pair(o + 6),
                    attention_norm: pair(o + 8),
                    intermediate: pair(o + 10),
                    output: pair(o + 12),
                    output_norm: pair(o + 14),
                }
            })
            .collect(),
    }
}

/// BERT of one sequence, written out in f64 with a padded batch's view: a sequence padded to
/// `pad` tokens whose padding keys get -inf attention scores.
fn naive(m: &Model, ids: &[i64], pad: usize) -> Vec<f64> {
    let c = m.config;
    let (h, t, d) = (c.hidden, ids.len(), c.hidden / c.heads);
    let w = weights(m);
    let ln = |x: &mut [f64], (g, b): (&[f32], &[f32])| {
        let mean = x.iter().sum::<f64>() / h as f64;
        let var = x.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / h as f64;
        for j in 0..h {
            x[j] = (x[j] - mean) / (var + c.eps as f64).sqrt() * g[j] as f64 + b[j] as f64;
        }
    };
    let lin = |x: &[f64], (wt, b): (&[f32], &[f32]), n: usize| -> Vec<f64> {
        let k = x.len();
        (0..n)
            .map(|j| b[j] as f64 + (0..k).map(|q| x[q] * wt[j * k + q] as f64).sum::<f64>())
            .collect()
    };
    let mut x: Vec<Vec<f64>> = (0..pad)
        .map(|p| {
            let id = if p < t { ids[p] as usize } else { 0 };
            let mut row: Vec<f64> = (0..h)
                .map(|j| (w.word[id * h + j] + w.position[p * h + j] + w.token_type[j]) as f64)
                .collect();
            ln(&mut row, w.embedding_norm);
            row
        })
        .collect();
    for l in &w.layers {
        let q: Vec<_> = x.iter().map(|r| lin(r, l.query, h)).collect();
        let k: Vec<_> = x.iter().map(|r| lin(r, l.key, h)).collect();
        let v: Vec<_> = x.iter().map(|r| lin(r, l.value, h)).collect();
        for i in 0..pad {
            let mut ctx = vec![0.0; h];
            for hd in 0..c.heads {
                let r = hd * d..(hd + 1) * d;
                let s: Vec<f64> = (0..pad)
                    .map(|j| {
                        if j >= t {
                            f64::NEG_INFINITY
                        } else {
                            r.clone().map(|e| q[i][e] * k[j][e]).sum::<f64>() / (d as f64).sqrt()
                        }
                    })
                    .collect();
                let max = s.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
                let e: Vec<f64> = s.iter().map(|v| (v - max).exp()).collect();
                let z: f64 = e.iter().sum();
                for j in 0..pad {
                    for el in r.clone() {
                        ctx[el] += e[j] / z * v[j][el];
                    }
                }
            }
            let mut y = lin(&ctx, l.attention_out, h);
            y.iter_mut().zip(&x[i]).for_each(|(a, b)| *a += b);
            ln(&mut y, l.attention_norm);
            let f: Vec<f64> = lin(&y, l.intermediate, c.intermediate)
                .iter()
                .map(|&u| 0.5 * u * (1.0 + libm_erf(u / 2f64.sqrt())))
                .collect();
            let mut z = lin(&f, l.output, h);
            z.iter_mut().zip(&y).for_each(|(a, b)| *a += b);
            ln(&mut z, l.output_norm);
            x[i] = z;
        }
    }
    let mut mean: Vec<f64> = (0..h)
        .map(|j| x[..t].iter().map(|r| r[j]).sum::<f64>() / t as f64)
        .collect();
    let n = mean.iter().map(|v| v * v).sum::<f64>().sqrt();
    mean.iter_mut().for_each(|v| *v /= n);
    mean
}

#[test]
fn encoder_matches_padded_naive_bert_on_tiny_random_models() {
    for (seed, h, heads, layers, i) in [(1, 8, 2, 1, 16), (2, 20, 4, 2, 36), (3, 32, 1, 3, 8)] {
        let m = tiny(seed, h, heads, layers, i);
        let enc = Encoder::new(m.config, &weights(&m), Precision::F32).unwrap();
        let seqs: [&[i64]; 3] = [
            &[1, 5, 9, 2],
            &[3],
            &[4, 4, 29, 0, 7, 11, 6, 8, 13, 21, 2, 1],
        ];
        let ids: Vec<i64> = seqs.concat();
        let offsets = [0, 4, 5, 17];
        let out = enc
            .encode(&ids, &offsets, None, Pooling::Mean, true)
            .unwrap();
        for (s, seq) in seqs.iter().enumerate() {
            let want = naive(&m, seq, 12);
            let got = &out[s * h..(s + 1) * h];
            let cos: f64 = got.iter().zip(&want).map(|(&a, b)| a as f64 * b).sum();
            let diff = got
                .iter()
                .zip(&want)
                .map(|(&a, b)| (a as f64 - b).abs())
                .fold(0.0, f64::max);
            assert!(
                cos > 0.99999 && diff < 1e-4,
                "seed {seed} seq {s}: cos {cos}, diff {diff}"
            );
        }
    }
}

#[test]
fn a_batch_split_over_threads_equals_its_sequences_one_by_one() {
    // 40 sequences of 1..=12 tokens (260 tokens): past PAR_SEQUENCES, so the batch runs as
    // groups of sequences on the pool; each sequence alone runs on the calling thread.
    let m = tiny(11, 16, 4, 2, 24);
    for precision in [Precision::F32, Precision::Bf16] {
        let enc = Encoder::new(m.config, &weights(&m), precision).unwrap();
        let seqs: Vec<Vec<i64>> = (0..40)
            .map(|s| {
                (0..1 + (s * 7) % 12)
                    .map(|t| ((s * 13 + t * 5) % 30) as i64)
                    .collect()
            })
            .collect();
        let ids: Vec<i64> = seqs.concat();
        assert!(ids.len() >= super::forward::PAR_SEQUENCES);
        let mut offsets = vec![0i64];
        for s in &seqs {
            offsets.push(offsets.last().unwrap() + s.len() as i64);
        }
        let all = enc
            .encode(&ids, &offsets, None, Pooling::Mean, true)
            .unwrap();
        for (s, seq) in seqs.iter().enumerate() {
            let one = enc
                .encode(seq, &[0, seq.len() as i64], None, Pooling::Mean, true)
                .unwrap();
            assert_eq!(
                &all[s * 16..(s + 1) * 16],
                &one[..],
                "{precision:?} sequence {s}"
            );
        }
    }
}

#[test]
fn pooling_modes_and_batch_independence() {
    let m = tiny(5, 16, 4, 2, 24);
    let enc = Encoder::new(m.config, &weights(&m), Precision::F32).unwrap();
    let ids = [1i64, 2, 3, 4, 5];
    let types = [0i64, 0, 1, 1, 1];
    for pooling in [
        Pooling::Mean,
        Pooling::Cls,
        Pooling::Max,
        Pooling::MeanSqrtLen,
    ] {
        let both = enc
            .encode(&ids, &[0, 2, 5], Some(&types), pooling, false)
            .unwrap();
        let second = enc
            .encode(&ids[2..], &[0, 3], Some(&types[2..]), pooling, false)
            .unwrap();
        assert_eq!(&both[16..], &second[..], "{pooling:?}");
    }
    let mean = enc
        .encode(&ids, &[0, 5], None, Pooling::Mean, false)
        .unwrap();
    let sqrt = enc
        .encode(&ids, &[0, 5], None, Pooling::MeanSqrtLen, false)
        .unwrap();
    for (a, b) in mean.iter().zip(&sqrt) {
        assert!((a * 5f32.sqrt() - b).abs() < 1e-5);
    }
}

#[test]
fn bad_batches_and_weights_are_typed_errors() {
    let m = tiny(9, 8, 2, 1, 16);
    let enc = Encoder::new(m.config, &weights(&m), Precision::F32).unwrap();
    let e = |ids: &[i64], off: &[i64], t: Option<&[i64]>| {
        enc.encode(ids, off, t, Pooling::Mean, true).unwrap_err()
    };
    assert!(matches!(e(&[1], &[], None), KernelError::Invalid { .. }));
    assert!(matches!(
        e(&[1], &[1, 1], None),
        KernelError::OutOfRange {
            name: "offsets",
            ..
        }
    ));
    assert!(matches!(
        e(&[1, 2], &[0, 0, 2], None),
        KernelError::OutOfRange {
            name: "offsets",
            ..
        }
    ));
    assert!(matches!(
        e(&[1, 2], &[0, 1], None),
        KernelError::OutOfRange {
            name: "offsets",
            ..
        }
    ));
    assert!(matches!(
        e(&[30], &[0, 1], None),
        KernelError::OutOfRange { name: "ids", .. }
    ));
    assert!(matches!(
        e(&[1], &[0, 1], Some(&[2])),
        KernelError::OutOfRange {
            name: "type_ids",
            ..
        }
    ));
    assert!(matches!(
        e(&[1], &[0, 1], Some(&[])),
        KernelError::Length {
            name: "type_ids",
            ..
        }
    ));
    let long: Vec<i64> = vec![1; 13];
    assert!(matches!(
        e(&long, &[0, 13], None),
        KernelError::OutOfRange {
            name: "offsets",
            ..
        }
    ));
    assert_eq!(
        enc.encode(&[], &[0], None, Pooling::Mean, true).unwrap(),
        Vec::<f32>::new()
    );
    let mut w = weights(&m);
    w.word = &w.word[1..];
    assert!(matches!(
        Encoder::new(m.config, &w, Precision::F32),
        Err(KernelError::Length { .. })
    ));
    let mut c = m.config;
    c.heads = 3;
    assert!(matches!(
        Encoder::new(c, &weights(&m), Precision::F32),
        Err(KernelError::OutOfRange { .. })
    ));
    assert!(Pooling::parse("mean").is_err());
}
