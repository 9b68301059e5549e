"""The REST API's request bodies: strict pydantic models (unknown fields and wrong types are
422, never coerced), with field descriptions that show in the OpenAPI schema."""

from __future__ import annotations

from typing import Annotated, Literal

import pydantic
from pydantic import Field

__all__ = [
    "AddEntry",
    "ContextRequest",
    "ForgetRequest",
    "RecallRequest",
    "RememberRequest",
    "RemoveEntry",
    "ReplaceEntry",
    "TurnRequest",
]

Namespace = Annotated[
    str | None, Field(description="Whose memory (omit for the server's default namespace).")
]
Metadata = dict[str, str | int | float | bool | None]


class Body(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid", strict=True, frozen=True)


class RememberRequest(Body):
    text: str = Field(description="One self-contained fact to keep.")
    namespace: Namespace = None
    kind: str = Field("fact", description="fact, preference, event, insight, summary or note.")
    session_id: str | None = Field(None, description="The session it came from, if any.")
    metadata: Metadata | None = Field(None, description="Flat key → scalar metadata.")
    entities: list[str] | None = Field(None, description="Names it is about (graph links).")


class RecallRequest(Body):
    query: str = Field(description="What to look for, as a question or keywords.")
    namespace: Namespace = None
    k: int = Field(10, description="How many memories to return, best first.")
    session_id: str | None = Field(None, description="The current session (recall signals).")


class ForgetRequest(Body):
    ids: list[str] = Field(description="Ids of memories to forget (all or nothing).")
    namespace: Namespace = None


class TurnRequest(Body):
    session_id: str = Field(description="The conversation's id (created if new).")
    user_message: str = ""
    assistant_message: str = ""
    namespace: Namespace = None


class ContextRequest(Body):
    query: str = Field(description="The user's current message.")
    namespace: Namespace = None
    budget: int = Field(2000, description="Most tokens the context may take.")
    session_id: str | None = Field(None, description="Include this session's recent turns.")
    k: int = Field(20, description="How many memories recall offers to the packer.")
    history_turns: int = Field(8, description="How many recent turns are offered.")
    earlier_values: Literal["mark", "drop", "off"] = Field(
        "mark",
        description="A recalled value that no longer holds: marked earlier, dropped for the "
        "current one, or shown as recalled.",
    )
    prime: bool = Field(
        True, description="Also what a session starts with: entities, known facts, insights."
    )


class AddEntry(Body):
    text: str = Field(description="The new entry: one fact, one line.")
    namespace: Namespace = None


class ReplaceEntry(Body):
    old_text: str = Field(description="A substring of exactly one existing entry.")
    new_text: str = Field(description="The entry that replaces it, in full.")
    namespace: Namespace = None


class RemoveEntry(Body):
    old_text: str = Field(description="A substring of exactly one existing entry.")
    namespace: Namespace = None
