//! Character n-gram features of each unique token, computed once per call.

use rayon::prelude::*;

use super::{mix, Batch, Params, FNV_OFFSET, FNV_PRIME};

/// Tables with fewer character features than this are built on the calling thread. Measured
/// (release, 2-core EPYC with the other core busy, random 2-10 letter words so nearly every token
/// is distinct, ~15 features each, table split forced on vs `REMEM_NUM_THREADS=1`): break-even at
/// ~5.4k tokens (~80k features, 1.0 vs 1.1 ms), a 5-15% win from 20k tokens (~300k features).
const PAR_FEATURES: usize = 1 << 17;
/// U+0020, the padding on both sides of a token.
const SPACE: u32 = 0x20;
const SIGN: u32 = 1 << 31;

/// A feature packed as its bucket (< 2^20) with the sign in bit 31.
#[inline]
pub(super) fn unpack(f: u32) -> (usize, bool) {
    ((f & !SIGN) as usize, f & SIGN != 0)
}

/// Features of token `u`: `packed[ptr[u]..ptr[u + 1]]`, by n then start position.
pub(super) struct CharTable {
    ptr: Vec<usize>,
    packed: Vec<u32>,
}

/// Character n-grams of sizes `lo..=hi` of a token of `len` code points padded to `len + 2`.
fn feature_count(len: usize, (lo, hi): (usize, usize)) -> usize {
    (lo..=hi).map(|n| (len + 3).saturating_sub(n)).sum()
}

impl CharTable {
    /// The table of every unique token of `batch` (offsets already checked).
    pub(super) fn build(batch: &Batch<'_>, range: (usize, usize), p: &Params) -> Self {
        let ptr = feature_offsets(batch.char_offsets, range);
        let total = ptr[ptr.len() - 1];
        let hasher = Hasher {
            range,
            basis: FNV_OFFSET ^ mix(p.seed),
            dimension: p.dimension as u64,
        };
        let build = |parallel: bool| {
            let mut packed = vec![0u32; total];
            if parallel {
                let parts = split(&ptr, &mut packed, 4 * rayon::current_num_threads());
                parts
                    .into_par_iter()
                    .for_each(|(first, dst)| hasher.fill(batch, &ptr, first, dst));
            } else {
                hasher.fill(batch, &ptr, 0, &mut packed);
            }
            packed
        };
        let packed = crate::parallel::run(total, PAR_FEATURES, || build(true), || build(false));
        Self { ptr, packed }
    }

    #[inline]
    pub(super) fn features(&self, token: usize) -> &[u32] {
        &self.packed[self.ptr[token]..self.ptr[token + 1]]
    }
}

/// Where each token's features start in the table: `n_unique + 1` prefix sums.
fn feature_offsets(char_offsets: &[i64], range: (usize, usize)) -> Vec<usize> {
    let mut ptr = Vec::with_capacity(char_offsets.len());
    ptr.push(0usize);
    for w in char_offsets.windows(2) {
        let len = (w[1] - w[0]) as usize;
        ptr.push(ptr[ptr.len() - 1] + feature_count(len, range));
    }
    ptr
}

/// What a token's features depend on besides its code points.
struct Hasher {
    range: (usize, usize),
    basis: u64,
    dimension: u64,
}

impl Hasher {
    /// Fill `dst`, the features of tokens `first..` until it is full.
    fn fill(&self, batch: &Batch<'_>, ptr: &[usize], first: usize, dst: &mut [u32]) {
        let mut padded = Vec::new();
        let mut at = 0;
        for u in first..ptr.len() - 1 {
            if at == dst.len() {
                break;
            }
            let (lo, hi) = (
                batch.char_offsets[u] as usize,
                batch.char_offsets[u + 1] as usize,
            );
            padded.clear();
            padded.push(SPACE);
            padded.extend_from_slice(&batch.chars[lo..hi]);
            padded.push(SPACE);
            let len = ptr[u + 1] - ptr[u];
            self.token(&padded, &mut dst[at..at + len]);
            at += len;
        }
    }

    /// FNV-1a then `mix` over every window of sizes `lo..=hi`, packed, in the spec's order.
    fn token(&self, padded: &[u32], out: &mut [u32]) {
        let mut slots = out.iter_mut();
        for n in self.range.0..=self.range.1 {
            for window in padded.windows(n) {
                let h = window.iter().fold(self.basis, |h, &c| {
                    (h ^ u64::from(c)).wrapping_mul(FNV_PRIME)
                });
                let h = mix(h);
                let sign = if h >> 63 == 0 { 0 } else { SIGN };
                if let Some(slot) = slots.next() {
                    *slot = (h % self.dimension) as u32 | sign;
                }
            }
        }
    }
}

/// `packed` cut at token boundaries into about `parts` pieces of similar size, each with the index
/// of its first token.
fn split<'a>(ptr: &[usize], packed: &'a mut [u32], parts: usize) -> Vec<(usize, &'a mut [u32])> {
    let total = packed.len();
    let step = total.div_ceil(parts.max(1)).max(1);
    let mut pieces = Vec::with_capacity(parts + 1);
    let mut rest = packed;
    let (mut first, mut taken) = (0usize, 0usize);
    let mut token_ranges = 0..ptr.len() - 1;
    while !rest.is_empty() {
        // The first token boundary at least `step` features past `taken`.
        let end = token_ranges
            .find(|&u| ptr[u + 1] >= taken + step)
            .map_or(total, |u| ptr[u + 1]);
        let (head, tail) = rest.split_at_mut(end - taken);
        pieces.push((first, head));
        rest = tail;
        first = ptr.partition_point(|&x| x <= end) - 1;
        taken = end;
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tokens of lengths 0, 1, 5, 0, 2 (empty ones have no features for n >= 3).
    fn batch<'a>(offsets: &'a [i64], chars: &'a [u32], hashes: &'a [u64]) -> Batch<'a> {
        Batch {
            text_offsets: &[0],
            ids: &[],
            hashes,
            char_offsets: offsets,
            chars,
        }
    }

    #[test]
    fn split_pieces_fill_the_same_table() {
        let offsets = [0, 0, 1, 6, 6, 8];
        let chars = [97, 98, 0x1F600, 0x10FFFF, 99, u32::MAX, 100, 101];
        let hashes = [0; 5];
        let b = batch(&offsets, &chars, &hashes);
        for range in [(1, 1), (3, 5), (1, 12), (4, 4)] {
            let ptr = feature_offsets(&offsets, range);
            let hasher = Hasher {
                range,
                basis: FNV_OFFSET ^ mix(7),
                dimension: 1000,
            };
            let mut whole = vec![0u32; ptr[5]];
            hasher.fill(&b, &ptr, 0, &mut whole);
            for parts in 1..=12 {
                let mut packed = vec![0u32; ptr[5]];
                let pieces = split(&ptr, &mut packed, parts);
                assert!(pieces.len() <= parts + 1);
                for (first, dst) in pieces {
                    hasher.fill(&b, &ptr, first, dst);
                }
                assert_eq!(packed, whole, "range {range:?}, {parts} parts");
            }
        }
    }

    #[test]
    fn counts_windows_of_the_padded_token() {
        assert_eq!(feature_count(0, (3, 5)), 0);
        assert_eq!(feature_count(1, (3, 5)), 1);
        assert_eq!(feature_count(4, (3, 5)), 4 + 3 + 2);
        assert_eq!(feature_count(0, (1, 2)), 2 + 1);
    }
}
