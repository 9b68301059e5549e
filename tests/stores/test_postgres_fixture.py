"""The PostgreSQL fixture gives a real server with pgvector, one fresh database per test."""

from __future__ import annotations

import psycopg
import pytest

pytestmark = pytest.mark.postgres


def test_fresh_database_has_pgvector(pg_dsn: str) -> None:
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        row = conn.execute("SELECT '[1,0]'::vector <=> '[0,1]'::vector").fetchone()
        assert row is not None
        assert row[0] == pytest.approx(1.0)
        tables = conn.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'"
        ).fetchone()
        assert tables == (0,)
