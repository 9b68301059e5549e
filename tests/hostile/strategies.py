"""Hostile values: wrong types, lone surrogates, NUL bytes, NaN/inf/huge numbers, deep nesting.

Every public entry point is driven with these in one argument at a time (the others valid);
only a :class:`~remem.errors.RememError` may escape.
"""

from __future__ import annotations

import math
import os
from datetime import datetime
from typing import Any

import numpy as np
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st

HOSTILE_SETTINGS = settings(
    max_examples=int(os.environ.get("REMEM_HOSTILE_EXAMPLES", "40")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    database=None,
    phases=[Phase.explicit, Phase.generate],  # no shrinking: the message shows the input
)
"""Bounded: the suite drives ~100 entry points on two backends and must stay fast
(``REMEM_HOSTILE_EXAMPLES=500`` for a deeper local run)."""


def _nested(depth: int, kind: str) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value] if kind == "list" else {"$and": [value]} if kind == "and" else {"k": value}
    return value


surrogates = st.text(
    st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF), min_size=1, max_size=2
).map(lambda s: f"a{s}b")

huge_numbers = st.sampled_from(
    [2**63, 2**64, -(2**63) - 1, 10**400, math.nan, math.inf, -math.inf, 1e308, 1e38, -1e38]
)

deep = st.builds(
    _nested, st.integers(min_value=20, max_value=120), st.sampled_from(["list", "and", "dict"])
)
"""Nested past every limit a filter or a metadata value has, yet shallow enough for ``repr``
and hypothesis's report; the 5,000-level filter has its own test."""

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    huge_numbers,
    st.text(max_size=8),
    surrogates,
    st.sampled_from(["", " ", "\x00", "a\x00b", "x" * 1_100_000]),
    st.binary(max_size=6),
    st.just(datetime(2026, 1, 1)),  # naive
    st.builds(object),
)

hostile = st.one_of(
    scalars,
    st.lists(scalars, max_size=3),
    st.tuples(scalars, scalars),
    st.dictionaries(st.one_of(st.text(max_size=4), surrogates, st.integers()), scalars, max_size=3),
    deep,
    st.sampled_from(
        [
            np.array([math.nan, 1.0]),
            np.full(16, 1e38, dtype=np.float32),
            np.zeros((2, 3, 4)),
            np.array(["a", "b"]),
            np.array([1, 2], dtype=np.uint64),
            np.array([[1.0], [2.0, 3.0]], dtype=object),
        ]
    ),
)
"""One hostile value."""

MEMORY_SETTINGS = settings(
    HOSTILE_SETTINGS,
    max_examples=int(os.environ.get("REMEM_HOSTILE_EXAMPLES", "6")),
)
"""For the ~70 store entry points x 2 backends (each write example takes two snapshots)."""
