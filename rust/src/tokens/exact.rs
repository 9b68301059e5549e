//! Exact counting: the hand-written splitter of `pretok` feeding the `bpe` crate's byte-pair
//! counter, with a bounded per-thread cache of the counts of short pieces.
//!
//! Chat text repeats its pieces (" the", " I", "'s", ...) so most pieces are cache hits; the
//! cache holds pieces of at most 15 bytes packed into a `u128` key (no allocation) and is
//! cleared when it reaches `CACHE_CAPACITY` entries, so a thread holds at most ~1.5 MB per
//! encoding. It lives as long as the thread (like the word cache of HF tokenizers' BPE), so
//! repeated calls on similar text get faster; a cold cache costs ~1.3x on the 10k-turn bench.

use std::cell::RefCell;

use bpe_openai::byte_pair_encoding::BytePairEncoding;
use rustc_hash::FxHashMap;

use super::pretok;
use super::Encoding;

const MAX_KEY_LEN: usize = 15;
const CACHE_CAPACITY: usize = 1 << 15;

type Cache = FxHashMap<u128, u32>;

thread_local! {
    static CACHES: RefCell<[Cache; 2]> = RefCell::new([Cache::default(), Cache::default()]);
}

#[inline(always)]
fn key(piece: &[u8]) -> u128 {
    let mut buf = [0u8; 16];
    buf[..piece.len()].copy_from_slice(piece);
    buf[15] = piece.len() as u8; // distinguishes "a" from "a\0"
    u128::from_le_bytes(buf)
}

#[inline(always)]
fn piece_count(bpe: &BytePairEncoding, cache: &mut Cache, piece: &[u8]) -> usize {
    match piece.len() {
        // Every single byte is a token of both vocabularies.
        0 | 1 => piece.len(),
        n if n <= MAX_KEY_LEN => {
            let k = key(piece);
            if let Some(&c) = cache.get(&k) {
                return c as usize;
            }
            let c = bpe.count(piece);
            if cache.len() >= CACHE_CAPACITY {
                cache.clear();
            }
            cache.insert(k, u32::try_from(c).unwrap_or(u32::MAX));
            c
        }
        _ => bpe.count(piece),
    }
}

fn count_with(text: &str, encoding: Encoding, cache: &mut Cache) -> usize {
    let bpe = &encoding.tokenizer().bpe;
    let mut total = 0usize;
    match encoding {
        Encoding::O200kBase => pretok::for_each_piece(text, pretok::next_o200k, |p| {
            total += piece_count(bpe, cache, p);
        }),
        Encoding::Cl100kBase => pretok::for_each_piece(text, pretok::next_cl100k, |p| {
            total += piece_count(bpe, cache, p);
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
    let mut push = |p: &[u8]| out.push(String::from_utf8_lossy(p).into_owned());
    match encoding {
        Encoding::O200kBase => pretok::for_each_piece(text, pretok::next_o200k, &mut push),
        Encoding::Cl100kBase => pretok::for_each_piece(text, pretok::next_cl100k, &mut push),
    }
    out
}
