"""Synthetic candidates and turns for the context tests and benchmarks."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from remem.context import ContextCandidate, HistoryTurn, Section

T0 = datetime(2026, 10, 1, 9, 0, tzinfo=UTC)
_WORDS = (
    "Ana",
    "Lisbon",
    "coffee",
    "project",
    "deadline",
    "garden",
    "python",
    "rust",
    "budget",
    "sister",
    "concert",
    "train",
    "piano",
    "doctor",
    "Tuesday",
    "recipe",
    "novel",
    "bicycle",
    "meeting",
    "invoice",
    "holiday",
    "mountain",
    "river",
)
_SUPPORTING = (
    Section.ENTITIES,
    Section.KNOWN_FACTS,
    Section.LONG_TERM,
    Section.SHORT_TERM,
    Section.INSIGHTS,
    Section.SUMMARIES,
)


def sentence(rng: random.Random, n_words: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(n_words)).capitalize() + "."


def candidates(n: int, seed: int = 0, *, max_words: int = 60) -> list[ContextCandidate]:
    rng = random.Random(seed)
    return [
        ContextCandidate(
            id=f"c{i}",
            section=rng.choice(_SUPPORTING),
            text=f"({i}) " + sentence(rng, rng.randint(3, max_words)),
            score=round(rng.random(), 4),
            timestamp=T0 - timedelta(hours=rng.randint(0, 2000)),
        )
        for i in range(n)
    ]


def session(session_id: str, n: int, start: datetime, seed: int = 0) -> list[HistoryTurn]:
    rng = random.Random(seed)
    return [
        HistoryTurn(
            id=f"{session_id}-{k}",
            session_id=session_id,
            turn_number=k,
            user_message=sentence(rng, rng.randint(3, 30)),
            assistant_message=sentence(rng, rng.randint(3, 60)),
            timestamp=start + timedelta(minutes=k),
        )
        for k in range(1, n + 1)
    ]
