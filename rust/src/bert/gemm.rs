//! `C = A · Wᵀ + b` for the encoder's linear layers, over weights packed once at load.
//!
//! `W` comes in torch's `Linear` layout (`n` outputs × `k` inputs). Packing cuts it into panels
//! of [`NR`] outputs, each `depth × NR` contiguous (zero-padded past `n`), so the micro-kernel
//! streams one panel with unit stride while a tile of rows of `A` is broadcast from cache. The
//! loop nest is row blocks of [`MC`] rows (their `A` slice stays in L2) → panels (each read once
//! per block) → tiles: the panels are the bulk of the memory traffic, and a single short query
//! (15 rows) reads each one exactly once.
//!
//! Two precisions ([`Precision`]): float32 panels (`depth = k`), or bfloat16 panels in which a
//! panel element is a pair of consecutive inputs (`depth = ⌈k/2⌉`, the odd one zero-padded) —
//! the layout of AVX512_BF16's `vdpbf16ps`, which multiplies 16 such pairs and adds both products
//! to float32 accumulators. In bf16 the rows of `A` are rounded to bf16 (nearest even) per call;
//! the products are exact and the sums float32, so the error is the rounding of both operands
//! (relative 2⁻⁹ each), about 1e-3 relative on a dot product of MiniLM's size.
//!
//! Kernels ([`Kernel`], chosen once per process from the CPU, every one tested against a triple
//! loop): float32 — AVX2+FMA, else portable with a separate multiply and add; bf16 — AVX-512 with
//! `vdpbf16ps` over two panels at a time, else portable (products widened to f32).
//!
//! Parallelism: a matrix of [`PAR_ROWS`] rows or more splits its rows over the rayon pool; a
//! shorter one with at least [`PAR_PANEL_WORK`] multiply-adds splits its panels instead (each
//! thread streams its share of the weights — a short query is bound by streaming them).

mod portable;
mod x86;

#[cfg(test)]
use portable::{bf16, from_bf16};
use portable::{portable_tile, portable_tile_bf16, to_pairs};

use std::ops::Range;

/// Output columns per packed panel.
pub(crate) const NR: usize = 16;
/// Rows per float32 register tile: 12 accumulators + 2 panel registers + 1 broadcast of the 16.
pub(crate) const MR: usize = 6;
/// Rows per bf16 tile (two panels): 24 accumulators + 2 panel registers + 1 broadcast of the 32.
pub(crate) const MR_BF16: usize = 12;
/// Rows per cache block (a multiple of `MR` and `MR_BF16`): 48 × 1536 inputs × 4 B = 288 KiB.
const MC: usize = 48;
/// Matrices with this many rows or more split their rows over the pool.
pub(crate) const PAR_ROWS: usize = 4 * MC;
/// Shorter matrices split their panels from this many multiply-adds (`m·n·k`): a 15-token query's
/// smallest GEMM (15 × 384 × 384 = 2.2M) splits, a tiny test model's does not. Not tuned finer:
/// on the (heavily shared) 2-core machine the best float32 query time went from 7.7–8.9 ms on one
/// thread to 5.4–6.9 ms split, while medians were set by contention (REMEM_NUM_THREADS=1 keeps a
/// query on one thread).
pub(crate) const PAR_PANEL_WORK: usize = 1 << 20;
/// With the AVX-512 bf16 kernel a panel split also needs this many rows: that kernel does twice
/// the float32 kernel's work per cycle, so a short query's GEMMs are over before the pool's
/// fork-join pays. Measured on the 2-core EPYC (one MiniLM sentence of w words at a time, p50 of
/// 40, two runs; pool → one thread): w = 6 1.04–1.75 → 0.79–0.82 ms, 12 1.80–2.15 → 1.31, 20
/// 2.64–3.34 → 2.01, 32 3.43–4.41 → 3.28, 48 5.45–6.52 → 5.43–5.54, 64 7.25–7.28 → 7.59–7.83,
/// 128 19.3–20.0 → 20.9–21.0; float32 splits at every length (w = 6: 2.2 → 2.9–3.0 alone).
pub(crate) const PAR_PANEL_ROWS_BF16: usize = 64;

/// How a [`Packed`] matrix stores its weights.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precision {
    F32,
    Bf16,
}

impl Precision {
    /// From its Python name, `"float32"` or `"bfloat16"`.
    pub fn parse(name: &str) -> crate::error::KernelResult<Self> {
        match name {
            "float32" => Ok(Self::F32),
            "bfloat16" => Ok(Self::Bf16),
            _ => Err(crate::error::KernelError::Invalid {
                detail: format!("unknown precision {name:?}; use float32 or bfloat16"),
            }),
        }
    }
}

/// A micro-kernel; each works on one [`Precision`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kernel {
    Portable,
    Avx2,
    PortableBf16,
    Avx512Bf16,
}

impl Kernel {
    pub(crate) fn precision(self) -> Precision {
        match self {
            Self::Portable | Self::Avx2 => Precision::F32,
            Self::PortableBf16 | Self::Avx512Bf16 => Precision::Bf16,
        }
    }

    /// The kernels this CPU can run, fastest first within each precision.
    #[cfg(test)]
    pub(crate) fn available() -> Vec<Self> {
        let mut out = Vec::with_capacity(4);
        if use_avx2() {
            out.push(Self::Avx2);
        }
        out.push(Self::Portable);
        if use_avx512_bf16() {
            out.push(Self::Avx512Bf16);
        }
        out.push(Self::PortableBf16);
        out
    }

    /// The fewest rows for which a GEMM splits its panels over the pool (see
    /// [`PAR_PANEL_ROWS_BF16`]).
    fn panel_rows(self) -> usize {
        match self {
            Self::Avx512Bf16 => PAR_PANEL_ROWS_BF16,
            Self::Portable | Self::Avx2 | Self::PortableBf16 => 1,
        }
    }

    fn best(precision: Precision) -> Self {
        match precision {
            Precision::F32 if use_avx2() => Self::Avx2,
            Precision::F32 => Self::Portable,
            Precision::Bf16 if use_avx512_bf16() => Self::Avx512Bf16,
            Precision::Bf16 => Self::PortableBf16,
        }
    }
}

/// AVX2 and FMA both present, checked once per process.
pub(crate) fn use_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        static AVX2: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        *AVX2.get_or_init(|| is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma"))
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// AVX-512F and AVX512_BF16 both present, checked once per process.
pub(crate) fn use_avx512_bf16() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        static BF16: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        *BF16.get_or_init(|| {
            is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bf16")
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

#[derive(Debug, Clone)]
enum Panels {
    F32(Vec<f32>),
    Bf16(Vec<u32>),
}

/// A weight matrix and its bias, packed for [`gemm`].
#[derive(Debug, Clone)]
pub struct Packed {
    /// Inputs (columns of `A`).
    pub k: usize,
    /// Outputs (columns of `C`).
    pub n: usize,
    /// Elements per panel row: `k` (f32) or `⌈k/2⌉` (bf16 pairs).
    depth: usize,
    /// `ceil(n / NR)` panels of `depth × NR`.
    data: Panels,
    /// The bias, zero-padded to whole panels.
    bias: Vec<f32>,
}

impl Packed {
    /// Pack `w` (`n × k`, row-major: torch's `Linear.weight`) and `bias` (`n`). The caller checks
    /// the lengths.
    pub fn new(w: &[f32], bias: &[f32], n: usize, k: usize, precision: Precision) -> Self {
        assert!(w.len() == n * k && bias.len() == n);
        let panels = n.div_ceil(NR);
        let (depth, data) = match precision {
            Precision::F32 => {
                let mut data = vec![0.0f32; panels * k * NR];
                for (p, panel) in data.chunks_exact_mut(k * NR).enumerate() {
                    for c in 0..NR.min(n - p * NR) {
                        let row = &w[(p * NR + c) * k..][..k];
                        for (kk, &v) in row.iter().enumerate() {
                            panel[kk * NR + c] = v;
                        }
                    }
                }
                (k, Panels::F32(data))
            }
            Precision::Bf16 => {
                let depth = k.div_ceil(2);
                let pairs = to_pairs(w, n, k);
                let mut data = vec![0u32; panels * depth * NR];
                for (p, panel) in data.chunks_exact_mut(depth * NR).enumerate() {
                    for c in 0..NR.min(n - p * NR) {
                        let row = &pairs[(p * NR + c) * depth..][..depth];
                        for (kp, &v) in row.iter().enumerate() {
                            panel[kp * NR + c] = v;
                        }
                    }
                }
                (depth, Panels::Bf16(data))
            }
        };
        let mut padded = vec![0.0f32; panels * NR];
        padded[..n].copy_from_slice(bias);
        Self {
            k,
            n,
            depth,
            data,
            bias: padded,
        }
    }

    pub fn precision(&self) -> Precision {
        match self.data {
            Panels::F32(_) => Precision::F32,
            Panels::Bf16(_) => Precision::Bf16,
        }
    }
}

/// `A` as the kernels read it: float32 rows of `k`, or bf16-pair rows of `⌈k/2⌉`.
#[derive(Clone, Copy)]
enum Lhs<'a> {
    F32(&'a [f32]),
    Bf16(&'a [u32]),
}

impl<'a> Lhs<'a> {
    fn skip_rows(self, r: usize, depth: usize) -> Self {
        match self {
            Self::F32(a) => Self::F32(&a[r * depth..]),
            Self::Bf16(a) => Self::Bf16(&a[r * depth..]),
        }
    }
}

/// `c[m × n] = a[m × k] · Wᵀ + bias`, all row-major, with the best kernel for `w`'s precision;
/// over the pool when `par` (and the matrix is large enough), else on the calling thread.
pub fn gemm(a: &[f32], m: usize, w: &Packed, c: &mut [f32], par: bool) {
    gemm_with(Kernel::best(w.precision()), a, m, w, c, par);
}

/// [`gemm`] with a chosen kernel (which the CPU must support and which must match `w`'s
/// precision; the tests run each one).
pub(crate) fn gemm_with(kernel: Kernel, a: &[f32], m: usize, w: &Packed, c: &mut [f32], par: bool) {
    let (k, n, depth) = (w.k, w.n, w.depth);
    assert!(kernel.precision() == w.precision() && a.len() >= m * k && c.len() >= m * n);
    let pairs;
    let lhs = match w.precision() {
        Precision::F32 => Lhs::F32(&a[..m * k]),
        Precision::Bf16 => {
            pairs = to_pairs(a, m, k);
            Lhs::Bf16(&pairs)
        }
    };
    let c = &mut c[..m * n];
    let panels = n.div_ceil(NR);
    match crate::parallel::pool().filter(|_| par) {
        Some(pool) if m >= PAR_ROWS => pool.install(|| {
            use rayon::prelude::*;
            let per = MC * m.div_ceil(MC * rayon::current_num_threads()).max(1);
            c.par_chunks_mut(per * n).enumerate().for_each(|(i, cc)| {
                let rows = cc.len() / n;
                let a = lhs.skip_rows(i * per, depth);
                row_blocks(kernel, a, rows, w, 0..panels, cc, n);
            });
        }),
        Some(pool) if m * n * k >= PAR_PANEL_WORK && m >= kernel.panel_rows() && panels >= 2 => {
            pool.install(|| {
                use rayon::prelude::*;
                // Whole panel pairs per thread (the bf16 kernel works two panels at a time).
                let per = 2 * panels.div_ceil(2 * rayon::current_num_threads()).max(1);
                let mut parts: Vec<(Range<usize>, usize, Vec<f32>)> = (0..panels)
                    .step_by(per)
                    .map(|p0| {
                        let p1 = (p0 + per).min(panels);
                        let cols = (p1 * NR).min(n) - p0 * NR;
                        (p0..p1, cols, vec![0.0f32; m * cols])
                    })
                    .collect();
                parts.par_iter_mut().for_each(|(range, cols, out)| {
                    row_blocks(kernel, lhs, m, w, range.clone(), out, *cols);
                });
                for (range, cols, out) in &parts {
                    let col = range.start * NR;
                    for (dst, src) in c.chunks_exact_mut(n).zip(out.chunks_exact(*cols)) {
                        dst[col..col + cols].copy_from_slice(src);
                    }
                }
            })
        }
        _ => row_blocks(kernel, lhs, m, w, 0..panels, c, n),
    }
}

/// Rows `0..m` of `a` against `panels`, into `c` (row stride `ldc`, column 0 = the first panel's).
fn row_blocks(
    kernel: Kernel,
    a: Lhs<'_>,
    m: usize,
    w: &Packed,
    panels: Range<usize>,
    c: &mut [f32],
    ldc: usize,
) {
    for b0 in (0..m).step_by(MC) {
        let mc = MC.min(m - b0);
        let a = a.skip_rows(b0, w.depth);
        block(kernel, a, mc, w, panels.clone(), &mut c[b0 * ldc..], ldc);
    }
}

/// Balanced tile heights (14 rows at MR 6: 5 + 5 + 4, not 6 + 6 + 2): a short tile has too few
/// independent accumulators to hide the FMA latency.
fn tiles(mc: usize, mr: usize) -> impl Iterator<Item = (usize, usize)> {
    let count = mc.div_ceil(mr);
    (0..count).scan(0, move |r0, t| {
        let h = mc / count + usize::from(t < mc % count);
        let start = *r0;
        *r0 += h;
        Some((start, h))
    })
}

/// One row block against a range of panels.
fn block(
    kernel: Kernel,
    a: Lhs<'_>,
    mc: usize,
    w: &Packed,
    panels: Range<usize>,
    c: &mut [f32],
    ldc: usize,
) {
    let (n, depth) = (w.n, w.depth);
    let col0 = panels.start * NR;
    let panel_len = depth * NR;
    match (a, &w.data) {
        (Lhs::F32(a), Panels::F32(data)) => {
            for p in panels {
                let panel = &data[p * panel_len..][..panel_len];
                let (col, nr) = (p * NR, NR.min(n - p * NR));
                let bias = &w.bias[col..col + NR];
                for (r0, mr) in tiles(mc, MR) {
                    let a = &a[r0 * depth..(r0 + mr) * depth];
                    let c = &mut c[r0 * ldc + col - col0..];
                    #[cfg(target_arch = "x86_64")]
                    if kernel == Kernel::Avx2 {
                        // SAFETY: `Avx2` is only chosen (or tested) when the CPU has avx2 and
                        // fma; `a` holds `mr` rows of `k`, `c` reaches row `mr - 1`'s column
                        // `nr`, `panel` is `k × NR`, `bias` is `NR` long.
                        unsafe { x86::tile(a, mr, depth, panel, bias, c, ldc, nr) };
                        continue;
                    }
                    portable_tile(a, mr, depth, panel, bias, c, ldc, nr);
                }
            }
        }
        (Lhs::Bf16(a), Panels::Bf16(data)) => {
            for p in panels.clone().step_by(2) {
                let two = p + 1 < panels.end;
                let width = if two { 2 * panel_len } else { panel_len };
                let pp = &data[p * panel_len..][..width];
                let (col, nr) = (p * NR, (2 * NR).min(n - p * NR));
                let bias = &w.bias[col..col + width / depth];
                for (r0, mr) in tiles(mc, MR_BF16) {
                    let a = &a[r0 * depth..(r0 + mr) * depth];
                    let c = &mut c[r0 * ldc + col - col0..];
                    #[cfg(target_arch = "x86_64")]
                    if kernel == Kernel::Avx512Bf16 {
                        // SAFETY: `Avx512Bf16` is only chosen (or tested) when the CPU has
                        // avx512f and avx512bf16; `a` holds `mr` rows of `depth` pairs, `pp` one
                        // or two panels of `depth × NR`, `bias` as many `NR`s, and `c` reaches
                        // row `mr - 1`'s column `nr`.
                        unsafe { x86::tile_bf16(a, mr, depth, pp, bias, c, ldc, nr) };
                        continue;
                    }
                    for (q, panel) in pp.chunks_exact(panel_len).enumerate() {
                        let nr = nr.saturating_sub(q * NR).min(NR);
                        let bias = &bias[q * NR..][..NR];
                        let c = &mut c[q * NR..];
                        portable_tile_bf16(a, mr, depth, panel, bias, c, ldc, nr);
                    }
                }
            }
        }
        _ => unreachable!("gemm_with converts A to the weights' precision"),
    }
}

#[cfg(test)]
mod tests;
