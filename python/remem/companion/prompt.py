"""build_prompt: one turn's prompt — system, history, core blocks, priming, recall, the message.

Everything goes through one :class:`~remem.context.ContextAssembler` under the configured
token budget, so the prompt never exceeds it and every item's fate is inspectable
(``prompt.context.explain()``). The section order is fixed (:data:`PROMPT_ORDER`)::

    system            the companion's instructions                   (system message)
    prior_history     last turns of earlier sessions (priming)      (chat turns)
    current_history   this session's recent turns                   (chat turns)
    -- final user message: <context> ... </context> then the message --
    core_memory       every core block, rendered with its gauge      always kept
    entities          primed entities
    known_facts       primed relationships and recalled graph facts
    long_term         recalled long-term memories
    short_term        recalled short-term memories and past turns
    insights          recalled insights
    summaries         recalled summaries
    query             the user's message

A block renders as one item: its header with the live gauge (``<user> (who the user is) [67% —
1,474/2,200 chars]``) and one ``- `` line per entry. Recalled past turns already in the history
are left out (they would be said twice); recalled graph facts go to ``known_facts``.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from remem.blocks import CoreMemory
from remem.brains import Message
from remem.companion.config import CompanionConfig, EarlierValues
from remem.companion.scope import scoped_recall
from remem.companion.windows import (
    USER_MESSAGE_ORIGIN,
    Said,
    Window,
    turn_id_of,
    window_note,
    windows,
)
from remem.context import (
    SECTION_TITLES,
    AssembledContext,
    ContextAssembler,
    ContextCandidate,
    EarlierValue,
    FactTimeline,
    HistoryTurn,
    Priming,
    Section,
)
from remem.controller import MemoryController
from remem.errors import InvalidArgumentError, shown
from remem.models import MemoryRecord, MemoryStage, ScoredMemory, TranscriptEntry

__all__ = [
    "PROMPT_ORDER",
    "USER_MESSAGE_ORIGIN",
    "CompanionPrompt",
    "build_prompt",
    "recalled_candidates",
]

PROMPT_ORDER: tuple[str, ...] = (
    "system",
    Section.PRIOR_HISTORY.value,
    Section.CURRENT_HISTORY.value,
    Section.CORE_MEMORY.value,
    Section.ENTITIES.value,
    Section.KNOWN_FACTS.value,
    Section.LONG_TERM.value,
    Section.SHORT_TERM.value,
    Section.INSIGHTS.value,
    Section.SUMMARIES.value,
    "query",
)
"""The order of a companion prompt's sections (module docstring)."""

RECALL_SECTIONS = frozenset(
    {
        Section.KNOWN_FACTS.value,
        Section.LONG_TERM.value,
        Section.SHORT_TERM.value,
        Section.INSIGHTS.value,
        Section.SUMMARIES.value,
    }
)
"""Sections recalled memories can land in."""


@dataclass(frozen=True)
class CompanionPrompt:
    """One turn's prompt.

    ``messages`` is what the brain receives; ``text`` the whole prompt as one string (the
    assembler's plain-text form, the basis of the budget); ``tokens`` its size; ``sections``
    the non-empty sections in prompt order (names from :data:`PROMPT_ORDER`); ``context`` the
    assembler's account; ``recalled`` what recall returned (before packing).
    """

    messages: list[Message]
    text: str
    tokens: int
    sections: tuple[str, ...]
    context: AssembledContext
    recalled: tuple[ScoredMemory, ...] = ()

    def section_text(self, section: str) -> str:
        """The ``## <title>`` part of the context for ``section`` ("" when absent);
        InvalidArgumentError for a name that is not a :class:`~remem.context.Section`."""
        try:
            if not isinstance(section, str):  # Enum's own message would repr any object
                raise ValueError(section)
            known = Section(section)
        except ValueError:
            allowed = ", ".join(s.value for s in Section)
            raise InvalidArgumentError(
                f"section {shown(section)} is not a context section; use one of {allowed}"
            ) from None
        title = f"## {SECTION_TITLES[known]}\n"
        final = self.messages[-1].content
        start = final.find(title)
        if start < 0:
            return ""
        body = start + len(title)
        ends = [i for i in (final.find("\n## ", body), final.find("</context>", body)) if i >= 0]
        return final[start : min(ends, default=len(final))]


def block_candidates(blocks: CoreMemory) -> list[ContextCandidate]:
    """Every block as a core-memory item (always kept), in configured order."""
    return [
        ContextCandidate(
            f"block:{label}", Section.CORE_MEMORY, blocks.block(label).render(), source="blocks"
        )
        for label in blocks.labels
    ]


def recall_candidates(
    hits: Sequence[ScoredMemory],
    history_ids: set[str],
    *,
    timeline: FactTimeline | None = None,
    earlier_values: EarlierValues = "off",
    around: dict[str, Window] | None = None,
) -> list[ContextCandidate]:
    """Recalled memories as candidates (graph facts to known_facts; turns in history dropped).

    Scores are divided by the best hit's: fused recall scores are small (RRF gives about
    0.016 per retriever), while a history turn is valued near 1, so raw scores would lose every
    tight budget to history; scaled, the best memory of the turn weighs like the newest turn.

    A user message stored as a memory is its turn said again: it is left out when the turn is
    in the history, and of a turn and its message both recalled only the better one is offered.

    Stored memories and turns are dated — ``[2026-03-05] I moved to Osaka.`` — with when the
    statement held from (``valid_from``) or was made: without it the model can answer neither
    "when did …" nor which of two conflicting memories is the newer. Graph facts carry their
    own validity in their text and are left as they are.

    With a ``timeline`` (:class:`~remem.context.FactTimeline`) values of keyed facts are put in
    order, so an old value is never presented as current:

    * a keyed fact with earlier values says so: ``[2026-03-14] The user is pescatarian.
      (current; before: vegetarian 2026-03-03 to 2026-03-14)`` (``"drop"``: ``(current)``);
    * with ``"mark"``, a message or turn that stated the value holding now says so —
      ``[2026-03-14; current diet] I switched to pescatarian.`` — when the fact had others;
    * a message or turn that stated a value which no longer holds — the value was extracted
      from it, or it names the value while it held ("Long day at Acme again" once the user
      works at Globex; :meth:`~remem.context.FactTimeline.earlier_in_text`) — is, with
      ``"mark"``, dated and marked — ``[2026-03-03; earlier: diet now pescatarian (since
      2026-03-14, 9 days ago)] I am vegetarian.`` — and, with ``"drop"``, left out, the
      current value's record offered in its place (at its score) unless already offered.

    ``around`` (record id → :class:`~remem.companion.windows.Window`) adds what was said
    around a short recalled message: ``[2026-03-05] Date night tonight! (next: "Rui booked
    that little place by the river.")`` (:mod:`remem.companion.windows`); with a timeline, a
    neighbour that names a value no longer held is marked as a recalled statement is:
    ``(next: "Long day at Acme again" [earlier: employer now Globex (since …)])``.
    """
    top = max((h.score for h in hits), default=0.0)
    out: list[ContextCandidate] = []
    seen_turns = set(history_ids)
    offered: set[str] = set()
    use_timeline = timeline is not None and earlier_values != "off" and len(timeline) > 0
    for hit in sorted(hits, key=lambda h: -h.score):
        turn_id = turn_id_of(hit)
        if turn_id in seen_turns or hit.record.id in offered:
            continue
        seen_turns.add(turn_id)
        scale = hit.score / top if top > 0 else hit.score
        section = Section.KNOWN_FACTS if hit.record.metadata.get("source") == "graph" else None
        candidate = ContextCandidate.from_scored_memory(hit, section=section)
        candidate = dataclasses.replace(candidate, score=max(0.0, scale))
        if section is not None:
            out.append(candidate)
            offered.add(candidate.id)
            continue
        record = hit.record
        said = record.valid_from or record.lifecycle.created_at
        when = f"{said:%Y-%m-%d}"
        suffix = ""
        if use_timeline:
            assert timeline is not None
            earlier = _earlier(timeline, turn_id, record.text, said)
            if earlier and earlier_values == "drop":
                for current in (c for e in earlier for c in e.current):
                    if current.id not in offered:
                        offered.add(current.id)
                        out.append(_current_candidate(current, candidate.score))
                continue
            if earlier:
                when += "; " + "; ".join(dict.fromkeys(e.note for e in earlier))
            elif earlier_values == "mark" and (holds := _holds(timeline, turn_id, record)):
                when += f"; {holds}"
            note = timeline.note_for_record(record.id)
            if note is not None:
                suffix = f" ({note if earlier_values == 'mark' else 'current'})"
        window = (around or {}).get(record.id)
        if window is not None:
            suffix += window_note(window, _marker(timeline) if use_timeline else None)
        out.append(dataclasses.replace(candidate, text=f"[{when}] {candidate.text}{suffix}"))
        offered.add(candidate.id)
    return out


def _marker(timeline: FactTimeline | None) -> Callable[[Said], str]:
    """A window neighbour's note: the values it names that held when it was said and no
    longer hold ("" for none)."""

    def mark(said: Said) -> str:
        if timeline is None:
            return ""
        return "; ".join(dict.fromkeys(e.note for e in timeline.earlier_in_text(*said)))

    return mark


def _earlier(timeline: FactTimeline, turn_id: str, text: str, said: datetime) -> list[EarlierValue]:
    """The earlier values a recalled statement stated: extracted from its turn, or named in its
    text while they held (:meth:`FactTimeline.earlier_in_text`), each value once."""
    found = {e.record.id: e for e in timeline.earlier_in_turn(turn_id)}
    for e in timeline.earlier_in_text(text, said):
        found.setdefault(e.record.id, e)
    return list(found.values())


def _holds(timeline: FactTimeline, turn_id: str, record: MemoryRecord) -> str | None:
    """``"current <attribute>"`` for a statement of a value holding now (a keyed fact says
    so in its own note instead)."""
    if record.id in timeline:
        return None
    return timeline.current_in_turn(turn_id) or timeline.current_in_text(record.text)


def _current_candidate(record: MemoryRecord, score: float) -> ContextCandidate:
    """The current value of a fact, offered in place of a dropped statement of an older one."""
    held = record.valid_from or record.lifecycle.created_at
    return ContextCandidate(
        id=record.id,
        section=Section.LONG_TERM
        if record.lifecycle.stage is MemoryStage.LONG_TERM
        else Section.SHORT_TERM,
        text=f"[{held:%Y-%m-%d}] {record.text} (current)",
        score=score,
        timestamp=record.lifecycle.created_at,
        source="fact_timeline",
    )


async def build_prompt(
    *,
    user_message: str,
    config: CompanionConfig,
    assembler: ContextAssembler,
    controller: MemoryController,
    blocks: CoreMemory | None,
    history: Sequence[TranscriptEntry],
    priming: Priming | None,
    tool_schemas: Sequence[dict[str, Any]] = (),
    now: datetime | None = None,
) -> CompanionPrompt:
    """Assemble the prompt for ``user_message`` (module docstring); BudgetError if even the
    system message, the message, the core blocks and the newest turn cannot fit.

    ``now`` (default the controller's clock) is what ages in the prompt are relative to; with
    ``config.earlier_values`` other than ``"off"`` the keyed facts' values (superseded ones too,
    one query) order the recalled memories (:func:`recall_candidates`)."""
    turns = [HistoryTurn.from_entry(e) for e in history[-config.history_turns :]]
    candidates: list[ContextCandidate] = []
    if config.use_blocks and blocks is not None:
        candidates += block_candidates(blocks)
    recalled: list[ScoredMemory] = []
    if config.recalls:
        recalled = await scoped_recall(
            controller,
            config.namespace,
            user_message,
            k=config.recall_k,
            stages=config.recall_stages,
            sources=config.recall_sources,
        )
        candidates += await recalled_candidates(
            controller,
            recalled,
            {t.id for t in turns},
            namespace=config.namespace,
            config=config,
            now=now,
        )
    context = assembler.assemble(
        query=user_message,
        system=config.system_prompt,
        current_history=turns,
        candidates=candidates,
        priming=priming,
        tool_schemas=[json.dumps(s, ensure_ascii=False) for s in tool_schemas],
    )
    kept = {s.section.value for s in context.sections if s.kept}
    present = {"query"} | kept | ({"system"} if config.system_prompt else set())
    return CompanionPrompt(
        messages=[Message(m.role, m.content) for m in context.messages],
        text=context.to_text(),
        tokens=context.account.rendered,
        sections=tuple(s for s in PROMPT_ORDER if s in present),
        context=context,
        recalled=tuple(recalled),
    )


async def recalled_candidates(
    controller: MemoryController,
    recalled: Sequence[ScoredMemory],
    history_ids: set[str],
    *,
    namespace: str,
    config: CompanionConfig,
    now: datetime | None = None,
) -> list[ContextCandidate]:
    """:func:`recall_candidates` as the companion's prompt offers them: with the keyed facts'
    timeline of ``namespace`` (superseded values too, one query) when ``config.earlier_values``
    is not ``"off"``, and the conversation windows ``config.window_*`` ask for (one range read).
    The service's ``get_context`` (MCP, REST) offers recalled memories through this too."""
    timeline = None
    if recalled and config.earlier_values != "off":
        values = await controller.keyed_facts(namespace=namespace, include_superseded=True)
        timeline = FactTimeline.from_records(values, now=now_or(now, controller))
    around = await windows(
        recalled,
        (await controller.settled()).transcript,
        before=config.window_before,
        after=config.window_after,
        max_words=config.window_max_words,
        top=config.window_top,
        history_ids=history_ids,
    )
    return recall_candidates(
        recalled,
        history_ids,
        timeline=timeline,
        earlier_values=config.earlier_values,
        around=around,
    )


def now_or(now: datetime | None, controller: MemoryController) -> datetime:
    """``now``, or the controller's clock."""
    return now if now is not None else controller.clock.now()
