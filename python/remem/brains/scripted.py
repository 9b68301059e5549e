"""ScriptedBrain: a deterministic, offline brain for tests and demos.

It replays a script of completions in order, then (or instead) answers by rules — a regex
searched in the last user message, or a predicate over the whole request — and records every
request it received, so tests can assert what memory code asked the model.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from remem.brains._request import check_request
from remem.brains.messages import Completion, Message, ToolSpec
from remem.brains.protocol import DEFAULT_MAX_TOKENS, DEFAULT_TEMPERATURE, Brain, ToolChoice
from remem.errors import BrainError, InvalidArgumentError

__all__ = ["BrainRequest", "Reply", "Rule", "ScriptedBrain"]


@dataclass(frozen=True)
class BrainRequest:
    """One ``complete`` call as a brain received it."""

    messages: tuple[Message, ...]
    tools: tuple[ToolSpec, ...]
    tool_choice: ToolChoice | None
    response_format: Mapping[str, Any] | None
    temperature: float
    max_tokens: int

    @property
    def last_user_text(self) -> str:
        """The content of the last user message ("" when there is none)."""
        return next((m.content for m in reversed(self.messages) if m.role == "user"), "")


Reply = Completion | str | Callable[[BrainRequest], "Completion | str"]
"""What a rule answers: a fixed completion or text, or a function of the request. A text
reply to a regex rule may refer to its groups (``\\1``, ``\\g<name>``)."""
Rule = tuple["str | re.Pattern[str] | Callable[[BrainRequest], bool]", Reply]
"""``(matcher, reply)``: a regex (searched in the last user message) or a predicate."""


class ScriptedBrain(Brain):
    """Answers from a script, then from rules; never touches the network.

    ``script`` is replayed one entry per call, in order (a ``str`` is a plain text answer).
    Once it is used up, ``rules`` are tried in order and the first match answers; ``default``
    answers when none matches. A call that nothing answers raises
    :class:`~remem.errors.BrainError` saying how many completions were scripted or which text
    no rule matched. Requests are checked like the HTTP brains check them and kept in
    :attr:`requests`. :meth:`stream` is the protocol's default: the whole reply, once.

    Example::

        brain = ScriptedBrain(rules=[(r"my name is (\\w+)", r"Nice to meet you, \\1!")])
        reply = await brain.complete([Message.user("Hello, my name is Ada")])
        assert reply.text == "Nice to meet you, Ada!"
    """

    def __init__(
        self,
        script: Sequence[Completion | str] = (),
        *,
        rules: Sequence[Rule] = (),
        default: Reply | None = None,
        model: str = "scripted",
    ) -> None:
        if isinstance(script, str) or not isinstance(script, Sequence):
            raise InvalidArgumentError("script must be a sequence of Completion or str")
        for entry in script:
            if not isinstance(entry, Completion | str):
                raise InvalidArgumentError(
                    f"script entries must be Completion or str, got {type(entry).__name__}"
                )
        self._script = [_completion(e, model) for e in script]
        self._rules: list[tuple[re.Pattern[str] | Callable[[BrainRequest], bool], Reply]] = []
        for rule in rules:
            if not isinstance(rule, tuple) or len(rule) != 2:
                raise InvalidArgumentError(f"a rule is a (matcher, reply) pair, got {rule!r}")
            matcher, reply = rule
            if isinstance(matcher, str):
                matcher = re.compile(matcher)
            if not isinstance(matcher, re.Pattern) and not callable(matcher):
                raise InvalidArgumentError(
                    f"a rule matcher is a regex or a predicate, got {type(matcher).__name__}"
                )
            _check_reply(reply)
            self._rules.append((matcher, reply))
        if default is not None:
            _check_reply(default)
        self._default = default
        self._model = model
        self._position = 0
        self._closed = False
        self.requests: list[BrainRequest] = []
        """Every request received, in order (also the ones that raised)."""

    @property
    def name(self) -> str:
        return f"scripted:{self._model}"

    @property
    def remaining(self) -> int:
        """Scripted completions not replayed yet."""
        return len(self._script) - self._position

    async def __aenter__(self) -> ScriptedBrain:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Idempotent; later calls raise BrainError, as the HTTP brains do."""
        self._closed = True

    async def complete(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[ToolSpec] | None = None,
        tool_choice: ToolChoice | None = None,
        response_format: Mapping[str, Any] | None = None,
        temperature: float = DEFAULT_TEMPERATURE,
        max_tokens: int = DEFAULT_MAX_TOKENS,
    ) -> Completion:
        if self._closed:
            raise BrainError(f"{self.name} was closed; create a new brain")
        checked, specs = check_request(messages, tools, tool_choice, temperature, max_tokens)
        request = BrainRequest(
            tuple(checked),
            tuple(specs),
            tool_choice,
            None if response_format is None else dict(response_format),
            temperature,
            max_tokens,
        )
        self.requests.append(request)
        if self._position < len(self._script):
            self._position += 1
            return self._script[self._position - 1]
        for matcher, reply in self._rules:
            if isinstance(matcher, re.Pattern):
                match = matcher.search(request.last_user_text)
                if match is not None:
                    if isinstance(reply, str):
                        return _completion(match.expand(reply), self._model)
                    return self._answer(reply, request)
            elif matcher(request):
                return self._answer(reply, request)
        if self._default is not None:
            return self._answer(self._default, request)
        scripted = len(self._script)
        if not self._rules:
            raise BrainError(
                f"{self.name}: all {scripted} scripted completions were used; this was call "
                f"{len(self.requests)}; script more completions or add rules"
            )
        raise BrainError(
            f"{self.name}: no rule matched call {len(self.requests)} (last user message "
            f"{request.last_user_text[:200]!r}; {scripted} scripted completions were used); "
            "add a rule or a default"
        )

    def _answer(self, reply: Reply, request: BrainRequest) -> Completion:
        if isinstance(reply, Completion | str):
            return _completion(reply, self._model)
        answer = reply(request)
        if not isinstance(answer, Completion | str):
            raise BrainError(
                f"{self.name}: a rule's reply function returned {type(answer).__name__}, "
                "not a Completion or str; fix the rule"
            )
        return _completion(answer, self._model)


def _completion(entry: Completion | str, model: str) -> Completion:
    return Completion(text=entry, model=model) if isinstance(entry, str) else entry


def _check_reply(reply: object) -> None:
    if not isinstance(reply, Completion | str) and not callable(reply):
        raise InvalidArgumentError(
            f"a reply is a Completion, a str or a function, got {type(reply).__name__}"
        )
