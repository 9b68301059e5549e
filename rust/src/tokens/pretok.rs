//! Hand-written, exact ports of the tiktoken pre-tokenizer regexes of `o200k_base` and
//! `cl100k_base`, with the regex engine's leftmost-first (backtracking-order) semantics:
//!
//! ```text
//! o200k:  [^\r\n\p{L}\p{N}]?[U]*[W]+C? | [^\r\n\p{L}\p{N}]?[U]+[W]*C? | \p{N}{1,3}
//!         | ?[^\s\p{L}\p{N}]+[\r\n/]* | \s*[\r\n]+ | \s+(?!\S) | \s+
//! cl100k: C | [^\r\n\p{L}\p{N}]?\p{L}+ | \p{N}{1,3} | ?[^\s\p{L}\p{N}]+[\r\n]*
//!         | \s*[\r\n]+ | \s+(?!\S) | \s+
//! ```
//!
//! with `U = [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`, `W = [\p{Ll}\p{Lm}\p{Lo}\p{M}]` and
//! `C = (?i:'s|'t|'re|'ve|'m|'ll|'d)`. Alternatives are tried in order, and inside one alternative
//! the optional prefix is tried present before absent (so for o200k the order is: first word
//! alternative with prefix, without, second with, without). Every function returns the byte
//! offset where the piece starting at `i` ends; each piece is non-empty.

use super::classes::{class_at, L, LO, N, NL, UP, WS};

type Ascii = [u8; 128];

#[inline(always)]
fn run(a: &Ascii, s: &[u8], mut i: usize, want: impl Fn(u8) -> bool) -> usize {
    while i < s.len() {
        let (c, len) = class_at(a, s, i);
        if !want(c) {
            break;
        }
        i += len;
    }
    i
}

#[inline(always)]
fn is_prefix(c: u8) -> bool {
    c & (L | N | NL) == 0
}

#[inline(always)]
fn is_punct(c: u8) -> bool {
    c & (WS | L | N) == 0
}

/// Byte length of `(?i:'s|'t|'re|'ve|'m|'ll|'d)` at `i`, or 0.
#[inline(always)]
fn contraction(s: &[u8], i: usize) -> usize {
    if s.get(i) != Some(&b'\'') {
        return 0;
    }
    match s.get(i + 1).map(u8::to_ascii_lowercase) {
        Some(b's' | b't' | b'm' | b'd') => 2,
        // U+017F LATIN SMALL LETTER LONG S case-folds to 's'.
        Some(0xC5) if s.get(i + 2) == Some(&0xBF) => 3,
        Some(b'r' | b'v') if s.get(i + 2).map(u8::to_ascii_lowercase) == Some(b'e') => 3,
        Some(b'l') if s.get(i + 2).map(u8::to_ascii_lowercase) == Some(b'l') => 3,
        _ => 0,
    }
}

/// `U*W+` at `s` with backtracking: the longest `U` run, then a `W` run; or, when no `W` follows
/// the run, the run cut after its last character that is also `W`.
#[inline(always)]
fn upper_lower(a: &Ascii, s: &[u8], start: usize) -> Option<usize> {
    let mut j = start;
    let mut last_w_end = None;
    while j < s.len() {
        let (c, len) = class_at(a, s, j);
        if c & UP == 0 {
            if c & LO != 0 {
                return Some(run(a, s, j, |c| c & LO != 0));
            }
            break;
        }
        j += len;
        if c & LO != 0 {
            last_w_end = Some(j);
        }
    }
    last_w_end
}

/// `U+W*` at `s`.
#[inline(always)]
fn upper_then_lower(a: &Ascii, s: &[u8], start: usize) -> Option<usize> {
    if start >= s.len() || class_at(a, s, start).0 & UP == 0 {
        return None;
    }
    let j = run(a, s, start, |c| c & UP != 0);
    Some(run(a, s, j, |c| c & LO != 0))
}

/// `\s*[\r\n]+ | \s+(?!\S) | \s+` at `i` (a whitespace character).
#[inline(always)]
fn whitespace(a: &Ascii, s: &[u8], i: usize) -> usize {
    let (mut j, mut last_start, mut nl_end) = (i, i, None);
    while j < s.len() {
        let (c, len) = class_at(a, s, j);
        if c & WS == 0 {
            break;
        }
        if c & NL != 0 {
            nl_end = Some(j + len);
        }
        last_start = j;
        j += len;
    }
    if let Some(end) = nl_end {
        return end;
    }
    if j == i {
        return i + class_at(a, s, i).1; // unreachable for a non-space: a safe one-character piece
    }
    if j == s.len() || last_start == i {
        // The run reaches the end, or is one character: `\s+(?!\S)` (end) or `\s+`.
        return j;
    }
    last_start // `\s+(?!\S)` gives the last whitespace character to the next piece
}

/// ` ?[^\s\p{L}\p{N}]+` followed by `tail`, or the whitespace alternatives.
#[inline(always)]
fn punct_or_space(a: &Ascii, s: &[u8], i: usize, c0: u8, tail: impl Fn(u8) -> bool) -> usize {
    let mut j = i;
    if s[i] == b' ' && i + 1 < s.len() && is_punct(class_at(a, s, i + 1).0) {
        j = i + 1;
    } else if !is_punct(c0) {
        return whitespace(a, s, i);
    }
    let mut e = run(a, s, j, is_punct);
    while e < s.len() && tail(s[e]) {
        e += 1;
    }
    e
}

#[inline(always)]
fn digits(a: &Ascii, s: &[u8], i: usize) -> usize {
    let mut e = i;
    for _ in 0..3 {
        if e >= s.len() {
            break;
        }
        let (c, len) = class_at(a, s, e);
        if c & N == 0 {
            break;
        }
        e += len;
    }
    e
}

/// Is `b` an ASCII byte that may start the optional prefix `[^\r\n\p{L}\p{N}]`?
#[inline(always)]
fn ascii_prefix(b: u8) -> bool {
    b < 0x80 && !b.is_ascii_alphanumeric() && b != b'\r' && b != b'\n'
}

/// The end of an all-ASCII letter word at `i` (with its optional ASCII prefix), or `None` when
/// the general path must decide (no word here, or a non-ASCII character right after it).
/// `lower_case_rule` is o200k's `U*W+ | U+W*` (upper-case run, then lower-case run); otherwise
/// cl100k's `\p{L}+`.
#[inline(always)]
fn ascii_word(s: &[u8], i: usize, lower_case_rule: bool) -> Option<usize> {
    let mut j = i;
    if ascii_prefix(s[i]) && s.get(i + 1).is_some_and(u8::is_ascii_alphabetic) {
        j = i + 1;
    } else if !s[i].is_ascii_alphabetic() {
        return None;
    }
    let mut e = j;
    if lower_case_rule {
        while e < s.len() && s[e].is_ascii_uppercase() {
            e += 1;
        }
        while e < s.len() && s[e].is_ascii_lowercase() {
            e += 1;
        }
    } else {
        while e < s.len() && s[e].is_ascii_alphabetic() {
            e += 1;
        }
    }
    match s.get(e) {
        Some(&b) if b >= 0x80 => None,
        _ => Some(e),
    }
}

/// End of the o200k_base piece starting at `i < s.len()`.
#[inline]
pub(super) fn next_o200k(a: &Ascii, s: &[u8], i: usize) -> usize {
    if let Some(end) = ascii_word(s, i, true) {
        return end + contraction(s, end);
    }
    let (c0, len0) = class_at(a, s, i);
    let pre = is_prefix(c0);
    let word = (if pre {
        upper_lower(a, s, i + len0)
    } else {
        None
    })
    .or_else(|| upper_lower(a, s, i))
    .or_else(|| {
        if pre {
            upper_then_lower(a, s, i + len0)
        } else {
            None
        }
    })
    .or_else(|| upper_then_lower(a, s, i));
    if let Some(end) = word {
        return end + contraction(s, end);
    }
    if c0 & N != 0 {
        return digits(a, s, i);
    }
    punct_or_space(a, s, i, c0, |b| matches!(b, b'\r' | b'\n' | b'/'))
}

/// End of the cl100k_base piece starting at `i < s.len()`.
#[inline]
pub(super) fn next_cl100k(a: &Ascii, s: &[u8], i: usize) -> usize {
    let k = contraction(s, i);
    if k > 0 {
        return i + k;
    }
    if let Some(end) = ascii_word(s, i, false) {
        return end;
    }
    let (c0, len0) = class_at(a, s, i);
    if c0 & L != 0 {
        return run(a, s, i, |c| c & L != 0);
    }
    if is_prefix(c0) && i + len0 < s.len() && class_at(a, s, i + len0).0 & L != 0 {
        return run(a, s, i + len0, |c| c & L != 0);
    }
    if c0 & N != 0 {
        return digits(a, s, i);
    }
    punct_or_space(a, s, i, c0, |b| matches!(b, b'\r' | b'\n'))
}

/// Call `f(start, end)` on the byte range of every piece of `text` under the splitter `next`.
#[inline]
pub(super) fn for_each_piece(
    text: &str,
    next: impl Fn(&Ascii, &[u8], usize) -> usize,
    mut f: impl FnMut(usize, usize),
) {
    let a = super::classes::ascii();
    let s = text.as_bytes();
    let mut i = 0;
    while i < s.len() {
        let end = next(a, s, i);
        debug_assert!(end > i && text.is_char_boundary(end));
        f(i, end);
        i = end;
    }
}
