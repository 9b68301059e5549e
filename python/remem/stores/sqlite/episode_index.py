"""EpisodeIndex: SQLiteEpisodicStore's in-memory bm25 index, kept caught up with episodic_items.

``episodic_items`` is insert-only: ``seq`` (INTEGER PRIMARY KEY) grows with every insert, rows
are immutable (a trigger aborts UPDATEs) and nothing deletes them. So the rows any connection
has not indexed yet are exactly ``seq > last indexed``: before every search, one
``SELECT max(seq)`` (a B-tree edge, microseconds) tells whether to read them. That single
mechanism covers this store's own writes (read-your-writes: a search issued after ``add_note``
returned reads past the committed row), other store objects and other processes on the same
file. If ``max(seq)`` ever went *below* the last indexed seq (the file was replaced), the index
is rebuilt from scratch.

The index holds, per row in seq order: its FTS5 tokens (:func:`fts5_tokens` of the stored
``search_text``, exactly what FTS5 indexed), ``seq``, ``created_at_us``, a session code and a
namespace code, so the ``session_id`` / ``namespace`` / ``since`` / ``until`` filters become a mask
and only the final hits are read back from SQLite (by seq) — or from :class:`HitRowCache`, the last
hit rows read (immutable rows: a seq's row never changes). Results equal the FTS5 path's: the same
bm25 scores (N, avgdl and idf over all rows; the filter only restricts candidates), ``score DESC,
created_at DESC, id`` and ``limit`` with ties at the cut kept before ordering. A query term FTS5
would read as a multi-token phrase (:mod:`~remem.stores.sqlite.fts5_tokens`) cannot be answered
from a bag of words: :meth:`EpisodeView.candidates_many` returns None for that query and the store
asks FTS5.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from remem.stores.sqlite.episode_snapshot import SavedEpisodes, load_episodes, save_episodes
from remem.stores.sqlite.fts5_tokens import fts5_tokens
from remem.stores.term_index import IndexSnapshot, TermIndex

Row = tuple[Any, ...]
Candidate = tuple[int, float, int]  # seq, score, created_at_us

HIT_ROW_LIMIT = 20_000
"""Most hit rows a :class:`HitRowCache` holds (~0.6 kB each for a chat turn)."""


class HitRowCache:
    """The last hit rows read back from ``episodic_items``, by seq, so a search that finds
    rows it found before skips the SQLite read (~0.2 ms of a LoCoMo recall's ~120 hits).

    Safe because the table is insert-only and its rows immutable: a seq names one row for the
    life of the file; when the file is replaced the index is rebuilt and this cleared with it.
    Shared by the store's reader threads (one lock); the oldest stored is evicted first.
    """

    def __init__(self, limit: int = HIT_ROW_LIMIT) -> None:
        self.limit = limit
        self._rows: dict[int, Row] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._rows)

    def lookup(self, seqs: Sequence[int]) -> tuple[dict[int, Row], list[int]]:
        """(the held rows of ``seqs`` by seq, the seqs not held, in order)."""
        held: dict[int, Row] = {}
        missing: list[int] = []
        with self._lock:
            rows = self._rows
            for seq in seqs:
                row = rows.get(seq)
                if row is None:
                    missing.append(seq)
                else:
                    held[seq] = row
        return held, missing

    def store(self, rows: dict[int, Row]) -> None:
        if self.limit <= 0 or not rows:
            return
        with self._lock:
            held = self._rows
            held.update(rows)
            excess = len(held) - self.limit
            if excess > 0:
                for seq in list(islice(held, excess)):
                    del held[seq]

    def clear(self) -> None:
        with self._lock:
            self._rows.clear()


_FETCH_CHUNK = 500  # seqs per IN (...) list, well under SQLite's variable limit
_HIT_COLUMNS = "seq, id, kind, session_id, turn_number, text, created_at_us, metadata, namespace"


@dataclass(frozen=True)
class EpisodeQuery:
    """A validated search: its query terms (:func:`~remem.stores.shared.search_text.query_terms`),
    ``limit`` ≥ 1, and the filters (microseconds since the epoch; ``namespaces`` None = every
    scope)."""

    terms: tuple[str, ...]
    limit: int
    session_id: str | None = None
    since_us: int | None = None
    until_us: int | None = None
    namespaces: tuple[str, ...] | None = None


class _Column:
    """An append-only integer array; a view of its prefix stays valid (and unchanged) after
    later appends, so published views need no copy."""

    def __init__(self, dtype: type[np.integer[Any]], values: NDArray[Any] | None = None) -> None:
        size = 0 if values is None else len(values)
        self._buffer: NDArray[Any] = np.zeros(max(1024, size + size // 8), dtype=dtype)
        if values is not None:
            self._buffer[:size] = values
        self._size = size

    def extend(self, values: Sequence[int]) -> None:
        end = self._size + len(values)
        if end > len(self._buffer):
            grown = np.zeros(max(end, 2 * len(self._buffer)), dtype=self._buffer.dtype)
            grown[: self._size] = self._buffer[: self._size]
            self._buffer = grown
        self._buffer[self._size : end] = values
        self._size = end

    def view(self) -> NDArray[Any]:
        return self._buffer[: self._size]


@dataclass(frozen=True, eq=False)
class EpisodeView:
    """The indexed rows at one moment (everything up to ``last_seq``), searchable from any
    thread."""

    terms: IndexSnapshot
    seqs: NDArray[np.int64]
    created_us: NDArray[np.int64]
    sessions: NDArray[np.int32]
    session_codes: dict[str, int]  # shared and append-only; codes of later rows match nothing
    scopes: NDArray[np.int32]
    scope_codes: dict[str, int]  # likewise, for namespaces
    last_seq: int

    def _mask(self, q: EpisodeQuery) -> NDArray[np.bool_] | Literal[False] | None:
        """The rows the filters allow: None (all), a mask, or False (none at all)."""
        mask: NDArray[np.bool_] | None = None
        if q.session_id is not None:
            code = self.session_codes.get(q.session_id)
            if code is None:
                return False
            mask = self.sessions == code
        if q.namespaces is not None:
            # The scope is a posting mask: bm25 ranks only the scope's rows, never a cut top-k.
            codes = [c for c in (self.scope_codes.get(n) for n in q.namespaces) if c is not None]
            if not codes:
                return False
            inside = self.scopes == codes[0] if len(codes) == 1 else np.isin(self.scopes, codes)
            mask = inside if mask is None else mask & inside
        if q.since_us is not None:
            after = self.created_us >= q.since_us
            mask = after if mask is None else mask & after
        if q.until_us is not None:
            before = self.created_us < q.until_us
            mask = before if mask is None else mask & before
        return mask

    def candidates_many(self, queries: Sequence[EpisodeQuery]) -> list[list[Candidate] | None]:
        """Per query: its best ``limit`` rows by bm25 plus every row tied with the limit-th
        score, as (seq, score, created_at_us); None for a query only FTS5 can answer."""
        out: list[list[Candidate] | None] = [None] * len(queries)
        groups: dict[tuple[object, ...], list[tuple[int, list[str]]]] = {}
        for i, q in enumerate(queries):
            token_lists = [fts5_tokens(term) for term in q.terms]
            if any(len(tokens) > 1 for tokens in token_lists):
                continue  # a phrase: left None for FTS5
            key = (q.limit, q.session_id, q.since_us, q.until_us, q.namespaces)
            groups.setdefault(key, []).append((i, [t[0] for t in token_lists if t]))
        for members in groups.values():
            first = queries[members[0][0]]
            mask = self._mask(first)
            if mask is False:
                for i, _ in members:
                    out[i] = []
                continue
            found = self.terms.search_many(
                [tokens for _, tokens in members],
                first.limit,
                mask=mask,
            )
            for (i, _), (docs, scores) in zip(members, found, strict=True):
                out[i] = list(
                    zip(
                        self.seqs[docs].tolist(),
                        scores.tolist(),
                        self.created_us[docs].tolist(),
                        strict=True,
                    )
                )
        return out


class EpisodeIndex:
    """The in-memory index of one episodic database, built lazily by the first
    :meth:`catch_up`. Thread-safe: catch-ups serialise on a lock, views are immutable.

    With ``database`` (the SQLite file's path), the first catch-up starts from the snapshot
    saved beside it, if it is a valid prefix of the table (:mod:`.episode_snapshot`), and then
    indexes only the rows after it; :meth:`save` writes the snapshot (the store calls it at
    close)."""

    def __init__(self, database: Path | None = None) -> None:
        self._lock = threading.Lock()
        self._database = database
        self._tried_snapshot = database is None
        self.hit_rows = HitRowCache()
        self._reset()

    def _reset(self, saved: SavedEpisodes | None = None) -> None:
        self.hit_rows.clear()
        if saved is None:
            self._terms = TermIndex()
            self._seqs = _Column(np.int64)
            self._created = _Column(np.int64)
            self._sessions = _Column(np.int32)
            self._codes: dict[str, int] = {}
            self._scopes = _Column(np.int32)
            self._scope_codes: dict[str, int] = {}
            self._saved_seq = 0
            self._view = self._publish(0)
            return
        self._terms = saved.terms
        self._seqs = _Column(np.int64, saved.seqs)
        self._created = _Column(np.int64, saved.created_us)
        self._sessions = _Column(np.int32, saved.sessions)
        self._codes = {name: code for code, name in enumerate(saved.session_names)}
        self._scopes = _Column(np.int32, saved.scopes)
        self._scope_codes = {name: code for code, name in enumerate(saved.scope_names)}
        self._saved_seq = saved.last_seq
        self._view = self._publish(saved.last_seq)

    def _publish(self, last_seq: int) -> EpisodeView:
        self._view = EpisodeView(
            terms=self._terms.snapshot(),
            seqs=self._seqs.view(),
            created_us=self._created.view(),
            sessions=self._sessions.view(),
            session_codes=self._codes,
            scopes=self._scopes.view(),
            scope_codes=self._scope_codes,
            last_seq=last_seq,
        )
        return self._view

    @property
    def view(self) -> EpisodeView:
        """The latest published view (possibly behind the table; see :meth:`catch_up`)."""
        return self._view

    def catch_up(self, conn: sqlite3.Connection) -> EpisodeView:
        """Index the rows of ``conn``'s database not indexed yet and return the view."""
        (top,) = conn.execute("SELECT coalesce(max(seq), 0) FROM episodic_items").fetchone()
        view = self._view
        if view.last_seq == top and self._tried_snapshot:
            return view
        with self._lock:
            if not self._tried_snapshot:
                self._tried_snapshot = True
                assert self._database is not None
                saved = load_episodes(conn, self._database)
                if saved is not None and saved.last_seq <= top:
                    self._reset(saved)
            if self._view.last_seq > top:
                self._reset()  # rows vanished: not this store's file any more, rebuild
            rows = conn.execute(
                "SELECT seq, search_text, created_at_us, session_id, namespace FROM episodic_items "
                "WHERE seq > ? ORDER BY seq",
                (self._view.last_seq,),
            ).fetchall()
            if not rows:
                return self._view
            self._terms.append(fts5_tokens(row[1]) for row in rows)
            self._seqs.extend([row[0] for row in rows])
            self._created.extend([row[2] for row in rows])
            self._sessions.extend([self._code(row[3]) for row in rows])
            self._scopes.extend([self._scope_code(row[4]) for row in rows])
            return self._publish(rows[-1][0])

    def save(self, conn: sqlite3.Connection) -> bool:
        """Write the snapshot of the rows indexed so far if it holds rows the saved one does
        not (:func:`~.episode_snapshot.save_episodes`); True if written."""
        with self._lock:
            view = self._view
            if self._database is None or view.last_seq <= self._saved_seq:
                return False
            saved = SavedEpisodes(
                terms=self._terms,
                seqs=view.seqs,
                created_us=view.created_us,
                sessions=view.sessions,
                session_names=list(self._codes),
                scopes=view.scopes,
                scope_names=list(self._scope_codes),
            )
            written = save_episodes(conn, self._database, saved)
            if written:
                self._saved_seq = view.last_seq
            return written

    def _code(self, session_id: str | None) -> int:
        if session_id is None:
            return -1
        code = self._codes.get(session_id)
        if code is None:
            code = self._codes[session_id] = len(self._codes)
        return code

    def _scope_code(self, namespace: str) -> int:
        code = self._scope_codes.get(namespace)
        if code is None:
            code = self._scope_codes[namespace] = len(self._scope_codes)
        return code


def fetch_hits(
    conn: sqlite3.Connection,
    queries: Sequence[EpisodeQuery],
    found: Sequence[list[Candidate] | None],
    cache: HitRowCache | None = None,
) -> list[list[Row] | None]:
    """The hit rows of each query's candidates, in the FTS5 path's row shape and order
    (``score DESC, created_at DESC, id``, then ``limit``): those ``cache`` holds from it, the
    rest read from SQLite in one pass (and stored in ``cache``)."""
    trimmed = [
        None if c is None else _trim(c, q.limit) for q, c in zip(queries, found, strict=True)
    ]
    seqs = sorted({seq for c in trimmed if c for seq, _, _ in c})
    rows: dict[int, Row] = {}
    if cache is not None:
        rows, seqs = cache.lookup(seqs)
    read: dict[int, Row] = {}
    for start in range(0, len(seqs), _FETCH_CHUNK):
        chunk = seqs[start : start + _FETCH_CHUNK]
        marks = ", ".join("?" * len(chunk))
        sql = f"SELECT {_HIT_COLUMNS} FROM episodic_items WHERE seq IN ({marks})"
        for row in conn.execute(sql, chunk):
            read[row[0]] = row
    if cache is not None:
        cache.store(read)
    rows.update(read)
    out: list[list[Row] | None] = []
    for q, cands in zip(queries, trimmed, strict=True):
        if cands is None:
            out.append(None)
            continue
        hits = [
            (r[1], r[2], r[3], r[4], r[5], score, r[6], r[7], r[8])
            for r, score in ((rows[seq], score) for seq, score, _ in cands)
        ]
        hits.sort(key=lambda h: (-h[5], -h[6], h[0]))
        out.append(hits[: q.limit])
    return out


def _trim(cands: list[Candidate], limit: int) -> list[Candidate]:
    """Drop candidates that cannot make the first ``limit`` by (score, created_at) alone, so
    only rows whose id may decide the order are read."""
    cands = sorted(cands, key=lambda c: (-c[1], -c[2]))
    if len(cands) <= limit:
        return cands
    _, score, created = cands[limit - 1]
    end = limit
    while end < len(cands) and cands[end][1] == score and cands[end][2] == created:
        end += 1
    return cands[:end]
