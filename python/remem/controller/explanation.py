"""A recall result: the final score, every signal behind it, and the sentence explaining it.

``signals`` holds each retriever's raw score, rank and fused share, the fusion score, the
inclusion factors (recency × usage), the candidate's age and access count, its neighbour share
and every stage factor; ``explanation`` renders them (factors equal to 1 are left out).

Example::

    scored_memory(candidate, final, fused, factors, share, now, fusion_config).explanation
    # "0.42 = fusion 0.5 [vector #1 …] × recency 0.981 (3.0 h old) × usage 1.000 (0 accesses)"
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from remem.controller.candidates import Candidate, graph_record, turn_record
from remem.controller.config import FusionConfig
from remem.controller.fusion import Fused, describe_fusion
from remem.models import ScoredMemory
from remem.models.base import trusted
from remem.stores.shared.record_memo import detached


def scored_memory(
    c: Candidate,
    final: float,
    f: Fused,
    factors: Mapping[str, float],
    share: float,
    now: datetime,
    fusion: FusionConfig,
) -> ScoredMemory:
    """The :class:`ScoredMemory` of candidate ``c`` (see the module docstring)."""
    hours = max(0.0, (now - c.created_at).total_seconds() / 3600.0)
    recency, usage = factors["recency"], factors["usage"]
    signals: dict[str, float] = {}
    for name, (rank, raw, part) in f.parts.items():
        signals[name] = float(raw)
        signals[f"{name}_rank"] = float(rank)
        signals[f"{name}_fused"] = float(part)
    signals.update(
        fusion=f.score,
        inclusion=recency * usage,
        age_hours=hours,
        access_count=float(c.access_count),
        neighbours=share,
        conflict=1.0,
    )
    signals.update(factors)
    # The eligibility read's records may be shared with other reads: a result owns its copy.
    record = c.record
    if record is None:
        record = turn_record(c) if c.turn is not None else graph_record(c)
    else:
        record = detached(record)
    explanation = (
        f"{final:.4g} = fusion {f.score:.4g} [{describe_fusion(f, fusion)}]"
        f" × recency {recency:.3f} ({hours:.1f} h old)"
        f" × usage {usage:.3f} ({c.access_count} accesses)"
    )
    for name, value in factors.items():
        if name not in ("recency", "usage") and value != 1.0:
            explanation += f" × {name} {value:.3g}"
    if share:
        explanation += f"; fulltext includes neighbours +{share:.3g}"
    if c.graph is not None:
        explanation += f"; graph: {c.graph.explanation}"
    # Trusted: every value was computed here from validated store rows (finite scores).
    return trusted(
        ScoredMemory,
        {
            "record": record,
            "score": final,
            "signals": signals,
            "sources": tuple(sorted(f.parts)),
            "explanation": explanation,
        },
    )
