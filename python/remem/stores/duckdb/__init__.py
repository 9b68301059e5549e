"""Embedded backends: memory records and the entity graph in one DuckDB file."""

from __future__ import annotations

from remem.stores.duckdb.database import DuckDBDatabase
from remem.stores.duckdb.graph import DuckDBGraphStore
from remem.stores.duckdb.records import DuckDBRecordStore

__all__ = ["DuckDBDatabase", "DuckDBGraphStore", "DuckDBRecordStore"]
