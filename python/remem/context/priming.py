"""Cross-session priming: what a new session starts with, computed once at session start.

Priming supplies the top entities, known facts (relationships), insights, summaries and, if
asked, the last turns of earlier sessions; the result (:class:`Priming`) is passed to every
:meth:`ContextAssembler.assemble` of the session and packed with the turn's other candidates, so
it actually reaches the prompt (and is dropped like anything else when the turn's budget is
tight: priming's ``token_budget`` caps it, it does not reserve it).

Two named presets, which differ on purpose — choose one explicitly, there is no implicit default:

=========================  ======================  ===================
field                      ``controller_fallback``  ``chat_template``
=========================  ======================  ===================
enabled                    True                    True
top_entities               10                      15
max_insights               5                       10
max_summaries              3                       5
max_known_facts            10                      20
recency_days               30                      30
token_budget               1000                    2000
previous_sessions          0                       2
previous_session_turns     0                       6
=========================  ======================  ===================

``controller_fallback`` is what a controller uses when its caller configured nothing: no turns
from earlier sessions. ``chat_template`` is the broad setting a packaged chat app starts from.

>>> cfg = PrimingConfig.chat_template().merged({"top_entities": 5})
>>> (cfg.top_entities, cfg.previous_sessions)
(5, 2)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import numpy as np

from remem.context.architect import CONTEXT_CLOSE, CONTEXT_OPEN, PromptArchitect
from remem.context.candidates import ContextCandidate, HistoryTurn
from remem.context.counting import TokenCounter
from remem.context.packing import PackingProblem, pack
from remem.context.sections import SUPPORTING_ORDER, Section
from remem.errors import ConfigError
from remem.models import require_aware

__all__ = ["Primer", "Priming", "PrimingConfig"]

_INT_FIELDS = (
    "top_entities",
    "max_insights",
    "max_summaries",
    "max_known_facts",
    "recency_days",
    "token_budget",
    "previous_sessions",
    "previous_session_turns",
)


@dataclass(frozen=True, slots=True, kw_only=True)
class PrimingConfig:
    """Session-start priming settings; every field is required (start from a preset).

    Counts are integers ≥ 0; ``recency_days`` bounds the age of primed items and turns (0 = no
    limit); ``token_budget`` caps the primed content's tokens.
    """

    enabled: bool
    top_entities: int
    max_insights: int
    max_summaries: int
    max_known_facts: int
    recency_days: int
    token_budget: int
    previous_sessions: int
    previous_session_turns: int

    def __post_init__(self) -> None:
        if not isinstance(self.enabled, bool):
            raise ConfigError(f"PrimingConfig.enabled must be a bool, got {self.enabled!r}")
        for name in _INT_FIELDS:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ConfigError(f"PrimingConfig.{name} must be an integer ≥ 0, got {value!r}")

    @classmethod
    def controller_fallback(cls) -> PrimingConfig:
        """The controller's own fallback: no previous sessions (see the module table)."""
        return cls(
            enabled=True,
            top_entities=10,
            max_insights=5,
            max_summaries=3,
            max_known_facts=10,
            recency_days=30,
            token_budget=1000,
            previous_sessions=0,
            previous_session_turns=0,
        )

    @classmethod
    def chat_template(cls) -> PrimingConfig:
        """The packaged chat template: two previous sessions, six turns each."""
        return cls(
            enabled=True,
            top_entities=15,
            max_insights=10,
            max_summaries=5,
            max_known_facts=20,
            recency_days=30,
            token_budget=2000,
            previous_sessions=2,
            previous_session_turns=6,
        )

    def merged(self, partial: Mapping[str, Any]) -> PrimingConfig:
        """A copy with the fields named in ``partial`` replaced; the others keep their values.

        Unknown field names are a ConfigError (a typo must not silently fall back to a default).
        """
        names = {f.name for f in dataclasses.fields(self)}
        unknown = sorted(set(partial) - names)
        if unknown:
            raise ConfigError(
                f"unknown priming setting(s) {unknown}; valid names are {sorted(names)}"
            )
        return dataclasses.replace(self, **dict(partial))


@dataclass(frozen=True, slots=True)
class Priming:
    """Primed candidates and earlier-session turns, ready for :meth:`ContextAssembler.assemble`.

    ``dropped`` lists ``(id, reason)`` for inputs left out (``"limit"``, ``"too_old"``,
    ``"decayed"``, ``"superseded"``, ``"over_budget"``); ``tokens`` is what the kept content
    costs when rendered.
    """

    candidates: tuple[ContextCandidate, ...] = ()
    history: tuple[HistoryTurn, ...] = ()
    computed_at: datetime | None = None
    tokens: int = 0
    dropped: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class Primer:
    """Computes a session's :class:`Priming` from plain inputs."""

    config: PrimingConfig
    counter: TokenCounter = field(default_factory=TokenCounter)
    architect: PromptArchitect = field(default_factory=PromptArchitect)

    def prime(
        self,
        *,
        now: datetime,
        entities: Sequence[ContextCandidate] = (),
        known_facts: Sequence[ContextCandidate] = (),
        insights: Sequence[ContextCandidate] = (),
        summaries: Sequence[ContextCandidate] = (),
        previous_sessions: Sequence[Sequence[HistoryTurn]] = (),
    ) -> Priming:
        """Select the priming for a session starting at ``now``.

        Each list is cut to its limit by score (highest first), after dropping decayed,
        superseded and too-old items; the ``previous_sessions`` most recent earlier sessions
        contribute their last ``previous_session_turns`` turns. The union is then packed into
        ``token_budget`` with the assembler's own packing (turns as a chain: newest kept first).
        """
        cfg = self.config
        now = require_aware(now)
        if not cfg.enabled:
            return Priming(computed_at=now)
        oldest = now - timedelta(days=cfg.recency_days) if cfg.recency_days else None
        dropped: list[tuple[str, str]] = []
        chosen: list[ContextCandidate] = []
        for items, limit, section in (
            (entities, cfg.top_entities, Section.ENTITIES),
            (known_facts, cfg.max_known_facts, Section.KNOWN_FACTS),
            (insights, cfg.max_insights, Section.INSIGHTS),
            (summaries, cfg.max_summaries, Section.SUMMARIES),
        ):
            fresh: list[ContextCandidate] = []
            for c in items:
                if c.decayed:
                    dropped.append((c.id, "decayed"))
                elif c.superseded:
                    dropped.append((c.id, "superseded"))
                elif oldest is not None and c.timestamp is not None and c.timestamp < oldest:
                    dropped.append((c.id, "too_old"))
                else:
                    fresh.append(dataclasses.replace(c, section=section, source="priming"))
            fresh.sort(key=lambda c: -c.score)
            chosen += fresh[:limit]
            dropped += [(c.id, "limit") for c in fresh[limit:]]

        sessions = [list(s) for s in previous_sessions if s]
        sessions.sort(key=lambda s: max(t.timestamp for t in s), reverse=True)
        turns: list[HistoryTurn] = []
        for k, session in enumerate(sessions):
            session.sort(key=lambda t: (t.timestamp, t.turn_number))
            take = session[-cfg.previous_session_turns :] if cfg.previous_session_turns else []
            if k >= cfg.previous_sessions:
                take = []
            for t in session:
                if t not in take:
                    dropped.append((t.id, "limit"))
                elif oldest is not None and t.timestamp < oldest:
                    dropped.append((t.id, "too_old"))
                else:
                    turns.append(t)
        turns.sort(key=lambda t: (t.timestamp, t.turn_number), reverse=True)  # chain order

        arch = self.architect
        costs = self.counter.count([arch.item_piece(c) for c in chosen])
        chain_costs = self.counter.count([arch.turn_piece(t, prior=True) for t in turns])
        group = {s: g for g, s in enumerate(SUPPORTING_ORDER)}
        problem = PackingProblem(
            item_costs=costs,
            item_values=np.asarray([max(c.score, 1e-9) for c in chosen], dtype=np.float64),
            item_groups=np.asarray([group[c.section] for c in chosen], dtype=np.int64),
            must_keep=np.zeros(len(chosen), dtype=np.bool_),
            group_costs=self.counter.count([arch.header_piece(s) for s in SUPPORTING_ORDER]),
            wrapper_cost=self.counter.count_one(CONTEXT_OPEN + CONTEXT_CLOSE),
            chain_costs=chain_costs,
            chain_values=np.power(0.5, np.arange(len(turns)) / 8.0),
            min_chain=0,
            budget=cfg.token_budget,
        )
        packing = pack(problem)
        kept = [c for c, k in zip(chosen, packing.kept.tolist(), strict=True) if k]
        dropped += [
            (c.id, "over_budget") for c, k in zip(chosen, packing.kept, strict=True) if not k
        ]
        dropped += [(t.id, "over_budget") for t in turns[packing.chain_length :]]
        history = sorted(turns[: packing.chain_length], key=lambda t: (t.timestamp, t.turn_number))
        return Priming(
            candidates=tuple(kept),
            history=tuple(history),
            computed_at=now,
            tokens=packing.cost,
            dropped=tuple(dropped),
        )
