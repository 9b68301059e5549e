//! Token estimation and exact counting over batches of strings.
//!
//! * [`count_tokens`] is exact for OpenAI's `o200k_base` and `cl100k_base`: a hand-written port of
//!   the tiktoken pre-tokenizer regexes (`pretok`, over the regex crate's own Unicode tables)
//!   feeds the byte-pair counter of the `bpe-openai` crate, whose vocabularies are compiled into
//!   the binary (no file or network access at run time), through a cache of piece counts
//!   (`exact`). [`count_one_crate`] is the crate's own regex-based path, kept as the test oracle.
//! * [`estimate_tokens`] is a fast approximation of the `o200k_base` count: one pass over the UTF-8
//!   bytes summing a calibrated cost per character, looked up by its byte class, the previous
//!   character's class and its position in the run of same-class characters. The spec, and its measured error per kind of text, live in
//!   `remem.reference.tokens`; `estimate` here must match that pure-Python twin exactly.

mod classes;
mod estimate;
mod exact;
mod pretok;
mod tables;

pub use estimate::estimate_one;

use crate::error::{KernelError, KernelResult};
use crate::parallel;
use rayon::prelude::*;

/// Encodings [`count_tokens`] knows, as listed in error messages.
pub const KNOWN_ENCODINGS: &str = "\"o200k_base\", \"cl100k_base\"";

/// A built-in tokenizer vocabulary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    O200kBase,
    Cl100kBase,
}

impl Encoding {
    /// Parse an encoding name; anything but the built-in names is `UnknownEncoding`.
    pub fn parse(name: &str) -> KernelResult<Self> {
        match name {
            "o200k_base" => Ok(Self::O200kBase),
            "cl100k_base" => Ok(Self::Cl100kBase),
            _ => Err(KernelError::UnknownEncoding {
                name: name.to_owned(),
                known: KNOWN_ENCODINGS,
            }),
        }
    }

    fn tokenizer(self) -> &'static bpe_openai::Tokenizer {
        match self {
            Self::O200kBase => bpe_openai::o200k_base(),
            Self::Cl100kBase => bpe_openai::cl100k_base(),
        }
    }

    /// Build the vocabulary and the character tables now, not inside a parallel section.
    fn warm(self) {
        let _ = self.tokenizer();
        classes::init();
    }
}

// Swept on 10k-turn chat (/tmp sweep, batches of 8..2048 turns, REMEM_NUM_THREADS=1 vs 2, release):
// one-core cost is ~5-15 µs per turn for both kernels (exact with a warm piece cache), so a batch of
// 64 turns takes ~0.5 ms, >10x a pool wake-up. On the shared 2-core box (load ~7) two threads
// gained nothing at any size, so the sweep could not place the crossover; 64 is the size where
// the sequential time first dwarfs the fork/join overhead. Re-sweep on an idle machine.
// The byte-trigram estimator is ~0.4 ns/byte (~0.7 µs per 1.7 KB chat turn, one core), so 64 turns
// are ~45 µs, still several pool wake-ups: 10k turns measured 6.7 ms on one thread vs 3.5 ms on
// two (REMEM_NUM_THREADS, best of 15, release).
const COUNT_PAR_THRESHOLD: usize = 64;
const ESTIMATE_PAR_THRESHOLD: usize = 64;

/// Exact token count of one text (ordinary text: special tokens are not recognised).
pub fn count_one(text: &str, encoding: Encoding) -> i64 {
    encoding.warm();
    i64::try_from(exact::count(text, encoding)).unwrap_or(i64::MAX)
}

/// [`count_one`] through the `bpe-openai` crate's own regex pre-tokenizer: the oracle of the tests.
pub fn count_one_crate(text: &str, encoding: Encoding) -> i64 {
    i64::try_from(encoding.tokenizer().count(text)).unwrap_or(i64::MAX)
}

/// The pre-tokenizer pieces of `text`: the hand-written splitter's, or (`oracle`) the crate's.
pub fn pieces(text: &str, encoding: Encoding, oracle: bool) -> Vec<String> {
    if oracle {
        encoding
            .tokenizer()
            .split(text)
            .map(str::to_owned)
            .collect()
    } else {
        classes::init();
        exact::pieces(text, encoding)
    }
}

fn count_warmed(text: &str, encoding: Encoding) -> i64 {
    i64::try_from(exact::count(text, encoding)).unwrap_or(i64::MAX)
}

/// Exact token counts of every text, in order.
pub fn count_tokens<S: AsRef<str> + Sync>(texts: &[S], encoding: Encoding) -> Vec<i64> {
    // Build the tokenizer (decompressing its vocabulary) once, outside the parallel section.
    encoding.warm();
    parallel::run(
        texts.len(),
        COUNT_PAR_THRESHOLD,
        || {
            texts
                .par_iter()
                .with_min_len(8)
                .map(|t| count_warmed(t.as_ref(), encoding))
                .collect()
        },
        || {
            texts
                .iter()
                .map(|t| count_warmed(t.as_ref(), encoding))
                .collect()
        },
    )
}

/// Estimated `o200k_base` token counts of every text, in order (see [`estimate_one`]).
pub fn estimate_tokens<S: AsRef<str> + Sync>(texts: &[S]) -> Vec<i64> {
    estimate::init();
    parallel::run(
        texts.len(),
        ESTIMATE_PAR_THRESHOLD,
        || {
            texts
                .par_iter()
                .with_min_len(ESTIMATE_PAR_THRESHOLD / 2)
                .map(|t| estimate_one(t.as_ref()))
                .collect()
        },
        || texts.iter().map(|t| estimate_one(t.as_ref())).collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_encoding_is_typed() {
        let err = Encoding::parse("p50k_base").unwrap_err();
        assert!(matches!(err, KernelError::UnknownEncoding { .. }));
        assert!(err.to_string().contains("o200k_base"));
    }

    #[test]
    fn known_counts() {
        let o = Encoding::O200kBase;
        let c = Encoding::Cl100kBase;
        assert_eq!(count_one("", o), 0);
        assert_eq!(count_one("hello world", o), 2);
        assert_eq!(count_one("hello world", c), 2);
        let texts = ["", "a", "hello world"];
        assert_eq!(count_tokens(&texts, o), vec![0, 1, 2]);
    }

    #[test]
    fn round_trip() {
        for enc in [Encoding::O200kBase, Encoding::Cl100kBase] {
            let tok = enc.tokenizer();
            for text in [
                "Привет, мир! 你好 🎉",
                "fn main() {\n    x += 1;\n}",
                " \t\n\n  x",
            ] {
                let ids = tok.encode(text);
                assert_eq!(tok.decode(&ids).as_deref(), Some(text));
                assert_eq!(ids.len(), tok.count(text));
            }
        }
    }

    /// Deterministic fuzz: the hand-written splitter gives the crate regex's pieces exactly.
    #[test]
    fn splitter_matches_crate_regex() {
        let alphabet: Vec<char> = "aZ zA'sS'LLre'Ve'dM\u{17F}\r\n\t \u{3000}\u{a0}\u{85}0123\u{663}Ⅻ½\
            \u{301}\u{300}\u{94d}ǅʰ中ひ한éÉßΣσДд!?.,/\\-_(){}#@🎉👍🏽\u{200d}\u{fe0f}\u{1F1FA}\u{1F1F8}ا\u{64b}"
            .chars()
            .collect();
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..20_000 {
            let len = (next() % 14) as usize;
            let text: String = (0..len)
                .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                .collect();
            for enc in [Encoding::O200kBase, Encoding::Cl100kBase] {
                assert_eq!(
                    pieces(&text, enc, false),
                    pieces(&text, enc, true),
                    "{enc:?} {text:?}"
                );
                assert_eq!(count_one(&text, enc), count_one_crate(&text, enc));
            }
        }
    }

    #[test]
    fn estimate_basics() {
        assert_eq!(estimate_tokens::<&str>(&[]), Vec::<i64>::new());
        assert_eq!(estimate_tokens(&["", " "]), vec![0, 1]);
        assert!(estimate_one("hello world") >= 1);
    }
}
