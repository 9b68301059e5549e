"""Pure-Python twin of :func:`remem.kernels.hashembed.hash_embed`; this docstring is the spec.

The kernel is steps 4-8 of :mod:`remem.reference.hashing_embedder` over an already tokenised and
hashed batch, given as CSR arrays:

- text ``i`` is the token occurrences ``ids[text_offsets[i]:text_offsets[i + 1]]``, each an
  index into the batch's unique tokens; ``text_offsets`` has ``n_texts + 1`` entries, starts at
  0, never decreases and ends at ``len(ids)``;
- unique token ``u`` has the hash ``hashes[u]`` (``t(tok)``, an unsigned 64-bit int) and the code
  points ``chars[char_offsets[u]:char_offsets[u + 1]]`` (any unsigned 32-bit ints; a ``str``
  gives ``ord(c) <= 0x10FFFF``); ``char_offsets`` has ``len(hashes) + 1`` entries, starts at 0,
  never decreases and ends at ``len(chars)``; every id is in ``[0, len(hashes))``;
- ``empty_hash`` is ``t("")``, the single feature of a text without tokens.

Features of a text, in this order (the order of the float64 sums, so it is part of the spec):
``empty_hash`` (weight 1.0) when the text has no tokens; word n-grams for n in ``ngram_range``,
by n then start (``h = hashes[id_1]``, then ``h = mix(h * GOLDEN ^ hashes[id_j])``; weight 1.0
for n = 1, else 0.7); character n-grams of each occurrence's code points padded with one
U+0020 on each side, for n in ``char_ngrams`` (none when it is ``None``), by occurrence, then n,
then start (``h = FNV_OFFSET ^ mix(seed)``, ``h = (h ^ c) * FNV_PRIME`` per code point, then
``mix(h)``; weight 0.35). Bucket ``h % dimension``, negated when bit 63 of ``h`` is set; then
``v = copysign(log1p(|v|), v)``; the norm is the square root of the sum of squares added one
bucket at a time in bucket order; a row whose buckets all cancel to 0 stays 0; each value
``v / norm`` is rounded to float32.

Ranges: ``2 <= dimension <= 2**20``; ``1 <= lo <= hi <= 8`` for ``ngram_range`` and
``1 <= lo <= hi <= 12`` for ``char_ngrams``; ``seed`` and ``empty_hash`` in ``[0, 2**64)``.

Errors: :class:`~remem.errors.InvalidArgumentError` for a parameter out of range, an empty
``text_offsets``, offsets that do not start at 0, decrease or do not end at their array's length,
and an id outside ``[0, len(hashes))``; :class:`~remem.errors.ShapeError` when ``char_offsets``
does not have ``len(hashes) + 1`` entries (checked in that order: parameters, ``text_offsets``,
``char_offsets``, ids).
"""

from __future__ import annotations

import math
import struct
from collections.abc import Sequence

from remem.errors import InvalidArgumentError, ShapeError
from remem.hashing_constants import (
    CHAR_WEIGHT,
    FNV_OFFSET,
    FNV_PRIME,
    GOLDEN,
    MASK,
    MAX_CHAR_NGRAM,
    MAX_NGRAM,
    NGRAM_WEIGHT,
    WORD_WEIGHT,
)
from remem.reference.hashing_embedder import mix

__all__ = ["hash_embed"]

MAX_DIMENSION = 1 << 20


def _check_range(name: str, value: tuple[int, int], top: int) -> None:
    lo, hi = value
    if not 1 <= lo <= hi <= top:
        raise InvalidArgumentError(
            f"{name} is out of range: ({lo}, {hi}) does not satisfy 1 <= lo <= hi <= {top}"
        )


def _check_offsets(name: str, offsets: Sequence[int], items: int, total: int) -> None:
    if len(offsets) != items + 1:
        raise ShapeError(f"{name} has length {len(offsets)} but {items + 1} was expected")
    if offsets[0] != 0:
        raise InvalidArgumentError(f"{name} is out of range: it starts at {offsets[0]}, not 0")
    for i in range(items):
        if offsets[i + 1] < offsets[i]:
            raise InvalidArgumentError(f"{name} is out of range: it decreases at index {i}")
    if offsets[items] != total:
        raise InvalidArgumentError(f"{name} is out of range: it does not end at {total}")


def _f32(x: float) -> float:
    return float(struct.unpack("f", struct.pack("f", x))[0])


def hash_embed(
    text_offsets: Sequence[int],
    ids: Sequence[int],
    hashes: Sequence[int],
    char_offsets: Sequence[int],
    chars: Sequence[int],
    *,
    dimension: int,
    ngram_range: tuple[int, int],
    char_ngrams: tuple[int, int] | None,
    seed: int,
    empty_hash: int,
) -> list[list[float]]:
    """The float32-rounded vectors of the batch, one list of ``dimension`` floats per text."""
    if not 2 <= dimension <= MAX_DIMENSION:
        raise InvalidArgumentError(f"dimension is out of range: {dimension}")
    _check_range("ngram_range", ngram_range, MAX_NGRAM)
    if char_ngrams is not None:
        _check_range("char_ngrams", char_ngrams, MAX_CHAR_NGRAM)
    if not (0 <= seed <= MASK and 0 <= empty_hash <= MASK):
        raise InvalidArgumentError("seed and empty_hash must be ints in [0, 2**64)")
    if not text_offsets:
        raise InvalidArgumentError("text_offsets is empty; it needs n_texts + 1 entries")
    n = len(text_offsets) - 1
    _check_offsets("text_offsets", text_offsets, n, len(ids))
    _check_offsets("char_offsets", char_offsets, len(hashes), len(chars))
    if any(not 0 <= i < len(hashes) for i in ids):
        raise InvalidArgumentError(f"ids is out of range: not all in [0, {len(hashes)})")

    basis = FNV_OFFSET ^ mix(seed)
    rows = []
    for row in range(n):
        row_ids = ids[text_offsets[row] : text_offsets[row + 1]]
        features: list[tuple[int, float]] = []
        if not row_ids:
            features.append((empty_hash, WORD_WEIGHT))
        for k in range(ngram_range[0], ngram_range[1] + 1):
            for start in range(len(row_ids) - k + 1):
                h = hashes[row_ids[start]]
                for nxt in row_ids[start + 1 : start + k]:
                    h = mix(((h * GOLDEN) & MASK) ^ hashes[nxt])
                features.append((h, WORD_WEIGHT if k == 1 else NGRAM_WEIGHT))
        if char_ngrams is not None:
            for u in row_ids:
                padded = [0x20, *chars[char_offsets[u] : char_offsets[u + 1]], 0x20]
                for k in range(char_ngrams[0], char_ngrams[1] + 1):
                    for start in range(len(padded) - k + 1):
                        h = basis
                        for c in padded[start : start + k]:
                            h = ((h ^ c) * FNV_PRIME) & MASK
                        features.append((mix(h), CHAR_WEIGHT))
        buckets = [0.0] * dimension
        for h, weight in features:
            buckets[h % dimension] += -weight if h >> 63 else weight
        values = [math.copysign(math.log1p(abs(v)), v) if v else 0.0 for v in buckets]
        total = 0.0
        for v in values:
            total += v * v
        norm = math.sqrt(total)
        rows.append([_f32(v / norm) if norm > 0 else _f32(v) for v in values])
    return rows
