"""LoCoMo dates and evidence ids: the tolerant parsing and its typed errors."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from remem.errors import DatasetError
from remem.eval.locomo import Turn, parse_evidence, parse_locomo_datetime


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1:47 pm on 18 May, 2023", datetime(2023, 5, 18, 13, 47, tzinfo=UTC)),
        ("1:56 pm on 8 May, 2023", datetime(2023, 5, 8, 13, 56, tzinfo=UTC)),
        ("10:16 am on 13 June, 2023", datetime(2023, 6, 13, 10, 16, tzinfo=UTC)),
        ("12:05 am on 1 January, 2024", datetime(2024, 1, 1, 0, 5, tzinfo=UTC)),
        ("12:30 pm on 1 Jan, 2024", datetime(2024, 1, 1, 12, 30, tzinfo=UTC)),
        ("1:47pm on 18 May 2023", datetime(2023, 5, 18, 13, 47, tzinfo=UTC)),
        ("  7:02 P.M. on 3 Sept, 2023 ", datetime(2023, 9, 3, 19, 2, tzinfo=UTC)),
        ("10:16 am on Sept 13, 2023", datetime(2023, 9, 13, 10, 16, tzinfo=UTC)),
        ("13:05 on 18 May 2023", datetime(2023, 5, 18, 13, 5, tzinfo=UTC)),
        ("18 May, 2023", datetime(2023, 5, 18, tzinfo=UTC)),
        ("9 am on 29 February, 2024", datetime(2024, 2, 29, 9, tzinfo=UTC)),
    ],
)
def test_dates(text: str, expected: datetime) -> None:
    assert parse_locomo_datetime(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        None,
        "",
        "yesterday",
        "1:47 pm on 18 Mayo, 2023",
        "1:47 pm on 31 June, 2023",
        "13:47 pm on 18 May, 2023",
        "29 February, 2023",
        42,
    ],
)
def test_bad_dates_name_the_file_and_field(text: object) -> None:
    with pytest.raises(DatasetError) as info:
        parse_locomo_datetime(text, source="data/x.json", field="session_3_date_time")
    assert "data/x.json" in str(info.value)
    assert "session_3_date_time" in str(info.value)


@pytest.mark.parametrize(
    ("raw", "ids", "split", "unparseable"),
    [
        ("D1:3", ("D1:3",), False, False),
        ("D8:6; D9:17", ("D8:6", "D9:17"), True, False),
        ("D8:6,D9:17 D10:1", ("D8:6", "D9:17", "D10:1"), True, False),
        ("D 2 : 07", ("D2:7",), False, False),
        ("d3:4", ("D3:4",), False, False),
        ("", (), False, True),
        ("D10", (), False, True),
        (None, (), False, True),
        (17, (), False, True),
    ],
)
def test_evidence_strings(
    raw: object, ids: tuple[str, ...], split: bool, unparseable: bool
) -> None:
    parsed = parse_evidence(raw)
    assert (parsed.ids, parsed.split, parsed.unparseable) == (ids, split, unparseable)


def test_turn_content_carries_speaker_and_image_caption() -> None:
    when = datetime(2023, 5, 8, tzinfo=UTC)
    turn = Turn("D1:1", "Caroline", "Look!", 1, when, blip_caption="a photo of a dog")
    assert turn.content() == "Caroline: Look! [image: a photo of a dog]"
    assert Turn("D1:2", "", "hi", 1, when).content() == "hi"
