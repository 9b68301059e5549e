"""FactTimeline: the values a keyed fact has had, so a prompt never shows an old one as current.

A keyed fact is a record whose metadata has ``subject`` and ``attribute`` (and ``value``): "user"
/ "diet" / "vegetarian". Supersession (the consolidator) ends a value — ``superseded_by`` names
its successor and ``valid_to`` when it stopped holding; a negation sets ``valid_to`` with no
successor. Built from every value of the keys (``keyed_facts(include_superseded=True)``, ordered
by key then validity time), the timeline answers, for a recalled memory:

* :meth:`FactTimeline.note_for_record` — a keyed fact itself: ``"current; before: vegetarian
  2026-03-03 to 2026-03-14"`` when the key had earlier values (else None: nothing to say);
* :meth:`FactTimeline.current_in_turn` — a message or turn that stated the value holding now
  of a fact that has had others: ``"current diet"``;
* :meth:`FactTimeline.earlier_in_turn` — a message or turn that *stated* a value which no longer
  holds (the extracted record's ``provenance.parent_ids`` names the turn): the note
  ``"earlier: diet now pescatarian (since 2026-03-14, 9 days ago)"`` or ``"no longer true
  since …"`` for a value that ended without a successor (followed by the ending's text when an
  ending record ended it: ``"…: The user broke up with Sam."``), and the current records, so that a
  caller dropping the old statement can show the current value instead;
* :meth:`FactTimeline.earlier_in_text` and :meth:`FactTimeline.current_in_text` — the same for
  any recalled text that *names* a value (a whole word, case and accents folded) while it held,
  though nothing was extracted from it: "Long day at Acme again" said while the user worked at
  Acme is an earlier statement once the employer is Globex. A text that also names the key's
  current value (the news of the change itself: "left Acme, starting at Globex") is current,
  not earlier; a text said after the value ended is left alone (it may be about something
  else); a value shorter than :data:`MIN_VALUE_CHARS` is never matched by name, and a value of
  another person's fact only in a text that names that person ("Bastian got a job at
  Northwind" is no statement of Dana's employer Northwind).

A value is current when it has neither ``superseded_by`` nor a ``valid_to`` at or before now;
several values of one key can be current at once (two dogs: "pet" is not single-valued) — only
supersession decides, never the order of values. An ending (metadata ``operation = "end"``:
"Sam and I split up", "the user no longer is keto") is no value at all: it is never current,
never an earlier value, and its own turn is not an earlier statement — but when the value it
ended was never stated as a fact (the partner only implied until "Rui picked up the last of their
stuff"), the current value's note names it: ``(current; before: Rui until 2026-11-09)``, so
"Who was I with before Elena?" is answered.

    timeline = FactTimeline.from_records(records, now=now)
    timeline.earlier_in_turn("turn-7")   # [] when everything turn-7 said still holds
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from remem.models import MemoryRecord, require_aware

__all__ = ["MIN_VALUE_CHARS", "EarlierValue", "FactTimeline", "format_age"]

_Key = tuple[str, str, str]  # namespace, subject, attribute

USER = "user"
"""The subject of the user's own keyed facts."""

MIN_VALUE_CHARS = 3
"""Values shorter than this (``"no"``, ``"Al"``) are matched by provenance only, never by name:
as words they occur everywhere."""


def _fold(text: str) -> str:
    """Case and accents folded, so "Kraków" names "krakow" and "ÓSCAR" names "Óscar"."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def format_age(at: datetime, now: datetime) -> str:
    """How long before ``now`` ``at`` was, in words a model reads at a glance: ``today``,
    ``yesterday``, ``9 days ago``, ``5 weeks ago``, ``14 months ago`` (``in the future`` for a
    later ``at``)."""
    days = (now.date() - at.date()).days
    if days < 0:
        return "in the future"
    if days == 0:
        return "today"
    if days == 1:
        return "yesterday"
    if days < 35:
        return f"{days} days ago"
    if days < 365:
        return f"{days // 7} weeks ago"
    return f"{days // 30} months ago"


@dataclass(frozen=True, slots=True)
class EarlierValue:
    """A value stated in a turn that no longer holds: what to say, and what holds instead."""

    record: MemoryRecord
    note: str
    current: tuple[MemoryRecord, ...]


@dataclass(frozen=True, slots=True)
class _Value:
    record: MemoryRecord
    key: _Key
    value: str
    held_from: datetime
    held_to: datetime | None
    current: bool
    ending: bool = False


class FactTimeline:
    """The values of keyed facts by key (see the module docstring)."""

    __slots__ = ("_by_id", "_by_key", "_by_name", "_by_turn", "_names", "now")

    def __init__(self, values: Sequence[_Value], now: datetime) -> None:
        self.now = now
        self._by_id = {v.record.id: v for v in values}
        self._by_key: dict[_Key, list[_Value]] = {}
        self._by_turn: dict[str, list[_Value]] = {}
        for v in sorted(values, key=lambda v: (v.held_from, v.record.id)):
            self._by_key.setdefault(v.key, []).append(v)
            for turn_id in v.record.provenance.parent_ids:
                self._by_turn.setdefault(turn_id, []).append(v)
        # Values of keys that changed, by folded name: only they can make a text earlier.
        self._by_name: dict[str, list[_Value]] = {}
        for members in self._by_key.values():
            if all(m.current for m in members):
                continue
            for m in members:
                if m.ending:
                    continue
                name = _fold(m.value).strip()
                if len(name) >= MIN_VALUE_CHARS:
                    self._by_name.setdefault(name, []).append(m)
        names = sorted(self._by_name, key=len, reverse=True)
        self._names = (
            re.compile(r"(?<!\w)(?:" + "|".join(map(re.escape, names)) + r")(?!\w)")
            if names
            else None
        )

    @classmethod
    def from_records(cls, records: Iterable[MemoryRecord], *, now: datetime) -> FactTimeline:
        """The timeline of ``records`` (keyed facts, superseded ones included) at ``now``;
        records without a subject and attribute are ignored."""
        now = require_aware(now)
        values: list[_Value] = []
        for r in records:
            subject, attribute = r.metadata.get("subject"), r.metadata.get("attribute")
            if not isinstance(subject, str) or not isinstance(attribute, str):
                continue
            value = r.metadata.get("value")
            ended = r.valid_to is not None and r.valid_to <= now
            ending = r.metadata.get("operation") == "end"
            values.append(
                _Value(
                    record=r,
                    key=(r.namespace, subject, attribute),
                    value=value if isinstance(value, str) and value else r.text,
                    held_from=r.valid_from or r.lifecycle.created_at,
                    held_to=r.valid_to,
                    current=r.superseded_by is None and not ended and not ending,
                    ending=ending,
                )
            )
        return cls(values, now)

    def __len__(self) -> int:
        return len(self._by_id)

    def __contains__(self, record_id: object) -> bool:
        """True when ``record_id`` is one of the timeline's keyed facts."""
        return record_id in self._by_id

    def note_for_record(self, record_id: str) -> str | None:
        """For a current keyed fact with earlier values: ``"current; before: X <from> to <to>"``
        (the two most recent earlier values); None otherwise."""
        v = self._by_id.get(record_id)
        if v is None or not v.current:
            return None
        members = self._by_key[v.key]
        stated = {_fold(e.value) for e in members if not e.ending}
        earlier = [
            e
            for e in members
            if not e.current
            and e.held_from <= v.held_from
            # an ending stands for the value it ended only when that value was never stated
            and (not e.ending or (_fold(e.value) not in stated and _fold(e.value) != "none"))
        ]
        if not earlier:
            return None
        parts = [
            f"{e.value} until {e.held_from:%Y-%m-%d}"
            if e.ending
            else f"{e.value} {e.held_from:%Y-%m-%d} to {_until(e, v)}"
            for e in earlier[-2:]
        ]
        return "current; before: " + ", ".join(parts)

    def current_in_turn(self, turn_id: str) -> str | None:
        """``"current <attribute>"`` (``"current diet, current city"``) when turn ``turn_id``
        stated a value that holds now of a fact with earlier values; None otherwise."""
        notes = [
            f"current {v.key[2].replace('_', ' ')}"
            for v in self._by_turn.get(turn_id, ())
            if v.current and any(not e.current for e in self._by_key[v.key])
        ]
        return ", ".join(dict.fromkeys(notes)) or None

    def earlier_in_turn(self, turn_id: str) -> list[EarlierValue]:
        """The values turn ``turn_id`` stated that no longer hold, each with its note and the
        key's current records (empty when the fact ended with no successor)."""
        out: list[EarlierValue] = []
        for v in self._by_turn.get(turn_id, ()):
            if v.current or v.ending:
                continue
            current = [c for c in self._by_key[v.key] if c.current]
            out.append(EarlierValue(v.record, self._earlier_note(v, current), _records(current)))
        return out

    def _named(self, text: str) -> list[_Value]:
        """The values of changed keys that ``text`` names (each once, in timeline order)."""
        if self._names is None:
            return []
        folded = _fold(text)
        found: dict[str, _Value] = {}
        for name in dict.fromkeys(self._names.findall(folded)):
            for v in self._by_name[name]:
                if _about(v, folded):
                    found.setdefault(v.record.id, v)
        return list(found.values())

    def earlier_in_text(self, text: str, said_at: datetime) -> list[EarlierValue]:
        """The values ``text`` (said at ``said_at``) names that held then and no longer hold,
        unless it also names its key's current value (module docstring); each with its note
        and the key's current records."""
        named = self._named(text)
        if not named:
            return []
        current_keys = {v.key for v in named if v.current}
        out: list[EarlierValue] = []
        for v in named:
            if v.current or v.key in current_keys:
                continue
            if said_at < v.held_from or said_at >= self._ended(v):
                continue
            current = [c for c in self._by_key[v.key] if c.current]
            out.append(EarlierValue(v.record, self._earlier_note(v, current), _records(current)))
        return out

    def current_in_text(self, text: str) -> str | None:
        """``"current <attribute>"`` for every current value ``text`` names of a key that has
        had others (the news of a change names the new value); None when it names none."""
        notes = [f"current {v.key[2].replace('_', ' ')}" for v in self._named(text) if v.current]
        return ", ".join(dict.fromkeys(notes)) or None

    def _ended(self, v: _Value) -> datetime:
        """When ``v`` stopped holding: its ``valid_to``, else its successor's start."""
        if v.held_to is not None:
            return v.held_to
        later = [e.held_from for e in self._by_key[v.key] if e.held_from > v.held_from]
        # The next value or ending of the key (held_to is unset when only superseded_by is).
        return min(later, default=self.now)

    def _earlier_note(self, v: _Value, current: Sequence[_Value]) -> str:
        attribute = v.key[2].replace("_", " ")
        if not current:
            ended = v.held_to or self.now
            note = f"no longer true since {ended:%Y-%m-%d} ({format_age(ended, self.now)})"
            by = self._by_id.get(v.record.superseded_by or "")
            # the ending's own words say why ("The user's baby Selam arrived."), so a reader
            # of the old statement sees what ended it, not only that it ended
            return f"{note}: {by.record.text}" if by is not None and by.ending else note
        latest = current[-1]
        values = " and ".join(c.value for c in current)
        since = latest.held_from
        return (
            f"earlier: {attribute} now {values} (since {since:%Y-%m-%d}, "
            f"{format_age(since, self.now)})"
        )


def _about(v: _Value, folded: str) -> bool:
    """Whether a text (folded) can be about ``v``'s subject: any text for the user's facts, only
    a text that names the person for another's ("Bastian got a job at Northwind" says nothing
    of Dana's employer Northwind)."""
    subject = _fold(v.key[1]).strip()
    if subject == USER:
        return True
    return re.search(r"(?<!\w)" + re.escape(subject) + r"(?!\w)", folded) is not None


def _until(earlier: _Value, successor: _Value) -> str:
    end = earlier.held_to or successor.held_from
    return f"{end:%Y-%m-%d}"


def _records(values: Sequence[_Value]) -> tuple[MemoryRecord, ...]:
    return tuple(v.record for v in values)
