//! Unicode character classes of the tiktoken pre-tokenizer regexes, as one bit set per code point.
//!
//! The ranges come from `regex-syntax`, the parser behind the `bpe-openai` crate's own regexes, so
//! `\p{L}`, `\p{N}`, `\s`, ... mean exactly what they mean there (same Unicode version), which is
//! what keeps the hand-written splitter in `pretok` exact. The table is two-level (256-code-point
//! blocks, deduplicated: ~80 KB) and built once, in about a millisecond.

use regex_syntax::hir::{Class, HirKind};
use std::sync::LazyLock;

/// `\p{L}`
pub(super) const L: u8 = 1;
/// `\p{N}`
pub(super) const N: u8 = 2;
/// `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]` (o200k's "upper-ish")
pub(super) const UP: u8 = 4;
/// `[\p{Ll}\p{Lm}\p{Lo}\p{M}]` (o200k's "lower-ish")
pub(super) const LO: u8 = 8;
/// `\s` (Unicode White_Space)
pub(super) const WS: u8 = 16;
/// `[\r\n]`
pub(super) const NL: u8 = 32;

const BLOCK: usize = 256;
const CODE_POINTS: usize = 0x11_0000;

struct Table {
    index: Vec<u16>,
    blocks: Vec<u8>,
}

fn ranges(pattern: &str) -> Vec<(u32, u32)> {
    let hir = regex_syntax::parse(pattern).expect("a valid Unicode class");
    match hir.kind() {
        HirKind::Class(Class::Unicode(cls)) => cls
            .ranges()
            .iter()
            .map(|r| (u32::from(r.start()), u32::from(r.end())))
            .collect(),
        other => panic!("{pattern} is not a Unicode class: {other:?}"),
    }
}

fn build() -> Table {
    let mut flat = vec![0u8; CODE_POINTS];
    let sets: [(&str, u8); 6] = [
        (r"\p{L}", L),
        (r"\p{N}", N),
        (r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]", UP),
        (r"[\p{Ll}\p{Lm}\p{Lo}\p{M}]", LO),
        (r"\s", WS),
        (r"[\r\n]", NL),
    ];
    for (pattern, bit) in sets {
        for (lo, hi) in ranges(pattern) {
            for b in &mut flat[lo as usize..=hi as usize] {
                *b |= bit;
            }
        }
    }
    let mut index = Vec::with_capacity(CODE_POINTS / BLOCK);
    let mut blocks: Vec<u8> = Vec::new();
    let mut seen = std::collections::HashMap::<&[u8], u16>::new();
    for chunk in flat.chunks(BLOCK) {
        let id = *seen.entry(chunk).or_insert_with(|| {
            let id = u16::try_from(blocks.len() / BLOCK).expect("fewer than 65536 blocks");
            blocks.extend_from_slice(chunk);
            id
        });
        index.push(id);
    }
    Table { index, blocks }
}

static TABLE: LazyLock<Table> = LazyLock::new(build);
static ASCII: LazyLock<[u8; 128]> = LazyLock::new(|| {
    let mut t = [0u8; 128];
    for (cp, slot) in t.iter_mut().enumerate() {
        *slot = class_of_slow(cp as u32);
    }
    t
});

fn class_of_slow(cp: u32) -> u8 {
    let t = &*TABLE;
    let block = t.index[(cp as usize) / BLOCK] as usize;
    t.blocks[block * BLOCK + (cp as usize) % BLOCK]
}

/// Force the tables to be built (outside any timed or parallel section).
pub(super) fn init() {
    let _ = ASCII[0];
}

/// The class bits and UTF-8 length of the character starting at byte `i` of `s` (valid UTF-8,
/// `i` on a character boundary, `i < s.len()`).
#[inline(always)]
pub(super) fn class_at(ascii: &[u8; 128], s: &[u8], i: usize) -> (u8, usize) {
    let b0 = s[i];
    if b0 < 0x80 {
        return (ascii[b0 as usize], 1);
    }
    let (cp, len) = decode(s, i, b0);
    (class_of_slow(cp), len)
}

#[inline(always)]
fn decode(s: &[u8], i: usize, b0: u8) -> (u32, usize) {
    let cont = |k: usize| u32::from(s.get(i + k).copied().unwrap_or(0x80) & 0x3F);
    if b0 < 0xE0 {
        ((u32::from(b0 & 0x1F) << 6) | cont(1), 2)
    } else if b0 < 0xF0 {
        ((u32::from(b0 & 0x0F) << 12) | (cont(1) << 6) | cont(2), 3)
    } else {
        let cp = (u32::from(b0 & 0x07) << 18) | (cont(1) << 12) | (cont(2) << 6) | cont(3);
        (cp.min(CODE_POINTS as u32 - 1), 4)
    }
}

/// The ASCII row of the table (for the splitter's fast path).
#[inline(always)]
pub(super) fn ascii() -> &'static [u8; 128] {
    &ASCII
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(c: char) -> u8 {
        let mut buf = [0u8; 4];
        class_at(ascii(), c.encode_utf8(&mut buf).as_bytes(), 0).0
    }

    #[test]
    fn spot_checks() {
        assert_eq!(class('a'), L | LO);
        assert_eq!(class('A'), L | UP);
        assert_eq!(class('7'), N);
        assert_eq!(class('\n'), WS | NL);
        assert_eq!(class(' '), WS);
        assert_eq!(class('\u{3000}'), WS);
        assert_eq!(class('\u{0301}'), UP | LO); // a combining mark: neither L nor N
        assert_eq!(class('中'), L | UP | LO); // Lo
        assert_eq!(class('Ⅻ'), N); // Nl
        assert_eq!(class('🎉'), 0);
        assert_eq!(class('\u{10FFFF}'), 0);
    }

    #[test]
    fn case_folds_of_contraction_letters() {
        // The splitter hard-codes (?i:'s|'t|'re|'ve|'m|'ll|'d): only 's' has a non-ASCII fold.
        for (letter, extra) in [
            ('s', vec![0x17F]),
            ('t', vec![]),
            ('r', vec![]),
            ('e', vec![]),
            ('v', vec![]),
            ('m', vec![]),
            ('l', vec![]),
            ('d', vec![]),
        ] {
            let up = letter.to_ascii_uppercase() as u32;
            let mut want = vec![(up, up), (letter as u32, letter as u32)];
            want.extend(extra.iter().map(|&c| (c, c)));
            assert_eq!(ranges(&format!("(?i:{letter})")), want, "{letter}");
        }
    }
}
