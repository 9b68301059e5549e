use super::*;

// docs: "a b a", "a", "c b", "b b b c", "d"; terms a=0, b=1, c=2, d=3.
const OFFSETS: [i64; 5] = [0, 2, 5, 7, 8];
const DOCS: [i32; 8] = [0, 1, 0, 2, 3, 2, 3, 4];
const TFS: [u32; 8] = [2, 1, 1, 1, 3, 1, 1, 1];
const LENS: [u32; 5] = [3, 1, 2, 4, 1];

fn index() -> Postings<'static> {
    Postings {
        offsets: &OFFSETS,
        docs: &DOCS,
        tfs: &TFS,
        doc_lengths: &LENS,
    }
}

/// FTS5's idf for a term in `df` of `n` docs.
fn idf(n: i64, df: i64) -> f64 {
    let v = ((n - df) as f64 + 0.5) / (df as f64 + 0.5);
    let v = v.ln();
    if v <= 0.0 {
        1e-6
    } else {
        v
    }
}

fn params(k: usize, mask: Option<&[bool]>) -> Params<'_> {
    Params {
        k1: FTS5_K1,
        b: FTS5_B,
        avgdl: 11.0 / 5.0,
        k,
        mask,
    }
}

fn run(terms: &[i64], dfs: &[i64], k: usize, mask: Option<&[bool]>) -> KernelResult<Hits> {
    let idf: Vec<f64> = dfs.iter().map(|&df| idf(5, df)).collect();
    let offsets = [0, terms.len() as i64];
    let q = Queries {
        offsets: &offsets,
        terms,
        idf: &idf,
    };
    top_k(index(), q, &params(k, mask))
}

#[test]
fn bit_identical_to_sqlite_fts5() {
    // Expected scores: -bm25(f) from SQLite 3.40.1 for the same five rows, as float.hex().
    let h = run(&[0, 1], &[2, 3], 10, None).unwrap();
    assert_eq!(h.docs, vec![1, 0, 3, 2]);
    assert_eq!(h.scores[0].to_bits(), 0x3FDBB836BAD4A2FA); // 0x1.bb836bad4a2fap-2
    assert_eq!(h.scores[1].to_bits(), 0x3FDADCC1ECE731E0); // 0x1.adcc1ece731e0p-2
    assert_eq!(h.scores[2].to_bits(), 0x3EB66E7145317905); // 0x1.66e7145317905p-20
    assert_eq!(h.scores[3].to_bits(), 0x3EB16CDE08B42A5E); // 0x1.16cde08b42a5ep-20
                                                           // A repeated term counts twice, as FTS5's `"a" OR "a"` does.
    let h = run(&[0, 0], &[2, 2], 10, None).unwrap();
    assert_eq!(h.docs, vec![1, 0]);
    assert_eq!(h.scores[1].to_bits(), 0x3FEADCBE4634FCF2); // 0x1.adcbe4634fcf2p-1
}

#[test]
fn ties_at_the_cut_mask_and_k() {
    // "c": docs 2 and 3 differ in length, "d": one doc; mask hides doc 3.
    let h = run(&[2, 3], &[2, 1], 1, None).unwrap();
    assert_eq!(h.docs.len(), 1);
    let mask = [true, true, true, false, true];
    let h = run(&[2], &[2], 5, Some(&mask)).unwrap();
    assert_eq!(h.docs, vec![2]);
    assert!(run(&[2], &[2], 0, None).unwrap().docs.is_empty());
    assert!(run(&[], &[], 3, None).unwrap().docs.is_empty());
    // Two docs with equal length and tf tie: both returned for k = 1.
    let offsets = [0i64, 2];
    let (docs, tfs, lens) = ([0i32, 1], [1u32, 1], [2u32, 2]);
    let ix = Postings {
        offsets: &offsets,
        docs: &docs,
        tfs: &tfs,
        doc_lengths: &lens,
    };
    let q = Queries {
        offsets: &[0, 1],
        terms: &[0],
        idf: &[0.5],
    };
    let p = Params {
        avgdl: 2.0,
        ..params(1, None)
    };
    let h = top_k(ix, q, &p).unwrap();
    assert_eq!(h.docs, vec![0, 1]);
    assert_eq!(h.offsets, vec![0, 2]);
}

#[test]
fn batch_equals_singles_and_parallel_equals_serial() {
    let n_docs = 20_000usize;
    let n_terms = 50usize;
    // Term t is in every doc d with (d * (t + 3)) % 7 < 3: dense postings, ~40% per term.
    let mut offsets = vec![0i64];
    let (mut docs, mut tfs) = (Vec::new(), Vec::new());
    for t in 0..n_terms {
        for d in 0..n_docs {
            if (d * (t + 3)) % 7 < 3 {
                docs.push(d as i32);
                tfs.push(1 + ((d + t) % 3) as u32);
            }
        }
        offsets.push(docs.len() as i64);
    }
    let lens: Vec<u32> = (0..n_docs).map(|d| 5 + (d % 11) as u32).collect();
    let ix = Postings {
        offsets: &offsets,
        docs: &docs,
        tfs: &tfs,
        doc_lengths: &lens,
    };
    let terms: Vec<i64> = (0..64).map(|i| (i * 7 % n_terms) as i64).collect();
    let idf: Vec<f64> = terms.iter().map(|&t| 0.1 + t as f64 / 10.0).collect();
    let qoff: Vec<i64> = (0..=16).map(|q| q * 4).collect();
    let batch = top_k(
        ix,
        Queries {
            offsets: &qoff,
            terms: &terms,
            idf: &idf,
        },
        &Params {
            avgdl: 10.0,
            ..params(10, None)
        },
    )
    .unwrap();
    for q in 0..16 {
        let r = q * 4..q * 4 + 4;
        let one = top_k(
            ix,
            Queries {
                offsets: &[0, 4],
                terms: &terms[r.clone()],
                idf: &idf[r],
            },
            &Params {
                avgdl: 10.0,
                ..params(10, None)
            },
        )
        .unwrap();
        let (a, b) = (batch.offsets[q] as usize, batch.offsets[q + 1] as usize);
        assert_eq!(one.docs, batch.docs[a..b]);
        assert_eq!(one.scores, batch.scores[a..b]);
    }
}

#[test]
fn rejects_bad_input() {
    let q = |terms: &'static [i64], idf: &'static [f64]| Queries {
        offsets: if terms.is_empty() { &[0, 0] } else { &[0, 1] },
        terms,
        idf,
    };
    let p = params(3, None);
    let bad = |ix: Postings<'_>, qs: Queries<'_>, p: &Params<'_>| top_k(ix, qs, p).unwrap_err();
    assert!(matches!(
        bad(index(), q(&[9], &[1.0]), &p),
        KernelError::OutOfRange {
            name: "term_ids",
            ..
        }
    ));
    assert!(matches!(
        bad(index(), q(&[0], &[f64::NAN]), &p),
        KernelError::NonFinite { name: "idf", .. }
    ));
    assert!(matches!(
        bad(index(), q(&[0], &[-1.0]), &p),
        KernelError::OutOfRange { name: "idf", .. }
    ));
    for (k1, b, avgdl) in [(-1.0, 0.75, 1.0), (1.2, 1.5, 1.0), (1.2, 0.75, 0.0)] {
        let p = Params {
            k1,
            b,
            avgdl,
            ..params(3, None)
        };
        assert!(matches!(
            bad(index(), q(&[0], &[1.0]), &p),
            KernelError::OutOfRange { .. }
        ));
    }
    let mask = [true];
    assert!(matches!(
        bad(index(), q(&[0], &[1.0]), &params(3, Some(&mask))),
        KernelError::Length { name: "mask", .. }
    ));
    let unsorted = Postings {
        docs: &[1, 0, 0, 2, 3, 2, 3, 4],
        ..index()
    };
    assert!(matches!(
        bad(unsorted, q(&[0], &[1.0]), &p),
        KernelError::Invalid { .. }
    ));
    let out = Postings {
        docs: &[0, 9, 0, 2, 3, 2, 3, 4],
        ..index()
    };
    assert!(matches!(
        bad(out, q(&[0], &[1.0]), &p),
        KernelError::OutOfRange { name: "docs", .. }
    ));
    let decreasing = Postings {
        offsets: &[0, 6, 5, 7, 8],
        ..index()
    };
    assert!(matches!(
        bad(decreasing, q(&[1], &[1.0]), &p),
        KernelError::OutOfRange {
            name: "offsets",
            ..
        }
    ));
    let zero_tf = Postings {
        tfs: &[0, 1, 1, 1, 3, 1, 1, 1],
        ..index()
    };
    assert!(matches!(
        bad(zero_tf, q(&[0], &[1.0]), &p),
        KernelError::OutOfRange { name: "tfs", .. }
    ));
    let short = Postings {
        tfs: &[1],
        ..index()
    };
    assert!(matches!(
        bad(short, q(&[], &[]), &p),
        KernelError::Length { name: "tfs", .. }
    ));
    let huge = Params {
        k1: 1e308,
        ..params(3, None)
    };
    assert!(matches!(
        bad(index(), q(&[0], &[1.0]), &huge),
        KernelError::OutOfRange { .. }
    ));
}
