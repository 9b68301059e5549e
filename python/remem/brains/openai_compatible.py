"""OpenAICompatibleBrain: any ``POST /chat/completions`` server — OpenAI, Groq, Ollama, vLLM,
the llama.cpp server."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import httpx

from remem.brains._http_brain import HTTPBrain
from remem.brains._request import check_request
from remem.brains.messages import Completion, FinishReason, Message, ToolCall, ToolSpec, Usage
from remem.brains.protocol import DEFAULT_MAX_TOKENS, DEFAULT_TEMPERATURE, ToolChoice

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
        if response_format is not None:
            payload["response_format"] = dict(response_format)
        return self._parse(await self._post(payload))

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


def _usage(raw: object) -> Usage | None:
    if not isinstance(raw, dict):
        return None
    prompt, completion = raw.get("prompt_tokens"), raw.get("completion_tokens")
    if isinstance(prompt, int) and isinstance(completion, int):
        return Usage(prompt, completion)
    return None
