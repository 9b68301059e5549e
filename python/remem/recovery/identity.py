"""Which memory a location names: the identity a quiescence token carries.

::

    >>> memory_identity("postgresql://ada:secret@db:5432/remem")
    'postgresql://db:5432/remem'

A directory is named by its resolved absolute path (``./memory`` and ``/home/ada/memory`` are
one memory; a symlink to it too). A PostgreSQL memory is named by host, port, database and the
``options`` that set its schema (``-csearch_path=…``) — the tables it lives in — without the
user or password: two users reading one database see one memory, and a token's identity may be
printed in an error. Defaults are spelled out (port 5432, database = user), so an explicit
default port names the same memory as an omitted one.
"""

from __future__ import annotations

import os
from pathlib import Path

from remem.recovery.errors import RecoveryError

__all__ = ["memory_identity"]

_DSN_PREFIXES = ("postgresql://", "postgres://")


def memory_identity(location: str | os.PathLike[str]) -> str:
    """The identity of the memory at ``location`` (a directory, or a ``postgresql://`` DSN)."""
    if isinstance(location, str) and location.startswith(_DSN_PREFIXES):
        return _dsn_identity(location)
    return f"directory {Path(location).resolve()}"


def _dsn_identity(dsn: str) -> str:
    from psycopg import ProgrammingError
    from psycopg.conninfo import conninfo_to_dict

    try:
        parts = conninfo_to_dict(dsn)
    except ProgrammingError as exc:
        raise RecoveryError(
            "the PostgreSQL DSN does not parse; pass one like postgresql://user@host/database"
        ) from exc
    host = str(parts.get("host") or os.environ.get("PGHOST") or "localhost")
    port = str(parts.get("port") or os.environ.get("PGPORT") or "5432")
    user = parts.get("user") or os.environ.get("PGUSER") or ""
    dbname = str(parts.get("dbname") or os.environ.get("PGDATABASE") or user)
    options = parts.get("options")
    identity = f"postgresql://{host}:{port}/{dbname}"
    return f"{identity} options={options}" if options else identity
