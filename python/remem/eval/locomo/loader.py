"""Load LoCoMo conversations from a file or a directory the user supplies (remem ships none).

Accepted shapes:

* one JSON file holding a list of conversation objects (the released ``locomo10.json``);
* one JSON file holding a single conversation object;
* a directory: every ``*.json`` in it (sorted by name), each holding either of the above.

A conversation object has its ``speaker_a`` / ``session_N`` / ``session_N_date_time`` fields
either under ``"conversation"`` or at the top level. ``sample_id`` defaults to the file stem
(with ``#<index>`` for the items of a list).

Errors in the structure (not JSON, no sessions, a turn without ``dia_id``, an unparseable
session date) raise :class:`~remem.errors.DatasetError` naming the file and field. Malformed
evidence does not: it is cleaned and counted in :class:`EvidenceIssues` (see
:mod:`remem.eval.locomo.format`).

>>> convs = load_locomo("data/locomo10.json")            # doctest: +SKIP
>>> sum(len(c.questions) for c in convs)                 # doctest: +SKIP
1986
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from remem.errors import DatasetError
from remem.eval.locomo.format import (
    Conversation,
    EvidenceIssues,
    Question,
    Session,
    Turn,
    parse_evidence,
    parse_locomo_datetime,
)

__all__ = ["TURN_SPACING", "load_locomo"]

TURN_SPACING = timedelta(seconds=30)
"""Turn ``i`` of a session is dated session time + i × this (LoCoMo dates sessions, not turns)."""

_SESSION_KEY = re.compile(r"^session_(\d+)$")


def load_locomo(path: str | Path, *, limit: int | None = None) -> list[Conversation]:
    """Every conversation under ``path`` (a file or a directory), in file order; at most
    ``limit`` conversations when given."""
    root = Path(path)
    if root.is_dir():
        files = sorted(p for p in root.iterdir() if p.suffix.lower() == ".json" and p.is_file())
        if not files:
            raise DatasetError(f"{root} holds no .json files; pass the LoCoMo data directory")
    elif root.is_file():
        files = [root]
    else:
        raise DatasetError(f"{root} does not exist; pass a LoCoMo JSON file or directory")
    out: list[Conversation] = []
    for file in files:
        for conv in _load_file(file):
            out.append(conv)
            if limit is not None and len(out) >= limit:
                return out
    return out


def _load_file(file: Path) -> list[Conversation]:
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise DatasetError(f"{file}: not readable JSON ({exc})") from None
    if isinstance(data, list):
        return [
            _conversation(item, source=f"{file}[{i}]", default_id=f"{file.stem}#{i}")
            for i, item in enumerate(data)
        ]
    return [_conversation(data, source=str(file), default_id=file.stem)]


def _conversation(obj: Any, *, source: str, default_id: str) -> Conversation:
    if not isinstance(obj, Mapping):
        raise DatasetError(f"{source}: a conversation must be a JSON object, got {_kind(obj)}")
    body = obj.get("conversation", obj)
    if not isinstance(body, Mapping):
        raise DatasetError(f"{source}: 'conversation' must be an object, got {_kind(body)}")
    sample_id = str(obj.get("sample_id") or default_id)
    speakers = [str(body.get(k) or "") for k in ("speaker_a", "speaker_b")]
    sessions = _sessions(body, source)
    if not sessions:
        raise DatasetError(f"{source}: no session_N lists of turns; is this a LoCoMo file?")
    issues = EvidenceIssues()
    known: set[str] = set()
    for turn in (t for s in sessions for t in s.turns):
        if turn.dia_id in known:
            issues.duplicate_dia_ids += 1
            issues.note(f"{sample_id}: dia_id {turn.dia_id} appears twice")
        known.add(turn.dia_id)
    qa = obj.get("qa", [])
    if not isinstance(qa, list):
        raise DatasetError(f"{source}: 'qa' must be a list, got {_kind(qa)}")
    questions = [
        _question(item, i, sample_id=sample_id, source=source, known=known, issues=issues)
        for i, item in enumerate(qa)
    ]
    return Conversation(
        sample_id=sample_id,
        speaker_a=speakers[0],
        speaker_b=speakers[1],
        sessions=tuple(sessions),
        questions=tuple(questions),
        issues=issues,
        source=source,
    )


def _sessions(body: Mapping[str, Any], source: str) -> list[Session]:
    numbers = sorted(int(m.group(1)) for k in body if (m := _SESSION_KEY.match(str(k))))
    out: list[Session] = []
    for n in numbers:
        raw_turns = body[f"session_{n}"]
        if not isinstance(raw_turns, list):
            raise DatasetError(f"{source}: session_{n} must be a list of turns")
        if not raw_turns:
            continue  # an empty session has nothing to remember (and often no date either)
        field = f"session_{n}_date_time"
        when = parse_locomo_datetime(body.get(field), source=source, field=field)
        turns = tuple(
            _turn(raw, n, when + i * TURN_SPACING, source=f"{source}: session_{n}[{i}]")
            for i, raw in enumerate(raw_turns)
        )
        out.append(Session(number=n, date_time=when, turns=turns))
    return out


def _turn(raw: Any, session: int, when: datetime, *, source: str) -> Turn:
    if not isinstance(raw, Mapping):
        raise DatasetError(f"{source}: a turn must be an object, got {_kind(raw)}")
    dia_id = raw.get("dia_id")
    if not isinstance(dia_id, str) or not dia_id.strip():
        raise DatasetError(f"{source}: dia_id is {dia_id!r}; every turn needs one like 'D1:3'")
    parsed = parse_evidence(dia_id)
    # Turns are keyed by the normalised form so evidence "D1: 3" still finds turn "D1:3".
    key = parsed.ids[0] if len(parsed.ids) == 1 else dia_id.strip()
    text = raw.get("text")
    if not isinstance(text, str):
        raise DatasetError(f"{source}: text is {text!r}; expected a string")
    caption = raw.get("blip_caption")
    return Turn(
        dia_id=key,
        speaker=str(raw.get("speaker") or ""),
        text=text,
        session=session,
        created_at=when,
        blip_caption=caption if isinstance(caption, str) and caption.strip() else None,
    )


def _question(
    item: Any,
    index: int,
    *,
    sample_id: str,
    source: str,
    known: set[str],
    issues: EvidenceIssues,
) -> Question:
    where = f"{source}: qa[{index}]"
    if not isinstance(item, Mapping):
        raise DatasetError(f"{where} must be an object, got {_kind(item)}")
    question = item.get("question")
    if not isinstance(question, str) or not question.strip():
        raise DatasetError(f"{where}.question is {question!r}; expected a non-empty string")
    answer = item.get("answer", item.get("adversarial_answer"))
    raw = item.get("evidence", [])
    raw_list = raw if isinstance(raw, list) else [raw]
    evidence: list[str] = []
    qid = f"{sample_id}/q{index}"
    for value in raw_list:
        issues.strings += 1
        parsed = parse_evidence(value)
        if parsed.unparseable:
            issues.unparseable += 1
            issues.note(f"{qid}: evidence {value!r} holds no D<session>:<turn> id")
        if parsed.split:
            issues.split_strings += 1
            issues.note(f"{qid}: evidence {value!r} holds {len(parsed.ids)} ids")
        for dia_id in parsed.ids:
            if dia_id not in known:
                issues.unknown_ids += 1
                issues.note(f"{qid}: evidence {dia_id} names no turn")
            elif dia_id not in evidence:
                evidence.append(dia_id)
    if not evidence:
        issues.questions_without_evidence += 1
    return Question(
        qid=qid,
        question=question,
        answer=None if answer is None else str(answer),
        category=str(item.get("category", "unknown")),
        evidence=tuple(evidence),
        raw_evidence=tuple(str(v) for v in raw_list),
    )


def _kind(value: object) -> str:
    return type(value).__name__
