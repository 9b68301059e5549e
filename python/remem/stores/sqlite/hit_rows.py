"""One query's full-text hits as the store's rows, an :class:`EpisodicHit` built only when read.

A batch of 1,000 queries returns ~88 hits a query, and recall keeps about a third of them (the
neighbour propagation and the prior cut read only positions, scores and cue fields): building
every hit object on the store's worker thread was ~70% of the full-text stage's CPU. A
:class:`HitRows` is a ``Sequence[EpisodicHit]`` — indexing or iterating it builds (and keeps) the
exact hits :class:`~remem.stores.sqlite.episode_search.HitReader` builds — plus column reads that
build nothing: :meth:`position`, :meth:`score`, :meth:`speaker` (all of them: :meth:`speakers`),
:meth:`cue`, :meth:`text`, :meth:`metadata`, :meth:`session_id` and :meth:`namespace`.

    rows = HitRows(found, HitReader())
    rows.position(0), rows.score(0)   # no hit built
    rows[0]                           # the EpisodicHit, built once

``extended(extra)`` appends already-built hits (the transcript neighbours recall reads); their
columns are read from the objects.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import Any, overload

from remem.models import EpisodicHit
from remem.stores.sqlite.episode_search import HitReader

__all__ = ["HitRows"]


class HitRows(Sequence[EpisodicHit]):
    """``rows`` in the hit row shape ``(id, kind, session_id, turn_number, text, score,
    created_at_us, metadata, namespace)``, then ``extra`` hits; see the module docstring."""

    __slots__ = ("_built", "_extra", "_positions", "_reader", "_rows")

    def __init__(
        self,
        rows: Sequence[tuple[Any, ...]],
        reader: HitReader,
        extra: Sequence[EpisodicHit] = (),
    ) -> None:
        self._rows = rows
        self._reader = reader
        self._extra = tuple(extra)
        self._built: dict[int, EpisodicHit] = {}
        self._positions: list[tuple[str, int] | None] | None = None

    def __len__(self) -> int:
        return len(self._rows) + len(self._extra)

    @overload
    def __getitem__(self, i: int) -> EpisodicHit: ...
    @overload
    def __getitem__(self, i: slice) -> list[EpisodicHit]: ...
    def __getitem__(self, i: int | slice) -> EpisodicHit | list[EpisodicHit]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        n = len(self._rows)
        if i < 0:
            i += len(self)
        if i >= n:
            return self._extra[i - n]
        if i < 0:
            raise IndexError("hit index out of range")
        hit = self._built.get(i)
        if hit is None:
            hit = self._built[i] = self._reader.hit(self._rows[i])
        return hit

    def __iter__(self) -> Iterator[EpisodicHit]:
        return (self[i] for i in range(len(self)))

    def extended(self, extra: Sequence[EpisodicHit]) -> HitRows:
        """These hits followed by ``extra`` (the built hits are shared, not rebuilt)."""
        out = HitRows(self._rows, self._reader, (*self._extra, *extra))
        out._built = self._built
        return out

    def positions(self) -> list[tuple[str, int] | None]:
        """Every hit's :meth:`position`, in order (computed once)."""
        if self._positions is None:
            self._positions = [
                (r[2], r[3]) if r[1] == "turn" and r[2] is not None and r[3] is not None else None
                for r in self._rows
            ] + [self.position(i) for i in range(len(self._rows), len(self))]
        return self._positions

    def scores(self) -> list[float]:
        """Every hit's :meth:`score`, in order."""
        return [float(r[5]) for r in self._rows] + [h.score for h in self._extra]

    def position(self, i: int) -> tuple[str, int] | None:
        """``(session_id, turn_number)`` of a turn hit, else None."""
        if i >= len(self._rows):
            h = self._extra[i - len(self._rows)]
            if h.kind == "turn" and h.session_id is not None and h.turn_number is not None:
                return h.session_id, h.turn_number
            return None
        row = self._rows[i]
        if row[1] == "turn" and row[2] is not None and row[3] is not None:
            return row[2], row[3]
        return None

    def score(self, i: int) -> float:
        if i >= len(self._rows):
            return self._extra[i - len(self._rows)].score
        return float(self._rows[i][5])

    def namespace(self, i: int) -> str:
        if i >= len(self._rows):
            return self._extra[i - len(self._rows)].namespace
        return str(self._rows[i][8])

    def session_id(self, i: int) -> str | None:
        if i >= len(self._rows):
            return self._extra[i - len(self._rows)].session_id
        s = self._rows[i][2]
        return None if s is None else str(s)

    def speakers(self) -> list[object]:
        """Every hit's :meth:`speaker`, in order (one pass, no hit built)."""
        built, meta = self._built, self._reader.meta
        n = len(self._rows)
        return [
            meta(r[7]).get("speaker") if i not in built else built[i].metadata.get("speaker")
            for i, r in enumerate(self._rows)
        ] + [self[i].metadata.get("speaker") for i in range(n, len(self))]

    def speaker(self, i: int) -> object:
        """``metadata.get("speaker")``."""
        if i >= len(self._rows) or i in self._built:
            return self[i].metadata.get("speaker")
        return self._reader.meta(self._rows[i][7]).get("speaker")

    def text(self, i: int) -> str:
        """The hit's text (no hit built)."""
        if i >= len(self._rows) or i in self._built:
            return self[i].text
        return str(self._rows[i][4])

    def metadata(self, i: int) -> dict[str, Any]:
        """The hit's metadata (no hit built; decoded once per distinct value of the batch)."""
        if i >= len(self._rows) or i in self._built:
            return self[i].metadata
        return self._reader.meta(self._rows[i][7])

    def cue(self, i: int) -> tuple[datetime, str]:
        """``(created_at, text)``: what the prior cut reads of a hit besides its speaker."""
        if i >= len(self._rows) or i in self._built:
            h = self[i]
            return h.created_at, h.text
        row = self._rows[i]
        return self._reader.at(row[6]), row[4]
