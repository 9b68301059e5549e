"""SqlDialect: what differs between the DuckDB and PostgreSQL spellings of the same statement.

The record, graph and block stores write each statement once, through a dialect: parameter
markers (positional and named), "expression is in a list parameter", the byte-order collation
that makes PostgreSQL sort ids as DuckDB does, JSON field access, and how a time crosses the
driver (DuckDB columns hold UNIX microseconds, PostgreSQL ones ``timestamptz``). How a batch is
loaded into a temporary table is the backend's fast path (DuckDB scans numpy arrays, PostgreSQL
uses ``COPY``); the dialect names the table's ``SELECT`` so the statement around it is shared::

    sql = f"SELECT id FROM t WHERE {d.in_list('id')} ORDER BY id{d.collate}"

"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from remem.stores.shared.record_rows import decode_required, to_micros


def _utc(value: object) -> datetime:
    assert isinstance(value, datetime)  # a timestamptz column
    return value.astimezone(UTC)


def _same(value: datetime | None) -> object:
    return value


@dataclass(frozen=True, slots=True)
class SqlDialect:
    """One backend's spelling of the shared statements (see the module docstring).

    ``in_list_form`` has ``{expr}`` and ``{p}`` holes; ``member_form`` is the faster form for
    id lookups (DuckDB plans ``IN (SELECT unnest(...))`` as a hash join); ``named_form`` turns
    a parameter name into its marker; ``lock`` is appended to a read that a write in the same
    transaction depends on.
    """

    name: str
    placeholder: str
    named_form: str
    in_list_form: str
    member_form: str
    collate: str
    json_form: str
    lock: str
    time_param: Callable[[datetime | None], object]
    time_value: Callable[[object], datetime]

    def named(self, name: str) -> str:
        """The marker of the named parameter ``name`` (``$name`` or ``%(name)s``)."""
        return self.named_form.format(name=name)

    def in_list(self, expr: str, p: str | None = None) -> str:
        """``expr`` is one of the text-array parameter ``p`` (positional by default)."""
        return self.in_list_form.format(expr=expr, p=p or self.placeholder)

    def member(self, expr: str, p: str | None = None) -> str:
        """``expr`` is one of the text-array parameter ``p``, in the form fit for id lookups."""
        return self.member_form.format(expr=expr, p=p or self.placeholder)

    def json_text(self, column: str, field: str) -> str:
        """The text value of ``column``'s JSON field ``field``."""
        return self.json_form.format(column=column, field=field)


DUCKDB = SqlDialect(
    name="duckdb",
    placeholder="?",
    named_form="${name}",
    in_list_form="list_contains({p}::VARCHAR[], {expr})",
    member_form="{expr} IN (SELECT unnest({p}::VARCHAR[]))",
    collate="",
    json_form="json_extract_string({column}, '$.{field}')",
    lock="",
    time_param=to_micros,
    time_value=decode_required,
)

POSTGRES = SqlDialect(
    name="postgres",
    placeholder="%s",
    named_form="%({name})s",
    in_list_form="{expr} = ANY({p}::text[])",
    member_form="{expr} = ANY({p}::text[])",
    collate=' COLLATE "C"',
    json_form="({column}->>'{field}')",
    lock=" FOR UPDATE",
    time_param=_same,
    time_value=_utc,
)
