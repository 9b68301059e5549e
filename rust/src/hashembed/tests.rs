use super::*;

/// "Hi, cat!" tokenised: hi , cat ! (t(tok) with seed 0, from the Python reference).
const HASHES: [u64; 4] = [
    0xc34ae5bf8ef77c41,
    0xbe6597c73435e6c2,
    0xe52b99e7fa49f52f,
    0x23e7fe3a0affb38a,
];
const EMPTY: u64 = 0xe11069110ded35a1;
const CHAR_OFFSETS: [i64; 5] = [0, 2, 3, 6, 7];
const CHARS: [u32; 7] = [104, 105, 44, 99, 97, 116, 33];

fn params(dimension: usize) -> Params {
    Params {
        dimension,
        ngram_range: (1, 2),
        char_ngrams: Some((3, 5)),
        seed: 0,
        empty_hash: EMPTY,
    }
}

fn batch<'a>(text_offsets: &'a [i64], ids: &'a [i64]) -> Batch<'a> {
    Batch {
        text_offsets,
        ids,
        hashes: &HASHES,
        char_offsets: &CHAR_OFFSETS,
        chars: &CHARS,
    }
}

/// The spec written out feature by feature, without tables, chunks or memos.
fn naive(b: &Batch<'_>, p: &Params) -> Vec<f32> {
    let mut out = Vec::new();
    for w in b.text_offsets.windows(2) {
        let ids = &b.ids[w[0] as usize..w[1] as usize];
        let t: Vec<u64> = ids.iter().map(|&i| b.hashes[i as usize]).collect();
        let mut feats: Vec<(u64, f64)> = Vec::new();
        if t.is_empty() {
            feats.push((p.empty_hash, 1.0));
        }
        for k in p.ngram_range.0..=p.ngram_range.1 {
            for s in 0..(t.len() + 1).saturating_sub(k) {
                let h = t[s + 1..s + k]
                    .iter()
                    .fold(t[s], |h, &x| mix(h.wrapping_mul(GOLDEN) ^ x));
                feats.push((h, if k == 1 { 1.0 } else { 0.7 }));
            }
        }
        if let Some((lo, hi)) = p.char_ngrams {
            for &i in ids {
                let (a, z) = (b.char_offsets[i as usize], b.char_offsets[i as usize + 1]);
                let mut padded = vec![32u32];
                padded.extend_from_slice(&b.chars[a as usize..z as usize]);
                padded.push(32);
                for n in lo..=hi {
                    for win in padded.windows(n) {
                        let h = win.iter().fold(FNV_OFFSET ^ mix(p.seed), |h, &c| {
                            (h ^ u64::from(c)).wrapping_mul(FNV_PRIME)
                        });
                        feats.push((mix(h), 0.35));
                    }
                }
            }
        }
        let mut v = vec![0.0f64; p.dimension];
        for (h, w) in feats {
            v[(h % p.dimension as u64) as usize] += if h >> 63 == 1 { -w } else { w };
        }
        for x in v.iter_mut() {
            *x = if *x != 0.0 {
                x.abs().ln_1p().copysign(*x)
            } else {
                0.0
            };
        }
        let norm = v.iter().fold(0.0, |s, x| s + x * x).sqrt();
        out.extend(
            v.iter()
                .map(|x| if norm > 0.0 { x / norm } else { *x } as f32),
        );
    }
    out
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

#[test]
fn mix_matches_splitmix64() {
    assert_eq!(mix(0), 0xe220a8397b1dcdaf);
    assert_eq!(mix(12345), 0x22118258a9d111a0);
    assert_eq!(mix(u64::MAX), 0xe4d971771b652c20);
}

#[test]
fn pinned_row_from_the_python_reference() {
    // HashingEmbedder(dimension=16).encode(["Hi, cat!"])[0].view(np.uint32)
    let expected: [u32; 16] = [
        0, 3197509475, 3197509475, 3191074386, 0, 3191074386, 0, 3198095979, 0, 1043590738,
        1053805244, 3191074386, 3198095979, 1050612331, 0, 3204452744,
    ];
    let got = embed(&batch(&[0, 4], &[0, 1, 2, 3]), &params(16)).unwrap();
    assert_eq!(bits(&got), expected);
}

#[test]
fn bit_identical_to_the_naive_spec() {
    let ids = [0, 1, 2, 3, 2, 2, 0, 3, 1, 1, 0, 2];
    let offsets = [0, 4, 4, 5, 12, 12];
    for p in [
        params(16),
        params(2),
        params(384),
        params(MAX_DIMENSION),
        Params {
            ngram_range: (2, 8),
            char_ngrams: None,
            seed: u64::MAX,
            ..params(97)
        },
        Params {
            ngram_range: (1, 1),
            char_ngrams: Some((1, 12)),
            seed: 3,
            ..params(64)
        },
    ] {
        let b = batch(&offsets, &ids);
        assert_eq!(bits(&embed(&b, &p).unwrap()), bits(&naive(&b, &p)), "{p:?}");
    }
}

#[test]
fn rows_do_not_depend_on_their_batch() {
    // Enough occurrences to cross PAR_OCCURRENCES: the pool (when there is one) splits rows.
    let rows = 3000;
    let mut offsets = vec![0i64];
    let mut ids = Vec::new();
    for r in 0..rows {
        ids.extend((0..r % 13).map(|j| ((r * 7 + j * 3) % 4) as i64));
        offsets.push(ids.len() as i64);
    }
    let b = batch(&offsets, &ids);
    let p = params(48);
    let all = embed(&b, &p).unwrap();
    assert!(ids.len() + rows >= PAR_OCCURRENCES);
    for r in [0, 1, 12, 13, 1499, rows - 1] {
        let one = [0, offsets[r + 1] - offsets[r]];
        let row_ids = &ids[offsets[r] as usize..offsets[r + 1] as usize];
        let alone = embed(&batch(&one, row_ids), &p).unwrap();
        assert_eq!(bits(&all[r * 48..(r + 1) * 48]), bits(&alone), "row {r}");
    }
    assert_eq!(bits(&all), bits(&naive(&b, &p)));
}

#[test]
fn empty_batch_and_empty_text() {
    assert!(embed(&batch(&[0], &[]), &params(8)).unwrap().is_empty());
    let row = embed(&batch(&[0, 0], &[]), &params(8)).unwrap();
    let nonzero: Vec<f32> = row.iter().copied().filter(|&x| x != 0.0).collect();
    let sign = if EMPTY >> 63 == 1 { -1.0 } else { 1.0 };
    assert_eq!(nonzero, vec![sign]);
    assert_eq!(row[(EMPTY % 8) as usize], sign);
}

#[test]
fn a_row_without_features_stays_zero() {
    // With no character n-grams and ngram_range (2, 2), a one-token text has no features.
    let p = Params {
        ngram_range: (2, 2),
        char_ngrams: None,
        ..params(8)
    };
    assert_eq!(embed(&batch(&[0, 1], &[2]), &p).unwrap(), vec![0.0; 8]);
}

fn err(b: &Batch<'_>, p: &Params) -> KernelError {
    embed(b, p).unwrap_err()
}

#[test]
fn parameters_out_of_range() {
    let b = batch(&[0, 1], &[0]);
    for p in [
        params(1),
        params(0),
        params(MAX_DIMENSION + 1),
        Params {
            ngram_range: (0, 1),
            ..params(8)
        },
        Params {
            ngram_range: (2, 1),
            ..params(8)
        },
        Params {
            ngram_range: (1, MAX_NGRAM + 1),
            ..params(8)
        },
        Params {
            char_ngrams: Some((0, 3)),
            ..params(8)
        },
        Params {
            char_ngrams: Some((1, MAX_CHAR_NGRAM + 1)),
            ..params(8)
        },
    ] {
        assert!(
            matches!(err(&b, &p), KernelError::OutOfRange { .. }),
            "{p:?}"
        );
    }
}

#[test]
fn malformed_batches() {
    let p = params(8);
    assert!(matches!(
        err(&batch(&[], &[]), &p),
        KernelError::Invalid { .. }
    ));
    for (offsets, ids) in [
        (&[1, 1][..], &[0][..]), // does not start at 0
        (&[0, 2, 1], &[0, 1]),   // decreases
        (&[0, 1], &[0, 1]),      // does not end at len(ids)
        (&[0, 3], &[0, 1]),      // past the end
        (&[0, 1], &[4]),         // id past the unique tokens
        (&[0, 1], &[-1]),        // negative id
    ] {
        let e = err(&batch(offsets, ids), &p);
        assert!(matches!(e, KernelError::OutOfRange { .. }), "{e}");
    }
    let short = Batch {
        char_offsets: &CHAR_OFFSETS[..4],
        ..batch(&[0, 1], &[0])
    };
    assert!(matches!(err(&short, &p), KernelError::Length { .. }));
    let bad_chars = Batch {
        chars: &CHARS[..6],
        ..batch(&[0, 1], &[0])
    };
    assert!(matches!(
        err(&bad_chars, &p),
        KernelError::OutOfRange { .. }
    ));
}
