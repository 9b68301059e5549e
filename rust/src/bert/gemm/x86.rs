//! The x86_64 micro-kernels: AVX2+FMA (float32) and AVX-512 with `vdpbf16ps` (bf16 pairs).
//!
//! Off x86_64 the module is empty and [`super::Kernel`] never picks these.

#[cfg(target_arch = "x86_64")]
pub(super) use imp::*;

#[cfg(target_arch = "x86_64")]
mod imp {
    use super::super::{MR, MR_BF16, NR};
    use std::arch::x86_64::*;

    /// One float32 tile: `mr` rows × one panel.
    #[allow(clippy::too_many_arguments)]
    #[target_feature(enable = "avx2,fma")]
    pub(in super::super) unsafe fn tile(
        a: &[f32],
        mr: usize,
        k: usize,
        panel: &[f32],
        bias: &[f32],
        c: &mut [f32],
        ldc: usize,
        nr: usize,
    ) {
        match mr {
            6 => fixed::<6>(a, k, panel, bias, c, ldc, nr),
            5 => fixed::<5>(a, k, panel, bias, c, ldc, nr),
            4 => fixed::<4>(a, k, panel, bias, c, ldc, nr),
            3 => fixed::<3>(a, k, panel, bias, c, ldc, nr),
            2 => fixed::<2>(a, k, panel, bias, c, ldc, nr),
            _ => fixed::<1>(a, k, panel, bias, c, ldc, nr),
        }
    }

    #[inline(always)]
    unsafe fn fixed<const R: usize>(
        a: &[f32],
        k: usize,
        panel: &[f32],
        bias: &[f32],
        c: &mut [f32],
        ldc: usize,
        nr: usize,
    ) {
        debug_assert!(R <= MR && a.len() >= R * k && panel.len() >= k * NR);
        let mut acc = [[_mm256_setzero_ps(); 2]; R];
        let ap = a.as_ptr();
        let mut bp = panel.as_ptr();
        for kk in 0..k {
            let b0 = _mm256_loadu_ps(bp);
            let b1 = _mm256_loadu_ps(bp.add(8));
            for (r, accr) in acc.iter_mut().enumerate() {
                let x = _mm256_broadcast_ss(&*ap.add(r * k + kk));
                accr[0] = _mm256_fmadd_ps(x, b0, accr[0]);
                accr[1] = _mm256_fmadd_ps(x, b1, accr[1]);
            }
            bp = bp.add(NR);
        }
        let bias0 = _mm256_loadu_ps(bias.as_ptr());
        let bias1 = _mm256_loadu_ps(bias.as_ptr().add(8));
        for (r, accr) in acc.iter().enumerate() {
            let v0 = _mm256_add_ps(accr[0], bias0);
            let v1 = _mm256_add_ps(accr[1], bias1);
            let out = &mut c[r * ldc..];
            if nr == NR {
                _mm256_storeu_ps(out.as_mut_ptr(), v0);
                _mm256_storeu_ps(out.as_mut_ptr().add(8), v1);
            } else {
                let mut tmp = [0.0f32; NR];
                _mm256_storeu_ps(tmp.as_mut_ptr(), v0);
                _mm256_storeu_ps(tmp.as_mut_ptr().add(8), v1);
                out[..nr].copy_from_slice(&tmp[..nr]);
            }
        }
    }

    /// One bf16 tile: `mr` rows × the one or two panels in `panels` (`depth × NR` pairs each),
    /// `nr` valid output columns in all.
    #[allow(clippy::too_many_arguments)]
    #[target_feature(enable = "avx512f,avx512bf16")]
    pub(in super::super) unsafe fn tile_bf16(
        a: &[u32],
        mr: usize,
        depth: usize,
        panels: &[u32],
        bias: &[f32],
        c: &mut [f32],
        ldc: usize,
        nr: usize,
    ) {
        if panels.len() == 2 * depth * NR {
            match mr {
                12 => fixed_bf16::<12, 2>(a, depth, panels, bias, c, ldc, nr),
                11 => fixed_bf16::<11, 2>(a, depth, panels, bias, c, ldc, nr),
                10 => fixed_bf16::<10, 2>(a, depth, panels, bias, c, ldc, nr),
                9 => fixed_bf16::<9, 2>(a, depth, panels, bias, c, ldc, nr),
                8 => fixed_bf16::<8, 2>(a, depth, panels, bias, c, ldc, nr),
                7 => fixed_bf16::<7, 2>(a, depth, panels, bias, c, ldc, nr),
                6 => fixed_bf16::<6, 2>(a, depth, panels, bias, c, ldc, nr),
                5 => fixed_bf16::<5, 2>(a, depth, panels, bias, c, ldc, nr),
                4 => fixed_bf16::<4, 2>(a, depth, panels, bias, c, ldc, nr),
                3 => fixed_bf16::<3, 2>(a, depth, panels, bias, c, ldc, nr),
                2 => fixed_bf16::<2, 2>(a, depth, panels, bias, c, ldc, nr),
                _ => fixed_bf16::<1, 2>(a, depth, panels, bias, c, ldc, nr),
            }
        } else {
            match mr {
                12 => fixed_bf16::<12, 1>(a, depth, panels, bias, c, ldc, nr),
                11 => fixed_bf16::<11, 1>(a, depth, panels, bias, c, ldc, nr),
                10 => fixed_bf16::<10, 1>(a, depth, panels, bias, c, ldc, nr),
                9 => fixed_bf16::<9, 1>(a, depth, panels, bias, c, ldc, nr),
                8 => fixed_bf16::<8, 1>(a, depth, panels, bias, c, ldc, nr),
                7 => fixed_bf16::<7, 1>(a, depth, panels, bias, c, ldc, nr),
                6 => fixed_bf16::<6, 1>(a, depth, panels, bias, c, ldc, nr),
                5 => fixed_bf16::<5, 1>(a, depth, panels, bias, c, ldc, nr),
                4 => fixed_bf16::<4, 1>(a, depth, panels, bias, c, ldc, nr),
                3 => fixed_bf16::<3, 1>(a, depth, panels, bias, c, ldc, nr),
                2 => fixed_bf16::<2, 1>(a, depth, panels, bias, c, ldc, nr),
                _ => fixed_bf16::<1, 1>(a, depth, panels, bias, c, ldc, nr),
            }
        }
    }

    #[inline(always)]
    unsafe fn fixed_bf16<const R: usize, const P: usize>(
        a: &[u32],
        depth: usize,
        panels: &[u32],
        bias: &[f32],
        c: &mut [f32],
        ldc: usize,
        nr: usize,
    ) {
        debug_assert!(R <= MR_BF16 && a.len() >= R * depth);
        debug_assert!(panels.len() == P * depth * NR && bias.len() >= P * NR);
        debug_assert!(nr <= P * NR && nr > (P - 1) * NR);
        let mut acc = [[_mm512_setzero_ps(); P]; R];
        let ap = a.as_ptr();
        let bp = panels.as_ptr();
        for kp in 0..depth {
            let mut b = [_mm512_setzero_si512(); P];
            for (q, bq) in b.iter_mut().enumerate() {
                *bq = _mm512_loadu_si512(bp.add(q * depth * NR + kp * NR).cast());
            }
            for (r, accr) in acc.iter_mut().enumerate() {
                let x: __m512bh =
                    std::mem::transmute(_mm512_set1_epi32(*ap.add(r * depth + kp) as i32));
                for (q, accq) in accr.iter_mut().enumerate() {
                    *accq =
                        _mm512_dpbf16_ps(*accq, x, std::mem::transmute::<__m512i, __m512bh>(b[q]));
                }
            }
        }
        for (r, accr) in acc.iter().enumerate() {
            let out = c[r * ldc..].as_mut_ptr();
            for (q, accq) in accr.iter().enumerate() {
                let v = _mm512_add_ps(*accq, _mm512_loadu_ps(bias.as_ptr().add(q * NR)));
                let cols = nr - q * NR;
                if cols >= NR {
                    _mm512_storeu_ps(out.add(q * NR), v);
                } else {
                    _mm512_mask_storeu_ps(out.add(q * NR), ((1u32 << cols) - 1) as __mmask16, v);
                }
            }
        }
    }
}
