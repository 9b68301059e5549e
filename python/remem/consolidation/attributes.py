"""Which keyed-fact attributes hold one value at a time.

This mirrors ``remem.extraction.SINGLE_VALUED`` (the extractor's vocabulary: every attribute
that is not multi-valued) so the consolidator does not depend on the extraction package.
"""

from __future__ import annotations

MULTI_VALUED: frozenset[str] = frozenset(
    {"hobby", "pet", "sibling", "child", "allergy", "preference"}
)
"""A new value is added next to the old ones: "I also play chess" contradicts nothing."""

SINGLE_VALUED: frozenset[str] = frozenset(
    {
        "city",
        "employer",
        "job_title",
        "partner",
        "diet",
        "parent",
        "health",
        "favourite_food",
        "birthday",
        "hometown",
    }
)
"""A new value replaces the old one: "I moved to Porto" ends "I live in Lisbon"."""
