//! Exact counting: the hand-written splitter of `pretok` feeding the `bpe` crate's byte-pair
//! counter, with a bounded per-thread cache of the counts of short pieces.
//!
//! Chat text repeats its pieces (" the", " I", "'s", ...) so most pieces are cache hits. The
//! cache packs a piece of 2-15 bytes and its count into one `u64`/`u128` word (no allocation,
//! small enough to stay in L2: a hash map of 32-byte entries measured ~1.4x slower from cache
//! misses) and clears itself when 3/4 full. It lives as long as the thread (like the word cache
//! of HF tokenizers' BPE), so repeated calls on similar text get faster.

use std::cell::RefCell;

use bpe_openai::byte_pair_encoding::BytePairEncoding;

use super::pretok;
use super::Encoding;

/// An open-addressing set of packed `(piece, count)` words: the piece's bytes in the low bytes,
/// its length in the next 4 bits and its token count (at most its length) in the top 4 bits.
/// Linear probing; 0 is an empty slot (a stored piece has length >= 2); cleared when 3/4 full.
macro_rules! piece_table {
    ($name:ident, $word:ty, $max_len:expr, $slots_log2:expr) => {
        struct $name {
            slots: Vec<$word>,
            len: usize,
        }

        impl $name {
            const MAX_LEN: usize = $max_len;
            const BITS: u32 = <$word>::BITS;

            fn new() -> Self {
                Self {
                    slots: vec![0; 1 << $slots_log2],
                    len: 0,
                }
            }

            /// The key of `s[start..start + n]` (`2 <= n <= MAX_LEN`).
            #[inline(always)]
            fn key(s: &[u8], start: usize, n: usize) -> $word {
                const W: usize = std::mem::size_of::<$word>();
                let word = match s.get(start..start + W) {
                    Some(w) => <$word>::from_le_bytes(w.try_into().unwrap_or([0; W])),
                    None => {
                        let mut buf = [0u8; W];
                        buf[..n].copy_from_slice(&s[start..start + n]);
                        <$word>::from_le_bytes(buf)
                    }
                };
                let mask: $word = (1 << (8 * n)) - 1;
                (word & mask) | ((n as $word) << (Self::BITS - 8))
            }

            #[inline(always)]
            fn get_or_insert(&mut self, key: $word, count: impl FnOnce() -> usize) -> usize {
                let mask = (1usize << $slots_log2) - 1;
                let hi = (key >> (Self::BITS / 2)) as u64;
                let lo = key as u64;
                let h = (lo ^ hi.rotate_left(23)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
                let mut idx = (h >> (64 - $slots_log2)) as usize;
                let count_bits: $word = 0xF << (Self::BITS - 4);
                loop {
                    let slot = self.slots[idx];
                    if slot == 0 {
                        break;
                    }
                    if slot & !count_bits == key {
                        return (slot >> (Self::BITS - 4)) as usize;
                    }
                    idx = (idx + 1) & mask;
                }
                let c = count();
                if self.len * 4 >= self.slots.len() * 3 {
                    self.slots.fill(0);
                    self.len = 0;
                    idx = (h >> (64 - $slots_log2)) as usize;
                }
                self.slots[idx] = key | ((c.min(15) as $word) << (Self::BITS - 4));
                self.len += 1;
                c
            }
        }
    };
}

// Sized for the 10k-turn chat bench (12.9k distinct pieces of 2-7 bytes, 7.4k of 8-15 bytes):
// at half the size the tables refilled every ~3k turns and the counter was ~1.5x slower.
piece_table!(ShortTable, u64, 7, 15u32);
piece_table!(LongTable, u128, 15, 14u32);

/// Per-thread cache of the counts of pieces of 2-15 bytes (512 KB per encoding).
struct Cache {
    short: ShortTable,
    long: LongTable,
}

impl Default for Cache {
    fn default() -> Self {
        Self {
            short: ShortTable::new(),
            long: LongTable::new(),
        }
    }
}

thread_local! {
    static CACHES: RefCell<[Cache; 2]> = RefCell::new([Cache::default(), Cache::default()]);
}

#[inline(always)]
fn piece_count(
    bpe: &BytePairEncoding,
    cache: &mut Cache,
    s: &[u8],
    start: usize,
    end: usize,
) -> usize {
    let n = end - start;
    let piece = &s[start..end];
    if n <= 1 {
        // Every single byte is a token of both vocabularies.
        n
    } else if n <= ShortTable::MAX_LEN {
        let key = ShortTable::key(s, start, n);
        cache.short.get_or_insert(key, || bpe.count(piece))
    } else if n <= LongTable::MAX_LEN {
        let key = LongTable::key(s, start, n);
        cache.long.get_or_insert(key, || bpe.count(piece))
    } else {
        bpe.count(piece)
    }
}

fn count_with(text: &str, encoding: Encoding, cache: &mut Cache) -> usize {
    let bpe = &encoding.tokenizer().bpe;
    let s = text.as_bytes();
    let mut total = 0usize;
    match encoding {
        Encoding::O200kBase => pretok::for_each_piece(text, pretok::next_o200k, |a, b| {
            total += piece_count(bpe, cache, s, a, b);
        }),
        Encoding::Cl100kBase => pretok::for_each_piece(text, pretok::next_cl100k, |a, b| {
            total += piece_count(bpe, cache, s, a, b);
        }),
    }
    total
}

/// Exact token count of `text` (the same as `Tokenizer::count` of the crate, which tests check).
pub(super) fn count(text: &str, encoding: Encoding) -> usize {
    let slot = match encoding {
        Encoding::O200kBase => 0,
        Encoding::Cl100kBase => 1,
    };
    CACHES.with(|caches| match caches.try_borrow_mut() {
        Ok(mut caches) => count_with(text, encoding, &mut caches[slot]),
        // Not reachable (no re-entrancy), but never panic over a cache.
        Err(_) => count_with(text, encoding, &mut Cache::default()),
    })
}

/// The pieces of `text` under the splitter of `encoding` (for tests).
pub(super) fn pieces(text: &str, encoding: Encoding) -> Vec<String> {
    let mut out = Vec::new();
    let mut push = |a: usize, b: usize| out.push(text[a..b].to_owned());
    match encoding {
        Encoding::O200kBase => pretok::for_each_piece(text, pretok::next_o200k, &mut push),
        Encoding::Cl100kBase => pretok::for_each_piece(text, pretok::next_cl100k, &mut push),
    }
    out
}
