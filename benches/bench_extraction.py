"""Rule extraction hot path: RuleExtractor over 1,000 labelled user turns.

Run: ``pytest benches/bench_extraction.py --benchmark-only`` (``--benchmark-disable`` for a
quick correctness pass) or ``python -m benches.report benches/bench_extraction.py``.

``rules`` is :func:`remem.extraction.extract_statements` (sentence and clause splitting,
anchored patterns, negation/question/hypothetical filters, value cleaning). ``naive`` is the
obvious baseline: every pattern of the table searched separately, unanchored, over the whole
message, its raw value cut at the first punctuation — no clauses, no filters. The turns cycle
through the labelled statements of ``tests/extraction/cases.py`` (positives and negatives);
``accuracy`` is the share of turns whose facts equal the label and ``correct`` says every turn
matched.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from tests.extraction.cases import NEGATIVE, POSITIVE

from remem.extraction import extract_statements
from remem.extraction.patterns import PATTERNS, ROLE_ATTRIBUTE

TURNS = 1_000
AT = datetime(2026, 5, 14, tzinfo=UTC)
_LABELLED: list[tuple[str, set[tuple[str, str]]]] = POSITIVE + [(t, set()) for t in NEGATIVE]
CASES = [_LABELLED[i % len(_LABELLED)] for i in range(TURNS)]

_UNANCHORED = [re.compile(p.regex.pattern.removeprefix("^"), p.regex.flags) for p in PATTERNS]


def rules(text: str) -> set[tuple[str, str]]:
    return {(s.attribute, s.value) for s in extract_statements(text, AT)}


def naive(text: str) -> set[tuple[str, str]]:
    out = set()
    for pattern, regex in zip(PATTERNS, _UNANCHORED, strict=True):
        m = regex.search(text)
        if m is None:
            continue
        groups = m.groupdict()
        attribute = pattern.attribute
        if attribute == "role":
            attribute = ROLE_ATTRIBUTE.get((groups.get("role") or "").lower(), "sibling")
        value = pattern.fixed or re.split(r"[,.;!?]", groups.get("v") or "")[0].strip()
        out.add((attribute, value))
    return out


IMPLS: dict[str, Callable[[str], set[tuple[str, str]]]] = {"rules": rules, "naive": naive}


@pytest.mark.parametrize("impl", list(IMPLS))
def test_rule_extraction(benchmark: Any, impl: str) -> None:
    fn = IMPLS[impl]
    benchmark.group = f"rule extraction {TURNS} turns"

    def run() -> list[set[tuple[str, str]]]:
        return [fn(text) for text, _ in CASES]

    found = benchmark(run)
    right = sum(f == expected for f, (_, expected) in zip(found, CASES, strict=True))
    benchmark.extra_info["turns"] = TURNS
    benchmark.extra_info["accuracy"] = round(right / TURNS, 3)
    benchmark.extra_info["correct"] = right == TURNS
    if impl == "rules":
        assert right == TURNS
