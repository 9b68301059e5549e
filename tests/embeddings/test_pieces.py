"""Sentence pieces of long turns (issue #14): the split and the LoCoMo bench path."""

from __future__ import annotations

from pathlib import Path

import pytest
from benches.locomo_stages import _add_pieces

from remem.embeddings.pieces import PiecesConfig, split_pieces
from remem.errors import ConfigError
from remem.eval.locomo import ingest_conversation, load_locomo, map_results
from tests.eval.locomo.synth import write_dataset

LONG = (
    "Caroline: I went to the support group yesterday and it was so powerful. "
    "The stories people told there inspired me a lot. Thanks! "
    "I want to go into counseling and mental health work now."
)


def test_a_long_turn_splits_into_its_sentences_each_with_the_speaker() -> None:
    pieces = split_pieces(LONG, PiecesConfig(enabled=True, min_words=20))
    assert pieces == [
        "Caroline: I went to the support group yesterday and it was so powerful.",
        "Caroline: The stories people told there inspired me a lot.",
        # "Thanks!" is shorter than min_sentence words: joined to the next sentence.
        "Caroline: Thanks! I want to go into counseling and mental health work now.",
    ]


def test_short_or_single_sentence_texts_have_no_pieces() -> None:
    config = PiecesConfig(enabled=True, min_words=20)
    assert split_pieces("Melanie: Hey Caroline, how are you doing today?", config) == []
    one = "Melanie: " + " ".join(["word"] * 30) + "."
    assert split_pieces(one, config) == []
    # A trailing short sentence joins the last piece rather than standing alone.
    tail = split_pieces(LONG + " Bye now.", config)
    assert tail[-1].endswith("mental health work now. Bye now.")
    assert len(tail) == 3


@pytest.mark.parametrize("field", ["min_words", "min_sentence"])
@pytest.mark.parametrize("bad", [0, -3, 2.5, True, "20"])
def test_bad_config_names_the_field_and_value(field: str, bad: object) -> None:
    with pytest.raises(ConfigError, match=f"PiecesConfig.{field}.*{bad!r}"):
        PiecesConfig(**{field: bad})  # type: ignore[arg-type]


def test_split_pieces_rejects_a_non_string() -> None:
    with pytest.raises(ConfigError, match="needs a str, got int"):
        split_pieces(3, PiecesConfig())  # type: ignore[arg-type]


async def test_pieces_are_stored_keyed_to_their_turn_and_recalled_as_it(tmp_path: Path) -> None:
    [conv] = load_locomo(write_dataset(tmp_path / "data", conversations=1))
    ingested = await ingest_conversation(conv, tmp_path / "mem")
    try:
        config = PiecesConfig(enabled=True, min_words=8, min_sentence=3)
        expected = {
            t.dia_id: split_pieces(t.content(), config)
            for t in conv.turns
            if split_pieces(t.content(), config)
        }
        assert expected, "the synthetic conversation has long multi-sentence turns"
        written = await _add_pieces(ingested, config)
        assert written == sum(len(p) for p in expected.values())
        assert ingested.clock.now() == ingested.asked_at
        dia_id, pieces = next(iter(expected.items()))
        hits = await ingested.runtime.controller.recall(pieces[-1], k=10)
        piece_hits = [h for h in hits if h.record.id.startswith(f"conv-0/{dia_id}/piece")]
        assert piece_hits, "the piece itself is recalled"
        assert piece_hits[0].record.metadata["dia_id"] == dia_id
        ranked, unmapped = map_results(hits, ingested.dia_ids)
        assert unmapped == 0
        assert dia_id in ranked[:3]
        assert len(ranked) == len(set(ranked))  # the turn, its memory and pieces: one dia_id
    finally:
        await ingested.runtime.aclose()


async def test_context_pieces_pair_each_turn_with_the_previous_one(tmp_path: Path) -> None:
    [conv] = load_locomo(write_dataset(tmp_path / "data", conversations=1))
    ingested = await ingest_conversation(conv, tmp_path / "mem")
    try:
        written = await _add_pieces(ingested, None, context=True)
        # One piece per turn but the first of each session.
        assert written == sum(len(s.turns) - 1 for s in conv.sessions)
        first, second = conv.sessions[0].turns[:2]
        hits = await ingested.runtime.controller.recall(second.content(), k=10)
        context = [h for h in hits if h.record.id == f"conv-0/{second.dia_id}/piece0"]
        assert context, "the context piece of the session's second turn is recalled"
        assert context[0].record.text == f"{first.content()} {second.content()}"
        assert context[0].record.metadata["dia_id"] == second.dia_id
    finally:
        await ingested.runtime.aclose()
