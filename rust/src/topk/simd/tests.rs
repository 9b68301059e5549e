//! The dot bodies (portable, AVX2, AVX-512 VNNI) against each other and a naive f64 dot.

use super::*;

fn naive(q: &[f32], r: &[f32]) -> f64 {
    q.iter()
        .zip(r)
        .map(|(&a, &b)| f64::from(a) * f64::from(b))
        .sum()
}

#[test]
fn block_matches_naive_and_singles_bitwise() {
    for d in [0usize, 1, 7, 8, 9, 33] {
        let nq = 6;
        let nr = 11;
        let q: Vec<f32> = (0..nq * d).map(|i| ((i * 37 % 17) as f32) - 8.0).collect();
        let r: Vec<f32> = (0..nr * d)
            .map(|i| ((i * 13 % 23) as f32) * 0.25 - 2.0)
            .collect();
        let mut dots = vec![0.0; nq * nr];
        let mut norms = vec![0.0; nr];
        dot_block(&q, nq, &r, nr, d, &mut dots, Some(&mut norms));
        for i in 0..nq {
            let mut one = vec![0.0; nr];
            dot_block(&q[i * d..], 1, &r, nr, d, &mut one, None);
            for j in 0..nr {
                let want = naive(&q[i * d..(i + 1) * d], &r[j * d..(j + 1) * d]);
                assert!((f64::from(dots[i * nr + j]) - want).abs() < 1e-3);
                assert_eq!(dots[i * nr + j].to_bits(), one[j].to_bits());
            }
        }
        for j in 0..nr {
            assert_eq!(norms[j].to_bits(), norm(&r[j * d..(j + 1) * d]).to_bits());
        }
    }
}

#[test]
fn int_dots_are_exact() {
    // Extreme codes (-128 included) and query values, d across the chunk and tile edges.
    for d in [0usize, 5, 16, 40, 511, 512, 513, 5000] {
        for nq in [1usize, 3, 4, 9] {
            let nr = 7;
            let q: Vec<i16> = (0..nq * d)
                .map(|i| match i % 5 {
                    0 => -32767,
                    1 => 32767,
                    _ => (i as i32 * 7919 % 65535 - 32767) as i16,
                })
                .collect();
            let c: Vec<i8> = (0..nr * d)
                .map(|i| match i % 3 {
                    0 => -128,
                    _ => (i as i32 * 31 % 255 - 127) as i8,
                })
                .collect();
            let mut out = vec![0i64; nq * nr];
            int_dots(&q, nq, &c, nr, d, &mut out);
            for i in 0..nq {
                for j in 0..nr {
                    let want: i64 = (0..d)
                        .map(|t| i64::from(q[i * d + t]) * i64::from(c[j * d + t]))
                        .sum();
                    assert_eq!(out[i * nr + j], want, "d={d} nq={nq} i={i} j={j}");
                }
            }
        }
    }
}

/// Every integer-dot body this CPU can run gives the portable body's results (exact, so
/// equal), on extreme codes and at the step, tile and chunk edges of each body.
#[test]
fn int_dot_bodies_agree() {
    for d in [1usize, 15, 16, 31, 32, 33, 384, 511, 512, 513, 1040] {
        for (nq, nr) in [(1usize, 1usize), (1, 9), (4, 4), (5, 7), (9, 13)] {
            let q: Vec<i16> = (0..nq * d)
                .map(|i| match i % 7 {
                    0 => -32767,
                    1 => 32767,
                    _ => (i as i32 * 7919 % 65535 - 32767) as i16,
                })
                .collect();
            let c: Vec<i8> = (0..nr * d)
                .map(|i| match i % 4 {
                    0 => -128,
                    1 => 127,
                    _ => (i as i32 * 31 % 255 - 127) as i8,
                })
                .collect();
            let mut want = vec![0i64; nq * nr];
            portable::int_dots(&q, nq, &c, nr, d, &mut want);
            let mut got = vec![0i64; nq * nr];
            int_dots(&q, nq, &c, nr, d, &mut got);
            assert_eq!(got, want, "dispatched, d={d} nq={nq} nr={nr}");
            #[cfg(target_arch = "x86_64")]
            {
                if use_avx2() {
                    got.fill(0);
                    // SAFETY: avx2 checked; the buffers have the sizes asserted by int_dots.
                    unsafe { x86::int_dots(&q, nq, &c, nr, d, &mut got) };
                    assert_eq!(got, want, "avx2, d={d} nq={nq} nr={nr}");
                }
                if use_vnni() {
                    got.fill(0);
                    // SAFETY: avx512 f/bw/vnni checked; buffers sized as above.
                    unsafe { vnni::int_dots(&q, nq, &c, nr, d, &mut got) };
                    assert_eq!(got, want, "vnni, d={d} nq={nq} nr={nr}");
                }
            }
        }
    }
}

#[test]
fn int_dots_saturated_chunk_does_not_overflow() {
    // The worst case INT_CHUNK allows: every product is 32767·128 with the same sign.
    let d = INT_CHUNK * 2 + 16;
    let q = vec![-32767i16; 4 * d];
    let c = vec![-128i8; 3 * d];
    let mut out = vec![0i64; 12];
    int_dots(&q, 4, &c, 3, d, &mut out);
    assert!(out.iter().all(|&v| v == 32767 * 128 * d as i64));
}
