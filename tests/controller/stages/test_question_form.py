"""The question-form stage: the statement a question is embedded as, its config, and in recall."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np
import pytest
from numpy.typing import NDArray

from remem.controller import ControllerConfig
from remem.controller.stages import RecallStagesConfig
from remem.controller.stages.question_form import (
    QuestionFormConfig,
    statement_form,
    statement_forms,
)
from remem.embeddings import HashingEmbedder
from remem.errors import ConfigError
from tests.controller.conftest import Factory
from tests.controller.stages.test_stages_in_recall import ALL_OFF


@pytest.mark.parametrize(
    ("question", "statement"),
    [
        ("What do Melanie's kids like?", "Melanie's kids like"),
        ("When did Caroline go to the support group?", "Caroline go to the support group"),
        ("What's my job?", "my job"),
        ("what\u2019s my job", "my job"),  # the typographic apostrophe, no question mark
        ("Who am I dating right now?", "I dating right now"),
        ("Where do I work these days?", "I work these days"),
        ("What kind of art does Caroline make?", "art does Caroline make"),
        ("How many times has she been to the beach?", "times has she been to the beach"),
        ("How long have they been together??", "they been together"),
        ("Did Melanie go camping?", "Melanie go camping"),
        ("Isn't the gym closed on Sundays?", "the gym closed on Sundays"),
        ("WHO IS MY SISTER?", "MY SISTER"),
    ],
)
def test_the_question_frame_is_cut(question: str, statement: str) -> None:
    assert statement_form(question) == statement


@pytest.mark.parametrize(
    "text",
    [
        "Tell me about the beach trip",  # no frame
        "Whatever happened to the band",  # a wh-word only as a prefix of another word
        "Howard moved to Leeds",
        "Wann ziehst du um?",  # another language: no English frame word
        "What?",  # nothing would remain
        "Do?",
    ],
)
def test_a_text_without_a_frame_or_with_nothing_else_is_kept(text: str) -> None:
    assert statement_form(text) == text


def test_off_by_config_passes_queries_through_and_config_is_checked() -> None:
    queries = ["What's my job?", "Did I go?"]
    assert statement_forms(queries, QuestionFormConfig()) == queries
    assert statement_forms(queries, QuestionFormConfig(enabled=True)) == ["my job", "I go"]
    with pytest.raises(ConfigError, match=r"question_form\.enabled"):
        QuestionFormConfig(enabled="yes")  # type: ignore[arg-type]
    stages = RecallStagesConfig.from_mapping({"question_form": {"enabled": True}})
    assert stages.question_form.enabled is True
    assert stages.without("question_form").question_form.enabled is False


@pytest.mark.parametrize("on", [True, False])
async def test_recall_embeds_the_statement_form_only_for_the_vector_retriever(
    make_stack: Factory, on: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    stages = dataclasses.replace(ALL_OFF, question_form=QuestionFormConfig(enabled=on))
    s = await make_stack(config=ControllerConfig(stages=stages))
    c = s.controller
    answer = await c.remember("Melanie's kids love the dinosaur exhibit")
    seen: list[str] = []
    original = HashingEmbedder.embed_queries

    async def spy(self: HashingEmbedder, queries: Sequence[str]) -> NDArray[np.float32]:
        seen.extend(queries)
        return await original(self, queries)

    monkeypatch.setattr(HashingEmbedder, "embed_queries", spy)
    question = "What do Melanie's kids love?"
    hits = await c.recall(question, k=3)
    assert seen == (["Melanie's kids love"] if on else [question])
    # Full text still plans the question's own terms; the answer is found either way.
    assert [h.record.id for h in hits][:1] == [answer.id]
    fulltext = await c.recall(question, k=3, sources=["fulltext"])
    assert [h.record.id for h in fulltext][:1] == [answer.id]
    # A caller's own query vector is used as given.
    seen.clear()
    await c.recall(question, k=3, vector=await HashingEmbedder().embed_query("anything at all"))
    assert seen == []
