//! The token estimator: an o200k-shaped pre-tokenizer over coarse character classes, and a
//! calibrated cost per piece. `remem.reference.tokens` is the specification; this is a line-by-line
//! port of it in integer arithmetic, so both give identical results.

mod fast;

#[cfg(test)]
use super::tables::SUFFIX;
use super::tables::{COST, LMAX, SLOPE};

const NL: u8 = 0;
const WS: u8 = 1;
const DIGIT: u8 = 2;
const UPPER: u8 = 3;
const LOWER: u8 = 4;
const PUNCT: u8 = 5;
const SYMBOL: u8 = 6;
const ASTRAL: u8 = 7;
const LATIN: u8 = 8;
const GREEK: u8 = 9;
const CYRILLIC: u8 = 10;
const ARABIC: u8 = 11;
const INDIC: u8 = 12;
const CJK: u8 = 13;
const HANGUL: u8 = 14;
const OTHER_LETTER: u8 = 15;

const K_LOWER: usize = 0;
const K_CAP: usize = 1;
const K_UPPER: usize = 2;
const K_MIXED: usize = 3;
const K_DIGITS: usize = 12;
const K_PUNCT: usize = 13;
const K_SYMBOL: usize = 14;
const K_ASTRAL: usize = 15;
const K_NEWLINE: usize = 16;
const K_SPACE: usize = 17;

const fn ascii_class(b: u8) -> u8 {
    match b {
        0x0A | 0x0D => NL,
        0x09 | 0x0B | 0x0C | 0x20 => WS,
        b'0'..=b'9' => DIGIT,
        b'A'..=b'Z' => UPPER,
        b'a'..=b'z' => LOWER,
        _ => PUNCT,
    }
}

static ASCII: [u8; 128] = {
    let mut t = [0u8; 128];
    let mut b = 0;
    while b < 128 {
        t[b] = ascii_class(b as u8);
        b += 1;
    }
    t
};

/// (first code point, class) for every code point >= 0x80; identical to the reference's `_BREAKS`.
#[rustfmt::skip]
static BREAKS: [(u32, u8); 69] = [
    (0x0080, SYMBOL), (0x0085, WS), (0x0086, SYMBOL), (0x00A0, WS), (0x00A1, SYMBOL),
    (0x00C0, LATIN), (0x00D7, SYMBOL), (0x00D8, LATIN), (0x00F7, SYMBOL), (0x00F8, LATIN),
    (0x0370, GREEK), (0x0400, CYRILLIC), (0x0530, OTHER_LETTER),
    (0x0600, ARABIC), (0x060C, SYMBOL), (0x060D, ARABIC), (0x061B, SYMBOL), (0x061C, ARABIC),
    (0x061F, SYMBOL), (0x0620, ARABIC), (0x066A, SYMBOL), (0x066E, ARABIC), (0x06D4, SYMBOL),
    (0x06D5, ARABIC), (0x0700, OTHER_LETTER), (0x0750, ARABIC), (0x0780, OTHER_LETTER),
    (0x08A0, ARABIC), (0x0900, INDIC), (0x0964, SYMBOL), (0x0966, INDIC),
    (0x0E00, OTHER_LETTER), (0x1100, HANGUL), (0x1200, OTHER_LETTER), (0x1680, WS),
    (0x1681, OTHER_LETTER), (0x1E00, LATIN), (0x1F00, GREEK), (0x2000, WS), (0x200B, SYMBOL),
    (0x2028, WS), (0x202A, SYMBOL), (0x202F, WS), (0x2030, SYMBOL), (0x205F, WS),
    (0x2060, SYMBOL), (0x2C00, OTHER_LETTER), (0x2E00, SYMBOL), (0x2E80, CJK), (0x3000, WS),
    (0x3001, SYMBOL), (0x3040, CJK), (0x3130, HANGUL), (0x3190, CJK), (0xA000, OTHER_LETTER),
    (0xAC00, HANGUL), (0xD7B0, OTHER_LETTER), (0xD800, SYMBOL), (0xF900, CJK),
    (0xFB00, OTHER_LETTER), (0xFB50, ARABIC), (0xFE00, SYMBOL), (0xFE70, ARABIC),
    (0xFEFF, SYMBOL), (0x10000, OTHER_LETTER), (0x1D000, ASTRAL), (0x20000, CJK),
    (0x31350, ASTRAL), (0x110000, ASTRAL),
];

#[inline]
fn char_class(cp: u32) -> u8 {
    if cp < 0x80 {
        return ASCII[cp as usize];
    }
    // BREAKS[0].0 == 0x80 <= cp, so the partition point is >= 1.
    let idx = BREAKS.partition_point(|&(start, _)| start <= cp);
    BREAKS[idx.saturating_sub(1)].1
}

#[inline]
fn is_letter(c: u8) -> bool {
    c == UPPER || c == LOWER || c >= LATIN
}

#[inline]
fn is_punct(c: u8) -> bool {
    matches!(c, PUNCT | SYMBOL | ASTRAL)
}

/// Reusable buffers of the fast path.
#[derive(Default)]
pub(crate) struct Scratch {
    fast: fast::Fast,
}

#[cfg(test)]
fn word_end(cls: &[u8], s: usize) -> usize {
    let n = cls.len();
    let mut j = s;
    while j < n && (cls[j] == UPPER || cls[j] >= LATIN) {
        j += 1;
    }
    if j < n && cls[j] == LOWER {
        let mut k = j;
        while k < n && (cls[k] == LOWER || cls[k] >= LATIN) {
            k += 1;
        }
        return k;
    }
    match cls[s..j].iter().rposition(|&c| c >= LATIN) {
        Some(u) => s + u + 1,
        None => j,
    }
}

#[cfg(test)]
fn suffix_len(cps: &[u32], k: usize) -> usize {
    let lower = |i: usize| -> u32 {
        match cps.get(i) {
            Some(&c) if (0x41..=0x5A).contains(&c) => c + 0x20,
            Some(&c) => c,
            None => 0,
        }
    };
    if cps.get(k) != Some(&u32::from(b'\'')) || k + 1 >= cps.len() {
        return 0;
    }
    let a = lower(k + 1);
    if [b's', b't', b'm', b'd'].iter().any(|&x| u32::from(x) == a) {
        return 2;
    }
    let b = lower(k + 2);
    let pair_ok = |x: u8, y: u8| a == u32::from(x) && b == u32::from(y);
    if pair_ok(b'r', b'e') || pair_ok(b'v', b'e') || pair_ok(b'l', b'l') {
        return 3;
    }
    0
}

#[cfg(test)]
fn word_kind(cls: &[u8]) -> usize {
    let script = cls.iter().copied().max().unwrap_or(LOWER);
    if script >= LATIN {
        return usize::from(script - 4);
    }
    let uppers = cls.iter().filter(|&&c| c == UPPER).count();
    if uppers == 0 {
        K_LOWER
    } else if uppers == cls.len() {
        K_UPPER
    } else if uppers == 1 && cls[0] == UPPER {
        K_CAP
    } else {
        K_MIXED
    }
}

#[inline]
fn cost(kind: usize, prefix: usize, length: usize) -> u64 {
    if length <= LMAX {
        u64::from(COST[kind][prefix][length])
    } else {
        u64::from(COST[kind][prefix][LMAX]) + (length - LMAX) as u64 * u64::from(SLOPE[kind])
    }
}

/// The line-by-line port of the reference (over decoded code points): the tests' oracle.
#[cfg(test)]
fn oracle_total_milli(text: &str) -> u64 {
    let cps: Vec<u32> = text.chars().map(u32::from).collect();
    let cls: Vec<u8> = cps.iter().map(|&cp| char_class(cp)).collect();
    let (cps, cls) = (&cps[..], &cls[..]);
    let n = cls.len();
    let mut total = 0u64;
    let mut i = 0;
    while i < n {
        let c = cls[i];
        let (mut s, mut prefix) = (i, 0);
        if (c == WS || is_punct(c)) && i + 1 < n && is_letter(cls[i + 1]) {
            prefix = if cps[i] == 0x20 { 1 } else { 2 };
            s = i + 1;
        }
        if is_letter(cls[s]) {
            let e = word_end(cls, s);
            let suffix = suffix_len(cps, e);
            total += cost(word_kind(&cls[s..e]), prefix, e - s);
            if suffix > 0 {
                total += u64::from(SUFFIX);
            }
            i = e + suffix;
            continue;
        }
        if c == DIGIT {
            let mut j = i;
            while j < n && j - i < 3 && cls[j] == DIGIT {
                j += 1;
            }
            total += cost(K_DIGITS, 0, j - i);
            i = j;
            continue;
        }
        let j = if cps[i] == 0x20 && i + 1 < n && is_punct(cls[i + 1]) {
            i + 1
        } else {
            i
        };
        if is_punct(cls[j]) {
            let mut k = j;
            let mut top = PUNCT;
            while k < n && is_punct(cls[k]) {
                top = top.max(cls[k]);
                k += 1;
            }
            while k < n && cls[k] == NL {
                k += 1;
            }
            let kind = match top {
                PUNCT => K_PUNCT,
                SYMBOL => K_SYMBOL,
                _ => K_ASTRAL,
            };
            total += cost(kind, usize::from(j > i), k - j);
            i = k;
            continue;
        }
        let mut w = i;
        let mut last_nl = None;
        while w < n && cls[w] <= WS {
            if cls[w] == NL {
                last_nl = Some(w);
            }
            w += 1;
        }
        let (end, kind) = match last_nl {
            Some(p) => (p + 1, K_NEWLINE),
            None if w == n => (w, K_SPACE),
            None if w - i >= 2 => (w - 1, K_SPACE),
            None => (i + 1, K_SPACE),
        };
        total += cost(kind, 0, end - i);
        i = end;
    }
    total
}

pub(crate) fn estimate_with(scratch: &mut Scratch, text: &str) -> i64 {
    if text.is_empty() {
        return 0;
    }
    let rounded = (fast::total_milli(&mut scratch.fast, text.as_bytes()) + 500) / 1000;
    i64::try_from(rounded.max(1)).unwrap_or(i64::MAX)
}

/// Estimated `o200k_base` token count of one text.
pub fn estimate_one(text: &str) -> i64 {
    estimate_with(&mut Scratch::default(), text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes() {
        assert_eq!(char_class(u32::from('a')), LOWER);
        assert_eq!(char_class(0xE9), LATIN);
        assert_eq!(char_class(0x4F60), CJK);
        assert_eq!(char_class(0x1F389), ASTRAL);
        assert_eq!(char_class(0x10FFFF), ASTRAL);
        assert_eq!(char_class(0x3000), WS);
    }

    fn slow_total(text: &str) -> u64 {
        let b = text.as_bytes();
        let (mut i, mut total) = (0, 0);
        while i < b.len() {
            let (j, c) = fast::slow_piece(b, i);
            assert!(j > i);
            total += c;
            i = j;
        }
        total
    }

    /// Deterministic fuzz: the fast (bit-mask) path and the byte-level slow path both equal the
    /// line-by-line port of the reference, on texts long enough to span several 64-byte words.
    #[test]
    fn fast_matches_oracle() {
        let alphabets: [Vec<char>; 2] = [
            "aaeeiisstdrvlmLSTMDREVAZ '''\n\n\r\t  x,.-(0123\u{b}"
                .chars()
                .collect(),
            "aZ zA'sS'LLre'Ve'dM\u{17F}\r\n\t \u{3000}\u{a0}\u{85}0123\u{663}½éÉßΣд!?.,/\\-_(){}#@🎉\u{200d}中ا—’"
                .chars()
                .collect(),
        ];
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut scratch = Scratch::default();
        for round in 0..30_000 {
            let alphabet = &alphabets[round % 2];
            let len = (next() % 200) as usize;
            let text: String = (0..len)
                .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                .collect();
            let want = oracle_total_milli(&text);
            assert_eq!(slow_total(&text), want, "slow {text:?}");
            if fast::total_milli(&mut scratch.fast, text.as_bytes()) != want {
                // Shrink to a minimal failing text for the message.
                let mut chars: Vec<char> = text.chars().collect();
                let mut k = 0;
                while k < chars.len() {
                    let mut c2 = chars.clone();
                    c2.remove(k);
                    let t2: String = c2.iter().collect();
                    if fast::total_milli(&mut scratch.fast, t2.as_bytes())
                        != oracle_total_milli(&t2)
                    {
                        chars = c2;
                    } else {
                        k += 1;
                    }
                }
                let t: String = chars.iter().collect();
                panic!(
                    "fast {t:?}: {} != {}",
                    fast::total_milli(&mut scratch.fast, t.as_bytes()),
                    oracle_total_milli(&t)
                );
            }
        }
    }

    #[test]
    fn word_rules() {
        let cls: Vec<u8> = "HTTPServer x"
            .chars()
            .map(|c| char_class(c.into()))
            .collect();
        assert_eq!(word_end(&cls, 0), 10);
        let cps: Vec<u32> = "don't".chars().map(u32::from).collect();
        assert_eq!(suffix_len(&cps, 3), 2);
    }
}

#[cfg(test)]
mod timing {
    /// `REMEM_EST_CORPUS=/path cargo test --release --lib timing -- --ignored --nocapture`
    #[test]
    #[ignore]
    fn time_corpus() {
        let Ok(path) = std::env::var("REMEM_EST_CORPUS") else {
            return;
        };
        let data = std::fs::read(path).unwrap();
        let texts: Vec<&str> = data
            .split(|&b| b == 0)
            .map(|t| std::str::from_utf8(t).unwrap())
            .collect();
        let mut scratch = super::Scratch::default();
        let mut best = std::time::Duration::MAX;
        for _ in 0..15 {
            let t0 = std::time::Instant::now();
            let s: i64 = texts
                .iter()
                .map(|t| super::estimate_with(&mut scratch, t))
                .sum();
            best = best.min(t0.elapsed());
            assert!(s > 0);
        }
        println!("fast best of 15: {best:?}");
        if std::env::var_os("REMEM_EST_FAST_ONLY").is_some() {
            return; // for `perf stat`: the fast path alone
        }
        for _ in 0..3 {
            let t0 = std::time::Instant::now();
            let mut s = 0i64;
            for t in &texts {
                s += super::estimate_with(&mut scratch, t);
            }
            let fast = t0.elapsed();
            let t0 = std::time::Instant::now();
            let mut o = 0u64;
            for t in &texts {
                o += (super::oracle_total_milli(t) + 500) / 1000;
            }
            let orc = t0.elapsed();
            let t0 = std::time::Instant::now();
            let c = crate::tokens::count_tokens(&texts, crate::tokens::Encoding::O200kBase);
            let ex = t0.elapsed();
            println!(
                "fast {fast:?} oracle {orc:?} exact {ex:?} ({s} {o} {})",
                c.iter().sum::<i64>()
            );
        }
        for _ in 0..3 {
            let t0 = std::time::Instant::now();
            for t in &texts {
                super::fast::build_only(&mut scratch.fast, t.as_bytes());
            }
            println!("build only {:?}", t0.elapsed());
        }
        let (fast_n, slow_n) = super::fast::count_paths(&mut scratch.fast, &texts);
        println!("pieces fast {fast_n} slow {slow_n}");
    }
}
