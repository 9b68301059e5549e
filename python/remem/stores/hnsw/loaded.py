"""A collection of HnswVectorStore as held in memory while the store is open."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from remem.stores.filters import Filter
from remem.stores.hnsw.scan import ScanCache
from remem.stores.hnsw.tables import CollectionRow

Row = tuple[str, str | None, dict[str, Any]]
"""A cached (id, document, metadata) row of one label."""


@dataclass(slots=True)
class Loaded:
    """A collection's in-memory side: the id ↔ label maps, and lazily its hnswlib index (above
    ``scan_threshold``, or once loaded) or its scan cache (at or below it)."""

    row: CollectionRow
    label_of: dict[str, int]
    id_of: dict[int, str]
    index: Any = None
    scan: ScanCache | None = None
    dirty: bool = False
    # The DuckDB generation the scan snapshot on disk reflects (-1: none known to), so a close
    # rewrites it only after a change (remem.stores.hnsw.scan_file).
    scan_saved: int = -1
    status: str = "scan"
    sorted_ids: list[str] | None = None  # cache for the exact path, cleared on every write
    # label -> (id, document, metadata). A label's row never changes (an upsert takes a new
    # label) and a deleted label is never returned again, so entries never go stale.
    rows: dict[int, Row] = field(default_factory=dict)
    # repr(filter) -> (row.generation it is current at, the filter, the labels it admits).
    # Every write bumps the generation and carries each entry forward (store._carry_eligible);
    # an entry of an older generation is never used.
    eligible: dict[str, tuple[int, Filter, NDArray[np.int64]]] = field(default_factory=dict)
    # The exact path's (eligible array, its labels by id, their vectors) for the last eligible
    # array searched; matched by identity, and an eligible array is never reused across writes.
    exact_rows: tuple[NDArray[np.int64], list[int], NDArray[np.float32]] | None = None
