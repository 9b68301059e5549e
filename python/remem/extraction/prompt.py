"""The extraction prompt: a system message with the rules and the attribute vocabulary, and a
user message with the turns rendered with their timestamps (relative dates — "last month" —
are resolved against the time of the turn that says them)."""

from __future__ import annotations

from collections.abc import Sequence

from remem.brains import Message
from remem.controller.extraction import ExtractionContext
from remem.extraction.vocabulary import ATTRIBUTES, MULTI_VALUED, SINGLE_VALUED, USER
from remem.models import TranscriptEntry

__all__ = ["SYSTEM_PROMPT", "build_messages", "render_turns"]

SYSTEM_PROMPT = f"""\
You extract long-term memory from a conversation between a user and an assistant.
Answer with one JSON object with the keys entities, relationships, facts, insights and summary.

Rules:
- Extract only what the user states as true about themselves or the people, places and things
  in their life. Questions ("should I quit?"), hypotheticals ("if I moved to Rome"), plans and
  wishes ("I'd love to live in Tokyo") are not facts. A plain negation ("I don't live in
  Paris") is not a fact either. What the assistant says is context, not a fact.
- Facts about someone else go to that person: "my sister Ana moved to Rome" gives the user's
  sibling Ana and Ana's city Rome (subject "Ana"); "my friend moved to Berlin" gives nothing
  about the user. Never give another person's fact to "{USER}".
- The person talking is "{USER}": use it as the subject of facts about them and as the source
  of their relationships.
- facts: one per statement, {{"subject", "attribute", "value", "text"}}. Use these attribute
  names where they apply: {", ".join(ATTRIBUTES)}. Single-valued (a new value replaces the old):
  {", ".join(sorted(SINGLE_VALUED))}. Multi-valued: {", ".join(sorted(MULTI_VALUED))}.
  value is short ("Lisbon", "design studio", "vegetarian"), only words the user said (never
  a guess); text is one self-contained sentence ("The user lives in Lisbon.").
- operation says how the fact changes: "set" for a value that holds from now on, including
  news of a change ("so I've switched to pescatarian", "we've got the keys to the new place in
  Leeds", "starting at Globex next week"); "end" when a fact stops holding with nothing in
  its place ("I'm not doing keto any more", "I no longer smoke", "I quit my job", "Sam and I
  split up", "our dog Rex died") — value is what ended, or "none" if unnamed; "correct" when
  the user puts a misstatement right ("actually…", "I misspoke", "sorry, Thursday, not
  Wednesday") — value is the right one and previous the wrong one. previous is also the old
  name of something renamed ("we renamed Orion to Atlas": project Atlas, previous Orion);
  null otherwise. A job change told in steps is two facts: employer Acme "end", employer
  Globex "set". Ending one pet never ends another.
- entities: the people, places, organisations, animals and events named, with a type
  (person, place, org, animal, event or thing). Include "{USER}" (type person) when it is the
  source of a relationship.
- relationships: {{"source", "relation", "target", "valid_from", "exclusive"}} between entity
  names; relation in snake_case (lives_in, from, works_at, partner_of, sibling, parent, child,
  has_pet, ...). exclusive is true when the source can hold only one at a time (lives_in,
  from, works_at, partner_of).
- valid_from: the ISO date (YYYY-MM-DD) the relationship began, resolved against the time of
  the turn that says it ("last month" in a turn of 2026-05-14 is 2026-04); null when unknown.
- insights: at most a few durable observations about the user that no single fact states.
- summary: one or two sentences on what these turns were about, or null if nothing happened.
- Empty lists when there is nothing to extract. Never invent facts.
"""


def render_turns(entries: Sequence[TranscriptEntry]) -> str:
    """Each turn with its number and time, then the user's and the assistant's words."""
    blocks = []
    for e in entries:
        when = e.created_at.strftime("%Y-%m-%d %H:%M %Z (%A)")
        lines = [f"Turn {e.turn_number} at {when}"]
        if e.user_message:
            lines.append(f"User: {e.user_message}")
        if e.assistant_message:
            lines.append(f"Assistant: {e.assistant_message}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def build_messages(entries: Sequence[TranscriptEntry], context: ExtractionContext) -> list[Message]:
    """The system prompt and one user message with the turns of session ``context.session_id``."""
    now = context.now.strftime("%Y-%m-%d %H:%M %Z")
    body = (
        f"Session {context.session_id}; it is now {now}.\n\n"
        f"{render_turns(entries)}\n\nExtract the memory of these turns as JSON."
    )
    return [Message.system(SYSTEM_PROMPT), Message.user(body)]
