//! Unit tests of the fused scorer: formulas, every CPU build, validation and the slow paths.

use super::*;

fn params() -> FusedParams {
    FusedParams {
        now: 72.0 * 3600.0,
        decay_rate: 0.01,
        w_age: 0.2,
        w_access: 0.4,
        w_confidence: 0.2,
        w_relationships: 0.2,
        age_norm_hours: 72.0,
        access_norm: 5.0,
        relationship_norm: 3.0,
        recency_rate: 0.005,
        hit_weight: 0.1,
    }
}

#[test]
fn fused_matches_formulas() {
    let x = FusedInputs {
        base: &[1.0, 0.5],
        reference: &[0.0, 100.0 * 3600.0],
        created: &[0.0, 0.0],
        accesses: &[5, 10_000],
        confidence: &[0.8, 2.0],
        relationships: &[3, 0],
        similarity: &[0.9, 0.7],
    };
    let out = fused_scores(&x, &params()).unwrap();
    assert!((out.decay[0] - (-0.72f64).exp()).abs() < 1e-15);
    assert_eq!(out.decay[1], 0.5);
    assert!((out.promotion[0] - (0.2 + 0.4 + 0.16 + 0.2)).abs() < 1e-15);
    assert!((out.promotion[1] - (0.2 + 0.4 + 0.2)).abs() < 1e-15);
    let inc = 0.7 * (-0.36f64).exp() * (1.0 + 0.1 * 10_000f64.ln_1p());
    assert!((out.inclusion[1] - inc).abs() < 1e-14);
}

#[test]
fn rejects_bad_weights_and_counts() {
    let mut p = params();
    p.w_age = 0.5;
    let x = FusedInputs {
        base: &[],
        reference: &[],
        created: &[],
        accesses: &[],
        confidence: &[],
        relationships: &[],
        similarity: &[],
    };
    assert!(matches!(
        fused_scores(&x, &p),
        Err(KernelError::OutOfRange { .. })
    ));
    let x = FusedInputs {
        accesses: &[-1],
        base: &[1.0],
        reference: &[0.0],
        created: &[0.0],
        confidence: &[0.0],
        relationships: &[0],
        similarity: &[0.0],
    };
    assert!(matches!(
        fused_scores(&x, &params()),
        Err(KernelError::OutOfRange { .. })
    ));
}

/// The formulas of the module docs, item by item with libm (the reference's arithmetic).
fn scalar(x: &FusedInputs<'_>, p: &FusedParams) -> FusedScores {
    let age = |t: f64| ((p.now - t) / 3600.0).max(0.0);
    let mut out = FusedScores::default();
    for i in 0..x.base.len() {
        let (ar, ac) = (age(x.reference[i]), age(x.created[i]));
        let (acc, rel) = (x.accesses[i] as f64, x.relationships[i] as f64);
        out.decay
            .push((x.base[i] * (-p.decay_rate * ar).exp()).clamp(0.0, 1.0));
        out.promotion.push(
            p.w_age * (ac / p.age_norm_hours).min(1.0)
                + p.w_access * (acc / p.access_norm).min(1.0)
                + p.w_confidence * x.confidence[i].clamp(0.0, 1.0)
                + p.w_relationships * (rel / p.relationship_norm).min(1.0),
        );
        out.inclusion.push(
            x.similarity[i] * (-p.recency_rate * ac).exp() * (1.0 + p.hit_weight * acc.ln_1p()),
        );
    }
    out
}

fn close(got: &[f64], want: &[f64], what: &str) {
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let tol = 1e-12 * w.abs() + 1e-300;
        assert!((g - w).abs() <= tol, "{what}[{i}]: {g} vs {w}");
    }
}

/// Deterministic pseudo-random columns (xorshift), with counts around the slow-path edges.
struct Columns {
    f: [Vec<f64>; 5],
    accesses: Vec<i64>,
    relationships: Vec<i64>,
}

impl Columns {
    fn new(n: usize, seed: u64) -> Self {
        let mut s = seed | 1;
        let mut next = move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        let mut unit = || (next() >> 11) as f64 / (1u64 << 53) as f64;
        let now = params().now;
        let mut f: [Vec<f64>; 5] = Default::default();
        for _ in 0..n {
            f[0].push(unit() * 3.0 - 1.0);
            f[1].push(now - (unit() - 0.05) * 3000.0 * 3600.0);
            f[2].push(now - (unit() - 0.05) * 6000.0 * 3600.0);
            f[3].push(unit() * 3.0 - 1.0);
            f[4].push(unit() * 2.0 - 1.0);
        }
        let edges = [
            0,
            1,
            4095,
            4096,
            4097,
            1 << 40,
            (1 << 52) - 1,
            1 << 52,
            i64::MAX,
        ];
        let mut count = |i: usize| {
            let r = next();
            if r % 97 == 0 {
                edges[i % edges.len()]
            } else {
                (r % 6000) as i64
            }
        };
        let accesses = (0..n).map(&mut count).collect();
        let relationships = (0..n).map(|i| count(i + 3)).collect();
        Columns {
            f,
            accesses,
            relationships,
        }
    }

    fn inputs(&self) -> FusedInputs<'_> {
        FusedInputs {
            base: &self.f[0],
            reference: &self.f[1],
            created: &self.f[2],
            accesses: &self.accesses,
            confidence: &self.f[3],
            relationships: &self.relationships,
            similarity: &self.f[4],
        }
    }
}

fn run(isa: Isa, x: &FusedInputs<'_>, p: &FusedParams) -> KernelResult<FusedScores> {
    fused_scores_isa(isa, x, p)
}

#[test]
fn every_build_matches_the_formulas_across_chunks_and_slow_counts() {
    // Above the parallel threshold, not a multiple of the chunk, with counts ≥ the table size
    // and ≥ 2^52 scattered through it.
    for n in [0, 1, 7, CHUNK - 1, CHUNK + 1, PAR_THRESHOLD + 3] {
        let cols = Columns::new(n, n as u64 + 11);
        let x = cols.inputs();
        let p = params();
        let want = scalar(&x, &p);
        for isa in Isa::available() {
            let got = run(isa, &x, &p).unwrap();
            close(&got.decay, &want.decay, "decay");
            close(&got.promotion, &want.promotion, "promotion");
            close(&got.inclusion, &want.inclusion, "inclusion");
        }
    }
}

#[test]
fn every_build_names_the_first_bad_value_in_reference_order() {
    let n = 3 * CHUNK + 5;
    for isa in Isa::available() {
        // A bad similarity in chunk 0 and a bad base in chunk 2: base is checked first.
        let mut cols = Columns::new(n, 5);
        cols.f[4][3] = f64::NAN;
        cols.f[0][2 * CHUNK + 1] = f64::INFINITY;
        match run(isa, &cols.inputs(), &params()) {
            Err(KernelError::NonFinite { name, index, .. }) => {
                assert_eq!((name, index), ("base_scores", 2 * CHUNK + 1), "{isa:?}");
            }
            other => panic!("{isa:?}: {other:?}"),
        }
        for (col, name) in [
            (1, "reference_times"),
            (2, "created_times"),
            (3, "confidence"),
            (4, "similarity"),
        ] {
            let mut cols = Columns::new(n, 6);
            cols.f[col][n - 1] = f64::NEG_INFINITY;
            match run(isa, &cols.inputs(), &params()) {
                Err(KernelError::NonFinite {
                    name: got, index, ..
                }) => assert_eq!((got, index), (name, n - 1), "{isa:?}"),
                other => panic!("{isa:?} {name}: {other:?}"),
            }
        }
        let mut cols = Columns::new(n, 7);
        cols.relationships[CHUNK] = -1;
        match run(isa, &cols.inputs(), &params()) {
            Err(KernelError::OutOfRange { name, detail }) => {
                assert_eq!(name, "relationship_counts");
                assert!(
                    detail.contains(&format!("element {CHUNK} is -1")),
                    "{detail}"
                );
            }
            other => panic!("{isa:?}: {other:?}"),
        }
        let mut cols = Columns::new(n, 8);
        cols.accesses[0] = i64::MIN;
        assert!(matches!(
            run(isa, &cols.inputs(), &params()),
            Err(KernelError::OutOfRange {
                name: "access_counts",
                ..
            })
        ));
    }
}

#[test]
fn ln1p_table_agrees_with_libm() {
    for n in [
        0i64,
        1,
        2,
        50,
        LN1P_TABLE as i64 - 1,
        LN1P_TABLE as i64,
        1 << 60,
    ] {
        assert_eq!(ln1p_count(n), (n as f64).ln_1p(), "{n}");
    }
}
