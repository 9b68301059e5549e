"""The notes the episodic snapshot kill test writes (shared by the test and its worker)."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from remem.stores.episodic import NoteInput

T0 = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
BATCH = 300
WORDS = "otter walrus beach kelp tide shell reef gull harbour lighthouse".split()  # noqa: SIM905
QUERIES = ["otter", "walrus beach", "kelp kelp reef", "lighthouse tide", "gull"]


def notes(start: int, n: int) -> list[NoteInput]:
    """Notes ``start .. start + n`` (ids and texts depend on the number only)."""
    out = []
    for i in range(start, start + n):
        rng = random.Random(i)
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 6)))
        at = T0 + timedelta(minutes=rng.randrange(60))
        out.append(NoteInput(f"n{i:06d}", text, at, rng.choice(["s0", "s1", None]), {}))
    return out
