"""The feature accumulation of :class:`~remem.embeddings.HashingEmbedder`: tokens in, vectors out.

The embedder tokenises and hashes in Python (NFKC, casefold, ``TOKEN_RE``, blake2b: what Python
defines); the native kernel does the rest — word n-grams, character n-grams, signed hashing,
sublinear tf, L2 normalisation — for a whole batch in one call, without the GIL, over threads
once the batch is big. :func:`hash_embed_tokens` takes token lists; :func:`hash_embed` takes the
CSR arrays the kernel reads. :mod:`remem.reference.hashembed` is the specification (arrays,
ranges, feature order, errors); :mod:`remem.reference.hashing_embedder` the text-level one.

Exactness: the rows are bit-identical to :func:`remem.reference.hashembed.hash_embed` (same
features, same float64 summation order, the platform's ``log1p``, a sequential norm; the tests
hold this exactly). Against :func:`remem.reference.hashing_embedder.embed_texts` (whose norm is
``sum()``, compensated from Python 3.12) and the former numpy path (``np.log1p``, an ``einsum``
norm) the contract is ``atol=1e-6``; measured on CPython 3.11 / x86-64 glibc, all three agreed
bit for bit on 10k chat turns and 2k random Unicode texts under four parameter sets.

This module is the one place inputs are converted (to C-contiguous int64/uint64/uint32 arrays;
no copy when they already are).

Example::

    >>> from remem.reference.hashing_embedder import token_hash
    >>> v = hash_embed_tokens([["hello", "world"], []], lambda ts: [token_hash(t, 0) for t in ts],
    ...                       dimension=8, ngram_range=(1, 2), char_ngrams=(3, 5), seed=0,
    ...                       empty_hash=token_hash("", 0))
    >>> v.shape, v.dtype.name
    ((2, 8), 'float32')
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import accumulate, chain

import numpy as np
from numpy.typing import ArrayLike, NDArray

from remem import _native
from remem.kernels._ints import int_array

__all__ = ["hash_embed", "hash_embed_tokens"]


def hash_embed(
    text_offsets: ArrayLike,
    ids: ArrayLike,
    hashes: ArrayLike,
    char_offsets: ArrayLike,
    chars: ArrayLike,
    *,
    dimension: int,
    ngram_range: tuple[int, int],
    char_ngrams: tuple[int, int] | None,
    seed: int,
    empty_hash: int,
) -> NDArray[np.float32]:
    """The ``(n_texts, dimension)`` float32 vectors of a tokenised, hashed batch.

    Args:
        text_offsets: ``n_texts + 1`` offsets into ``ids`` (int64): text ``i`` is
            ``ids[text_offsets[i]:text_offsets[i + 1]]``.
        ids: one index into the unique tokens per token occurrence (int64).
        hashes: ``t(tok)`` of each unique token (uint64).
        char_offsets: ``len(hashes) + 1`` offsets into ``chars`` (int64).
        chars: the unique tokens' code points, concatenated (uint32).
        dimension: buckets, ``2 .. 2**20``.
        ngram_range: word n-gram sizes ``(lo, hi)``, ``1 <= lo <= hi <= 8``.
        char_ngrams: character n-gram sizes, ``1 <= lo <= hi <= 12``, or ``None``.
        seed: the embedder's seed (it keys the character hashes), ``0 .. 2**64 - 1``.
        empty_hash: ``t("")``, the one feature of a text without tokens.

    Returns:
        One L2-normalised row per text (all zero when every bucket cancels).

    Raises:
        InvalidArgumentError: a parameter out of range; offsets that are empty, do not start at
            0, decrease or do not end at their array's length; an id outside the unique tokens;
            a value that does not fit its dtype.
        ShapeError: ``char_offsets`` is not ``len(hashes) + 1`` long.
        DTypeError: non-integer arrays.
    """
    return _native.hash_embed(
        int_array(text_offsets, np.int64, "text_offsets"),
        int_array(ids, np.int64, "ids"),
        int_array(hashes, np.uint64, "hashes"),
        int_array(char_offsets, np.int64, "char_offsets"),
        int_array(chars, np.uint32, "chars"),
        dimension=dimension,
        ngram_range=ngram_range,
        char_ngrams=char_ngrams,
        seed=seed,
        empty_hash=empty_hash,
    )


def hash_embed_tokens(
    token_lists: Sequence[Sequence[str]],
    hash_tokens: Callable[[list[str]], Sequence[int]],
    *,
    dimension: int,
    ngram_range: tuple[int, int],
    char_ngrams: tuple[int, int] | None,
    seed: int,
    empty_hash: int,
) -> NDArray[np.float32]:
    """:func:`hash_embed` of token lists: one ``(n_texts, dimension)`` float32 row per list.

    ``hash_tokens`` gets the distinct tokens of the batch once each, in first-seen order, and
    returns their ``t(tok)``; the embedder passes its cached blake2b hasher.
    """
    n = len(token_lists)
    flat = token_lists[0] if n == 1 else list(chain.from_iterable(token_lists))
    vocab: dict[str, int] = {}
    # setdefault's second argument is the next id: a new token takes it, a known one keeps its own.
    ids = np.array([vocab.setdefault(t, len(vocab)) for t in flat], dtype=np.int64)
    unique = list(vocab)
    if n == 1:
        text_offsets = np.array([0, len(flat)], dtype=np.int64)
    else:
        text_offsets = np.fromiter(
            accumulate(map(len, token_lists), initial=0), dtype=np.int64, count=n + 1
        )
    hashes = np.array(hash_tokens(unique), dtype=np.uint64)
    if char_ngrams is None:
        char_offsets, chars = np.zeros(len(unique) + 1, dtype=np.int64), np.zeros(0, np.uint32)
    else:
        char_offsets = np.fromiter(
            accumulate(map(len, unique), initial=0), dtype=np.int64, count=len(unique) + 1
        )
        chars = np.frombuffer("".join(unique).encode("utf-32-le"), dtype=np.uint32)
    return _native.hash_embed(
        text_offsets,
        ids,
        hashes,
        char_offsets,
        chars,
        dimension=dimension,
        ngram_range=ngram_range,
        char_ngrams=char_ngrams,
        seed=seed,
        empty_hash=empty_hash,
    )
