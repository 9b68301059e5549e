"""The hashing embedder's fixed constants: hash keys, feature weights, the tokeniser, the limits.

One home for the numbers that decide what :class:`remem.embeddings.HashingEmbedder` produces.
Production code reads them here; :mod:`remem.reference.hashing_embedder` (the specification and
test oracle, which production code never imports) and the Rust kernel ``rust/src/hashembed.rs``
state the same values — the parity tests in ``tests/native`` hold all three together. Changing
any of them changes every stored vector: it is a new embedder version, not a tweak.
"""

from __future__ import annotations

import re

__all__ = [
    "CHAR_WEIGHT",
    "FNV_OFFSET",
    "FNV_PRIME",
    "GOLDEN",
    "MASK",
    "MAX_CHAR_NGRAM",
    "MAX_NGRAM",
    "NGRAM_WEIGHT",
    "PERSON",
    "TOKEN_RE",
    "WORD_WEIGHT",
]

MASK = (1 << 64) - 1
"""All hash arithmetic is on unsigned 64-bit integers (mod 2**64)."""
GOLDEN = 0x9E3779B97F4A7C15
"""splitmix64's increment, also the multiplier that chains word n-gram hashes."""
FNV_OFFSET = 0xCBF29CE484222325
FNV_PRIME = 0x100000001B3
"""FNV-1a's 64-bit offset basis and prime (character n-grams)."""
WORD_WEIGHT = 1.0
NGRAM_WEIGHT = 0.7
CHAR_WEIGHT = 0.35
"""Feature weights: unigrams, longer word n-grams, character n-grams."""
PERSON = b"remem-hash-v1"
"""blake2b's personalisation string for token hashes ``t(tok)``."""
TOKEN_RE = re.compile(r"\w+|[^\w\s]+")
"""Tokens: runs of word characters, and runs of other non-space characters."""
MAX_NGRAM = 8
MAX_CHAR_NGRAM = 12
"""The largest word / character n-gram size a HashingEmbedder accepts."""
