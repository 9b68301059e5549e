"""The SQL layer DuckDB and PostgreSQL share: one dialect object per backend."""

from __future__ import annotations

from remem.stores.sql.dialect import DUCKDB, POSTGRES, SqlDialect

__all__ = ["DUCKDB", "POSTGRES", "SqlDialect"]
