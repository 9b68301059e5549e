"""Dump every LoCoMo question's recall candidates with their retrievers' ranks and scores.

The fusion fit (:mod:`remem.eval.locomo.fit`) needs, per question, every candidate any retriever
could contribute — not just a fused top k — so that it can re-fuse offline with any weights and
any retrieval depth. One run per conversation does that: ingest as ``remem bench locomo`` does
(:func:`~remem.eval.locomo.ingest.ingest_conversation`, recency and usage off), then one
``recall(question, k=DUMP_DEPTH)`` with ``candidates=DUMP_DEPTH`` and ``merge_copies=False``, so
each retriever lists (nearly) everything it matches and a turn and its memory copy stay two
entries; the fit truncates each list to the depth it simulates and merges the copies itself,
exactly as recall does (a turn is merged into the memory whose ``metadata["turn_id"]`` is it,
which in LoCoMo is the memory holding the same text).

Each candidate keeps its recall key, dia_id, kind, per-retriever ``(rank, raw score)`` (read
back from ``ScoredMemory.signals``) and every other numeric signal (so priors that recall
computes later can be fitted as extra features by name).

Embeddings: :class:`FileEmbeddingCache` keeps every vector it computes in one ``.npz`` file
(texts by sha256), so re-dumping with MiniLM after a code change re-encodes nothing.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from remem.controller import ControllerConfig
from remem.embeddings import EmbeddingService
from remem.errors import ConfigError
from remem.eval.locomo.ingest import ingest_conversation
from remem.eval.locomo.loader import load_locomo
from remem.eval.locomo.retrieve import map_results

__all__ = [
    "DUMP_DEPTH",
    "RETRIEVER_SIGNALS",
    "Candidate",
    "FileEmbeddingCache",
    "QuestionCandidates",
    "dump_candidates",
    "load_dump",
    "save_dump",
]

DUMP_DEPTH = 1_000
"""Per-retriever depth of the dump: above a LoCoMo conversation's ~700 utterances, so each
list is complete and any shallower depth is a prefix of it."""

RETRIEVER_SIGNALS = ("vector", "fulltext", "graph")
_STANDARD_SIGNALS = {
    *RETRIEVER_SIGNALS,
    *(f"{r}_{s}" for r in RETRIEVER_SIGNALS for s in ("rank", "fused")),
    "fusion",
    "recency",
    "usage",
    "inclusion",
    "age_hours",
    "access_count",
}


@dataclass(frozen=True, slots=True)
class Candidate:
    """One recall candidate of one question."""

    key: str
    dia_id: str | None
    turn: bool
    """an episodic turn (else a memory)"""
    turn_id: str | None
    """for a memory: the turn it copies (``metadata["turn_id"]``)"""
    ranks: dict[str, tuple[int, float]]
    """retriever → (rank from 1, raw score)"""
    extras: dict[str, float]


@dataclass(frozen=True, slots=True)
class QuestionCandidates:
    """A question, its evidence, and every candidate recall found for it."""

    conversation: str
    qid: str
    category: str
    evidence: tuple[str, ...]
    candidates: tuple[Candidate, ...]


class FileEmbeddingCache:
    """An :class:`~remem.embeddings.EmbeddingService` that memoises ``inner`` in an ``.npz``.

    Keys are ``kind:sha256(text)`` (documents and queries apart); :meth:`save` writes the file
    (atomically, via a temporary name). The file records ``inner.model_name`` and is ignored
    when it was written by another model.
    """

    def __init__(self, inner: EmbeddingService, path: Path) -> None:
        self._inner = inner
        self._path = Path(path)
        self._vectors: dict[str, NDArray[np.float32]] = {}
        if self._path.exists():
            with np.load(self._path, allow_pickle=False) as data:
                if str(data["model"]) == inner.model_name:
                    keys = [str(k) for k in data["keys"]]
                    matrix = np.asarray(data["vectors"], dtype=np.float32)
                    self._vectors = {k: matrix[i] for i, k in enumerate(keys)}

    @property
    def model_name(self) -> str:
        return self._inner.model_name

    @property
    def dimension(self) -> int:
        return self._inner.dimension

    @property
    def recommended_floors(self) -> object:
        """The inner model's similarity floors, read the way the collection manager reads
        them: without it a lexical embedder behind this cache would get the semantic floors
        and lose nearly every vector hit."""
        return getattr(self._inner, "recommended_floors", None)

    @staticmethod
    def _key(kind: str, text: str) -> str:
        return f"{kind}:{hashlib.sha256(text.encode('utf-8')).hexdigest()}"

    async def embed_documents(self, texts: Sequence[str]) -> NDArray[np.float32]:
        keys = [self._key("doc", t) for t in texts]
        missing = {k: t for k, t in zip(keys, texts, strict=True) if k not in self._vectors}
        if missing:
            fresh = await self._inner.embed_documents(list(missing.values()))
            for k, v in zip(missing, fresh, strict=True):
                self._vectors[k] = np.array(v, dtype=np.float32)
        if not keys:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return np.ascontiguousarray(np.stack([self._vectors[k] for k in keys]))

    async def embed_query(self, text: str) -> NDArray[np.float32]:
        key = self._key("query", text)
        if key not in self._vectors:
            self._vectors[key] = np.array(await self._inner.embed_query(text), dtype=np.float32)
        return self._vectors[key].copy()

    def save(self) -> None:
        """Write every vector to the cache file."""
        if not self._vectors:
            return
        keys = sorted(self._vectors)
        tmp = self._path.with_name(self._path.name + ".tmp.npz")
        self._path.parent.mkdir(parents=True, exist_ok=True)
        np.savez(
            tmp,
            model=np.array(self._inner.model_name),
            keys=np.array(keys),
            vectors=np.stack([self._vectors[k] for k in keys]),
        )
        tmp.replace(self._path)


def _candidate(hit: Any, dia_ids: dict[str, str]) -> Candidate:
    record = hit.record
    signals: dict[str, float] = hit.signals
    mapped, _ = map_results([hit], dia_ids)
    ranks = {
        r: (int(signals[f"{r}_rank"]), float(signals[r]))
        for r in RETRIEVER_SIGNALS
        if f"{r}_rank" in signals
    }
    turn_id = record.metadata.get("turn_id")
    return Candidate(
        key=record.id,
        dia_id=mapped[0] if mapped else None,
        turn=record.metadata.get("source") == "turn",
        turn_id=turn_id if isinstance(turn_id, str) else None,
        ranks=ranks,
        extras={k: float(v) for k, v in signals.items() if k not in _STANDARD_SIGNALS},
    )


async def dump_candidates(
    data: Path, directory: Path, *, embedder: EmbeddingService
) -> list[QuestionCandidates]:
    """Ingest each conversation of ``data`` into ``directory`` and collect every question's
    candidates (questions without evidence are skipped: they are never scored)."""
    if directory.exists() and any(directory.iterdir()):  # noqa: ASYNC240 - once, before any I/O
        raise ConfigError(f"{directory} is not empty; pass a fresh directory for the dump")
    base = ControllerConfig()
    inclusion = dataclasses.replace(base.inclusion, recency_rate=0.0, hit_weight=0.0)
    controller = dataclasses.replace(
        base,
        candidates=DUMP_DEPTH,
        inclusion=inclusion,
        fusion=dataclasses.replace(base.fusion, merge_copies=False),
    )
    out: list[QuestionCandidates] = []
    for conv in load_locomo(data):
        ingested = await ingest_conversation(
            conv, directory, embedder=embedder, index="both", controller=controller
        )
        try:
            dia_ids = dict(ingested.dia_ids)
            for q in conv.questions:
                if not q.evidence:
                    continue
                hits = await ingested.runtime.controller.recall(q.question, k=DUMP_DEPTH)
                out.append(
                    QuestionCandidates(
                        conversation=conv.sample_id,
                        qid=q.qid,
                        category=q.category,
                        evidence=tuple(q.evidence),
                        candidates=tuple(_candidate(h, dia_ids) for h in hits),
                    )
                )
        finally:
            await ingested.runtime.aclose()
    return out


def save_dump(path: Path, questions: Sequence[QuestionCandidates]) -> None:
    """One JSON object per question (JSONL)."""
    with Path(path).open("w", encoding="utf-8") as fh:
        for q in questions:
            fh.write(json.dumps(dataclasses.asdict(q), sort_keys=True) + "\n")


def load_dump(path: Path) -> list[QuestionCandidates]:
    """Read what :func:`save_dump` wrote."""
    out: list[QuestionCandidates] = []
    with Path(path).open(encoding="utf-8") as fh:
        for line in fh:
            d = json.loads(line)
            cands = tuple(
                Candidate(
                    key=c["key"],
                    dia_id=c["dia_id"],
                    turn=c["turn"],
                    turn_id=c["turn_id"],
                    ranks={r: (int(v[0]), float(v[1])) for r, v in c["ranks"].items()},
                    extras={k: float(v) for k, v in c["extras"].items()},
                )
                for c in d["candidates"]
            )
            out.append(
                QuestionCandidates(
                    conversation=d["conversation"],
                    qid=d["qid"],
                    category=d["category"],
                    evidence=tuple(d["evidence"]),
                    candidates=cands,
                )
            )
    return out
