"""MemoryExtractor: one model call with a JSON schema turns a window of turns into entities,
relationships (with the date they began), keyed facts, insights and a summary.

The output is parsed and validated (:mod:`remem.extraction.schema`). Invalid output — not JSON,
or JSON that breaks the schema, or an answer cut off at ``max_tokens`` — is sent back to the
model once with the validation error quoted ("repair"). If the repair is invalid too, the
extractor raises :class:`~remem.errors.ExtractionRejectedError` with the reason and an excerpt of
the output; nothing from that batch is stored. The controller's extraction queue records that
error (and any :class:`~remem.errors.BrainError`) in ``failures()`` with the batch's turn ids;
the turns themselves are already in the transcript and recallable, so nothing is lost.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

import pydantic

from remem.brains import Brain, Completion, Message
from remem.controller.extraction import ExtractionContext, ExtractionResult
from remem.errors import ExtractionRejectedError, InvalidArgumentError
from remem.extraction.prompt import build_messages
from remem.extraction.schema import RESPONSE_FORMAT, ExtractionOutput, to_result
from remem.models import TranscriptEntry

__all__ = ["DEFAULT_EXTRACTION_MAX_TOKENS", "MemoryExtractor"]

DEFAULT_EXTRACTION_MAX_TOKENS = 2048
"""Twice the brains' default: a window of several turns yields a few dozen facts."""

_EXCERPT = 500
_FENCE = re.compile(r"^\s*```(?:json)?\s*\n?(.*?)\n?\s*```\s*$", re.DOTALL)


class _InvalidOutputError(Exception):
    """Why one output was rejected (internal; becomes ExtractionRejectedError)."""


class MemoryExtractor:
    """An :class:`~remem.controller.Extractor` backed by a language model.

    Example::

        extractor = MemoryExtractor(brain)
        async with remem.Runtime.open("./memory", extractor=extractor) as rt:
            await rt.controller.record_turn("s", "I moved to Lisbon last month", "Nice!")
            await rt.controller.flush_extraction()
    """

    def __init__(
        self,
        brain: Brain,
        *,
        max_repairs: int = 1,
        temperature: float = 0.0,
        max_tokens: int = DEFAULT_EXTRACTION_MAX_TOKENS,
    ) -> None:
        if not isinstance(max_repairs, int) or isinstance(max_repairs, bool) or max_repairs < 0:
            raise InvalidArgumentError(f"max_repairs must be an integer ≥ 0, got {max_repairs!r}")
        if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1:
            raise InvalidArgumentError(f"max_tokens must be an integer ≥ 1, got {max_tokens!r}")
        self.brain = brain
        self.max_repairs = max_repairs
        self.temperature = temperature
        self.max_tokens = max_tokens

    async def extract(
        self, entries: Sequence[TranscriptEntry], *, context: ExtractionContext
    ) -> ExtractionResult:
        if not entries:
            return ExtractionResult()
        messages = build_messages(entries, context)
        attempts = 0
        while True:
            completion = await self._call(messages)
            attempts += 1
            try:
                return to_result(_parse_output(completion))
            except _InvalidOutputError as exc:
                reason = str(exc)
                if attempts > self.max_repairs:
                    raw = completion.text[:_EXCERPT]
                    turns = ", ".join(e.id for e in entries[:3]) + (
                        " …" if len(entries) > 3 else ""
                    )
                    raise ExtractionRejectedError(
                        f"{self.brain.name} gave invalid extraction output for turns {turns} "
                        f"after {attempts} attempt(s): {reason}; the turns are kept in the "
                        "transcript — re-extract them or use a stronger model",
                        reason=reason,
                        raw=raw,
                        attempts=attempts,
                    ) from None
                messages = [*messages, Message.assistant(completion.text), _repair(reason)]

    async def _call(self, messages: Sequence[Message]) -> Completion:
        return await self.brain.complete(
            messages,
            response_format=RESPONSE_FORMAT,
            temperature=self.temperature,
            max_tokens=self.max_tokens,
        )


def _parse_output(completion: Completion) -> ExtractionOutput:
    """Decode and validate one answer (a ```json fence around it is tolerated)."""
    text = completion.text
    if completion.finish_reason == "length":
        raise _InvalidOutputError(
            "the answer was cut off at the token limit; answer with a shorter JSON object "
            "(fewer, shorter facts)"
        )
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno} column {exc.colno}"
        raise _InvalidOutputError(f"not valid JSON ({exc.msg} at {where})") from None
    if not isinstance(data, dict):
        raise _InvalidOutputError(f"the answer is a JSON {type(data).__name__}, not an object")
    try:
        return ExtractionOutput.model_validate(data)
    except pydantic.ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '(root)'}: {err['msg']}"
            for err in exc.errors()[:10]
        )
        raise _InvalidOutputError(f"the JSON does not match the schema ({problems})") from None


def _repair(reason: str) -> Message:
    return Message.user(
        f"Your answer was rejected: {reason}. Answer again with only the corrected JSON object "
        "(keys entities, relationships, facts, insights, summary), nothing else."
    )
