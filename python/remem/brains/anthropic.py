"""AnthropicBrain: the Anthropic Messages API (``POST /v1/messages``)."""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Mapping, Sequence
from contextlib import aclosing
from typing import Any

import httpx

from remem.brains._http_brain import HTTPBrain
from remem.brains._request import check_request
from remem.brains._sse import decode_event
from remem.brains.messages import Completion, FinishReason, Message, ToolCall, ToolSpec, Usage
from remem.brains.protocol import DEFAULT_MAX_TOKENS, DEFAULT_TEMPERATURE, ToolChoice
from remem.brains.stream import DeltaStream, Done, ReplyStream
from remem.errors import InvalidArgumentError

__all__ = ["ANTHROPIC_VERSION", "RESPONSE_TOOL", "AnthropicBrain"]

ANTHROPIC_VERSION = "2023-06-01"
"""The ``anthropic-version`` header: the API version whose wire format this adapter speaks."""
RESPONSE_TOOL = "respond"
"""The tool forced to carry a ``response_format`` schema (the Messages API has no such field)."""

_STOP: dict[str, FinishReason] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "stop",
    "max_tokens": "length",
    "tool_use": "tool_calls",
    "refusal": "content_filter",
}


class AnthropicBrain(HTTPBrain):
    """Claude over the Messages API.

    System messages go to the top-level ``system`` field (joined by blank lines); assistant tool
    calls become ``tool_use`` blocks and tool results ``tool_result`` blocks in a user turn;
    consecutive same-role turns are merged, as the API requires alternation. The key comes from
    ``api_key_env`` (sent as ``x-api-key`` with ``anthropic-version``). ``response_format``
    (json_schema or json_object) is emulated by forcing a :data:`RESPONSE_TOOL` tool whose input
    schema is the wanted schema; its input comes back as the completion's JSON ``text``.
    ``temperature`` above 1 is capped at 1, the API's maximum. Retries and errors as
    :class:`OpenAICompatibleBrain` (529 "overloaded" is retried too).

    Example::

        async with AnthropicBrain(model="claude-sonnet-4-5") as brain:
            reply = await brain.complete([Message.system("Be brief."), Message.user("hi")])
    """

    provider = "anthropic"
    path = "/messages"

    def __init__(
        self,
        base_url: str = "https://api.anthropic.com/v1",
        model: str = "claude-sonnet-4-5",
        *,
        api_key_env: str = "ANTHROPIC_API_KEY",
        timeout: float = 60.0,
        max_retries: int = 4,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        super().__init__(
            base_url,
            model,
            api_key_env=api_key_env,
            timeout=timeout,
            max_retries=max_retries,
            transport=transport,
        )

    async def __aenter__(self) -> AnthropicBrain:
        return self

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
        payload = self._payload(
            messages, tools, tool_choice, response_format, temperature, max_tokens
        )
        completion = self._parse(await self._post(payload))
        if response_format is not None:
            return _unwrap_response_tool(completion)
        return completion

    def stream(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[ToolSpec] | None = None,
        tool_choice: ToolChoice | None = None,
        temperature: float = DEFAULT_TEMPERATURE,
        max_tokens: int = DEFAULT_MAX_TOKENS,
    ) -> ReplyStream:
        """The reply over SSE (``"stream": true``): ``content_block_delta`` text deltas as they
        come, tool calls assembled from their ``input_json_delta`` pieces; complete at
        ``message_stop`` (ending before it, or an ``error`` event, is a BrainError)."""
        payload = self._payload(messages, tools, tool_choice, None, temperature, max_tokens)
        payload["stream"] = True
        return DeltaStream(self._streamed(payload), what=f"the reply of {self.name}")

    async def _streamed(
        self, payload: Mapping[str, Any]
    ) -> AsyncGenerator[str | Done[Completion], None]:
        reply = _StreamedMessage(self)
        async with aclosing(self._events(self._url, payload)) as events:
            async for event in events:
                whole = self._whole(event)
                if whole is not None:
                    if whole.text:
                        yield whole.text
                    yield Done(whole)
                    return
                if event.event == "ping":
                    continue
                delta = reply.apply(event.event, decode_event(event.data, self._fail))
                if delta:
                    yield delta
                if reply.stopped:
                    yield Done(reply.completion())
                    return
        raise self._cut_off("message_stop")

    def _payload(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] | None,
        tool_choice: ToolChoice | None,
        response_format: Mapping[str, Any] | None,
        temperature: float,
        max_tokens: int,
    ) -> dict[str, Any]:
        checked, specs = check_request(messages, tools, tool_choice, temperature, max_tokens)
        if response_format is not None:
            if specs:
                raise InvalidArgumentError(
                    "the Anthropic brain emulates response_format with a forced tool, so it "
                    "cannot combine it with tools=; pass one or the other"
                )
            specs = [_response_tool(response_format)]
            tool_choice = RESPONSE_TOOL
        system = "\n\n".join(m.content for m in checked if m.role == "system")
        turns = _wire_messages([m for m in checked if m.role != "system"])
        if not turns:
            raise InvalidArgumentError(
                "the Anthropic Messages API needs at least one non-empty user or assistant "
                "message besides the system messages"
            )
        payload: dict[str, Any] = {
            "model": self._model,
            "max_tokens": max_tokens,
            "temperature": min(temperature, 1.0),  # the API's range is [0, 1]
            "messages": turns,
        }
        if system:
            payload["system"] = system
        if specs:
            payload["tools"] = [
                {"name": s.name, "description": s.description, "input_schema": dict(s.parameters)}
                for s in specs
            ]
        if tool_choice is not None:
            payload["tool_choice"] = (
                {"type": "any"}
                if tool_choice == "required"
                else {"type": tool_choice}
                if tool_choice in ("auto", "none")
                else {"type": "tool", "name": tool_choice}
            )
        return payload

    def _headers(self, key: str | None) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "anthropic-version": ANTHROPIC_VERSION}
        if key:
            headers["x-api-key"] = key
        return headers

    def _parse(self, body: dict[str, Any]) -> Completion:
        content = body.get("content")
        if not isinstance(content, list):
            raise self._fail("answer has no 'content' list; is this the Messages API?")
        texts: list[str] = []
        calls: list[ToolCall] = []
        for block in content:
            if not isinstance(block, dict):
                raise self._fail(f"a content block is not an object: {str(block)[:200]}")
            kind = block.get("type")
            if kind == "text":
                texts.append(str(block.get("text", "")))
            elif kind == "tool_use":
                calls.append(self._tool_call(block))
            # thinking and other block types carry nothing a Completion holds
        usage = body.get("usage")
        tokens = None
        if isinstance(usage, dict):
            given, made = usage.get("input_tokens"), usage.get("output_tokens")
            if isinstance(given, int) and isinstance(made, int):
                tokens = Usage(given, made)
        return Completion(
            text="".join(texts),
            tool_calls=tuple(calls),
            finish_reason=_STOP.get(str(body.get("stop_reason")), "other"),
            usage=tokens,
            model=str(body.get("model") or self._model),
        )

    def _tool_call(self, block: dict[str, Any]) -> ToolCall:
        call_id, name, arguments = block.get("id"), block.get("name"), block.get("input", {})
        if not isinstance(name, str) or not name or not isinstance(call_id, str) or not call_id:
            raise self._fail(f"a tool_use block lacks a name or an id: {str(block)[:200]}")
        if isinstance(arguments, str):  # not the documented shape, but decode it if sent
            return ToolCall.from_json(call_id, name, arguments, provider=self.name)
        if not isinstance(arguments, dict):
            return ToolCall.from_json(call_id, name, json.dumps(arguments), provider=self.name)
        return ToolCall(call_id, name, arguments)


class _StreamedMessage:
    """A Messages API reply assembled from its stream events (the wire order: message_start,
    then per block content_block_start / _delta… / _stop, message_delta, message_stop)."""

    def __init__(self, brain: AnthropicBrain) -> None:
        self._brain = brain
        self.model = brain.model
        self.blocks: dict[int, dict[str, Any]] = {}
        self.json: dict[int, list[str]] = {}
        self.stop_reason: object = None
        self.input_tokens: int | None = None
        self.output_tokens: int | None = None
        self.stopped = False
        self.text: list[str] = []

    def apply(self, name: str, data: dict[str, Any]) -> str:
        """Take one event; the text it adds to the reply ("" when none)."""
        text = self._apply(name, data)
        if text:
            self.text.append(text)
        return text

    def _apply(self, name: str, data: dict[str, Any]) -> str:
        kind = data.get("type", name)
        if kind == "error":
            error = data.get("error")
            detail = error.get("message") if isinstance(error, dict) else error
            raise self._brain._fail(f"the reply stream reported an error: {detail}; retry")
        if kind == "message_start":
            message = data.get("message")
            if isinstance(message, dict):
                self.model = str(message.get("model") or self.model)
                self._usage(message.get("usage"))
        elif kind == "content_block_start":
            block = data.get("content_block")
            if not isinstance(block, dict):
                raise self._brain._fail(f"content_block_start without a block: {data}")
            self.blocks[int(data.get("index", len(self.blocks)))] = dict(block)
            if block.get("type") == "text" and block.get("text"):
                return str(block["text"])
        elif kind == "content_block_delta":
            delta = data.get("delta")
            index = int(data.get("index", 0))
            if isinstance(delta, dict) and delta.get("type") == "text_delta":
                return str(delta.get("text", ""))
            if isinstance(delta, dict) and delta.get("type") == "input_json_delta":
                self.json.setdefault(index, []).append(str(delta.get("partial_json", "")))
            # thinking and signature deltas carry nothing a Completion holds
        elif kind == "message_delta":
            delta = data.get("delta")
            if isinstance(delta, dict) and "stop_reason" in delta:
                self.stop_reason = delta["stop_reason"]
            self._usage(data.get("usage"))
        elif kind == "message_stop":
            self.stopped = True
        return ""

    def _usage(self, usage: object) -> None:
        if isinstance(usage, dict):
            given, made = usage.get("input_tokens"), usage.get("output_tokens")
            if isinstance(given, int):
                self.input_tokens = given
            if isinstance(made, int):
                self.output_tokens = made

    def completion(self) -> Completion:
        calls: list[ToolCall] = []
        for index in sorted(self.blocks):
            block = self.blocks[index]
            if block.get("type") == "tool_use":
                pieces = self.json.get(index)
                if pieces is not None:
                    block["input"] = "".join(pieces)
                calls.append(self._brain._tool_call(block))
        usage = None
        if self.input_tokens is not None and self.output_tokens is not None:
            usage = Usage(self.input_tokens, self.output_tokens)
        return Completion(
            text="".join(self.text),
            tool_calls=tuple(calls),
            finish_reason=_STOP.get(str(self.stop_reason), "other"),
            usage=usage,
            model=self.model,
        )


def _wire_messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """Messages API turns: tool results ride in user turns; same-role neighbours merge."""
    turns: list[dict[str, Any]] = []
    for message in messages:
        role = "user" if message.role in ("user", "tool") else "assistant"
        blocks: list[dict[str, Any]] = []
        if message.role == "tool":
            blocks.append(
                {
                    "type": "tool_result",
                    "tool_use_id": message.tool_call_id,
                    "content": message.content,
                }
            )
        elif message.content:
            blocks.append({"type": "text", "text": message.content})
        blocks.extend(
            {"type": "tool_use", "id": c.id, "name": c.name, "input": dict(c.arguments)}
            for c in message.tool_calls
        )
        if not blocks:
            continue  # the API rejects empty turns
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": role, "content": blocks})
    return turns


def _response_tool(response_format: Mapping[str, Any]) -> ToolSpec:
    kind = response_format.get("type")
    if kind == "json_schema":
        spec = response_format.get("json_schema")
        if not isinstance(spec, Mapping):
            spec = {}
        schema = spec.get("schema")
        if not isinstance(schema, Mapping) or schema.get("type") != "object":
            raise InvalidArgumentError(
                "response_format json_schema needs a 'schema' of type 'object' "
                "for the Anthropic brain"
            )
        description = str(spec.get("description") or spec.get("name") or "")
        return ToolSpec(RESPONSE_TOOL, f"Give the answer. {description}".strip(), schema)
    if kind == "json_object":
        return ToolSpec(RESPONSE_TOOL, "Give the answer as a JSON object.")
    if kind == "text":
        raise InvalidArgumentError("response_format type 'text' is the default; pass None")
    raise InvalidArgumentError(
        f"response_format type must be 'json_schema' or 'json_object', got {kind!r}"
    )


def _unwrap_response_tool(completion: Completion) -> Completion:
    for call in completion.tool_calls:
        if call.name == RESPONSE_TOOL:
            text = json.dumps(dict(call.arguments), ensure_ascii=False)
            return Completion(text, (), "stop", completion.usage, completion.model)
    return completion
