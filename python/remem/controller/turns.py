"""Validation of the turns ``record_turn`` and ``record_turns`` write."""

from __future__ import annotations

from collections.abc import Sequence

from remem.errors import InputError, InvalidArgumentError
from remem.models import check_text


def check_session_id(session_id: object) -> str:
    if not isinstance(session_id, str) or not session_id:
        raise InvalidArgumentError(f"session_id must be a non-empty str, got {session_id!r}")
    return session_id


def check_turn(user_message: object, assistant_message: object) -> tuple[str, str]:
    """The two messages of a turn, or the typed error naming the bad one."""
    for name, value in (
        ("user_message", user_message),
        ("assistant_message", assistant_message),
    ):
        if not isinstance(value, str):
            raise InvalidArgumentError(f"{name} must be a str, got {type(value).__name__}")
        check_text(value, field=name)
    assert isinstance(user_message, str)
    assert isinstance(assistant_message, str)
    if not (user_message.strip() or assistant_message.strip()):
        raise InvalidArgumentError("a turn needs a user or an assistant message; both are empty")
    return user_message, assistant_message


def check_turns(turns: object) -> list[tuple[str, str]]:
    """Every (user_message, assistant_message) pair checked; an error names the bad index."""
    if isinstance(turns, str | bytes) or not isinstance(turns, Sequence):
        raise InvalidArgumentError(
            "record_turns takes a list of (user_message, assistant_message) pairs"
        )
    out: list[tuple[str, str]] = []
    for i, pair in enumerate(turns):
        if not isinstance(pair, tuple | list) or len(pair) != 2:
            raise InvalidArgumentError(
                f"turn {i} is {pair!r}; pass a (user_message, assistant_message) pair"
            )
        try:
            out.append(check_turn(pair[0], pair[1]))
        except InputError as exc:
            raise type(exc)(f"turn {i}: {exc}") from exc
    return out
