"""The fsynced JSON-lines journal under the move and plan journals."""

from __future__ import annotations

from pathlib import Path

import pytest

from remem.errors import IntegrityError
from remem.models import MemoryStage
from remem.staging import FileMoveJournal, PendingMove
from remem.stores.shared.journal_file import JsonLinesJournal


def test_round_trip_in_order(tmp_path: Path) -> None:
    journal = JsonLinesJournal(tmp_path / "j.jsonl", what="test journal")
    assert journal.records() == []
    journal.append({"op": "begin", "n": 1})
    journal.append({"op": "commit", "n": 1, "text": "naïve ✓"})
    assert journal.records() == [
        {"op": "begin", "n": 1},
        {"op": "commit", "n": 1, "text": "naïve ✓"},
    ]
    journal.remove()
    assert not journal.path.exists()


def test_a_torn_last_line_is_ignored(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    journal = JsonLinesJournal(path, what="test journal")
    journal.append({"op": "begin", "n": 1})
    with open(path, "a", encoding="utf-8") as fh:
        fh.write('{"op": "beg')  # the process died mid-write
    assert journal.records() == [{"op": "begin", "n": 1}]


def test_a_corrupt_middle_line_is_an_integrity_error(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    path.write_text('{"op": "begin"}\nnot json\n{"op": "commit"}\n', encoding="utf-8")
    with pytest.raises(IntegrityError, match="corrupt at line 2"):
        JsonLinesJournal(path, what="test journal").records()


def test_move_journal_is_removed_when_nothing_is_pending(tmp_path: Path) -> None:
    path = tmp_path / "moves.jsonl"
    journal = FileMoveJournal(path)
    move = PendingMove("m1", ("a", "b"), MemoryStage.SHORT_TERM, MemoryStage.LONG_TERM)
    journal.begin(move)
    assert path.exists()
    assert FileMoveJournal(path).pending() == [move]  # a second reader sees it, durably
    journal.commit("m1")
    assert not path.exists()
    assert FileMoveJournal(path).pending() == []


def test_move_journal_rejects_a_malformed_record(tmp_path: Path) -> None:
    path = tmp_path / "moves.jsonl"
    path.write_text('{"op": "begin", "move_id": "x"}\n{"op": "commit", "move_id": "x"}\n')
    with pytest.raises(IntegrityError, match="malformed record 1"):
        FileMoveJournal(path)
