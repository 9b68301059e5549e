"""Which keyed-fact attributes hold one value at a time: the extractor's vocabulary, one source.

A new value of a single-valued attribute ("I moved to Porto") supersedes the old one; a new
value of a multi-valued one ("I also play chess") is added next to the others. Attributes
outside the vocabulary are treated as multi-valued: never contradicted.
"""

from __future__ import annotations

from remem.extraction.vocabulary import MULTI_VALUED, RELATIONS, SINGLE_VALUED

__all__ = ["MULTI_VALUED", "RELATIONS", "SINGLE_VALUED"]
