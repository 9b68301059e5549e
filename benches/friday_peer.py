"""friday-framework-memory's MemoryController, built offline over a bench world's memories.

``bench_controller.py`` times Friday's ``MemoryController.recall`` next to remem's. This module
builds it the way a Friday user would, minus every network dependency:

* stores — ``CollectionManager`` (three persistent ChromaDB collections under the world's
  directory, Friday's default ``CollectionConfig``), an in-memory ``ElementXGraphStore``
  (networkx) and an ``InMemoryEpisodicStore``; no access buffer, no graph scorer, no telemetry
  (all optional, off by default).
* embeddings — ``PrecomputedEmbeddings``: the world's HashingEmbedder vectors looked up by text
  (so both systems see the same vectors and neither times an embedding model); an unknown text
  raises instead of being embedded.
* no LLM: ``recall`` calls none; nothing here configures one.
* loading — ``store_insights_batch_with_metadata`` (Friday's batch write of memories into the
  short-term collection) with stable ids ``m<i>``, 2,000 per call; turns via ``add_turn``.

Offline: importing ``friday_memory`` imports litellm (through friday_llm), which fetches a model
price map from GitHub at import time unless ``LITELLM_LOCAL_MODEL_COST_MAP`` is true; chromadb
sends anonymous usage telemetry unless ``ANONYMIZED_TELEMETRY`` is false — both are set before
the import. litellm's import also runs ``tiktoken.get_encoding("cl100k_base")``, but from the
vocabulary bundled in its wheel (it points ``TIKTOKEN_CACHE_DIR`` there): no download. Friday's
recall path itself never calls tiktoken (only its optional exact token estimator does).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

BATCH = 2_000


def import_friday_memory() -> ModuleType:
    """``friday_memory``, imported without network access; skips the calling test when the
    package is not installed."""
    os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    os.environ["ANONYMIZED_TELEMETRY"] = "False"
    module: ModuleType = pytest.importorskip(
        "friday_memory",
        reason="friday-framework-memory is not installed (python install.py --bench)",
    )
    return module


class PrecomputedEmbeddings:
    """Friday's ``EmbeddingModel`` protocol over vectors computed beforehand, keyed by text."""

    def __init__(self, texts: Sequence[str], vectors: NDArray[np.float32]) -> None:
        self._by_text = {t: [float(x) for x in v] for t, v in zip(texts, vectors, strict=True)}

    def _get(self, text: str) -> list[float]:
        try:
            return self._by_text[text]
        except KeyError:
            raise KeyError(f"no precomputed vector for {text!r}: add it to the peer") from None

    async def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self._get(t) for t in texts]

    async def embed_query(self, text: str) -> list[float]:
        return self._get(text)


class FridayPeer:
    """One Friday ``MemoryController`` holding ``texts`` as memories ``m0..m<n-1>``."""

    def __init__(
        self,
        root: Path,
        loop: asyncio.AbstractEventLoop,
        embeddings: PrecomputedEmbeddings,
    ) -> None:
        fm = import_friday_memory()
        self.fm = fm
        self.loop = loop
        self.collections = fm.CollectionManager(embedding_function=embeddings, path=str(root))
        self.controller = fm.MemoryController(
            vector_store=self.collections.short_term,
            graph_store=fm.ElementXGraphStore(),
            episodic_store=fm.InMemoryEpisodicStore(),
            collection_manager=self.collections,
        )

    def load(self, texts: Sequence[str], turns: Sequence[tuple[str, str, str]]) -> None:
        """Memories through the batch write, ``turns`` (session, user, assistant) one by one."""
        fm = self.fm
        c = self.controller
        provenance = fm.ProvenanceMetadata(source_id="bench", source_type="document")

        async def fill() -> None:
            for lo in range(0, len(texts), BATCH):
                hi = min(len(texts), lo + BATCH)
                await c.store_insights_batch_with_metadata(
                    [(texts[i], {}) for i in range(lo, hi)],
                    provenance,
                    record_ids=[f"m{i}" for i in range(lo, hi)],
                )
            for i, (session, user, assistant) in enumerate(turns):
                turn = fm.InteractionTurn(
                    id=f"t{i}", session_id=session, user_message=user, assistant_message=assistant
                )
                await c.add_turn(session, turn)

        self.loop.run_until_complete(fill())

    def recall(self, query: str) -> list[str]:
        """The ids of Friday's passages for ``query`` (default arguments), best first."""
        payload: Any = self.loop.run_until_complete(self.controller.recall(query))
        return [str(p["id"]) for p in payload.passages]

    def count(self) -> int:
        return int(self.loop.run_until_complete(self.collections.short_term.count()))
