//! `C = A · Wᵀ + b` for the encoder's linear layers, over weights packed once at load.
//!
//! `W` comes in torch's `Linear` layout (`n` outputs × `k` inputs). Packing cuts it into panels
//! of [`NR`] outputs, each `k × NR` contiguous (zero-padded past `n`), so the micro-kernel streams
//! one panel with unit stride while [`MR`] rows of `A` are broadcast from cache. The loop nest is
//! row blocks of [`MC`] rows (their `A` slice stays in L2) → panels (each read once per block) →
//! `MR`-row tiles: the panels are the bulk of the memory traffic, and a single short query (15
//! rows) reads each one exactly once.
//!
//! Dispatch: AVX2+FMA on x86_64 when the CPU has it (checked once), else a portable kernel with a
//! separate multiply and add (the two differ in the last bits; a process only ever uses one).
//! Rows split over the rayon pool from [`PAR_ROWS`] rows.

/// Output columns per packed panel (two 8-lane registers).
pub(crate) const NR: usize = 16;
/// Rows per register tile: 12 accumulators + 2 panel registers + 1 broadcast of the 16.
pub(crate) const MR: usize = 6;
/// Rows per cache block (a multiple of `MR`): 48 × 1536 inputs × 4 B = 288 KiB, inside L2.
const MC: usize = 48;
/// Matrices with fewer rows than this run on the calling thread. A short query (~15 rows) never
/// splits: its cost is streaming the weights, which two threads would each stream in full.
pub(crate) const PAR_ROWS: usize = 4 * MC;

/// AVX2 and FMA both present, checked once per process.
#[cfg(target_arch = "x86_64")]
pub(crate) fn use_avx2() -> bool {
    static AVX2: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *AVX2.get_or_init(|| is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma"))
}

/// A weight matrix and its bias, packed for [`gemm`].
#[derive(Debug, Clone)]
pub struct Packed {
    /// Inputs (columns of `A`).
    pub k: usize,
    /// Outputs (columns of `C`).
    pub n: usize,
    /// `ceil(n / NR)` panels of `k × NR`.
    data: Vec<f32>,
    /// The bias, zero-padded to whole panels.
    bias: Vec<f32>,
}

impl Packed {
    /// Pack `w` (`n × k`, row-major: torch's `Linear.weight`) and `bias` (`n`). The caller checks
    /// the lengths.
    pub fn new(w: &[f32], bias: &[f32], n: usize, k: usize) -> Self {
        assert!(w.len() == n * k && bias.len() == n);
        let panels = n.div_ceil(NR);
        let mut data = vec![0.0f32; panels * k * NR];
        for (p, panel) in data.chunks_exact_mut(k * NR).enumerate() {
            for c in 0..NR.min(n - p * NR) {
                let row = &w[(p * NR + c) * k..][..k];
                for (kk, &v) in row.iter().enumerate() {
                    panel[kk * NR + c] = v;
                }
            }
        }
        let mut padded = vec![0.0f32; panels * NR];
        padded[..n].copy_from_slice(bias);
        Self {
            k,
            n,
            data,
            bias: padded,
        }
    }
}

/// `c[m × n] = a[m × k] · Wᵀ + bias`, all row-major.
pub fn gemm(a: &[f32], m: usize, w: &Packed, c: &mut [f32]) {
    let (k, n) = (w.k, w.n);
    assert!(a.len() >= m * k && c.len() >= m * n);
    let rows = |a: &[f32], c: &mut [f32], rows: usize| {
        for b0 in (0..rows).step_by(MC) {
            let mc = MC.min(rows - b0);
            block(&a[b0 * k..], mc, w, &mut c[b0 * n..]);
        }
    };
    let c = &mut c[..m * n];
    match crate::parallel::pool() {
        Some(pool) if m >= PAR_ROWS => pool.install(|| {
            use rayon::prelude::*;
            let per = MC * m.div_ceil(MC * rayon::current_num_threads()).max(1);
            c.par_chunks_mut(per * n)
                .zip(a[..m * k].par_chunks(per * k))
                .for_each(|(cc, aa)| rows(aa, cc, cc.len() / n));
        }),
        _ => rows(a, c, m),
    }
}

/// One row block: every panel, `MR` rows at a time.
fn block(a: &[f32], mc: usize, w: &Packed, c: &mut [f32]) {
    let (k, n) = (w.k, w.n);
    for (p, panel) in w.data.chunks_exact(k * NR).enumerate() {
        let col = p * NR;
        let nr = NR.min(n - col);
        let bias = &w.bias[col..col + NR];
        // Tiles of balanced height (14 rows: 5 + 5 + 4, not 6 + 6 + 2): a short tile has too few
        // independent accumulators to hide the FMA latency.
        let tiles = mc.div_ceil(MR);
        let mut r0 = 0;
        for t in 0..tiles {
            let mr = mc / tiles + usize::from(t < mc % tiles);
            let a = &a[r0 * k..(r0 + mr) * k];
            let c = &mut c[r0 * n + col..];
            #[cfg(target_arch = "x86_64")]
            if use_avx2() {
                // SAFETY: avx2 and fma checked; `a` holds `mr` rows of `k`, `c` reaches row
                // `mr - 1`'s column `col + nr`, `panel` is `k × NR`, `bias` is `NR` long.
                unsafe { x86::tile(a, mr, k, panel, bias, c, n, nr) };
                r0 += mr;
                continue;
            }
            portable_tile(a, mr, k, panel, bias, c, n, nr);
            r0 += mr;
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn portable_tile(
    a: &[f32],
    mr: usize,
    k: usize,
    panel: &[f32],
    bias: &[f32],
    c: &mut [f32],
    ldc: usize,
    nr: usize,
) {
    let mut acc = [[0.0f32; NR]; MR];
    for (kk, b) in panel.chunks_exact(NR).enumerate() {
        for r in 0..mr {
            let x = a[r * k + kk];
            for (o, &bv) in acc[r].iter_mut().zip(b) {
                *o += x * bv;
            }
        }
    }
    for r in 0..mr {
        for j in 0..nr {
            c[r * ldc + j] = acc[r][j] + bias[j];
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{MR, NR};
    use std::arch::x86_64::*;

    #[allow(clippy::too_many_arguments)]
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn tile(
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
}
