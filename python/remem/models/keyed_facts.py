"""The keyed-fact key rule, in one place: how a fact's subject and attribute are compared.

A keyed fact is a memory record whose metadata names a ``subject`` and an ``attribute`` (and
usually a ``value``). Extraction stores the key normalised, consolidation groups facts by it
and recall's conflict stage compares it, all through :func:`normalize_key_part`: surrounding
whitespace stripped, lower-cased (``" User "`` and ``"user"`` are one subject). Values are not
normalised here; each consumer compares them as it documents.
"""

from __future__ import annotations


def normalize_key_part(part: object) -> str:
    """``part`` (a subject or an attribute) as keyed facts compare it: ``str(part)`` without
    surrounding whitespace, lower-cased."""
    return str(part).strip().lower()
