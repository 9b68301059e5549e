"""One LoCoMo benchmark run: load, ingest each conversation into a fresh memory, ask, score.

    config = LocomoConfig(data=Path("data/locomo10.json"), out=Path("runs/locomo"))
    run = await run_locomo(config)
    print(run.summary["overall"]["recall@10"])

The run directory ``out`` receives ``memories/<sample_id>/`` (one remem runtime per
conversation, kept for inspection) and, from :func:`remem.eval.locomo.report.write_report`,
``results.json``, ``report.md`` and the plots. Conversations run one after another (each
runtime is closed before the next opens), so memory use is one conversation's.

Controller settings are remem's defaults (:meth:`LocomoConfig.controller`), recency and usage
included: both are bounded priors (:mod:`remem.controller.stages.recency`; a two-month-old
utterance keeps 95 % of its score), so the benchmark measures remem as it ships. ``recency_rate``
(``--recency-rate``) and ``usage_weight`` (``InclusionScorerConfig.hit_weight``) can still be
set; with a usage weight above 0 each question's recall reinforces what it returned, so the
scores depend (within the usage prior's bound, ≤ 10 %) on question order — deterministic for a
fixed file.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from remem.controller import ControllerConfig
from remem.embeddings import EmbeddingService, HashingEmbedder
from remem.errors import ConfigError
from remem.eval.locomo.format import EvidenceIssues
from remem.eval.locomo.ingest import IndexMode, ingest_conversation
from remem.eval.locomo.loader import load_locomo
from remem.eval.locomo.rankings import write_rankings
from remem.eval.locomo.retrieve import QuestionResult, retrieve_conversation
from remem.eval.locomo.summary import summarise
from remem.lifecycle import InclusionScorerConfig
from remem.stores.shared.search_text import DEFAULT_FULL_TEXT, FullTextConfig

__all__ = ["DEFAULT_KS", "LocomoConfig", "LocomoRun", "ProgressFn", "run_locomo"]

DEFAULT_KS: tuple[int, ...] = (1, 5, 10, 20)
MAX_K = 500
"""Recall asks for up to 2 × max(ks) results and the controller caps k at 1,000."""

ProgressFn = Callable[[str, int, int], None]
"""``(stage, done, total)``: stage is ``"ingest <sample_id>"`` or ``"questions"``."""


@dataclass(frozen=True)
class LocomoConfig:
    """What to run; validated on construction (ConfigError names the field)."""

    data: Path
    out: Path
    limit: int | None = None
    ks: tuple[int, ...] = DEFAULT_KS
    index: IndexMode = "both"
    rankings: Path | None = None
    recency_rate: float = InclusionScorerConfig.recency_rate
    usage_weight: float = InclusionScorerConfig.hit_weight
    full_text: FullTextConfig = DEFAULT_FULL_TEXT
    """The full-text normalisation (stemming language, query stop words) the memories use."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "data", Path(self.data))
        object.__setattr__(self, "out", Path(self.out))
        if self.limit is not None and (isinstance(self.limit, bool) or self.limit < 1):
            raise ConfigError(f"limit must be ≥ 1 conversations, got {self.limit!r}")
        if not self.ks or any(
            isinstance(k, bool) or not isinstance(k, int) or k < 1 for k in self.ks
        ):
            raise ConfigError(f"ks must be positive integers, got {self.ks!r}")
        if max(self.ks) > MAX_K:
            raise ConfigError(f"the largest k is {max(self.ks)}; use at most {MAX_K}")
        object.__setattr__(self, "ks", tuple(sorted(set(self.ks))))
        self.controller()  # InclusionScorerConfig validates both rates (ConfigError)
        if self.index not in ("turns", "memories", "both"):
            raise ConfigError(f"index {self.index!r} is unknown; use turns, memories or both")
        if not isinstance(self.full_text, FullTextConfig):
            raise ConfigError(f"full_text must be a FullTextConfig, got {self.full_text!r}")

    def controller(self) -> ControllerConfig:
        """remem's controller defaults with this run's recency rate and usage weight."""
        base = ControllerConfig()
        inclusion = dataclasses.replace(
            base.inclusion, recency_rate=self.recency_rate, hit_weight=self.usage_weight
        )
        return dataclasses.replace(base, inclusion=inclusion)

    @property
    def depth(self) -> int:
        """How many results each recall asks for (see :mod:`remem.eval.locomo.retrieve`)."""
        return max(self.ks) * (2 if self.index == "both" else 1)


@dataclass
class LocomoRun:
    """Everything a report needs."""

    config: LocomoConfig
    embedder: str
    results: list[QuestionResult]
    summary: dict[str, Any]
    issues: EvidenceIssues
    conversations: int
    turns: int
    memories: int
    ingest_seconds: float
    query_seconds: float
    started_at: datetime
    extra: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """The ``results.json`` document."""
        cfg = self.config
        return {
            "benchmark": "locomo",
            "started_at": self.started_at.isoformat(),
            "data": str(cfg.data),
            "embedder": self.embedder,
            "index": cfg.index,
            "ks": list(cfg.ks),
            "recall_depth": cfg.depth,
            "recency_rate": cfg.recency_rate,
            "usage_weight": cfg.usage_weight,
            "full_text": {
                "language": cfg.full_text.language,
                "stopwords": len(cfg.full_text.stopwords),
            },
            "conversations": self.conversations,
            "turns": self.turns,
            "memories": self.memories,
            "ingest_seconds": self.ingest_seconds,
            "query_seconds": self.query_seconds,
            "evidence_issues": self.issues.as_dict(),
            **self.summary,
            **self.extra,
        }


async def run_locomo(
    config: LocomoConfig,
    *,
    embedder: EmbeddingService | None = None,
    progress: ProgressFn | None = None,
) -> LocomoRun:
    """Run the benchmark (see the module docstring); writes the rankings file if configured."""
    started_at = datetime.now(UTC)
    conversations = load_locomo(config.data, limit=config.limit)
    service = embedder if embedder is not None else HashingEmbedder()
    issues = EvidenceIssues()
    results: list[QuestionResult] = []
    turns = memories = 0
    ingest_s = query_s = 0.0
    total_q = sum(len(c.questions) for c in conversations)
    memories_dir = config.out / "memories"
    if memories_dir.exists() and any(memories_dir.iterdir()):
        # Each conversation must go into a FRESH memory; reusing one would mix two runs.
        raise ConfigError(
            f"{config.out} already holds the memories of an earlier run; pass a new --out"
        )
    controller = config.controller()
    for ci, conv in enumerate(conversations):
        issues.add(conv.issues)
        if progress is not None:
            progress(f"ingest {conv.sample_id}", ci, len(conversations))
        t0 = time.perf_counter()
        ingested = await ingest_conversation(
            conv,
            memories_dir,
            embedder=service,
            index=config.index,
            controller=controller,
            full_text=config.full_text,
        )
        try:
            ingest_s += time.perf_counter() - t0
            turns += ingested.turns
            memories += ingested.memories

            def collect(result: QuestionResult) -> None:
                results.append(result)
                if progress is not None:
                    progress("questions", len(results), total_q)

            t1 = time.perf_counter()
            await retrieve_conversation(
                ingested, ks=config.ks, depth=config.depth, on_question=collect
            )
            query_s += time.perf_counter() - t1
        finally:
            await ingested.runtime.aclose()
    if progress is not None:
        progress("done", len(conversations), len(conversations))
    if config.rankings is not None:
        write_rankings(config.rankings, ((r.qid, r.ranked) for r in results))
    return LocomoRun(
        config=config,
        embedder=service.model_name,
        results=results,
        summary=summarise(results, ks=config.ks),
        issues=issues,
        conversations=len(conversations),
        turns=turns,
        memories=memories,
        ingest_seconds=ingest_s,
        query_seconds=query_s,
        started_at=started_at,
    )
