//! Feature accumulation of the hashing embedder: token hashes in, L2-normalised vectors out.
//!
//! Contract (the text-level spec is `remem.reference.hashing_embedder`; the kernel-level twin is
//! `remem.reference.hashembed`). The caller tokenises and hashes (NFKC, casefold, `TOKEN_RE`,
//! blake2b `t(tok)` stay in Python, where they are defined); the kernel gets a batch as CSR:
//! - text `i` is the token occurrences `ids[text_offsets[i]..text_offsets[i+1]]`, each an index
//!   into the batch's unique tokens; unique token `u` has the hash `hashes[u]` and the code points
//!   `chars[char_offsets[u]..char_offsets[u+1]]` (any `u32`; a Python `str` gives ≤ 0x10FFFF);
//! - features of a text, in this order (the spec's order, which fixes the float64 sums):
//!   `t("")` (`empty_hash`) with weight 1.0 when the text has no tokens; word n-grams for n in
//!   `ngram_range` (`h = t(tok_1)`, then `h = mix(h·GOLDEN ^ t(tok_j))`), weight 1.0 for n = 1
//!   and 0.7 above, by n then start; then for each occurrence the character n-grams of its
//!   space-padded code points for n in `char_ngrams` (FNV-1a from `FNV_OFFSET ^ mix(seed)`, then
//!   `mix`), weight 0.35, by n then start;
//! - bucket `h % dimension`, sign − when bit 63 of `h` is set; buckets sum in f64 in feature
//!   order; `v = sign(v)·ln_1p(|v|)`; the norm is a sequential f64 sum of squares in bucket
//!   order; rows whose buckets all cancel stay 0; the quotient is rounded to f32.
//!
//! Each unique token's character features (bucket and sign) are computed once per call (chat
//! text repeats its words, so a batch touches each distinct token many times), then every
//! occurrence adds them from that table.
//!
//! Parallelism: rows are split into chunks, each with its own f64 accumulator; the per-token
//! character tables are split over tokens. Neither changes any sum's order, so the result does
//! not depend on the thread count.

mod chars;

use rayon::prelude::*;

use crate::error::{KernelError, KernelResult};
use chars::CharTable;

/// Largest `dimension` (buckets are packed with their sign into a `u32`).
pub const MAX_DIMENSION: usize = 1 << 20;
/// Largest word n-gram.
pub const MAX_NGRAM: usize = 8;
/// Largest character n-gram.
pub const MAX_CHAR_NGRAM: usize = 12;

pub const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;
pub const FNV_OFFSET: u64 = 0xCBF2_9CE4_8422_2325;
pub const FNV_PRIME: u64 = 0x0100_0000_01B3;
pub const WORD_WEIGHT: f64 = 1.0;
pub const NGRAM_WEIGHT: f64 = 0.7;
pub const CHAR_WEIGHT: f64 = 0.35;

/// Batches with fewer token occurrences (plus texts) than this run on the calling thread.
/// Measured (release, 2-core EPYC with the other core busy, `benches/bench_embeddings.py` chat
/// turns, d = 384, threshold forced to 1 vs `REMEM_NUM_THREADS=1`): a chat turn (~23 tokens)
/// costs ~1.9 µs; 2 threads lost below 256 turns (8 turns: 86 vs 18 µs; 256 turns / 5.7k
/// occurrences: 476 vs 458 µs) and won from about 1k turns (23k occurrences: 1.68 vs 1.86 ms;
/// 10k turns: 15.6 vs 18.9 ms).
const PAR_OCCURRENCES: usize = 1 << 14;
/// Rows per parallel chunk, at least (one accumulator allocation per chunk).
const MIN_CHUNK_ROWS: usize = 16;

/// splitmix64's finaliser.
#[inline]
pub fn mix(x: u64) -> u64 {
    let z = x.wrapping_add(GOLDEN);
    let z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    let z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A tokenised batch, borrowed (see the module docs).
#[derive(Debug, Clone, Copy)]
pub struct Batch<'a> {
    /// `n_texts + 1` offsets into `ids`.
    pub text_offsets: &'a [i64],
    /// One index into the unique tokens per occurrence.
    pub ids: &'a [i64],
    /// `t(tok)` of each unique token.
    pub hashes: &'a [u64],
    /// `n_unique + 1` offsets into `chars`.
    pub char_offsets: &'a [i64],
    /// The unique tokens' code points, concatenated.
    pub chars: &'a [u32],
}

/// The embedder's parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Params {
    /// Buckets, in `[2, MAX_DIMENSION]`.
    pub dimension: usize,
    /// `(lo, hi)` with `1 <= lo <= hi <= MAX_NGRAM`.
    pub ngram_range: (usize, usize),
    /// `(lo, hi)` with `1 <= lo <= hi <= MAX_CHAR_NGRAM`, or `None` for no character n-grams.
    pub char_ngrams: Option<(usize, usize)>,
    pub seed: u64,
    /// `t("")`, the single feature of a text without tokens.
    pub empty_hash: u64,
}

fn out_of_range(name: &'static str, detail: String) -> KernelError {
    KernelError::OutOfRange { name, detail }
}

fn check_params(p: &Params) -> KernelResult<()> {
    if !(2..=MAX_DIMENSION).contains(&p.dimension) {
        return Err(out_of_range(
            "dimension",
            format!("{} is not in [2, {MAX_DIMENSION}]", p.dimension),
        ));
    }
    let ranges = [("ngram_range", Some(p.ngram_range), MAX_NGRAM)];
    let chars = [("char_ngrams", p.char_ngrams, MAX_CHAR_NGRAM)];
    for (name, range, max) in ranges.into_iter().chain(chars) {
        if let Some((lo, hi)) = range {
            if !(1 <= lo && lo <= hi && hi <= max) {
                return Err(out_of_range(
                    name,
                    format!("({lo}, {hi}) does not satisfy 1 <= lo <= hi <= {max}"),
                ));
            }
        }
    }
    Ok(())
}

/// Check CSR offsets: `items + 1` of them, starting at 0, non-decreasing, ending at `total`.
fn check_offsets(
    name: &'static str,
    offsets: &[i64],
    items: usize,
    total: usize,
) -> KernelResult<()> {
    if offsets.len() != items + 1 {
        return Err(KernelError::Length {
            name,
            expected: items + 1,
            actual: offsets.len(),
        });
    }
    let bad = |detail: String| out_of_range(name, detail);
    if offsets[0] != 0 {
        return Err(bad(format!("it starts at {}, not 0", offsets[0])));
    }
    if let Some(i) = offsets.windows(2).position(|w| w[1] < w[0]) {
        let (a, b) = (offsets[i], offsets[i + 1]);
        return Err(bad(format!("it decreases from {a} to {b} at index {i}")));
    }
    let last = offsets[items];
    if usize::try_from(last).ok() != Some(total) {
        return Err(bad(format!(
            "it ends at {last}, but there are {total} items"
        )));
    }
    Ok(())
}

fn check_batch(b: &Batch<'_>) -> KernelResult<usize> {
    let n = b
        .text_offsets
        .len()
        .checked_sub(1)
        .ok_or_else(|| KernelError::Invalid {
            detail: "text_offsets is empty; it needs n_texts + 1 entries (at least [0])".into(),
        })?;
    check_offsets("text_offsets", b.text_offsets, n, b.ids.len())?;
    let n_unique = b.hashes.len();
    check_offsets("char_offsets", b.char_offsets, n_unique, b.chars.len())?;
    if let Some(i) = b
        .ids
        .iter()
        .position(|&id| usize::try_from(id).map_or(true, |u| u >= n_unique))
    {
        return Err(out_of_range(
            "ids",
            format!("ids[{i}] = {} is not in [0, {n_unique})", b.ids[i]),
        ));
    }
    Ok(n)
}

/// The `(n_texts × dimension)` float32 vectors of a batch, row-major; see the module docs.
///
/// Errors: `OutOfRange` for a parameter outside its range, offsets that do not start at 0,
/// decrease or do not end at their array's length, or an id outside the unique tokens; `Length`
/// when `char_offsets` is not `hashes.len() + 1` long; `Invalid` for an empty `text_offsets` or
/// an output too large to allocate.
pub fn embed(batch: &Batch<'_>, params: &Params) -> KernelResult<Vec<f32>> {
    check_params(params)?;
    let n = check_batch(batch)?;
    let d = params.dimension;
    let cells = n
        .checked_mul(d)
        .filter(|&c| c <= isize::MAX as usize / 4)
        .ok_or_else(|| too_large(n, d))?;
    let table = params
        .char_ngrams
        .map(|range| CharTable::build(batch, range, params));
    let table = table.as_ref();
    // Rows `first..` into `out`, with one accumulator for all of them.
    let fill = |out: &mut [f32], first: usize| {
        let mut acc = vec![0.0f64; d];
        let mut scratch = Scratch {
            memo: Log1pMemo::new(),
            nonzero: Vec::new(),
        };
        for (r, row) in out.chunks_mut(d).enumerate() {
            embed_row(batch, first + r, params, table, &mut acc, &mut scratch, row);
        }
    };
    let rows = |parallel: bool| -> KernelResult<Vec<f32>> {
        let mut out = Vec::new();
        out.try_reserve_exact(cells).map_err(|_| too_large(n, d))?;
        out.resize(cells, 0.0f32);
        if parallel {
            let per = MIN_CHUNK_ROWS.max(n.div_ceil(4 * rayon::current_num_threads()));
            out.par_chunks_mut(per * d)
                .enumerate()
                .for_each(|(c, chunk)| fill(chunk, c * per));
        } else {
            fill(&mut out, 0);
        }
        Ok(out)
    };
    crate::parallel::run(
        batch.ids.len() + n,
        PAR_OCCURRENCES,
        || rows(true),
        || rows(false),
    )
}

fn too_large(n: usize, d: usize) -> KernelError {
    KernelError::Invalid {
        detail: format!(
            "{n} vectors of dimension {d} do not fit in memory; embed fewer texts per call"
        ),
    }
}

/// Add one feature to its bucket, negated when bit 63 of `h` is set.
#[inline]
fn add(acc: &mut [f64], h: u64, weight: f64) {
    let bucket = (h % acc.len() as u64) as usize;
    acc[bucket] += if h >> 63 == 0 { weight } else { -weight };
}

/// One text: accumulate its features into `acc` (all zero on entry and on return), then write
/// the normalised row into `out` (all zero on entry).
fn embed_row(
    batch: &Batch<'_>,
    row: usize,
    p: &Params,
    table: Option<&CharTable>,
    acc: &mut [f64],
    scratch: &mut Scratch,
    out: &mut [f32],
) {
    // Offsets and ids were checked by `check_batch`.
    let lo = batch.text_offsets[row] as usize;
    let hi = batch.text_offsets[row + 1] as usize;
    let ids = &batch.ids[lo..hi];
    let hash = |i: usize| batch.hashes[ids[i] as usize];
    if ids.is_empty() {
        add(acc, p.empty_hash, WORD_WEIGHT);
    }
    for k in p.ngram_range.0..=p.ngram_range.1 {
        let weight = if k == 1 { WORD_WEIGHT } else { NGRAM_WEIGHT };
        for start in 0..(ids.len() + 1).saturating_sub(k) {
            let mut h = hash(start);
            for j in start + 1..start + k {
                h = mix(h.wrapping_mul(GOLDEN) ^ hash(j));
            }
            add(acc, h, weight);
        }
    }
    if let Some(table) = table {
        for &id in ids {
            for &f in table.features(id as usize) {
                let (bucket, negative) = chars::unpack(f);
                acc[bucket] += if negative { -CHAR_WEIGHT } else { CHAR_WEIGHT };
            }
        }
    }
    finish_row(acc, scratch, out);
}

/// `ln_1p` of recently seen values. A bucket holds a sum of a few ±1.0/0.7/0.35 weights, so a
/// row's buckets take few distinct values and `ln_1p` (~20 ns, most of a row's cost) is mostly
/// looked up. Exact: a value's result is keyed by its bits.
struct Log1pMemo {
    keys: [u64; MEMO_SLOTS],
    values: [f64; MEMO_SLOTS],
}

const MEMO_SLOTS: usize = 256;

impl Log1pMemo {
    fn new() -> Self {
        // NaN bits: never the absolute value of a finite bucket.
        Self {
            keys: [u64::MAX; MEMO_SLOTS],
            values: [0.0; MEMO_SLOTS],
        }
    }

    #[inline]
    fn ln_1p(&mut self, x: f64) -> f64 {
        let bits = x.to_bits();
        let slot = (bits.wrapping_mul(GOLDEN) >> 56) as usize % MEMO_SLOTS;
        if self.keys[slot] != bits {
            self.keys[slot] = bits;
            self.values[slot] = x.ln_1p();
        }
        self.values[slot]
    }
}

/// Sublinear tf, L2 normalisation, f32 rounding into `out` (all zero on entry); leaves `acc`
/// zeroed. Zero buckets stay 0 (0 / norm is +0), so only the non-zero ones are written.
///
/// The scan is branch-free (a zero maps to `ln_1p(0) = 0`): about half of a chat turn's buckets
/// are non-zero in no predictable pattern, and mispredicted branches cost more than the lookups.
/// The norm then sums the non-zero squares in bucket order (adding +0 changes no sum).
fn finish_row(acc: &mut [f64], scratch: &mut Scratch, out: &mut [f32]) {
    let Scratch { memo, nonzero } = scratch;
    nonzero.resize(acc.len(), 0);
    let mut len = 0;
    for (b, v) in acc.iter_mut().enumerate() {
        let x = *v;
        *v = memo.ln_1p(x.abs()).copysign(x);
        nonzero[len] = b;
        len += usize::from(x != 0.0);
    }
    let nonzero = &nonzero[..len];
    let sum_sq = nonzero.iter().fold(0.0f64, |s, &b| s + acc[b] * acc[b]);
    let norm = sum_sq.sqrt();
    for &b in nonzero {
        out[b] = if norm > 0.0 {
            (acc[b] / norm) as f32
        } else {
            acc[b] as f32
        };
        acc[b] = 0.0;
    }
}

/// Per-thread working memory reused across rows.
struct Scratch {
    memo: Log1pMemo,
    /// The non-zero buckets of the current row, ascending, in its first entries.
    nonzero: Vec<usize>,
}

#[cfg(test)]
mod tests;
