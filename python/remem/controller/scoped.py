"""The controller's scoped reads that span several namespaces over stores taking one.

The record store's ``keyed_facts`` and ``scan`` and the graph's ``list_entities`` take one
namespace (or None for all); a read naming several scopes runs one pushed-down query per scope
and merges, so no row of another scope is ever read. The unscoped/multi-scope rule itself is
:func:`remem.scopes.require_scope`.
"""

from __future__ import annotations

from collections.abc import Sequence

from remem.models import MemoryRecord
from remem.stores.records import RecordStore


async def keyed_facts_in(
    records: RecordStore,
    scopes: tuple[str, ...] | None,
    *,
    subjects: Sequence[str] | None,
    attributes: Sequence[str] | None,
    include_superseded: bool,
) -> list[MemoryRecord]:
    """``records.keyed_facts`` over ``scopes`` (None: every scope), in the store's order:
    facts are ordered by namespace first, so scopes are queried in sorted order and joined."""
    if scopes is None:
        return await records.keyed_facts(
            subjects=subjects, attributes=attributes, include_superseded=include_superseded
        )
    out: list[MemoryRecord] = []
    for scope in sorted(scopes):
        out += await records.keyed_facts(
            subjects=subjects,
            attributes=attributes,
            namespace=scope,
            include_superseded=include_superseded,
        )
    return out
