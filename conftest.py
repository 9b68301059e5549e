"""Fixtures shared by tests/ and benches/: a real PostgreSQL + pgvector (tests/postgres.py)."""

from __future__ import annotations

pytest_plugins = ["tests.postgres"]
