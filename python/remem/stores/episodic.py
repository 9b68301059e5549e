"""The EpisodicStore protocol: full-text search over turns and notes, and day summaries."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from types import TracebackType
from typing import Protocol, Self, runtime_checkable
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from remem.errors import ConfigError, InputError, InvalidArgumentError
from remem.models import DaySummary, EpisodicHit, TranscriptEntry
from remem.models.metadata import Scalar, check_metadata
from remem.models.text import check_text
from remem.models.time import require_aware
from remem.scopes import DEFAULT_NAMESPACE, Namespaces, check_namespace
from remem.stores.transcript import check_session_id


@runtime_checkable
class EpisodicStore(Protocol):
    """Unbounded episodic memory searched on demand.

    Contract (every backend): ``search`` returns hits with higher ``score`` = more relevant, ties
    broken by newer ``created_at`` then id; the query is plain user text (operators and
    punctuation are never interpreted as query syntax, so any string is safe); an empty query
    returns []. ``days`` groups a session's turns by calendar day in the store's timezone (an IANA
    name, default UTC), so a turn at 23:59 and one at 00:01 fall on different days.

    Details every backend shares (checked by the parity suite):
    - text is normalised by :mod:`remem.stores.shared.search_text` (accents folded, CJK bigrams) and
      the query's words are ORed; scores are backend-specific in scale (bm25 vs ts_rank_cd), only
      their order is comparable;
    - ``since`` is inclusive and ``until`` exclusive; both must be timezone-aware;
    - a turn's hit text is its user message and assistant message joined by a newline;
    - ``add_notes`` adds many notes in one transaction (each a :class:`NoteInput`, validated
      again by the store; a bad one raises naming its index and nothing is written);
    - ``index_turns`` / ``add_note`` / ``add_notes`` of an id that exists with identical
      content is a no-op (so indexing can be retried); with other content it raises
      DuplicateIdError and changes nothing; a batch is all-or-nothing; a turn's
      (session_id, turn_number) is unique;
    - ``days`` of a session with no indexed turns returns {}; within a day turns are in turn
      order and days ascend;
    - ``put_day_summary`` replaces the summary of the same (session, day); its timezone must be
      the store's (InvalidArgumentError otherwise); ``get_day_summaries`` orders by day;
    - scopes (:mod:`remem.scopes`): every turn is indexed in the namespace its ``index_turns``
      call names (its session's), every note in its own (``NoteInput.namespace``, default
      ``'default'``); hits carry it. ``search`` / ``search_many`` / ``days`` /
      ``get_day_summaries`` take ``namespace`` (one name, several, or None for all) and apply it
      inside the query (SQL WHERE, FTS join, posting mask) — never by filtering the top-k, so a
      scoped search returns the best ``limit`` hits *of that scope*;
    - ``search_many(queries, ...)`` returns ``[await search(q, ...) for q in queries]`` (the
      same hits), validating every query before any runs; a backend runs the batch its fastest
      way (:class:`~remem.stores.base.episodic.EpisodicStoreBase` has the one-by-one default).
    """

    timezone: str
    """The IANA name of the timezone ``days`` groups turns in."""

    async def index_turns(
        self, entries: Sequence[TranscriptEntry], *, namespace: str = DEFAULT_NAMESPACE
    ) -> None: ...
    async def add_note(
        self,
        note_id: str,
        text: str,
        *,
        created_at: datetime,
        session_id: str | None = None,
        metadata: dict[str, object] | None = None,
        namespace: str = DEFAULT_NAMESPACE,
    ) -> None: ...
    async def add_notes(self, notes: Sequence[NoteInput]) -> None: ...
    async def search(
        self,
        query: str,
        *,
        limit: int = 10,
        session_id: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        namespace: Namespaces = None,
    ) -> list[EpisodicHit]: ...
    async def search_many(
        self,
        queries: Sequence[str],
        *,
        limit: int = 10,
        session_id: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        namespace: Namespaces = None,
    ) -> list[list[EpisodicHit]]: ...
    async def days(
        self, session_id: str, *, namespace: Namespaces = None
    ) -> dict[date, list[TranscriptEntry]]: ...
    async def put_day_summary(self, summary: DaySummary) -> None: ...
    async def get_day_summaries(
        self, session_id: str, *, namespace: Namespaces = None
    ) -> list[DaySummary]: ...
    async def aclose(self) -> None: ...
    async def __aenter__(self) -> Self: ...
    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...


async def search_many(
    store: EpisodicStore,
    queries: Sequence[str],
    *,
    limit: int = 10,
    session_id: str | None = None,
    namespace: Namespaces = None,
) -> list[list[EpisodicHit]]:
    """``store.search`` for each query, as one ``store.search_many`` batch (a protocol method:
    the SQLite and PostgreSQL stores run the batch in parallel)."""
    return await store.search_many(queries, limit=limit, session_id=session_id, namespace=namespace)


def turn_text(entry: TranscriptEntry) -> str:
    """The searchable text of a turn: both messages, newline-separated, empty parts skipped."""
    return "\n".join(part for part in (entry.user_message, entry.assistant_message) if part)


def load_timezone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, TypeError) as exc:
        raise ConfigError(
            f"timezone {name!r} is not an IANA timezone name; use e.g. 'UTC' or 'Europe/Paris'"
        ) from exc


def group_by_day(
    entries: Sequence[TranscriptEntry], timezone: ZoneInfo
) -> dict[date, list[TranscriptEntry]]:
    """Turns grouped by their calendar day in ``timezone``; days ascending, turns in order."""
    days: dict[date, list[TranscriptEntry]] = {}
    for entry in sorted(entries, key=lambda e: e.turn_number):
        days.setdefault(entry.created_at.astimezone(timezone).date(), []).append(entry)
    return dict(sorted(days.items()))


@dataclass(frozen=True, slots=True)
class NoteInput:
    """One note for :meth:`EpisodicStore.add_notes` (the arguments of ``add_note``)."""

    note_id: str
    text: str
    created_at: datetime
    session_id: str | None
    metadata: dict[str, Scalar]
    namespace: str = DEFAULT_NAMESPACE
    """The scope the note is indexed (and found) in."""


def check_note(
    note_id: object,
    text: object,
    created_at: object,
    session_id: object,
    metadata: Mapping[str, object] | None,
    namespace: object = DEFAULT_NAMESPACE,
) -> NoteInput:
    """Validated note arguments, or the typed error naming the bad one."""
    if not isinstance(note_id, str) or not 1 <= len(note_id) <= 512:
        raise InvalidArgumentError(f"note_id must be a str of 1-512 characters, got {note_id!r}")
    check_text(note_id, field="note_id")
    if not isinstance(text, str) or not text.strip():
        raise InvalidArgumentError("a note's text must be a non-empty str; pass what to remember")
    check_text(text, field="text")
    if not isinstance(created_at, datetime):
        raise InvalidArgumentError(f"created_at must be a datetime, got {created_at!r}")
    if session_id is not None:
        check_session_id(session_id)
    return NoteInput(
        note_id=note_id,
        text=text,
        created_at=require_aware(created_at, field="created_at"),
        session_id=session_id,  # type: ignore[arg-type]
        metadata=check_metadata(metadata),
        namespace=check_namespace(namespace),
    )


def check_notes(notes: object) -> list[NoteInput]:
    """Each note validated again; the typed error names the index of the first bad one."""
    if isinstance(notes, str | bytes) or not isinstance(notes, Sequence):
        raise InvalidArgumentError("add_notes takes a list of NoteInput")
    out: list[NoteInput] = []
    for i, note in enumerate(notes):
        if not isinstance(note, NoteInput):
            raise InvalidArgumentError(
                f"note {i} is a {type(note).__name__}; build a NoteInput for each note"
            )
        try:
            out.append(
                check_note(
                    note.note_id,
                    note.text,
                    note.created_at,
                    note.session_id,
                    note.metadata,
                    note.namespace,
                )
            )
        except InputError as exc:
            raise type(exc)(f"note {i}: {exc}") from exc
    return out


def check_search(
    query: object, limit: object, since: datetime | None, until: datetime | None
) -> tuple[str, int, datetime | None, datetime | None]:
    if not isinstance(query, str):
        raise InvalidArgumentError(f"query must be a str, got {type(query).__name__}")
    # No check_text: only the query's word characters ever reach a backend, so any str is safe.
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise InvalidArgumentError(f"limit must be a non-negative int, got {limit!r}")
    return (
        query,
        limit,
        None if since is None else require_aware(since, field="since"),
        None if until is None else require_aware(until, field="until"),
    )


def check_summary(summary: object, timezone: str) -> DaySummary:
    if not isinstance(summary, DaySummary):
        raise InvalidArgumentError(
            f"expected a DaySummary, got {type(summary).__name__}; build one first"
        )
    if summary.timezone != timezone:
        raise InvalidArgumentError(
            f"the summary is for timezone {summary.timezone!r} but this store groups days in "
            f"{timezone!r}; build the summary with timezone={timezone!r}"
        )
    return summary
