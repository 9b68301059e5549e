"""PromptArchitect: where each part of the context goes, and its exact rendered text.

Layout (fixed)::

    system      the base system message
    user/asst   retained history: prior-session and current-session turns merged in
                chronological order, each user message prefixed with its timestamp
                ("[2026-10-01 14:03 UTC]"; "[… UTC, earlier session]" for prior sessions)
    user        <context> supporting sections </context>, then the latest user query

Supporting context sits immediately before the latest query, in :data:`SUPPORTING_ORDER`, each
non-empty section under ``## <title>`` with one ``- `` line per item. This is a placement
strategy (recent and relevant material close to the question, stable instructions first); it is
not a guarantee that the model will attend to or recall every detail it is given.

Every piece renders to a string that is a self-contained run of the plain-text prompt, so the
prompt is the concatenation of its pieces and each piece can be counted on its own: that is how
formatting overhead is charged only for what is kept. The plain text marks each message with a
``### <role>`` line, which stands in for the chat format's per-message framing tokens.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from remem.context.candidates import ContextCandidate, HistoryTurn
from remem.context.sections import SECTION_TITLES, SUPPORTING_ORDER, Section

__all__ = ["ChatMessage", "PromptArchitect", "Role"]

Role = Literal["system", "user", "assistant"]
CONTEXT_OPEN = "<context>\n"
CONTEXT_CLOSE = "</context>\n\n"


@dataclass(frozen=True, slots=True)
class ChatMessage:
    """One chat message of the assembled prompt."""

    role: Role
    content: str


def _block(role: Role, content: str) -> str:
    return f"### {role}\n{content}\n\n"


@dataclass(frozen=True, slots=True)
class PromptArchitect:
    """Renders the pieces and lays them out (system, history, context, query; module docstring).

    A placement strategy, not a guarantee: putting supporting context next to the query makes
    it likelier to be used, but the model may still miss or misread any detail it is given.
    ``timestamp_format`` is a strftime pattern applied to UTC timestamps.
    """

    timestamp_format: str = "%Y-%m-%d %H:%M UTC"

    # -- pieces (each is a verbatim run of the plain-text prompt) ---------------------------
    def system_piece(self, system: str) -> str:
        return _block("system", system) if system else ""

    def query_piece(self, query: str) -> str:
        """The final user message's framing and query, without the context block."""
        return _block("user", query)

    def turn_user(self, turn: HistoryTurn, *, prior: bool) -> str:
        stamp = turn.timestamp.strftime(self.timestamp_format)
        return f"[{stamp}{', earlier session' if prior else ''}] {turn.user_message}"

    def turn_messages(self, turn: HistoryTurn, *, prior: bool) -> list[ChatMessage]:
        return list(_turn_messages(self, turn, prior))

    def turn_piece(self, turn: HistoryTurn, *, prior: bool) -> str:
        return "".join(_block(m.role, m.content) for m in self.turn_messages(turn, prior=prior))

    def header_piece(self, section: Section) -> str:
        return f"## {SECTION_TITLES[section]}\n"

    def item_piece(self, item: ContextCandidate) -> str:
        return self.item_piece_text(item.text)

    def item_piece_text(self, text: str) -> str:
        """One bullet line; continuation lines are indented under it."""
        return "- " + text.replace("\n", "\n  ") + "\n"

    # -- layout ------------------------------------------------------------------------------
    def context_block(
        self, items: Sequence[ContextCandidate], pieces: Sequence[str] | None = None
    ) -> str:
        """``<context>`` with the non-empty sections in layout order, or "" when empty.

        ``pieces`` are the items' rendered lines when the caller already has them (the
        assembler renders each text once, to count it, and reuses the line here).
        """
        if not items:
            return ""
        if pieces is None:
            pieces = [self.item_piece(i) for i in items]
        by_section: dict[Section, list[str]] = {}
        for item, piece in zip(items, pieces, strict=True):
            by_section.setdefault(item.section, []).append(piece)
        parts = [CONTEXT_OPEN]
        for section in SUPPORTING_ORDER:
            if section in by_section:
                parts.append(self.header_piece(section))
                parts.extend(by_section[section])
        parts.append(CONTEXT_CLOSE)
        return "".join(parts)

    def layout(
        self,
        system: str,
        history: Sequence[tuple[HistoryTurn, bool]],
        items: Sequence[ContextCandidate],
        query: str,
        pieces: Sequence[str] | None = None,
    ) -> tuple[ChatMessage, ...]:
        """Messages: system, history (``(turn, is_prior)`` in chronological order), context + query.

        The final user message's content is the context block followed by the query, so the
        supporting context is immediately before the query in both chat shapes. ``pieces``:
        see :meth:`context_block`.
        """
        messages: list[ChatMessage] = []
        if system:
            messages.append(ChatMessage("system", system))
        for turn, prior in history:
            messages.extend(self.turn_messages(turn, prior=prior))
        messages.append(ChatMessage("user", self.context_block(items, pieces) + query))
        return tuple(messages)


@lru_cache(maxsize=4096)
def _turn_messages(
    architect: PromptArchitect, turn: HistoryTurn, prior: bool
) -> tuple[ChatMessage, ...]:
    """A turn's messages, memoised: the same turns are laid out every turn of a chat, and the
    timestamp formatting is most of their cost (all three arguments are frozen and hashable)."""
    user = ChatMessage("user", architect.turn_user(turn, prior=prior))
    if turn.assistant_message:
        return (user, ChatMessage("assistant", turn.assistant_message))
    return (user,)


def to_text(messages: Sequence[ChatMessage]) -> str:
    """The plain-text prompt: each message as ``### role`` then its content; the budget basis."""
    return "".join(_block(m.role, m.content) for m in messages)


def to_openai(messages: Sequence[ChatMessage]) -> list[dict[str, str]]:
    """OpenAI chat-completions ``messages``."""
    return [{"role": m.role, "content": m.content} for m in messages]


def to_anthropic(messages: Sequence[ChatMessage]) -> dict[str, Any]:
    """Anthropic Messages API arguments: ``{"system": ..., "messages": [...]}``."""
    system = "\n\n".join(m.content for m in messages if m.role == "system")
    chat = [{"role": m.role, "content": m.content} for m in messages if m.role != "system"]
    out: dict[str, Any] = {"messages": chat}
    if system:
        out["system"] = system
    return out
