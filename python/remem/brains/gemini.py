"""GeminiBrain: Google's Gemini API (``POST /v1beta/models/{model}:generateContent``)."""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Mapping, Sequence
from contextlib import aclosing
from typing import Any
from urllib.parse import quote

import httpx

from remem.brains._http_brain import HTTPBrain
from remem.brains._request import check_request
from remem.brains._sse import decode_event
from remem.brains.messages import Completion, FinishReason, Message, ToolCall, ToolSpec, Usage
from remem.brains.protocol import DEFAULT_MAX_TOKENS, DEFAULT_TEMPERATURE, ToolChoice
from remem.brains.stream import DeltaStream, Done, ReplyStream
from remem.errors import InvalidArgumentError

__all__ = ["GeminiBrain"]

_FINISH: dict[str, FinishReason] = {
    "STOP": "stop",
    "MAX_TOKENS": "length",
    "SAFETY": "content_filter",
    "RECITATION": "content_filter",
    "BLOCKLIST": "content_filter",
    "PROHIBITED_CONTENT": "content_filter",
    "SPII": "content_filter",
    "IMAGE_SAFETY": "content_filter",
}


class GeminiBrain(HTTPBrain):
    """Gemini over its own ``generateContent`` API.

    System messages go to ``systemInstruction`` (joined by blank lines); user and assistant
    messages become ``contents`` with roles ``user`` and ``model`` (same-role neighbours merged
    into one turn's ``parts``); assistant tool calls become ``functionCall`` parts and tool
    results ``functionResponse`` parts (``{"content": <text>}``) in a user turn, named after the
    call they answer. Tools are one ``functionDeclarations`` list; ``tool_choice`` maps to
    ``toolConfig.functionCallingConfig`` (``auto`` → AUTO, ``none`` → NONE, ``required`` →
    ANY, a tool name → ANY limited to it). ``response_format`` json_schema / json_object become
    ``responseMimeType: application/json`` (with ``responseJsonSchema``). Gemini's calls carry
    no id on older models, so a missing one is made up (``gemini_call_<n>``). The key is sent
    in the ``x-goog-api-key`` header, never in the URL. Retries and errors as the other HTTP
    brains.

    Example::

        async with GeminiBrain(model="gemini-2.0-flash") as brain:
            reply = await brain.complete([Message.system("Be brief."), Message.user("hi")])
    """

    provider = "gemini"

    def __init__(
        self,
        base_url: str = "https://generativelanguage.googleapis.com/v1beta",
        model: str = "gemini-2.0-flash",
        *,
        api_key_env: str | None = "GEMINI_API_KEY",
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
        models = f"{base_url.rstrip('/')}/models/{quote(model, safe='')}"
        self._url = f"{models}:generateContent"
        self._stream_url = f"{models}:streamGenerateContent?alt=sse"

    async def __aenter__(self) -> GeminiBrain:
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
        """The reply from ``:streamGenerateContent?alt=sse``: every ``data:`` event is a whole
        ``generateContent`` answer holding the next piece; its text parts are yielded as they
        come, function calls (sent whole) collected. Gemini sends no end marker: the reply is
        complete once a candidate carries its ``finishReason`` (or the prompt was blocked); a
        stream that ends before that is a BrainError."""
        payload = self._payload(messages, tools, tool_choice, None, temperature, max_tokens)
        return DeltaStream(self._streamed(payload), what=f"the reply of {self.name}")

    async def _streamed(
        self, payload: Mapping[str, Any]
    ) -> AsyncGenerator[str | Done[Completion], None]:
        texts: list[str] = []
        parts: list[dict[str, Any]] = []
        last: dict[str, Any] = {}
        finish: object = None
        async with aclosing(self._events(self._stream_url, payload)) as events:
            async for event in events:
                whole = self._whole(event)
                if whole is not None:
                    if whole.text:
                        yield whole.text
                    yield Done(whole)
                    return
                body = decode_event(event.data, self._fail)
                if "error" in body:
                    error = body["error"]
                    detail = error.get("message") if isinstance(error, dict) else error
                    raise self._fail(f"the reply stream reported an error: {detail}; retry")
                last = {**last, **{k: v for k, v in body.items() if k != "candidates"}}
                candidates = body.get("candidates")
                if not isinstance(candidates, list) or not candidates:
                    # Only a blocked prompt comes without candidates (_parse raises otherwise).
                    yield Done(self._parse(body))
                    return
                piece = self._parse({"candidates": candidates[:1]})
                candidate = candidates[0]  # _parse checked it is an object with a parts list
                parts.extend(
                    part
                    for part in (candidate.get("content") or {}).get("parts") or ()
                    if isinstance(part.get("functionCall"), dict)
                )
                if piece.text:
                    texts.append(piece.text)
                    yield piece.text
                if isinstance(candidate, dict) and candidate.get("finishReason"):
                    finish = candidate["finishReason"]
                    break
        if finish is None:
            raise self._cut_off("a candidate's finishReason")
        joined = [{"text": "".join(texts)}, *parts] if texts else parts
        yield Done(
            self._parse(
                {
                    **last,
                    "candidates": [
                        {"content": {"role": "model", "parts": joined}, "finishReason": finish}
                    ],
                }
            )
        )

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
        system = "\n\n".join(m.content for m in checked if m.role == "system" and m.content)
        contents = _contents([m for m in checked if m.role != "system"])
        if not contents:
            raise InvalidArgumentError(
                "the Gemini API needs at least one non-empty user or assistant message "
                "besides the system messages"
            )
        generation: dict[str, Any] = {"temperature": temperature, "maxOutputTokens": max_tokens}
        if response_format is not None:
            generation.update(_response_config(response_format))
        payload: dict[str, Any] = {"contents": contents, "generationConfig": generation}
        if system:
            payload["systemInstruction"] = {"parts": [{"text": system}]}
        if specs:
            payload["tools"] = [
                {
                    "functionDeclarations": [
                        {
                            "name": s.name,
                            "description": s.description,
                            "parameters": dict(s.parameters),
                        }
                        for s in specs
                    ]
                }
            ]
        if tool_choice is not None:
            mode = {"auto": "AUTO", "none": "NONE", "required": "ANY"}.get(tool_choice, "ANY")
            calling: dict[str, Any] = {"mode": mode}
            if tool_choice not in ("auto", "none", "required"):
                calling["allowedFunctionNames"] = [tool_choice]
            payload["toolConfig"] = {"functionCallingConfig": calling}
        return payload

    def _headers(self, key: str | None) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        if key:
            headers["x-goog-api-key"] = key
        return headers

    def _parse(self, body: dict[str, Any]) -> Completion:
        candidates = body.get("candidates")
        if not isinstance(candidates, list) or not candidates:
            feedback = body.get("promptFeedback")
            reason = feedback.get("blockReason") if isinstance(feedback, dict) else None
            if reason:
                return Completion("", (), "content_filter", _usage(body), self._model_of(body))
            raise self._fail("answer has no 'candidates' list; is this the generateContent API?")
        candidate = candidates[0]
        if not isinstance(candidate, dict):
            raise self._fail("the first candidate is not an object")
        content = candidate.get("content") or {}
        parts = (content.get("parts") or []) if isinstance(content, dict) else None
        if not isinstance(parts, list):
            raise self._fail("the first candidate's content has no 'parts' list")
        texts: list[str] = []
        calls: list[ToolCall] = []
        for part in parts:
            if not isinstance(part, dict):
                raise self._fail(f"a content part is not an object: {str(part)[:200]}")
            if part.get("thought") is True:
                continue  # a thinking model's reasoning summary is not the answer
            if isinstance(part.get("text"), str):
                texts.append(part["text"])
            elif isinstance(part.get("functionCall"), dict):
                calls.append(self._tool_call(part["functionCall"], len(calls)))
        finish = _FINISH.get(str(candidate.get("finishReason")), "other")
        if calls and finish == "stop":
            finish = "tool_calls"  # Gemini answers a function call with STOP
        return Completion(
            text="".join(texts),
            tool_calls=tuple(calls),
            finish_reason=finish,
            usage=_usage(body),
            model=self._model_of(body),
        )

    def _model_of(self, body: dict[str, Any]) -> str:
        return str(body.get("modelVersion") or self._model)

    def _tool_call(self, raw: dict[str, Any], index: int) -> ToolCall:
        name, arguments = raw.get("name"), raw.get("args", {})
        if not isinstance(name, str) or not name:
            raise self._fail(f"a functionCall part lacks a name: {str(raw)[:200]}")
        call_id = raw.get("id")
        if not isinstance(call_id, str) or not call_id:
            call_id = f"gemini_call_{index}_{name}"
        if arguments is None:
            arguments = {}
        if isinstance(arguments, str):
            return ToolCall.from_json(call_id, name, arguments, provider=self.name)
        if not isinstance(arguments, dict):
            return ToolCall.from_json(call_id, name, json.dumps(arguments), provider=self.name)
        return ToolCall(call_id, name, arguments)


def _contents(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """``contents`` turns: tool results ride in user turns; same-role neighbours merge."""
    names = {c.id: c.name for m in messages for c in m.tool_calls}
    turns: list[dict[str, Any]] = []
    for message in messages:
        role = "model" if message.role == "assistant" else "user"
        parts: list[dict[str, Any]] = []
        if message.role == "tool":
            name = names.get(message.tool_call_id or "")
            if name is None:
                raise InvalidArgumentError(
                    f"tool result {message.tool_call_id!r} answers no tool call of an earlier "
                    "assistant message; Gemini needs the called function's name"
                )
            response: dict[str, Any] = {"name": name, "response": {"content": message.content}}
            if not (message.tool_call_id or "").startswith("gemini_call_"):
                response["id"] = message.tool_call_id
            parts.append({"functionResponse": response})
        elif message.content:
            parts.append({"text": message.content})
        for call in message.tool_calls:
            function: dict[str, Any] = {"name": call.name, "args": dict(call.arguments)}
            if not call.id.startswith("gemini_call_"):
                function["id"] = call.id
            parts.append({"functionCall": function})
        if not parts:
            continue  # the API rejects empty turns
        if turns and turns[-1]["role"] == role:
            turns[-1]["parts"].extend(parts)
        else:
            turns.append({"role": role, "parts": parts})
    return turns


def _response_config(response_format: Mapping[str, Any]) -> dict[str, Any]:
    kind = response_format.get("type")
    if kind == "json_schema":
        spec = response_format.get("json_schema")
        schema = spec.get("schema") if isinstance(spec, Mapping) else None
        if not isinstance(schema, Mapping):
            raise InvalidArgumentError("response_format json_schema needs a 'schema' object")
        return {"responseMimeType": "application/json", "responseJsonSchema": dict(schema)}
    if kind == "json_object":
        return {"responseMimeType": "application/json"}
    if kind == "text":
        raise InvalidArgumentError("response_format type 'text' is the default; pass None")
    raise InvalidArgumentError(
        f"response_format type must be 'json_schema' or 'json_object', got {kind!r}"
    )


def _usage(body: Mapping[str, Any]) -> Usage | None:
    raw = body.get("usageMetadata")
    if not isinstance(raw, dict):
        return None
    given, made = raw.get("promptTokenCount"), raw.get("candidatesTokenCount", 0)
    if isinstance(given, int) and isinstance(made, int):
        return Usage(given, made)
    return None
