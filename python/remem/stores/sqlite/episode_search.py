"""How SQLiteEpisodicStore asks FTS5: the validated request, its SQL plan, and hits from rows."""

from __future__ import annotations

import sqlite3
from datetime import datetime
from typing import Any

from remem.models import EpisodeKind, EpisodicHit
from remem.models.base import trusted
from remem.scopes import Namespaces, normalize_namespaces
from remem.stores.episodic import check_search
from remem.stores.shared.search_text import FullTextConfig, fts5_match
from remem.stores.sqlite.codec import from_micros, load_metadata, to_micros
from remem.stores.sqlite.episode_index import EpisodeQuery
from remem.stores.transcript import check_session_id

Plan = tuple[str, list[object]]

# bm25 ranking in two steps: every match's (seq, score) is materialised from the FTS index
# alone, then only rows scoring at least the limit-th best score are joined to episodic_items
# for the tie-break columns and the text. Joining every match before sorting (the direct form)
# read each matching row's text — measured at 10k notes with ~1k matches per chat query, 2-4x
# slower. Same rows in the same order: ties at the cut are all kept, then ordered and limited.
# {filter} narrows the matches (session, time) before the cut.
HIT = (
    "WITH m AS MATERIALIZED (SELECT episodic_fts.rowid AS seq, -bm25(episodic_fts) AS score "
    "FROM episodic_fts{join} WHERE episodic_fts MATCH ?{filter}), "
    "cut AS (SELECT score FROM m ORDER BY score DESC LIMIT 1 OFFSET ?) "
    "SELECT i.id, i.kind, i.session_id, i.turn_number, i.text, m.score, i.created_at_us, "
    "i.metadata, i.namespace FROM m JOIN episodic_items AS i ON i.seq = m.seq "
    "WHERE m.score >= coalesce((SELECT score FROM cut), -1e308) "
    "ORDER BY m.score DESC, i.created_at_us DESC, i.id LIMIT ?"
)


def search_request(
    query: str,
    limit: int,
    session_id: str | None,
    since: datetime | None,
    until: datetime | None,
    full_text: FullTextConfig,
    namespace: Namespaces = None,
) -> EpisodeQuery | None:
    """The validated search; None when it can find nothing."""
    query, limit, since, until = check_search(query, limit, since, until)
    namespaces = normalize_namespaces(namespace)
    if session_id is not None:
        check_session_id(session_id)
    terms = full_text.query_terms(query)
    if not terms or limit == 0:
        return None
    return EpisodeQuery(
        terms=tuple(terms),
        limit=limit,
        session_id=session_id,
        since_us=None if since is None else to_micros(since),
        until_us=None if until is None else to_micros(until),
        namespaces=namespaces,
    )


def fts5_plan(request: EpisodeQuery) -> Plan:
    """The FTS5 search as (sql, params)."""
    params: list[object] = [fts5_match(list(request.terms))]
    where = ""
    if request.session_id is not None:
        where += " AND i.session_id = ?"
        params.append(request.session_id)
    if request.namespaces is not None:
        where += f" AND i.namespace IN ({', '.join('?' * len(request.namespaces))})"
        params.extend(request.namespaces)
    if request.since_us is not None:
        where += " AND i.created_at_us >= ?"
        params.append(request.since_us)
    if request.until_us is not None:
        where += " AND i.created_at_us < ?"
        params.append(request.until_us)
    join = " JOIN episodic_items AS i ON i.seq = episodic_fts.rowid" if where else ""
    sql = HIT.format(join=join, filter=where)
    params += [request.limit - 1, request.limit]
    return sql, params


def read_hits(conn: sqlite3.Connection, plan: Plan) -> list[EpisodicHit]:
    return [hit_from_row(row) for row in conn.execute(*plan)]


def hit_from_row(row: tuple[Any, ...]) -> EpisodicHit:
    id_, kind, session_id, turn, text, score, created_at_us, metadata, namespace = row
    return trusted(
        EpisodicHit,
        {
            "id": id_,
            "kind": EpisodeKind(kind),
            "session_id": session_id,
            "turn_number": turn,
            "text": text,
            "score": float(score),
            "created_at": from_micros(created_at_us),
            "metadata": load_metadata(metadata),
            "namespace": namespace,
        },
    )


_KINDS = {k.value: k for k in EpisodeKind}


class HitReader:
    """:func:`hit_from_row` for the many rows of one search batch, decoding each distinct
    metadata text and timestamp once (a batch of 1,000 queries × 90 hits names the same few
    thousand rows again and again; the per-hit JSON decode, enum lookup and datetime were most
    of a batch's cost). Every hit gets its own metadata dict (a copy of the decoded one), so
    the hits are exactly :func:`hit_from_row`'s and share nothing mutable.

        reader = HitReader()
        hits = [reader.hit(row) for row in rows]
    """

    __slots__ = ("_metadata", "_times")

    def __init__(self) -> None:
        self._metadata: dict[str, dict[str, object]] = {}
        self._times: dict[int, datetime] = {}

    def meta(self, metadata: str) -> dict[str, object]:
        """The decoded metadata text (shared: copy before handing it out)."""
        meta = self._metadata.get(metadata)
        if meta is None:
            meta = self._metadata[metadata] = load_metadata(metadata)
        return meta

    def at(self, created_at_us: int) -> datetime:
        """The UTC datetime of a microsecond timestamp."""
        at = self._times.get(created_at_us)
        if at is None:
            at = self._times[created_at_us] = from_micros(created_at_us)
        return at

    def hit(self, row: tuple[Any, ...]) -> EpisodicHit:
        id_, kind, session_id, turn, text, score, created_at_us, metadata, namespace = row
        meta = self.meta(metadata)
        at = self.at(created_at_us)
        return trusted(
            EpisodicHit,
            {
                "id": id_,
                "kind": _KINDS[kind],
                "session_id": session_id,
                "turn_number": turn,
                "text": text,
                "score": float(score),
                "created_at": at,
                "metadata": dict(meta) if meta else {},
                "namespace": namespace,
            },
        )
