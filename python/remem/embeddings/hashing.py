"""HashingEmbedder: the zero-config, offline, deterministic LEXICAL embedder."""

from __future__ import annotations

import asyncio
import hashlib
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain

import numpy as np
from numpy.typing import NDArray

from remem.embeddings._checks import check_matrix, check_text, check_texts, first_row
from remem.errors import ConfigError
from remem.reference import hashing_embedder as spec

__all__ = ["HashingEmbedder"]

_U64 = np.uint64
_GOLDEN = _U64(spec.GOLDEN)
_FNV_PRIME = _U64(spec.FNV_PRIME)
_MAX_NGRAM = 8
_MAX_CHAR_NGRAM = 12
# Below this many characters a batch is hashed on the event loop: a thread hop costs more.
_OFFLOAD_MIN_CHARS = 32_768


def _mix(x: NDArray[np.uint64]) -> NDArray[np.uint64]:
    """splitmix64's finaliser over an array (uint64 arithmetic wraps, as the spec requires)."""
    z = x + _GOLDEN
    z = (z ^ (z >> _U64(30))) * _U64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> _U64(27))) * _U64(0x94D049BB133111EB)
    return z ^ (z >> _U64(31))


def _ranges(counts: NDArray[np.int64]) -> NDArray[np.int64]:
    """Concatenated ``arange(c)`` for every c in counts (the offset of each item in its group)."""
    total = int(counts.sum())
    starts = np.cumsum(counts) - counts
    return np.arange(total, dtype=np.int64) - np.repeat(starts, counts)


@dataclass(frozen=True, slots=True)
class HashingEmbedder:
    """Feature hashing of normalised word and character n-grams — LEXICAL, not semantic.

    Texts that share words, word pairs or character fragments (typos, inflections, code
    identifiers) get similar vectors; synonyms and paraphrases with different words do not.
    It is the zero-config default because it needs no model, no network and no GPU, and it is
    deterministic: the same text gives the same vector in every process and on every platform
    (fixed blake2b/FNV/splitmix64 hashes, never Python's randomised ``hash()``). Use a semantic
    model (:class:`SentenceTransformerEmbedder`, :class:`OpenAICompatibleEmbedder`) when recall
    must survive rewording.

    Features: NFKC + casefold; word n-grams over ``ngram_range``; character n-grams over
    ``char_ngrams`` of each space-padded token (``None`` turns them off); signed hashing into
    ``dimension`` buckets; sublinear tf ``sign(v)·log1p(|v|)``; L2 normalisation. The exact
    definition is :mod:`remem.reference.hashing_embedder` (the pure-Python twin tests check).

    ``model_name`` encodes every parameter ("remem-hashing-v1-384" for the defaults), so a
    collection built with other parameters is recognised as another model.

    Example::

        embedder = HashingEmbedder()
        v = await embedder.embed_query("where did I park the car?")   # (384,) float32, norm 1
    """

    dimension: int = 384
    ngram_range: tuple[int, int] = (1, 2)
    char_ngrams: tuple[int, int] | None = (3, 5)
    seed: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.dimension, int) or not 2 <= self.dimension <= 1 << 20:
            raise ConfigError(f"dimension must be an int in [2, 1048576], got {self.dimension!r}")
        lo, hi = self.ngram_range
        if not 1 <= lo <= hi <= _MAX_NGRAM:
            raise ConfigError(
                f"ngram_range must satisfy 1 <= lo <= hi <= {_MAX_NGRAM}, got {self.ngram_range}"
            )
        if self.char_ngrams is not None:
            clo, chi = self.char_ngrams
            if not 1 <= clo <= chi <= _MAX_CHAR_NGRAM:
                raise ConfigError(
                    f"char_ngrams must be None or satisfy 1 <= lo <= hi <= {_MAX_CHAR_NGRAM}, "
                    f"got {self.char_ngrams}"
                )
        if not isinstance(self.seed, int) or not 0 <= self.seed < 1 << 64:
            raise ConfigError(f"seed must be an int in [0, 2**64), got {self.seed!r}")

    @property
    def recommended_floors(self) -> dict[str, float]:
        """Similarity floors per stage suited to lexical vectors.

        Feature-hashed vectors of related texts share only their common n-grams, so their
        cosine sits far lower than a semantic model's (a paraphrase with one shared content word
        scores about 0.1-0.3; unrelated chat text about -0.1-0.05). The semantic defaults (0.5
        short-term, 0.7 long-term) would drop nearly every true match.
        """
        return {"short_term": 0.08, "long_term": 0.12, "decayed": 0.12}

    @property
    def model_name(self) -> str:
        """``remem-hashing-v1-<d>``, then ``-w<lo>.<hi>-c<lo>.<hi>-s<seed>`` if not default."""
        name = f"remem-hashing-v1-{self.dimension}"
        if (self.ngram_range, self.char_ngrams, self.seed) != ((1, 2), (3, 5), 0):
            chars = "none" if self.char_ngrams is None else "{}.{}".format(*self.char_ngrams)
            name += "-w{}.{}".format(*self.ngram_range) + f"-c{chars}-s{self.seed}"
        return name

    async def embed_documents(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """Vectors of ``texts``, ``(len(texts), dimension)``; big batches run in a worker thread."""
        batch = check_texts(texts)
        if sum(map(len, batch)) >= _OFFLOAD_MIN_CHARS:
            return await asyncio.to_thread(self._encode, batch)
        return self._encode(batch)

    async def embed_query(self, text: str) -> NDArray[np.float32]:
        """Vector of one text, ``(dimension,)``."""
        vectors = await self.embed_documents([check_text(text)])
        return first_row(vectors)

    def encode(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """Synchronous :meth:`embed_documents` (pure CPU work; safe from any thread)."""
        return self._encode(check_texts(texts))

    def _token_hashes(self, tokens: list[str]) -> NDArray[np.uint64]:
        key = self.seed.to_bytes(8, "little")
        blake = hashlib.blake2b
        return np.fromiter(
            (
                int.from_bytes(
                    blake(t.encode("utf-8"), digest_size=8, key=key, person=spec.PERSON).digest(),
                    "little",
                )
                for t in tokens
            ),
            dtype=np.uint64,
            count=len(tokens),
        )

    def _encode(self, texts: list[str]) -> NDArray[np.float32]:
        n, d = len(texts), self.dimension
        normalize, findall = unicodedata.normalize, spec.TOKEN_RE.findall
        token_lists = [findall(normalize("NFKC", t).casefold()) for t in texts]
        lengths = np.fromiter(map(len, token_lists), dtype=np.int64, count=n)
        flat = list(chain.from_iterable(token_lists))
        uniq = list(dict.fromkeys(flat))
        vocab = dict(zip(uniq, range(len(uniq)), strict=True))
        ids = np.fromiter(map(vocab.__getitem__, flat), dtype=np.int64, count=len(flat))
        uniq_hash = self._token_hashes(uniq)
        occ_rows = np.repeat(np.arange(n, dtype=np.int64), lengths)
        occ_hash = uniq_hash[ids]

        rows: list[NDArray[np.int64]] = []
        hashes: list[NDArray[np.uint64]] = []
        weights: list[float] = []

        def add(r: NDArray[np.int64], h: NDArray[np.uint64], w: float) -> None:
            rows.append(r)
            hashes.append(h)
            weights.append(w)

        empty = np.flatnonzero(lengths == 0)
        add(empty, np.repeat(self._token_hashes([""]), empty.size), spec.WORD_WEIGHT)
        lo, hi = self.ngram_range
        for k in range(lo, hi + 1):
            m = ids.size - k + 1
            if m <= 0:
                continue
            h = occ_hash[:m].copy()
            for j in range(1, k):
                h = _mix((h * _GOLDEN) ^ occ_hash[j : j + m])
            same_text = occ_rows[:m] == occ_rows[k - 1 :]
            add(
                occ_rows[:m][same_text],
                h[same_text],
                spec.WORD_WEIGHT if k == 1 else spec.NGRAM_WEIGHT,
            )
        if self.char_ngrams is not None and uniq:
            tok_ptr, tok_feats = self._char_features(uniq)
            occ_count = np.diff(tok_ptr)[ids]
            index = np.repeat(tok_ptr[:-1][ids], occ_count) + _ranges(occ_count)
            add(np.repeat(occ_rows, occ_count), tok_feats[index], spec.CHAR_WEIGHT)

        all_rows = np.concatenate(rows)
        all_hash = np.concatenate(hashes)
        signed = np.concatenate(
            [np.full(r.size, w, dtype=np.float64) for r, w in zip(rows, weights, strict=True)]
        )
        signed[(all_hash >> _U64(63)).astype(bool)] *= -1.0
        keys = all_rows * d + (all_hash % _U64(d)).astype(np.int64)
        buckets = np.bincount(keys, weights=signed, minlength=n * d).reshape(n, d)
        values = np.sign(buckets) * np.log1p(np.abs(buckets))
        norms = np.sqrt(np.einsum("ij,ij->i", values, values))
        np.divide(values, norms[:, None], out=values, where=norms[:, None] > 0)
        out = np.ascontiguousarray(values, dtype=np.float32)
        return check_matrix(out, rows=n, dimension=d, source=self.model_name)

    def _char_features(self, tokens: list[str]) -> tuple[NDArray[np.int64], NDArray[np.uint64]]:
        """Per-token character n-gram hashes as CSR: ``feats[ptr[i]:ptr[i+1]]`` for token i.

        Within a token the order is by n, then start position (the spec's order).
        """
        assert self.char_ngrams is not None
        padded = [f" {t} " for t in tokens]
        plens = np.fromiter(map(len, padded), dtype=np.int64, count=len(padded))
        codes = np.frombuffer("".join(padded).encode("utf-32-le"), dtype=np.uint32).astype(_U64)
        tok_start = np.cumsum(plens) - plens
        basis = _U64(spec.FNV_OFFSET ^ spec.mix(self.seed))
        owners: list[NDArray[np.int64]] = []
        feats: list[NDArray[np.uint64]] = []
        for size in range(self.char_ngrams[0], self.char_ngrams[1] + 1):
            counts = np.maximum(plens - size + 1, 0)
            starts = np.repeat(tok_start, counts) + _ranges(counts)
            h = np.full(starts.size, basis, dtype=_U64)
            for j in range(size):
                h = (h ^ codes[starts + j]) * _FNV_PRIME
            owners.append(np.repeat(np.arange(len(tokens), dtype=np.int64), counts))
            feats.append(_mix(h))
        owner = np.concatenate(owners)
        order = np.argsort(owner, kind="stable")
        ptr = np.zeros(len(tokens) + 1, dtype=np.int64)
        np.cumsum(np.bincount(owner, minlength=len(tokens)), out=ptr[1:])
        return ptr, np.concatenate(feats)[order]
