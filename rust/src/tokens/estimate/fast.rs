//! The estimator's fast path: piece boundaries as bit masks, 64 bytes at a time.
//!
//! For ASCII text every rule of the spec's splitter is local: whether byte `k` starts a piece
//! depends only on the bytes `k-4 ..= k+2` (plus, for a space or tab right after a newline, on
//! whether another newline follows in the same whitespace run, which is resolved by a short scalar
//! scan). So the start positions of all pieces are computed word-parallel from per-class bit masks
//! (`Masks`), and the cost of each piece `[s, e)` is a table lookup from its first bytes, its last
//! byte and its length. A contraction suffix (`'s`, `'re`, ...) is a pseudo-piece of cost `SUFFIX`.
//!
//! Anything the masks cannot decide is flagged "bad" (a non-ASCII byte, two apostrophes 2-3 apart,
//! an undecidable whitespace run); a piece whose decision window touches a bad byte is taken by
//! [`slow_piece`], the spec's splitter on UTF-8 bytes, which then hands back to the fast loop at
//! the next piece start. `estimate::tests` checks both paths against the line-by-line port of the
//! reference on random text.

use super::{
    char_class, cost, is_letter, is_punct, DIGIT, K_ASTRAL, K_CAP, K_DIGITS, K_LOWER, K_MIXED,
    K_NEWLINE, K_PUNCT, K_SPACE, K_SYMBOL, K_UPPER, LATIN, LOWER, NL, PUNCT, SYMBOL, UPPER, WS,
};
use crate::tokens::tables::{COST, SUFFIX};

const ASCII_CLASS: [u8; 128] = {
    let mut t = [0u8; 128];
    let mut b = 0;
    while b < 128 {
        t[b] = super::ascii_class(b as u8);
        b += 1;
    }
    t
};

/// Raw per-class masks of one 64-byte word of text (bit `k` = byte `64 w + k`).
#[derive(Clone, Copy, Default)]
pub(crate) struct Masks {
    u: u64,
    l: u64,
    d: u64,
    s: u64,
    t: u64,
    nl: u64,
    p: u64,
    h: u64,
    q: u64,
    stmd: u64,
    rv: u64,
    ee: u64,
    ll: u64,
    e: u64,
    // derived
    r2: u64,
    ca: u64,
    ca2: u64,
}

/// Reusable buffers of the fast path.
#[derive(Default)]
pub(crate) struct Fast {
    m: Vec<Masks>,
    start: Vec<u64>,
    bad: Vec<u64>,
}

#[inline(always)]
fn raw_scalar(chunk: &[u8; 64], len: usize) -> Masks {
    let mut m = Masks::default();
    for (k, &b) in chunk.iter().enumerate() {
        let bit = 1u64 << k;
        let lc = b | 0x20;
        let set = |x: &mut u64, c: bool| *x |= if c { bit } else { 0 };
        set(&mut m.u, b.is_ascii_uppercase());
        set(&mut m.l, b.is_ascii_lowercase());
        set(&mut m.d, b.is_ascii_digit());
        set(&mut m.s, b == b' ');
        set(&mut m.t, matches!(b, 0x09 | 0x0B | 0x0C));
        set(&mut m.nl, matches!(b, b'\n' | b'\r'));
        set(&mut m.h, b >= 0x80);
        set(&mut m.q, b == b'\'');
        set(&mut m.stmd, matches!(lc, b's' | b't' | b'm' | b'd'));
        set(&mut m.rv, matches!(lc, b'r' | b'v'));
        set(&mut m.ee, lc == b'e');
        set(&mut m.ll, lc == b'l');
    }
    finish_raw(m, len)
}

#[inline(always)]
fn finish_raw(mut m: Masks, len: usize) -> Masks {
    m.e = if len >= 64 { !0 } else { (1u64 << len) - 1 };
    m.p = m.e & !(m.u | m.l | m.d | m.s | m.t | m.nl | m.h);
    m
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn raw(chunk: &[u8; 64], len: usize) -> Masks {
    // SSE2 is part of the x86_64 baseline: no runtime detection needed.
    use std::arch::x86_64::*;
    // SAFETY: SSE2 is always available on x86_64; loads are unaligned loads of 16 in-bounds bytes.
    unsafe {
        let mut m = Masks::default();
        let range = |v: __m128i, lo: u8, hi: u8| {
            let t = _mm_xor_si128(
                _mm_sub_epi8(v, _mm_set1_epi8(lo as i8)),
                _mm_set1_epi8(-128),
            );
            _mm_cmplt_epi8(t, _mm_set1_epi8((hi - lo + 1) as i8 ^ -128))
        };
        let eq = |v: __m128i, c: u8| _mm_cmpeq_epi8(v, _mm_set1_epi8(c as i8));
        let mm = |x: __m128i| u64::from(_mm_movemask_epi8(x) as u16);
        for part in 0..4 {
            let v = _mm_loadu_si128(chunk.as_ptr().add(16 * part).cast());
            let lc = _mm_or_si128(v, _mm_set1_epi8(0x20));
            let sh = 16 * part as u32;
            m.u |= mm(range(v, b'A', b'Z')) << sh;
            m.l |= mm(range(v, b'a', b'z')) << sh;
            m.d |= mm(range(v, b'0', b'9')) << sh;
            m.s |= mm(eq(v, b' ')) << sh;
            m.t |= mm(_mm_or_si128(eq(v, 0x09), range(v, 0x0B, 0x0C))) << sh;
            m.nl |= mm(_mm_or_si128(eq(v, b'\n'), eq(v, b'\r'))) << sh;
            m.h |= mm(v) << sh;
            m.q |= mm(eq(v, b'\'')) << sh;
            let stmd = _mm_or_si128(
                _mm_or_si128(eq(lc, b's'), eq(lc, b't')),
                _mm_or_si128(eq(lc, b'm'), eq(lc, b'd')),
            );
            m.stmd |= mm(stmd) << sh;
            m.rv |= mm(_mm_or_si128(eq(lc, b'r'), eq(lc, b'v'))) << sh;
            m.ee |= mm(eq(lc, b'e')) << sh;
            m.ll |= mm(eq(lc, b'l')) << sh;
        }
        finish_raw(m, len)
    }
}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn raw(chunk: &[u8; 64], len: usize) -> Masks {
    raw_scalar(chunk, len)
}

/// `x` shifted towards higher positions by `k` (1..=63) across words: bit `i` = `x(i - k)`.
#[inline(always)]
fn up(cur: u64, prev: u64, k: u32) -> u64 {
    (cur << k) | (prev >> (64 - k))
}

/// `x` shifted towards lower positions by `k` (1..=63): bit `i` = `x(i + k)`.
#[inline(always)]
fn down(cur: u64, next: u64, k: u32) -> u64 {
    (cur >> k) | (next << (64 - k))
}

#[inline(always)]
fn set_bit(v: &mut [u64], i: usize) {
    v[i / 64] |= 1u64 << (i % 64);
}

#[inline(always)]
fn is_ascii_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0B | 0x0C)
}

/// Decide a space or tab at `k` that follows a newline: is it a piece start? `None`: undecidable
/// here (non-ASCII on the way).
fn after_newline(b: &[u8], k: usize) -> Option<bool> {
    let mut j = k;
    let mut nl_later = false;
    while j < b.len() {
        let x = b[j];
        if x >= 0x80 {
            return None;
        }
        if !is_ascii_ws(x) {
            break;
        }
        if x == b'\n' || x == b'\r' {
            nl_later = true;
            break;
        }
        j += 1;
    }
    if !nl_later {
        return Some(true);
    }
    // The newline run ending at k-1 belongs to a punctuation piece iff punctuation precedes it.
    let mut q = k - 1;
    while q > 0 && matches!(b[q - 1], b'\n' | b'\r') {
        q -= 1;
    }
    if q == 0 {
        return Some(false);
    }
    let x = b[q - 1];
    if x >= 0x80 {
        return None;
    }
    Some(ASCII_CLASS[x as usize] == PUNCT)
}

impl Fast {
    /// Compute the start and bad masks of `b` (bit `b.len()` is the end sentinel).
    fn build(&mut self, b: &[u8]) {
        let n = b.len();
        let words = n / 64 + 1;
        self.m.clear();
        self.m.reserve(words + 1);
        let mut chunks = b.chunks_exact(64);
        for c in &mut chunks {
            let arr: &[u8; 64] = c.try_into().unwrap_or(&[0u8; 64]);
            self.m.push(raw(arr, 64));
        }
        let rest = chunks.remainder();
        let mut tail = [0u8; 64];
        tail[..rest.len()].copy_from_slice(rest);
        self.m.push(raw(&tail, rest.len()));
        self.m.push(Masks::default());
        debug_assert_eq!(self.m.len(), words + 1);
        let _ = raw_scalar; // the portable builder (used off x86_64 and by the tests)

        let m = &mut self.m;
        // r2: a "re", "ve" or "ll" pair starts here (any case).
        for w in 0..words {
            let (cur, nxt) = (m[w], m[w + 1]);
            m[w].r2 = (cur.rv & down(cur.ee, nxt.ee, 1)) | (cur.ll & down(cur.ll, nxt.ll, 1));
        }
        // ca: a contraction apostrophe (after a letter); ca2: its suffix is 2 chars long.
        let mut prev = Masks::default();
        for w in 0..words {
            let (cur, nxt) = (m[w], m[w + 1]);
            let a_prev = up(cur.u | cur.l, prev.u | prev.l, 1);
            let stmd1 = down(cur.stmd, nxt.stmd, 1);
            let r21 = down(cur.r2, nxt.r2, 1);
            let ca = cur.q & a_prev & (stmd1 | r21);
            m[w].ca = ca;
            m[w].ca2 = ca & stmd1;
            prev = m[w];
        }
        self.start.clear();
        self.start.resize(words, 0);
        self.bad.clear();
        self.bad.resize(words, 0);
        let mut p = Masks::default();
        for w in 0..words {
            let (c, x) = (m[w], m[w + 1]);
            let a = c.u | c.l;
            let pa = p.u | p.l;
            let wn = c.s | c.t;
            let ca3 = c.ca & !c.ca2;
            let pca3 = p.ca & !p.ca2;
            let sc = up(c.ca, p.ca, 1) | up(ca3, pca3, 2);
            let se = up(c.ca2, p.ca2, 2) | up(ca3, pca3, 3);
            let a1 = up(a, pa, 1);
            let bs = a & !sc & (!a1 | (up(c.l, p.l, 1) & c.u) | se);
            let pb = bs
                & (up(wn, p.s | p.t, 1) | (up(c.p, p.p, 1) & !(up(c.p, p.p, 2) | up(c.s, p.s, 2))));
            let ad1 = up(a | c.d, pa | p.d, 1);
            let nonws_next = down(!(wn | c.nl) & c.e, !(x.s | x.t | x.nl) & x.e, 1);
            let start = (bs & !pb)
                | (c.d & !up(c.d, p.d, 1))
                | (c.p & !up(c.p, p.p, 1) & !up(c.s, p.s, 1) & !c.ca)
                | (c.nl & ad1)
                | (wn
                    & (up(a | c.d | c.p, pa | p.d | p.p, 1) | (up(wn, p.s | p.t, 1) & nonws_next)))
                | c.ca;
            let bad = c.h | (c.q & (up(c.q, p.q, 2) | up(c.q, p.q, 3)));
            self.start[w] = start;
            self.bad[w] = bad;
            let mut cand = wn & up(c.nl, p.nl, 1);
            while cand != 0 {
                let k = w * 64 + cand.trailing_zeros() as usize;
                cand &= cand - 1;
                match after_newline(b, k) {
                    Some(true) => set_bit(&mut self.start, k),
                    Some(false) => {}
                    None => set_bit(&mut self.bad, k),
                }
            }
            p = c;
        }
        set_bit(&mut self.start, 0);
        set_bit(&mut self.start, n);
    }
}

/// First set bit of `v` at or after `from`, or `usize::MAX`.
#[inline]
fn next_set(v: &[u64], from: usize) -> usize {
    let mut w = from / 64;
    if w >= v.len() {
        return usize::MAX;
    }
    let mut cur = v[w] & (!0u64 << (from % 64));
    loop {
        if cur != 0 {
            return w * 64 + cur.trailing_zeros() as usize;
        }
        w += 1;
        if w >= v.len() {
            return usize::MAX;
        }
        cur = v[w];
    }
}

// Classes of the fast path's piece table (ASCII only).
const F_NL: usize = 0;
const F_T: usize = 1;
const F_S: usize = 2;
const F_D: usize = 3;
const F_U: usize = 4;
const F_L: usize = 5;
const F_P: usize = 6;
const F_END: usize = 7;

const FCLASS: [u8; 256] = {
    let mut t = [F_P as u8; 256];
    let mut b = 0;
    while b < 128 {
        t[b] = match b as u8 {
            b'\n' | b'\r' => F_NL as u8,
            0x09 | 0x0B | 0x0C => F_T as u8,
            b' ' => F_S as u8,
            b'0'..=b'9' => F_D as u8,
            b'A'..=b'Z' => F_U as u8,
            b'a'..=b'z' => F_L as u8,
            _ => F_P as u8,
        };
        b += 1;
    }
    t
};

#[inline(always)]
fn word_kind(first: usize, second: usize, last: usize) -> usize {
    if first == F_L {
        K_LOWER
    } else if second == F_L {
        K_CAP
    } else if second == F_END || last == F_U {
        K_UPPER
    } else {
        K_MIXED
    }
}

#[inline(always)]
fn digits_cost(len: usize) -> u64 {
    let row = &COST[K_DIGITS][0];
    (len / 3) as u64 * u64::from(row[3])
        + if len % 3 > 0 {
            u64::from(row[len % 3])
        } else {
            0
        }
}

/// Cost of the ASCII piece `b[s..e]` (not a contraction suffix).
#[inline(always)]
fn piece_cost(b: &[u8], s: usize, e: usize) -> u64 {
    let at = |k: usize| {
        if k < e {
            FCLASS[b[k] as usize] as usize
        } else {
            F_END
        }
    };
    let c0 = at(s);
    let c1 = at(s + 1);
    let last = FCLASS[b[e - 1] as usize] as usize;
    let len = e - s;
    match c0 {
        F_U | F_L => cost(word_kind(c0, c1, last), 0, len),
        F_D => digits_cost(len),
        _ if c1 == F_U || c1 == F_L => {
            let prefix = if c0 == F_S { 1 } else { 2 };
            cost(word_kind(c1, at(s + 2), last), prefix, len - 1)
        }
        F_P => cost(K_PUNCT, 0, len),
        F_S if c1 == F_P => cost(K_PUNCT, 1, len - 1),
        _ => cost(if last == F_NL { K_NEWLINE } else { K_SPACE }, 0, len),
    }
}

/// Sum of the milli-token costs of the pieces of `b` (valid UTF-8).
pub(crate) fn total_milli(fast: &mut Fast, b: &[u8]) -> u64 {
    let n = b.len();
    fast.build(b);
    let (start, bad) = (&fast.start[..], &fast.bad[..]);
    let mut total = 0u64;
    let mut pos = 0usize;
    let mut nb = next_set(bad, 0);
    while pos < n {
        let e = next_set(start, pos + 1);
        let lo = pos.saturating_sub(3);
        if nb < lo {
            nb = next_set(bad, lo);
        }
        if nb <= e.saturating_add(2) {
            let (q, c) = slow_piece(b, pos);
            total += c;
            pos = q;
            continue;
        }
        total += piece_cost(b, pos, e);
        pos = e;
        // A contraction suffix right after a word (its bit is a start only so that the word ends
        // there; the slow path must never begin at it). The window check above covers it.
        if pos < n && b[pos] == b'\'' && is_ca(b, pos) {
            total += u64::from(SUFFIX);
            pos += suffix_len(b, pos);
        }
    }
    total
}

/// Is the apostrophe at `k` (a piece start) a contraction suffix? (An apostrophe piece start
/// that is not a contraction is punctuation or a word prefix.)
#[inline]
fn is_ca(b: &[u8], k: usize) -> bool {
    k > 0 && b[k - 1].is_ascii_alphabetic() && suffix_len(b, k) > 0
}

// --- the slow path: one piece of the spec's splitter over UTF-8 bytes ---------------------------

#[inline]
fn decode(b: &[u8], i: usize, b0: u8) -> (u32, usize) {
    let cont = |k: usize| u32::from(b.get(i + k).copied().unwrap_or(0x80) & 0x3F);
    if b0 < 0xE0 {
        ((u32::from(b0 & 0x1F) << 6) | cont(1), 2)
    } else if b0 < 0xF0 {
        ((u32::from(b0 & 0x0F) << 12) | (cont(1) << 6) | cont(2), 3)
    } else {
        let cp = (u32::from(b0 & 0x07) << 18) | (cont(1) << 12) | (cont(2) << 6) | cont(3);
        (cp, 4)
    }
}

/// Class of the character at byte `p < b.len()` and the byte position after it.
#[inline]
fn cls_at(b: &[u8], p: usize) -> (u8, usize) {
    let x = b[p];
    if x < 0x80 {
        (ASCII_CLASS[x as usize], p + 1)
    } else {
        let (cp, len) = decode(b, p, x);
        (char_class(cp), p + len)
    }
}

fn suffix_len(b: &[u8], k: usize) -> usize {
    let n = b.len();
    if b.get(k) != Some(&b'\'') || k + 1 >= n {
        return 0;
    }
    let lower = |i: usize| b.get(i).map_or(0, |x| x.to_ascii_lowercase());
    let a = lower(k + 1);
    if matches!(a, b's' | b't' | b'm' | b'd') {
        return 2;
    }
    match (a, lower(k + 2)) {
        (b'r', b'e') | (b'v', b'e') | (b'l', b'l') => 3,
        _ => 0,
    }
}

/// The piece starting at byte `i` (a piece start): its end and its cost.
pub(crate) fn slow_piece(b: &[u8], i: usize) -> (usize, u64) {
    let n = b.len();
    let (c, i1) = cls_at(b, i);
    let (mut s, mut cs, mut prefix) = (i, c, 0usize);
    if (c == WS || is_punct(c)) && i1 < n {
        let (c1, _) = cls_at(b, i1);
        if is_letter(c1) {
            prefix = if b[i] == b' ' { 1 } else { 2 };
            s = i1;
            cs = c1;
        }
    }
    if is_letter(cs) {
        // (end, chars, uppers, top class) of the upper-ish run, and at its last caseless letter.
        let (mut j, mut chars, mut uppers, mut top) = (s, 0usize, 0usize, 0u8);
        let mut at_x = None;
        while j < n {
            let (cj, nj) = cls_at(b, j);
            if cj != UPPER && cj < LATIN {
                break;
            }
            chars += 1;
            uppers += usize::from(cj == UPPER);
            top = top.max(cj);
            j = nj;
            if cj >= LATIN {
                at_x = Some((j, chars, uppers, top));
            }
        }
        let (e, len, ups, top) = if j < n && cls_at(b, j).0 == LOWER {
            let mut k = j;
            while k < n {
                let (ck, nk) = cls_at(b, k);
                if ck != LOWER && ck < LATIN {
                    break;
                }
                chars += 1;
                top = top.max(ck);
                k = nk;
            }
            (k, chars, uppers, top)
        } else {
            at_x.unwrap_or((j, chars, uppers, top))
        };
        let kind = if top >= LATIN {
            usize::from(top - 4)
        } else if ups == 0 {
            K_LOWER
        } else if ups == len {
            K_UPPER
        } else if ups == 1 && cs == UPPER {
            K_CAP
        } else {
            K_MIXED
        };
        let suffix = suffix_len(b, e);
        let extra = if suffix > 0 { u64::from(SUFFIX) } else { 0 };
        return (e + suffix, cost(kind, prefix, len) + extra);
    }
    if c == DIGIT {
        let mut j = i;
        while j < n && j - i < 3 && b[j].is_ascii_digit() {
            j += 1;
        }
        return (j, cost(K_DIGITS, 0, j - i));
    }
    let j = if b[i] == b' ' && i1 < n && is_punct(cls_at(b, i1).0) {
        i1
    } else {
        i
    };
    let cj = cls_at(b, j).0;
    if is_punct(cj) {
        let (mut k, mut chars, mut top) = (j, 0usize, PUNCT);
        while k < n {
            let (ck, nk) = cls_at(b, k);
            if !is_punct(ck) {
                break;
            }
            top = top.max(ck);
            chars += 1;
            k = nk;
        }
        while k < n && matches!(b[k], b'\n' | b'\r') {
            k += 1;
            chars += 1;
        }
        let kind = match top {
            PUNCT => K_PUNCT,
            SYMBOL => K_SYMBOL,
            _ => K_ASTRAL,
        };
        return (k, cost(kind, usize::from(j > i), chars));
    }
    // Whitespace.
    let (mut w, mut chars, mut last_start) = (i, 0usize, i);
    let mut last_nl = None;
    while w < n {
        let (cw, nw) = cls_at(b, w);
        if cw > WS {
            break;
        }
        chars += 1;
        if cw == NL {
            last_nl = Some((nw, chars));
        }
        last_start = w;
        w = nw;
    }
    let (end, len, kind) = match last_nl {
        Some((p, len)) => (p, len, K_NEWLINE),
        None if w == n => (w, chars, K_SPACE),
        None if chars >= 2 => (last_start, chars - 1, K_SPACE),
        None => (i1, 1, K_SPACE),
    };
    (end, cost(kind, 0, len))
}

#[cfg(test)]
pub(crate) fn count_paths(fast: &mut Fast, texts: &[&str]) -> (usize, usize) {
    let (mut nf, mut ns) = (0, 0);
    for t in texts {
        let b = t.as_bytes();
        let n = b.len();
        fast.build(b);
        let (start, bad) = (&fast.start[..], &fast.bad[..]);
        let mut pos = 0usize;
        while pos < n {
            let e = next_set(start, pos + 1);
            if next_set(bad, pos.saturating_sub(3)) <= e.saturating_add(2) {
                pos = slow_piece(b, pos).0;
                ns += 1;
                continue;
            }
            nf += 1;
            pos = e;
            if pos < n && b[pos] == b'\'' && is_ca(b, pos) {
                pos += suffix_len(b, pos);
            }
        }
    }
    (nf, ns)
}

#[cfg(test)]
pub(crate) fn build_only(fast: &mut Fast, b: &[u8]) {
    fast.build(b);
}
