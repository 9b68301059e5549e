"""offline_brain: a ScriptedBrain whose rules make an offline companion behave sensibly.

Rules, tried in order on every request:

Rules 1 and 2 apply only when tools are offered and allowed.

1. **a full block** — the last message reports a BlockFullError (the post-turn consolidation
   request, or a block tool's result): remove the block's oldest entry with
   ``core_memory_remove`` (its first entry: entries are appended, so the first is the oldest);
2. **after making room in a turn** — the last message is the successful removal that followed
   a refused ``core_memory_add``: call that add again;
3. **a question** — the message (the text after ``</context>``) ends with ``?`` or starts with
   a question word: answer extractively with the line of the context (core blocks first, then
   recalled memories) sharing the most content words with it; ties go to the earlier line; no
   shared word → "I don't know.";
4. **anything else** — a short acknowledgement.

Words are compared lower-cased by their first four letters, without stop words (so "live" and
"lives", "sister" and "sister's" match). It is a deterministic stand-in for a model, good for
tests, demos and offline evaluation runs — not a language model.

>>> brain = offline_brain()
>>> brain.name
'scripted:offline-companion'
"""

from __future__ import annotations

import re

from remem.blocks.tools import ADD, REMOVE
from remem.brains import BrainRequest, Completion, Message, ScriptedBrain, ToolCall

__all__ = ["ACKNOWLEDGEMENT", "UNKNOWN", "best_line", "offline_brain"]

ACKNOWLEDGEMENT = "Got it — thanks for telling me."
UNKNOWN = "I don't know."
_FULL = "block is full"
_WORD = re.compile(r"[a-z0-9]+")


def _wordlist(text: str) -> frozenset[str]:
    return frozenset(text.split())


_QUESTION_WORDS = _wordlist(
    "what where when who whom whose which why how do does did is are am was were can could "
    "will would should have has"
)
_STOP = _wordlist(
    "a an the and or but of to in on at for from with by about as is are am was were be been "
    "do does did i me my mine you your we our it its he she they them their this that these "
    "those what where when who whom whose which why how there here have has had can could "
    "will would should s now just so not no yes tell please know remember again"
)


def _words(text: str) -> set[str]:
    return {w[:4] for w in _WORD.findall(text.lower()) if w not in _STOP}


def _split(message: str) -> tuple[str, str]:
    """(context, query) of a final user message."""
    if "</context>" in message:
        context, _, query = message.partition("</context>")
        return context, query.strip()
    return "", message.strip()


def _is_question(query: str) -> bool:
    words = _WORD.findall(query.lower())
    return query.rstrip().endswith("?") or bool(words and words[0] in _QUESTION_WORDS)


def best_line(context: str, question: str) -> str | None:
    """The context line sharing the most content words with ``question`` (earliest on ties)."""
    wanted = _words(question)
    best: tuple[int, str] | None = None
    for raw in context.splitlines():
        line = raw.strip()
        if not line.startswith("- "):
            continue  # headers, block headers, tags
        text = line[2:].strip()
        if text.startswith("<"):
            continue
        score = len(wanted & _words(text))
        if score and (best is None or score > best[0]):
            best = (score, text)
    return None if best is None else best[1]


def _may_call_tools(request: BrainRequest) -> bool:
    return bool(request.tools) and request.tool_choice != "none"


def _full_report(request: BrainRequest) -> str | None:
    last = request.messages[-1]
    if last.role in ("user", "tool") and _FULL in last.content:
        return last.content
    return None


def _block_contents(report: str) -> tuple[str, list[str]] | None:
    """(label, entries) from a BlockFullError text (``Current contents:`` then the block)."""
    _, found, contents = report.partition("Current contents:")
    if not found:
        return None
    lines = contents.strip().splitlines()
    header = re.match(r"<([a-z0-9_]+)>", lines[0]) if lines else None
    if header is None:
        return None
    entries = [ln[2:] for ln in lines[1:] if ln.startswith("- ")]
    return header.group(1), entries


def _consolidate(request: BrainRequest) -> Completion | str:
    parsed = _block_contents(_full_report(request) or "")
    if parsed is None or not parsed[1]:
        return "There is nothing I can remove to make room."
    label, entries = parsed
    call = ToolCall(
        f"call_{len(request.messages)}", REMOVE, {"block": label, "old_text": entries[0]}
    )
    return Completion(tool_calls=(call,), finish_reason="tool_calls")


def _refused_add(messages: tuple[Message, ...]) -> ToolCall | None:
    """The add refused as full just before the removal that ends ``messages``, if any."""
    if (
        len(messages) < 4
        or messages[-1].role != "tool"
        or "Removed from" not in messages[-1].content
    ):
        return None
    results = {m.tool_call_id: m.content for m in messages if m.role == "tool"}
    for message in reversed(messages[:-2]):
        for call in message.tool_calls:
            if call.name == ADD and _FULL in results.get(call.id, ""):
                return call
        if message.role == "user":
            break
    return None


def _retry_add(request: BrainRequest) -> Completion:
    call = _refused_add(request.messages)
    assert call is not None
    retry = ToolCall(f"call_{len(request.messages)}", call.name, call.arguments)
    return Completion(tool_calls=(retry,), finish_reason="tool_calls")


def _answer(request: BrainRequest) -> str:
    last_user = next((m for m in reversed(request.messages) if m.role == "user"), None)
    if last_user is None or request.messages[-1].role == "tool":
        return ACKNOWLEDGEMENT
    context, query = _split(last_user.content)
    if not _is_question(query):
        return ACKNOWLEDGEMENT
    return best_line(context, query) or UNKNOWN


def offline_brain(model: str = "offline-companion") -> ScriptedBrain:
    """A ScriptedBrain with the rules of the module docstring."""
    return ScriptedBrain(
        rules=[
            (lambda r: _may_call_tools(r) and _full_report(r) is not None, _consolidate),
            (lambda r: _may_call_tools(r) and _refused_add(r.messages) is not None, _retry_add),
            (lambda r: True, _answer),
        ],
        model=model,
    )
