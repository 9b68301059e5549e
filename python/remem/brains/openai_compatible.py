"""OpenAICompatibleBrain: any ``POST /chat/completions`` server — OpenAI, Groq, Ollama, vLLM,
the llama.cpp server."""

from __future__ import annotations

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

__all__ = ["OpenAICompatibleBrain"]

_FINISH: dict[str, FinishReason] = {
    "stop": "stop",
    "length": "length",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "content_filter": "content_filter",
}


class OpenAICompatibleBrain(HTTPBrain):
    """Chat completions over HTTP in the OpenAI shape.

    ``base_url`` is the API root (``https://api.openai.com/v1``,
    ``https://api.groq.com/openai/v1``, ``http://localhost:11434/v1`` for Ollama,
    ``http://localhost:8080/v1`` for llama.cpp); requests go to ``{base_url}/chat/completions``.
    The key comes from the environment variable ``api_key_env`` (sent as a Bearer token); pass
    ``None`` for servers without keys. Tools are sent as function specs, ``tool_choice`` as
    ``"auto"``/``"none"``/``"required"`` or a named function, ``response_format`` as given.
    429, 5xx, timeouts and connection errors are retried ``max_retries`` times with backoff
    honouring ``Retry-After``; failures raise :class:`~remem.errors.BrainError` naming the host,
    the status and the cause; malformed tool arguments raise
    :class:`~remem.errors.ToolArgumentsError`.

    Example::

        async with OpenAICompatibleBrain(
            "https://api.groq.com/openai/v1", "llama-3.3-70b-versatile", api_key_env="GROQ_API_KEY"
        ) as brain:
            reply = await brain.complete([Message.user("hi")])
    """

    provider = "openai-compatible"
    path = "/chat/completions"

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key_env: str | None = "OPENAI_API_KEY",
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

    async def __aenter__(self) -> OpenAICompatibleBrain:
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
        payload = self._payload(messages, tools, tool_choice, temperature, max_tokens)
        if response_format is not None:
            payload["response_format"] = dict(response_format)
        return self._parse(await self._post(payload))

    def stream(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[ToolSpec] | None = None,
        tool_choice: ToolChoice | None = None,
        temperature: float = DEFAULT_TEMPERATURE,
        max_tokens: int = DEFAULT_MAX_TOKENS,
    ) -> ReplyStream:
        """The reply over SSE (``"stream": true``): each ``data:`` chunk's ``delta.content`` as
        it comes, tool calls assembled from their indexed ``delta.tool_calls`` pieces; complete
        at ``data: [DONE]`` (or a clean end after a ``finish_reason``). Usage is kept when the
        server sends it (no ``stream_options`` is asked for: not every server accepts it)."""
        payload = self._payload(messages, tools, tool_choice, temperature, max_tokens)
        payload["stream"] = True
        return DeltaStream(self._streamed(payload), what=f"the reply of {self.name}")

    async def _streamed(
        self, payload: Mapping[str, Any]
    ) -> AsyncGenerator[str | Done[Completion], None]:
        texts: list[str] = []
        calls: dict[int, dict[str, Any]] = {}
        finish: object = None
        model = self._model
        usage: Usage | None = None
        done = False
        async with aclosing(self._events(self._url, payload)) as events:
            async for event in events:
                whole = self._whole(event)
                if whole is not None:
                    if whole.text:
                        yield whole.text
                    yield Done(whole)
                    return
                if event.data.strip() == "[DONE]":
                    done = True
                    break
                chunk = decode_event(event.data, self._fail)
                if "error" in chunk:
                    error = chunk["error"]
                    detail = error.get("message") if isinstance(error, dict) else error
                    raise self._fail(f"the reply stream reported an error: {detail}; retry")
                model = str(chunk.get("model") or model)
                usage = _usage(chunk.get("usage")) or usage
                choices = chunk.get("choices") or []
                if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
                    continue  # a usage-only or keep-alive chunk
                choice = choices[0]
                if choice.get("finish_reason") is not None:
                    finish = choice["finish_reason"]
                delta = choice.get("delta")
                if not isinstance(delta, dict):
                    continue
                text = delta.get("content")
                if isinstance(text, str) and text:
                    texts.append(text)
                    yield text
                for piece in delta.get("tool_calls") or ():
                    _merge_tool_call(calls, piece)
        if not done and finish is None:
            raise self._cut_off("its finish_reason or data: [DONE]")
        message: dict[str, Any] = {"content": "".join(texts)}
        if calls:
            message["tool_calls"] = [calls[i] for i in sorted(calls)]
        body: dict[str, Any] = {"choices": [{"message": message, "finish_reason": finish}]}
        body["model"] = model
        completion = self._parse(body)
        if usage is not None:
            completion = Completion(
                completion.text,
                completion.tool_calls,
                completion.finish_reason,
                usage,
                completion.model,
            )
        yield Done(completion)

    def _payload(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] | None,
        tool_choice: ToolChoice | None,
        temperature: float,
        max_tokens: int,
    ) -> dict[str, Any]:
        checked, specs = check_request(messages, tools, tool_choice, temperature, max_tokens)
        payload: dict[str, Any] = {
            "model": self._model,
            "messages": [_wire_message(m) for m in checked],
            "temperature": temperature,
            "max_tokens": max_tokens,
        }
        if specs:
            payload["tools"] = [
                {
                    "type": "function",
                    "function": {
                        "name": s.name,
                        "description": s.description,
                        "parameters": dict(s.parameters),
                    },
                }
                for s in specs
            ]
        if tool_choice is not None:
            payload["tool_choice"] = (
                tool_choice
                if tool_choice in ("auto", "none", "required")
                else {"type": "function", "function": {"name": tool_choice}}
            )
        return payload

    def _headers(self, key: str | None) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        if key:
            headers["Authorization"] = f"Bearer {key}"
        return headers

    def _parse(self, body: dict[str, Any]) -> Completion:
        choices = body.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise self._fail("answer has no 'choices' list; is this an OpenAI-compatible server?")
        choice = choices[0]
        message = choice.get("message")
        if not isinstance(message, dict):
            raise self._fail("the first choice has no 'message' object")
        text = message.get("content") or ""
        if not isinstance(text, str):
            raise self._fail(f"message content is a {type(text).__name__}, not a string")
        calls = tuple(self._tool_call(raw) for raw in message.get("tool_calls") or ())
        finish = _FINISH.get(str(choice.get("finish_reason")), "other")
        if calls and finish == "stop":
            finish = "tool_calls"  # some servers (Ollama) answer tool calls with "stop"
        return Completion(
            text=text,
            tool_calls=calls,
            finish_reason=finish,
            usage=_usage(body.get("usage")),
            model=str(body.get("model") or self._model),
        )

    def _tool_call(self, raw: object) -> ToolCall:
        function = raw.get("function") if isinstance(raw, dict) else None
        if not isinstance(raw, dict) or not isinstance(function, dict):
            raise self._fail(f"a tool call lacks its 'function' object: {str(raw)[:200]}")
        name, arguments, call_id = function.get("name"), function.get("arguments"), raw.get("id")
        if not isinstance(name, str) or not name or not isinstance(call_id, str) or not call_id:
            raise self._fail(f"a tool call lacks a name or an id: {str(raw)[:200]}")
        if isinstance(arguments, dict):  # some servers send an object, not a JSON string
            return ToolCall(call_id, name, arguments)
        if arguments is None:
            arguments = ""
        if not isinstance(arguments, str):
            raise self._fail(f"tool call {name!r} arguments are neither a string nor an object")
        return ToolCall.from_json(call_id, name, arguments, provider=self.name)


def _wire_message(message: Message) -> dict[str, Any]:
    if message.role == "tool":
        return {"role": "tool", "tool_call_id": message.tool_call_id, "content": message.content}
    if message.role == "assistant" and message.tool_calls:
        return {
            "role": "assistant",
            "content": message.content or None,
            "tool_calls": [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments_json()},
                }
                for call in message.tool_calls
            ],
        }
    return {"role": message.role, "content": message.content}


def _merge_tool_call(calls: dict[int, dict[str, Any]], piece: object) -> None:
    """Add one streamed tool-call piece: the first of an index carries its id and name, the
    arguments string arrives in pieces."""
    if not isinstance(piece, dict):
        return
    index = piece.get("index", len(calls))
    if not isinstance(index, int):
        return
    call = calls.setdefault(index, {"id": None, "function": {"name": None, "arguments": ""}})
    if piece.get("id"):
        call["id"] = piece["id"]
    function = piece.get("function")
    if isinstance(function, dict):
        if function.get("name"):
            call["function"]["name"] = function["name"]
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            call["function"]["arguments"] += arguments
        elif isinstance(arguments, dict):
            call["function"]["arguments"] = arguments


def _usage(raw: object) -> Usage | None:
    if not isinstance(raw, dict):
        return None
    prompt, completion = raw.get("prompt_tokens"), raw.get("completion_tokens")
    if isinstance(prompt, int) and isinstance(completion, int):
        return Usage(prompt, completion)
    return None
