//! Every GEMM kernel against a triple loop; the bf16 rounding.

use super::*;
use crate::bert::tests::Rng;

#[test]
fn every_kernel_matches_a_triple_loop_on_odd_shapes() {
    let mut rng = Rng(7);
    // Tiny shapes, a query-sized one that splits its panels over the pool, a tall one that
    // splits its rows, odd `k` (a zero-padded bf16 pair) and odd panel counts.
    let shapes = [
        (1, 1, 1),
        (5, 17, 3),
        (14, 384, 40),
        (50, 33, 7),
        (97, 16, 64),
        (13, 3 * 16 * 9 + 5, 385),
        (15, 1152, 384),
        (200, 40, 33),
    ];
    let kernels = Kernel::available();
    assert!(kernels.contains(&Kernel::Portable) && kernels.contains(&Kernel::PortableBf16));
    for &(m, n, k) in &shapes {
        let a = rng.vec(m * k, 1.0);
        let w = rng.vec(n * k, 1.0);
        let b = rng.vec(n, 1.0);
        for &kernel in &kernels {
            let precision = kernel.precision();
            // bf16 kernels are exact on bf16-rounded operands up to float32 summation.
            let round = |v: f32| match precision {
                Precision::F32 => v as f64,
                Precision::Bf16 => from_bf16(bf16(v)) as f64,
            };
            let packed = Packed::new(&w, &b, n, k, precision);
            let mut c = vec![f32::NAN; m * n];
            gemm_with(kernel, &a, m, &packed, &mut c, true);
            let mut serial = vec![f32::NAN; m * n];
            gemm_with(kernel, &a, m, &packed, &mut serial, false);
            assert_eq!(
                c, serial,
                "{kernel:?} {m}x{n}x{k}: the split changed the result"
            );
            for i in 0..m {
                for j in 0..n {
                    let want: f64 = b[j] as f64
                        + (0..k)
                            .map(|kk| round(a[i * k + kk]) * round(w[j * k + kk]))
                            .sum::<f64>();
                    let got = c[i * n + j] as f64;
                    assert!(
                        (got - want).abs() < 1e-4 * (1.0 + want.abs()),
                        "{kernel:?} {m}x{n}x{k} [{i},{j}]: {got} vs {want}"
                    );
                }
            }
        }
    }
}

#[test]
fn bf16_rounds_to_nearest_even() {
    assert_eq!(bf16(1.0), 0x3F80);
    // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties go to the even mantissa (1.0).
    assert_eq!(bf16(1.0 + 1.0 / 256.0), 0x3F80);
    assert_eq!(bf16(1.0 + 3.0 / 256.0), 0x3F82);
    assert_eq!(from_bf16(bf16(-2.5)), -2.5);
    assert!(from_bf16(bf16(f32::NAN)).is_nan());
    assert_eq!(from_bf16(bf16(f32::INFINITY)), f32::INFINITY);
}
