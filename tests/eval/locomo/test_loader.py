"""Loading LoCoMo files: both file shapes, both object shapes, counted evidence problems."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from remem.errors import DatasetError
from remem.eval.locomo import load_locomo
from remem.eval.locomo.loader import TURN_SPACING
from tests.eval.locomo.synth import make_conversation, write_dataset


def _summary(path: Path) -> list[tuple[str, int, int, tuple[str, ...]]]:
    return [
        (c.sample_id, len(c.turns), len(c.questions), c.questions[0].evidence)
        for c in load_locomo(path)
    ]


def test_one_file_with_a_list_and_a_directory_of_files_load_the_same(tmp_path: Path) -> None:
    listed = write_dataset(tmp_path / "a", conversations=3, single_file=True)
    split = write_dataset(tmp_path / "b", conversations=3, single_file=False)
    assert split.is_dir()
    one = _summary(listed)
    assert one == _summary(split)
    assert [s[0] for s in one] == ["conv-0", "conv-1", "conv-2"]
    assert all(turns == 30 for _, turns, _, _ in one)


def test_nested_and_flat_conversations_parse_identically(tmp_path: Path) -> None:
    nested = make_conversation("c", seed=5, nested=True)
    flat = make_conversation("c", seed=5, nested=False)
    assert "conversation" in nested
    assert "conversation" not in flat
    (tmp_path / "n.json").write_text(json.dumps(nested))
    (tmp_path / "f.json").write_text(json.dumps(flat))
    [a] = load_locomo(tmp_path / "n.json")
    [b] = load_locomo(tmp_path / "f.json")
    assert a.sessions == b.sessions
    assert a.questions == b.questions
    assert (a.speaker_a, a.speaker_b) == ("Caroline", "Melanie")


def test_turns_are_dated_by_their_session_and_carry_captions(tmp_path: Path) -> None:
    conv = make_conversation("c", seed=1)
    body = conv["conversation"]
    body["session_2_date_time"] = "10:16 am on 13 June, 2023"
    (tmp_path / "c.json").write_text(json.dumps(conv))
    [loaded] = load_locomo(tmp_path / "c.json")
    s2 = loaded.sessions[1]
    assert s2.date_time == datetime(2023, 6, 13, 10, 16, tzinfo=UTC)
    assert s2.turns[3].created_at == s2.date_time + 3 * TURN_SPACING
    captioned = [t for t in loaded.turns if t.blip_caption]
    assert len(captioned) == 1
    assert "[image: a photo of a" in captioned[0].content()


def test_categories_answers_and_adversarial_items(tmp_path: Path) -> None:
    path = write_dataset(tmp_path, conversations=1)
    [conv] = load_locomo(path)
    adversarial = conv.questions[-1]
    assert adversarial.category == "5"
    assert adversarial.answer == "Nothing; it never came up."
    assert adversarial.evidence == ()
    assert {q.category for q in conv.questions} == {"1", "4", "5"}
    assert conv.issues.questions_without_evidence == 1


def test_malformed_evidence_is_counted_not_fatal(tmp_path: Path) -> None:
    conv = make_conversation("c", seed=2)
    conv["qa"] = [
        {"question": "q0", "answer": "a", "evidence": ["D1:2; D2:3"], "category": 1},
        {"question": "q1", "answer": "a", "evidence": ["D1:2", "D9:99"], "category": 2},
        {"question": "q2", "answer": "a", "evidence": ["see session 1"], "category": 3},
        {"question": "q3", "answer": 7, "evidence": "D3:1", "category": 4},
        {"question": "q4", "answer": "a", "evidence": ["D1:2", "D1:2"], "category": 4},
    ]
    (tmp_path / "c.json").write_text(json.dumps(conv))
    [loaded] = load_locomo(tmp_path / "c.json")
    q = loaded.questions
    assert q[0].evidence == ("D1:2", "D2:3")
    assert q[1].evidence == ("D1:2",)
    assert q[2].evidence == ()
    assert q[3].evidence == ("D3:1",)
    assert q[3].answer == "7"
    assert q[4].evidence == ("D1:2",)
    issues = loaded.issues
    assert issues.split_strings == 1
    assert issues.unknown_ids == 1
    assert issues.unparseable == 1
    assert issues.questions_without_evidence == 1
    assert issues.strings == 7
    assert any("D9:99" in e for e in issues.examples)


def test_limit_stops_early(tmp_path: Path) -> None:
    path = write_dataset(tmp_path, conversations=3)
    assert [c.sample_id for c in load_locomo(path, limit=2)] == ["conv-0", "conv-1"]


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda c: c["conversation"].update(session_2_date_time="sometime"), "session_2_date_time"),
        (lambda c: c["conversation"].pop("session_1_date_time"), "session_1_date_time"),
        (lambda c: c["conversation"]["session_1"][0].pop("dia_id"), "dia_id"),
        (lambda c: c["conversation"]["session_1"][0].update(text=None), "text"),
        (lambda c: c["qa"][0].update(question=""), "question"),
        (lambda c: c.update(qa={"not": "a list"}), "qa"),
    ],
)
def test_structural_errors_name_file_and_field(tmp_path: Path, mutate: object, field: str) -> None:
    conv = make_conversation("c", seed=3)
    assert callable(mutate)
    mutate(conv)
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(conv))
    with pytest.raises(DatasetError) as info:
        load_locomo(path)
    assert "broken.json" in str(info.value)
    assert field in str(info.value)


def test_unreadable_inputs(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="does not exist"):
        load_locomo(tmp_path / "missing")
    with pytest.raises(DatasetError, match=r"no \.json files"):
        load_locomo(tmp_path)
    (tmp_path / "x.json").write_text("{not json")
    with pytest.raises(DatasetError, match=r"x\.json: not readable JSON"):
        load_locomo(tmp_path)
    (tmp_path / "x.json").write_text(json.dumps({"speaker_a": "A", "qa": []}))
    with pytest.raises(DatasetError, match="no session_N"):
        load_locomo(tmp_path)


def test_empty_sessions_are_skipped_and_repeated_dia_ids_counted(tmp_path: Path) -> None:
    conv = make_conversation("c", seed=4, sessions=2)
    body = conv["conversation"]
    body["session_3"] = []  # released files have these, sometimes without a date
    body["session_2"][1]["dia_id"] = body["session_2"][0]["dia_id"]
    (tmp_path / "c.json").write_text(json.dumps(conv))
    [loaded] = load_locomo(tmp_path / "c.json")
    assert [s.number for s in loaded.sessions] == [1, 2]
    assert loaded.issues.duplicate_dia_ids == 1
