"""HashingEmbedder: the zero-config, offline, deterministic LEXICAL embedder."""

from __future__ import annotations

import asyncio
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from remem.embeddings._checks import check_text, check_texts, first_row
from remem.embeddings._token_hashes import TokenHashCache
from remem.errors import ConfigError
from remem.hashing_constants import MAX_CHAR_NGRAM, MAX_NGRAM, TOKEN_RE
from remem.kernels.hashembed import hash_embed_tokens

__all__ = ["HashingEmbedder"]

# Below this many characters a batch is hashed on the event loop: a thread hop costs more.
_OFFLOAD_MIN_CHARS = 32_768


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
    Tokenising and the blake2b token hashes run in Python (recent tokens' hashes are cached,
    :class:`~remem.embeddings._token_hashes.TokenHashCache`); the rest runs in the native kernel
    :mod:`remem.kernels.hashembed` (~20 µs for one chat turn).

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
    # blake2b of recently seen tokens; not a parameter (no part of eq, hash or repr).
    _hashes: TokenHashCache = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.dimension, int) or not 2 <= self.dimension <= 1 << 20:
            raise ConfigError(f"dimension must be an int in [2, 1048576], got {self.dimension!r}")
        lo, hi = self.ngram_range
        if not 1 <= lo <= hi <= MAX_NGRAM:
            raise ConfigError(
                f"ngram_range must satisfy 1 <= lo <= hi <= {MAX_NGRAM}, got {self.ngram_range}"
            )
        if self.char_ngrams is not None:
            clo, chi = self.char_ngrams
            if not 1 <= clo <= chi <= MAX_CHAR_NGRAM:
                raise ConfigError(
                    f"char_ngrams must be None or satisfy 1 <= lo <= hi <= {MAX_CHAR_NGRAM}, "
                    f"got {self.char_ngrams}"
                )
        if not isinstance(self.seed, int) or not 0 <= self.seed < 1 << 64:
            raise ConfigError(f"seed must be an int in [0, 2**64), got {self.seed!r}")
        object.__setattr__(self, "_hashes", TokenHashCache(self.seed))

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

    async def embed_queries(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """Vectors of many queries in one call: :meth:`embed_documents` (each row is hashed on
        its own, so row i is :meth:`embed_query` of ``texts[i]``)."""
        return await self.embed_documents(texts)

    def encode(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """Synchronous :meth:`embed_documents` (pure CPU work; safe from any thread)."""
        return self._encode(check_texts(texts))

    def _encode(self, texts: list[str]) -> NDArray[np.float32]:
        # The kernel's rows are finite float32 of the right shape by construction (tested), so
        # the output check the other embedders need would only add ~5 µs to every remember().
        normalize, findall = unicodedata.normalize, TOKEN_RE.findall
        cache = self._hashes
        return hash_embed_tokens(
            [findall(normalize("NFKC", t).casefold()) for t in texts],
            cache.hashes,
            dimension=self.dimension,
            ngram_range=self.ngram_range,
            char_ngrams=self.char_ngrams,
            seed=self.seed,
            empty_hash=cache.empty_hash,
        )
