"""Extraction: turning finished turns into entities, relationships and keyed facts.

- :class:`MemoryExtractor` — one model call with a JSON schema per window of turns; invalid
  output is repaired once, then rejected with the reason (never silently).
- :class:`RuleExtractor` — no model: a token grammar (:mod:`remem.extraction.grammar`) that
  hears facts set, ended and corrected ("I moved to Lisbon", "Sam and I split up", "sorry,
  Thursday, not Wednesday"); its module docstring lists what it cannot do.
  (The earlier one-regex-per-phrasing extractor is kept outside the package, as the
  benchmark baseline ``benches/regex_extractor_baseline.py``.)
- :data:`SINGLE_VALUED`, :data:`MULTI_VALUED`, :data:`ATTRIBUTES` — the fact vocabulary the
  consolidator compares facts by.

Both implement :class:`remem.controller.Extractor`::

    async with remem.Runtime.open("./memory", extractor=RuleExtractor()) as rt:
        await rt.controller.record_turn("s", "I moved to Lisbon last month", "Nice!")
        await rt.controller.flush_extraction()
"""

from __future__ import annotations

from remem.extraction.llm import DEFAULT_EXTRACTION_MAX_TOKENS, MemoryExtractor
from remem.extraction.prompt import SYSTEM_PROMPT, build_messages
from remem.extraction.rules import RuleExtractor, Statement, extract_statements
from remem.extraction.schema import RESPONSE_FORMAT, ExtractionOutput, to_result
from remem.extraction.vocabulary import (
    ATTRIBUTES,
    EXCLUSIVE_RELATIONS,
    MULTI_VALUED,
    RELATIONS,
    SINGLE_VALUED,
    USER,
)

__all__ = [
    "ATTRIBUTES",
    "DEFAULT_EXTRACTION_MAX_TOKENS",
    "EXCLUSIVE_RELATIONS",
    "MULTI_VALUED",
    "RELATIONS",
    "RESPONSE_FORMAT",
    "SINGLE_VALUED",
    "SYSTEM_PROMPT",
    "USER",
    "ExtractionOutput",
    "MemoryExtractor",
    "RuleExtractor",
    "Statement",
    "build_messages",
    "extract_statements",
    "to_result",
]
