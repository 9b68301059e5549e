"""The LoCoMo data model and the parsing of its two awkward fields: dates and evidence ids.

A LoCoMo conversation (the released ``locomo10.json`` is a list of them; a directory of one
object per file works too) looks like::

    {"sample_id": "conv-26",
     "conversation": {"speaker_a": "Caroline", "speaker_b": "Melanie",
                      "session_1_date_time": "1:56 pm on 8 May, 2023",
                      "session_1": [{"speaker": "Caroline", "dia_id": "D1:1", "text": "Hey Mel!",
                                     "blip_caption": "a photo of a dog"}, ...], ...},
     "qa": [{"question": "...", "answer": "...", "evidence": ["D1:3"], "category": 2}, ...]}

The ``conversation`` fields may also sit at the top level. Category-5 (adversarial) items may
carry ``adversarial_answer`` instead of ``answer``.

Dates (:func:`parse_locomo_datetime`) are read tolerantly — ``"1:47 pm on 18 May, 2023"``,
``"1:47pm on 18 May 2023"``, ``"10:16 am on Sept 13, 2023"``, ``"18 May, 2023"`` (midnight),
``"13:05 on 18 May 2023"`` — and taken as UTC (LoCoMo names no timezone). Anything else raises
:class:`~remem.errors.DatasetError` naming the file and the field.

Evidence ids (:func:`parse_evidence`): a well-formed id is ``D<session>:<turn>``. In the wild
one string may hold several (``"D8:6; D9:17"``) — split and counted — and a string may hold no
id at all — counted as unparseable. Ids naming no turn are counted by the loader (it knows the
turns). None of these is fatal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime

from remem.errors import DatasetError

__all__ = [
    "CATEGORY_NAMES",
    "Conversation",
    "EvidenceIssues",
    "ParsedEvidence",
    "Question",
    "Session",
    "Turn",
    "parse_evidence",
    "parse_locomo_datetime",
]

CATEGORY_NAMES: dict[str, str] = {
    "1": "multi-hop",
    "2": "temporal",
    "3": "open-domain",
    "4": "single-hop",
    "5": "adversarial",
}
"""The labels commonly given to locomo10.json's integer categories (for reports only)."""

# fmt: off
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august",
           "september", "october", "november", "december")
# fmt: on
_TIME_12H = re.compile(r"(\d{1,2})(?:[:.](\d{2}))?\s*([ap])\.?\s*m\.?", re.IGNORECASE)
_TIME_24H = re.compile(r"\b(\d{1,2}):(\d{2})\b")
_DAY_MONTH_YEAR = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)?\s+([A-Za-z]+)\.?,?\s+(\d{4})\b")
_MONTH_DAY_YEAR = re.compile(r"\b([A-Za-z]+)\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b")
_EVIDENCE_ID = re.compile(r"D\s*(\d+)\s*:\s*(\d+)", re.IGNORECASE)


def _month(name: str) -> int | None:
    """1..12 for a month name or an abbreviation of at least three letters ("Sept"), else None."""
    lowered = name.lower()
    if len(lowered) < 3:
        return None
    for number, full in enumerate(_MONTHS, start=1):
        if full.startswith(lowered):
            return number
    return None


def parse_locomo_datetime(text: object, *, source: str = "<data>", field: str = "date") -> datetime:
    """A LoCoMo session date (``"1:47 pm on 18 May, 2023"``) as an aware UTC datetime.

    >>> parse_locomo_datetime("1:47 pm on 18 May, 2023").isoformat()
    '2023-05-18T13:47:00+00:00'

    Raises :class:`~remem.errors.DatasetError` naming ``source`` and ``field`` when ``text`` is
    not a string holding a day, a month name and a year.
    """
    if not isinstance(text, str) or not text.strip():
        raise DatasetError(
            f"{source}: {field} is {text!r}; expected a date like '1:47 pm on 18 May, 2023'"
        )
    hour, minute = 0, 0
    rest = text
    if m12 := _TIME_12H.search(text):
        hour, minute = int(m12.group(1)), int(m12.group(2) or 0)
        if not 1 <= hour <= 12 or minute > 59:
            raise DatasetError(f"{source}: {field} {text!r} has an impossible time of day")
        hour = hour % 12 + (12 if m12.group(3).lower() == "p" else 0)
        rest = text[: m12.start()] + " " + text[m12.end() :]
    elif m24 := _TIME_24H.search(text):
        hour, minute = int(m24.group(1)), int(m24.group(2))
        if hour > 23 or minute > 59:
            raise DatasetError(f"{source}: {field} {text!r} has an impossible time of day")
        rest = text[: m24.start()] + " " + text[m24.end() :]
    date = _find_date(rest)
    if date is None:
        raise DatasetError(
            f"{source}: {field} {text!r} is not a date like '1:47 pm on 18 May, 2023'; fix the "
            "value or drop the session"
        )
    year, month, day = date
    try:
        return datetime(year, month, day, hour, minute, tzinfo=UTC)
    except ValueError as exc:
        raise DatasetError(f"{source}: {field} {text!r} is not a real date ({exc})") from None


def _find_date(text: str) -> tuple[int, int, int] | None:
    for m in _DAY_MONTH_YEAR.finditer(text):
        month = _month(m.group(2))
        if month is not None:
            return int(m.group(3)), month, int(m.group(1))
    for m in _MONTH_DAY_YEAR.finditer(text):
        month = _month(m.group(1))
        if month is not None:
            return int(m.group(3)), month, int(m.group(2))
    return None


@dataclass(frozen=True, slots=True)
class ParsedEvidence:
    """The ids found in one evidence string; ``split`` if it held several."""

    ids: tuple[str, ...]
    split: bool
    unparseable: bool


def parse_evidence(raw: object) -> ParsedEvidence:
    """Normalised ``D<s>:<t>`` ids in one evidence string (``"D8:6; D9:17"`` → two ids).

    >>> parse_evidence("D8:6; D9:17").ids
    ('D8:6', 'D9:17')
    >>> parse_evidence("see above").unparseable
    True
    """
    if not isinstance(raw, str):
        return ParsedEvidence((), split=False, unparseable=True)
    ids = tuple(f"D{int(a)}:{int(b)}" for a, b in _EVIDENCE_ID.findall(raw))
    return ParsedEvidence(ids, split=len(ids) > 1, unparseable=not ids)


@dataclass(frozen=True, slots=True)
class Turn:
    """One utterance: ``dia_id`` like ``"D3:7"``, the speaker, the text and an image caption."""

    dia_id: str
    speaker: str
    text: str
    session: int
    created_at: datetime
    blip_caption: str | None = None

    def content(self) -> str:
        """The text remem stores: ``"Speaker: text [image: caption]"``."""
        out = f"{self.speaker}: {self.text}" if self.speaker else self.text
        if self.blip_caption:
            out += f" [image: {self.blip_caption}]"
        return out


@dataclass(frozen=True, slots=True)
class Session:
    """``session_N`` with its ``session_N_date_time``."""

    number: int
    date_time: datetime
    turns: tuple[Turn, ...]


@dataclass(frozen=True, slots=True)
class Question:
    """One qa item; ``evidence`` holds the cleaned ids that name a turn of the conversation."""

    qid: str
    question: str
    answer: str | None
    category: str
    evidence: tuple[str, ...]
    raw_evidence: tuple[str, ...] = ()


@dataclass
class EvidenceIssues:
    """Malformed evidence, counted (never fatal). Mutable: the loader adds as it reads."""

    strings: int = 0
    split_strings: int = 0
    unparseable: int = 0
    unknown_ids: int = 0
    duplicate_dia_ids: int = 0
    questions_without_evidence: int = 0
    examples: list[str] = field(default_factory=list)

    def note(self, example: str) -> None:
        if len(self.examples) < 20:  # enough to find them in the data, not a dump
            self.examples.append(example)

    def add(self, other: EvidenceIssues) -> None:
        for name in (
            "strings",
            "split_strings",
            "unparseable",
            "unknown_ids",
            "duplicate_dia_ids",
            "questions_without_evidence",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for example in other.examples:
            self.note(example)

    def as_dict(self) -> dict[str, object]:
        return {
            "strings": self.strings,
            "split_strings": self.split_strings,
            "unparseable": self.unparseable,
            "unknown_ids": self.unknown_ids,
            "duplicate_dia_ids": self.duplicate_dia_ids,
            "questions_without_evidence": self.questions_without_evidence,
            "examples": list(self.examples),
        }


@dataclass(frozen=True, slots=True)
class Conversation:
    """One LoCoMo sample: two speakers, dated sessions of turns, and questions."""

    sample_id: str
    speaker_a: str
    speaker_b: str
    sessions: tuple[Session, ...]
    questions: tuple[Question, ...]
    issues: EvidenceIssues
    source: str

    @property
    def turns(self) -> tuple[Turn, ...]:
        return tuple(t for s in self.sessions for t in s.turns)
