//! The token estimator: one forward pass over the UTF-8 bytes, each byte costing a calibrated
//! amount by the classes of itself and the two bytes before it. `remem.reference.tokens` is the
//! specification; this is a port of it in the same integer arithmetic, so both give identical
//! results.
//!
//! Why no pre-tokenizer split: replaying o200k's split (class masks, ~4M pieces on 10k chat turns)
//! cost almost as much as the exact count's cached BPE (the estimator was ~1.3x faster than
//! exact). A byte-class trigram model keeps the error on the five Latin kinds at or below the
//! split-and-cost model's (see the reference docstring) for a fraction of the work: per byte two
//! table loads, shifts and an add, with no state carried between iterations except the sum.

use std::sync::LazyLock;

use super::tables::{COST, N_CLASSES};

/// The reference's `_byte_class`: one of 16 classes per byte value.
const fn byte_class(b: u8) -> u8 {
    match b {
        0x0A | 0x0D => 0,                                           // newline
        0x09 | 0x0B | 0x0C | 0x20 => 1,                             // whitespace
        b'0'..=b'9' => 2,                                           // digit
        b'A'..=b'Z' => 3,                                           // upper
        b'a'..=b'z' => 4,                                           // lower
        b'"' | b'\'' | b'`' => 5,                                   // quote
        b'(' | b')' | b'[' | b']' | b'{' | b'}' | b'<' | b'>' => 6, // bracket
        0x00..=0x7F | 0xC0..=0xC2 | 0xF8..=0xFF => 7,               // punctuation
        0x80..=0xBF => 8,                                           // continuation
        0xC3..=0xCD => 4,  // Latin-1 letters, Latin extended, IPA, combining: lower
        0xCE..=0xD5 => 9,  // Greek, Cyrillic, Armenian
        0xD6..=0xDF => 10, // Hebrew, Arabic, other 2-byte scripts
        0xE0 => 11,        // Indic, Thai (U+0800-0FFF)
        0xE3..=0xE9 => 13, // CJK, kana
        0xEA..=0xED => 14, // Hangul
        0xE1 | 0xE2 | 0xEE | 0xEF => 12, // symbols, other 3-byte blocks
        0xF0..=0xF7 => 15, // astral (emoji)
    }
}

const NL: usize = 0;

static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = byte_class(b as u8);
        b += 1;
    }
    t
};

/// `CLASS2[b0 | b1 << 8]` = `CLASS[b0] << 4 | CLASS[b1]`: the classes of two bytes, one load.
/// 64 KiB; ASCII text touches ~11 KiB of it.
static CLASS2: LazyLock<Vec<u8>> = LazyLock::new(|| {
    (0..=u16::MAX)
        .map(|v| {
            let [b0, b1] = v.to_le_bytes();
            (CLASS[usize::from(b0)] << 4) | CLASS[usize::from(b1)]
        })
        .collect()
});

/// `COST4[c2 << 12 | c1 << 8 | c0 << 4 | d]` = the cost of two consecutive bytes of classes
/// `c0`, `d` after `c2`, `c1`: `COST[c2, c1, c0] + COST[c1, c0, d]`. 128 KiB.
static COST4: LazyLock<Vec<u16>> = LazyLock::new(|| {
    (0..1usize << 16)
        .map(|i| COST[i >> 4] + COST[i & 0xFFF])
        .collect()
});

/// Build the tables now, not inside a parallel section.
pub(super) fn init() {
    let _ = (CLASS2.len(), COST4.len());
}

/// Sum of the byte costs of `b` in milli-tokens.
fn total_milli(b: &[u8]) -> u64 {
    // Two bytes per step: one `CLASS2` load gives both classes, one `COST4` load both costs (the
    // byte-at-a-time loop was bound by its two loads per byte: ~1.2 GB/s). `prev` holds the
    // classes of the two bytes before the step. The masks keep the indices provably in bounds
    // (no bounds checks); the shifts encode N_CLASSES == 16.
    const _: () = assert!(N_CLASSES == 16);
    let (class2, cost4) = (&CLASS2[..], &COST4[..]);
    if class2.len() != 1 << 16 || cost4.len() != 1 << 16 {
        return 0; // unreachable: both tables are built with exactly 2^16 entries
    }
    let mut prev = (NL << 4) | NL;
    let mut sums = [0u64; 2];
    let mut step = |v: u64, sum: &mut u64| {
        let cc = usize::from(class2[(v & 0xFFFF) as usize]);
        *sum += u64::from(cost4[((prev << 8) | cc) & 0xFFFF]);
        prev = cc;
    };
    // Eight bytes per load, split into four little-endian byte pairs with shifts.
    let mut words = b.chunks_exact(8);
    for word in &mut words {
        let w = u64::from_le_bytes(word.try_into().unwrap_or([0; 8]));
        let [even, odd] = &mut sums;
        step(w, even);
        step(w >> 16, odd);
        step(w >> 32, even);
        step(w >> 48, odd);
    }
    let mut pairs = words.remainder().chunks_exact(2);
    for pair in &mut pairs {
        step(
            u64::from(u16::from_le_bytes([pair[0], pair[1]])),
            &mut sums[0],
        );
    }
    let mut total = sums[0] + sums[1];
    if let [last] = pairs.remainder() {
        let c = usize::from(CLASS[usize::from(*last)]);
        total += u64::from(COST[((prev << 4) | c) & 0xFFF]);
    }
    total
}

/// Estimated `o200k_base` token count of one text.
pub fn estimate_one(text: &str) -> i64 {
    if text.is_empty() {
        return 0;
    }
    let rounded = (total_milli(text.as_bytes()) + 500) / 1000;
    i64::try_from(rounded.max(1)).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes() {
        assert_eq!(CLASS[usize::from(b'a')], 4);
        assert_eq!(CLASS[0xC3], 4); // é
        assert_eq!(CLASS[0xA9], 8);
        assert_eq!(CLASS[0xE4], 13); // 你
        assert_eq!(CLASS[0xF0], 15); // 🎉
        assert_eq!(CLASS[usize::from(b'~')], 7);
        assert!(CLASS.iter().all(|&c| usize::from(c) < N_CLASSES));
    }

    /// The spec, byte by byte: the cost of `(c[i-2], c[i-1], c[i])`, two newlines before the text.
    fn oracle_total_milli(b: &[u8]) -> u64 {
        let (mut c2, mut c1, mut total) = (NL, NL, 0u64);
        for &byte in b {
            let c = usize::from(CLASS[usize::from(byte)]);
            total += u64::from(COST[(c2 * N_CLASSES + c1) * N_CLASSES + c]);
            (c2, c1) = (c1, c);
        }
        total
    }

    /// Deterministic fuzz: the two-bytes-per-lookup loop equals the byte-by-byte spec for every
    /// length (the u64 words, the leftover pairs and the odd last byte).
    #[test]
    fn pairwise_matches_spec() {
        let alphabet: Vec<char> = "aaaZZ 000\n\t'({,.éДд中한ا\u{94d}🎉€\u{3000}\u{7f}"
            .chars()
            .collect();
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..5_000 {
            let len = (next() % 40) as usize;
            let text: String = (0..len)
                .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                .collect();
            let b = text.as_bytes();
            for cut in [b.len(), b.len().saturating_sub(1), b.len() / 2] {
                assert_eq!(
                    total_milli(&b[..cut]),
                    oracle_total_milli(&b[..cut]),
                    "{b:?}"
                );
            }
        }
        let all: Vec<u8> = (0..=255u8).chain((0..=255u8).rev()).collect();
        assert_eq!(total_milli(&all), oracle_total_milli(&all));
    }

    #[test]
    fn basics() {
        assert_eq!(estimate_one(""), 0);
        assert_eq!(estimate_one(" "), 1);
        assert_eq!(estimate_one("hello world"), 2);
        assert_eq!(estimate_one("1234567"), 3);
        assert_eq!(estimate_one("Привет, мир! 你好 🎉"), 9);
        let long = "word ".repeat(1000);
        assert!((900..=1100).contains(&estimate_one(&long)));
    }
}
