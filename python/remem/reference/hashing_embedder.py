"""Pure-Python twin of :class:`remem.embeddings.HashingEmbedder`; this docstring is the spec.

Features of one text (all LEXICAL — nothing here knows that "car" and "automobile" are related):

1. Normalise: ``unicodedata.normalize("NFKC", text).casefold()``.
2. Tokens: ``re.findall(r"\\w+|[^\\w\\s]+", normalised)`` — runs of word characters, and runs of
   other non-space characters (punctuation, emoji) as their own tokens.
3. Token hash ``t(tok)``: the 8-byte blake2b digest of ``tok.encode("utf-8")`` with
   ``key=seed.to_bytes(8, "little")`` and ``person=b"remem-hash-v1"``, read little-endian.
4. Word n-grams, n in ``ngram_range``, over consecutive tokens: ``h = t(tok_1)``, then for each
   further token ``h = mix(h * GOLDEN ^ t(tok_i))``; weight ``WORD_WEIGHT`` for unigrams,
   ``NGRAM_WEIGHT`` for longer ones.
5. Character n-grams, n in ``char_ngrams``, of each token padded as ``" " + tok + " "``:
   ``h = FNV_OFFSET ^ mix(seed)``; ``h = (h ^ ord(c)) * FNV_PRIME`` for each character (mod 2**64);
   then ``mix(h)``. Weight ``CHAR_WEIGHT``. A padded token shorter than n yields none of size n.
6. A text with no tokens has the single feature ``t("")`` with weight ``WORD_WEIGHT``, so every
   text gets a non-zero vector.
7. Signed hashing: bucket ``h % dimension``; sign ``+1`` when bit 63 of h is 0, else ``-1``.
   Bucket totals ``v[b] = Σ sign·weight`` over occurrences (float64).
8. Sublinear tf on the buckets: ``v = sign(v)·log1p(|v|)``; then L2-normalise (a vector whose
   buckets all cancel to exactly 0 stays 0) and cast to float32.

``mix`` is splitmix64's finaliser; all arithmetic is on unsigned 64-bit integers, so the vectors
are identical on every platform, process and Python version.
"""

from __future__ import annotations

import hashlib
import math
import unicodedata
from collections.abc import Sequence

# The constants live in production's module (the embedder must not import this oracle) and are
# stated in the docstring above; the formulas below are the specification.
from remem.hashing_constants import (
    CHAR_WEIGHT,
    FNV_OFFSET,
    FNV_PRIME,
    GOLDEN,
    MASK,
    NGRAM_WEIGHT,
    PERSON,
    TOKEN_RE,
    WORD_WEIGHT,
)

__all__ = ["embed_text", "embed_texts", "mix", "token_hash", "tokens_of"]


def mix(x: int) -> int:
    """splitmix64's finaliser (bijective on 64-bit integers)."""
    z = (x + GOLDEN) & MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def token_hash(token: str, seed: int) -> int:
    """``t(tok)`` from step 3."""
    digest = hashlib.blake2b(
        token.encode("utf-8"), digest_size=8, key=seed.to_bytes(8, "little"), person=PERSON
    ).digest()
    return int.from_bytes(digest, "little")


def tokens_of(text: str) -> list[str]:
    """Steps 1 and 2."""
    return TOKEN_RE.findall(unicodedata.normalize("NFKC", text).casefold())


def embed_text(
    text: str,
    *,
    dimension: int,
    ngram_range: tuple[int, int],
    char_ngrams: tuple[int, int] | None,
    seed: int,
) -> list[float]:
    """The vector of one text, as a list of ``dimension`` floats (float32-rounded)."""
    tokens = tokens_of(text)
    features: list[tuple[int, float]] = []
    hashes = [token_hash(tok, seed) for tok in tokens]
    if not tokens:
        features.append((token_hash("", seed), WORD_WEIGHT))
    lo, hi = ngram_range
    for n in range(lo, hi + 1):
        weight = WORD_WEIGHT if n == 1 else NGRAM_WEIGHT
        for start in range(len(hashes) - n + 1):
            h = hashes[start]
            for nxt in hashes[start + 1 : start + n]:
                h = mix(((h * GOLDEN) & MASK) ^ nxt)
            features.append((h, weight))
    if char_ngrams is not None:
        basis = FNV_OFFSET ^ mix(seed)
        for tok in tokens:
            padded = f" {tok} "
            for n in range(char_ngrams[0], char_ngrams[1] + 1):
                for start in range(len(padded) - n + 1):
                    h = basis
                    for ch in padded[start : start + n]:
                        h = ((h ^ ord(ch)) * FNV_PRIME) & MASK
                    features.append((mix(h), CHAR_WEIGHT))
    buckets = [0.0] * dimension
    for h, weight in features:
        buckets[h % dimension] += -weight if h >> 63 else weight
    values = [math.copysign(math.log1p(abs(v)), v) if v else 0.0 for v in buckets]
    norm = math.sqrt(sum(v * v for v in values))
    return [v / norm for v in values] if norm > 0 else values


def embed_texts(
    texts: Sequence[str],
    *,
    dimension: int,
    ngram_range: tuple[int, int],
    char_ngrams: tuple[int, int] | None,
    seed: int,
) -> list[list[float]]:
    """:func:`embed_text` over a batch."""
    return [
        embed_text(
            t, dimension=dimension, ngram_range=ngram_range, char_ngrams=char_ngrams, seed=seed
        )
        for t in texts
    ]
