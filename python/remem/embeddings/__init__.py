"""Embedding services: texts in, float32 vectors out, behind one small protocol.

- :class:`EmbeddingService` — the protocol every embedder implements.
- :class:`HashingEmbedder` — the zero-config default: offline, deterministic, LEXICAL.
- :class:`SentenceTransformerEmbedder` — a local sentence-transformers model (native BERT,
  no torch).
- :class:`OpenAICompatibleEmbedder` — any ``/v1/embeddings`` server over httpx.
- :class:`CachedEmbedder` — an LRU cache in front of any of them.
- :func:`as_embedding_service` — checks and adapts a duck-typed embedding function.
- :func:`embed_queries` — a batch of query vectors, in one call where the embedder can.
"""

from __future__ import annotations

from remem.embeddings.adapter import EmbeddingFunctionAdapter, as_embedding_service
from remem.embeddings.cached import CachedEmbedder, CacheStats
from remem.embeddings.hashing import HashingEmbedder
from remem.embeddings.openai_compatible import OpenAICompatibleEmbedder
from remem.embeddings.sentence_transformer import (
    MINILM_MODEL_NAME,
    SentenceTransformerEmbedder,
    bundled_minilm_dir,
)
from remem.embeddings.service import EmbeddingService, embed_queries

__all__ = [
    "MINILM_MODEL_NAME",
    "CacheStats",
    "CachedEmbedder",
    "EmbeddingFunctionAdapter",
    "EmbeddingService",
    "HashingEmbedder",
    "OpenAICompatibleEmbedder",
    "SentenceTransformerEmbedder",
    "as_embedding_service",
    "bundled_minilm_dir",
    "embed_queries",
]
