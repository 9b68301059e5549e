"""ContextAssembler: one budget per turn, packed, laid out and accounted for.

>>> from remem.context import AssemblerConfig, ContextAssembler, ContextCandidate, Section
>>> assembler = ContextAssembler(AssemblerConfig(budget=600, output_reserve=100))
>>> ctx = assembler.assemble(
...     query="Where does Ana live?",
...     system="You are a helpful companion.",
...     candidates=[ContextCandidate("m1", Section.LONG_TERM, "Ana lives in Lisbon.", 0.9)],
... )
>>> ctx.to_openai()[-1]["content"].splitlines()[:3]
['<context>', '## Long-term memories', '- Ana lives in Lisbon.']
>>> ctx.account.rendered <= ctx.account.prompt_budget
True

Steps: reserve output and tools (:mod:`~remem.context.config`); count the fixed system message
and query; screen candidates (:mod:`~remem.context.filters`); value them (``score x`` section
weight; history by recency, see :func:`history_values`); pack (:mod:`~remem.context.packing`);
lay out (:class:`~remem.context.architect.PromptArchitect`); count the whole rendered prompt and,
should tokenization at the joins make it exceed the budget, drop the least dense items until it
fits. Priming computed at session start (:class:`~remem.context.priming.Priming`) is passed in
and packed like any other candidate.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from remem.context.architect import CONTEXT_CLOSE, CONTEXT_OPEN, PromptArchitect, to_text
from remem.context.assembled import (
    AssembledContext,
    BudgetAccount,
    DropReason,
    ItemReport,
    SectionReport,
)
from remem.context.candidates import ContextCandidate, HistoryTurn
from remem.context.config import AssemblerConfig
from remem.context.counting import TokenCounter
from remem.context.filters import LIVE, REASONS, normalise, screen
from remem.context.packing import PackingProblem, accounted_cost, pack, shrink
from remem.context.priming import Priming
from remem.context.sections import SUPPORTING_ORDER, Section
from remem.errors import BudgetError

__all__ = ["HISTORY_TOKEN_UNIT", "ContextAssembler", "history_values"]

HISTORY_TOKEN_UNIT = 32
"""A history turn is valued like ``tokens / 32`` memories of score ``weight x recency``."""

_MEMO_LIMIT = 1 << 16
_GROUP = {s: g for g, s in enumerate(SUPPORTING_ORDER)}
_REPORT_ORDER = (*SUPPORTING_ORDER, Section.PRIOR_HISTORY, Section.CURRENT_HISTORY)
_ORDER_INDEX = {s: k for k, s in enumerate(_REPORT_ORDER)}
_CORE = _ORDER_INDEX[Section.CORE_MEMORY]
_CODE_OF = {s._value_: k for s, k in _ORDER_INDEX.items()}


def history_values(
    costs: NDArray[np.int64], weight: float, half_life_turns: float
) -> NDArray[np.float64]:
    """Value of each turn, newest first: ``weight x 0.5**(rank / half_life) x tokens / 32``.

    Recency halves every ``half_life_turns`` turns; the token factor keeps a turn's value
    density comparable with a memory's, so history competes with supporting context on equal
    terms instead of through a reserved quota.
    """
    ranks = np.arange(costs.size, dtype=np.float64)
    return weight * np.power(0.5, ranks / half_life_turns) * costs / HISTORY_TOKEN_UNIT


@dataclass
class ContextAssembler:
    """Assembles one turn's prompt within :class:`AssemblerConfig.budget`.

    Keeps bounded memos (per instance, so never shared between counters) of each candidate
    text's rendered token count and duplicate key, and of rendered pieces' token counts:
    recalled memories recur from turn to turn and are counted once.
    """

    config: AssemblerConfig = field(default_factory=AssemblerConfig)
    architect: PromptArchitect = field(default_factory=PromptArchitect)
    _counter: TokenCounter = field(init=False, repr=False)
    _memo: dict[str, int] = field(init=False, repr=False, default_factory=dict)
    _text_tokens: dict[str, int] = field(init=False, repr=False, default_factory=dict)
    _text_key: dict[str, int] = field(init=False, repr=False, default_factory=dict)
    _text_piece: dict[str, str] = field(init=False, repr=False, default_factory=dict)
    _key_id: dict[str, int] = field(init=False, repr=False, default_factory=dict)
    _keys: list[str] = field(init=False, repr=False, default_factory=list)
    _weight_of: NDArray[np.float64] = field(init=False, repr=False)
    _threshold_of: NDArray[np.float64] = field(init=False, repr=False)
    _turn_memo: dict[tuple[HistoryTurn, bool], str] = field(
        init=False, repr=False, default_factory=dict
    )

    def __post_init__(self) -> None:
        self._counter = self.config.counter()
        weights = self.config.section_weights
        self._weight_of = np.asarray([weights[s] for s in _REPORT_ORDER], dtype=np.float64)
        self._threshold_of = np.asarray(
            [self.config.threshold(s) for s in _REPORT_ORDER], dtype=np.float64
        )

    def _learn(self, texts: list[str]) -> None:
        """Memoise new texts: their item piece's token count (one batched count) and the id
        of their duplicate key (:func:`normalise`; equal keys share an id)."""
        item_piece = self.architect.item_piece_text
        pieces = [item_piece(t) for t in texts]
        counts = self._counter.count(pieces).tolist()
        self._text_tokens.update(zip(texts, counts, strict=True))
        self._text_piece.update(zip(texts, pieces, strict=True))
        key_id, keys = self._key_id, self._keys
        for text in texts:
            key = normalise(text)
            kid = key_id.get(key)
            if kid is None:
                kid = key_id[key] = len(keys)
                keys.append(key)
            self._text_key[text] = kid

    @property
    def counter(self) -> TokenCounter:
        """The token counter in use (exact or estimated)."""
        return self._counter

    def _count(self, pieces: Sequence[str]) -> NDArray[np.int64]:
        memo = self._memo
        missing = [p for p in dict.fromkeys(pieces) if p not in memo]
        if missing:
            if len(memo) + len(missing) > _MEMO_LIMIT:  # start over, keeping this call's
                memo.clear()
                missing = list(dict.fromkeys(pieces))
            memo.update(zip(missing, self._counter.count(missing).tolist(), strict=True))
        return np.fromiter(map(memo.__getitem__, pieces), dtype=np.int64, count=len(pieces))

    def _turn_piece(self, turn: HistoryTurn, prior: bool) -> str:
        key = (turn, prior)
        piece = self._turn_memo.get(key)
        if piece is None:
            if len(self._turn_memo) > _MEMO_LIMIT:
                self._turn_memo.clear()
            piece = self._turn_memo[key] = self.architect.turn_piece(turn, prior=prior)
        return piece

    def assemble(
        self,
        *,
        query: str,
        system: str = "",
        current_history: Sequence[HistoryTurn] = (),
        prior_history: Sequence[HistoryTurn] = (),
        candidates: Sequence[ContextCandidate] = (),
        priming: Priming | None = None,
        tool_schemas: Sequence[str] = (),
    ) -> AssembledContext:
        """Assemble the prompt for ``query``. Raises BudgetError if even the fixed parts,
        core memory and the ``min_current_turns`` newest turns cannot fit."""
        cfg = self.config
        arch = self.architect
        if priming is not None:
            candidates = [*candidates, *priming.candidates]
            known = {t.id for t in prior_history} | {t.id for t in current_history}
            prior_history = [*prior_history, *(t for t in priming.history if t.id not in known)]

        # Tools: schemas in the order given while they fit; results reserved.
        schema_kept: list[int] = []
        schema_tokens = 0
        if tool_schemas:
            for i, c in enumerate(self._count(list(tool_schemas)).tolist()):
                if len(schema_kept) < cfg.tools.max_schemas and (
                    schema_tokens + c <= cfg.tools.schema_budget
                ):
                    schema_kept.append(i)
                    schema_tokens += c
        prompt_budget = cfg.budget - cfg.output_reserve - schema_tokens - cfg.tools.result_reserve
        fixed = int(self._count([arch.system_piece(system), arch.query_piece(query)]).sum())
        packable = prompt_budget - fixed
        if packable < 0:
            raise BudgetError(
                f"the system message and query need {fixed} tokens but only {prompt_budget} "
                "remain after output and tool reservations; raise the budget or shorten them"
            )

        # Supporting candidates: columns by list comprehensions (attribute loads are specialised
        # there; faster than attrgetter maps) and C-level maps over per-text memos; each text's
        # piece is counted once per assembler (one batched native call for the new ones).
        n_sup = len(candidates)
        texts = [c.text for c in candidates]
        tokens_of = self._text_tokens
        missing = set(texts).difference(tokens_of)
        if missing:
            if len(tokens_of) + len(missing) > _MEMO_LIMIT:  # start over, keeping this turn's
                for memo in (tokens_of, self._text_key, self._text_piece, self._key_id):
                    memo.clear()
                self._keys.clear()
                missing = set(texts)
            self._learn(list(missing))
        key_of = self._text_key
        # Keyed by the plain-str value: Enum.__hash__ is a Python-level call.
        codes = np.fromiter([_CODE_OF[c.section._value_] for c in candidates], np.int64, n_sup)
        scores = np.fromiter([c.score for c in candidates], np.float64, n_sup)
        costs = np.fromiter(map(tokens_of.__getitem__, texts), np.int64, n_sup)
        key_ids = np.fromiter(map(key_of.__getitem__, texts), np.int64, n_sup)
        values = scores * self._weight_of[codes]
        is_core = codes == _CORE
        if any([c.decayed or c.superseded for c in candidates]):
            decayed = np.fromiter([c.decayed for c in candidates], np.bool_, n_sup)
            superseded = np.fromiter([c.superseded for c in candidates], np.bool_, n_sup)
        else:  # the usual case: one pass instead of two
            decayed = superseded = np.zeros(n_sup, dtype=np.bool_)
        reason_codes, details = screen(
            candidates,
            is_core=is_core,
            decayed=decayed,
            superseded=superseded,
            scores=scores,
            values=values,
            thresholds=self._threshold_of[codes],
            key_ids=key_ids,
            key_text=self._keys,
            config=cfg,
        )
        live_arr = np.flatnonzero(reason_codes == LIVE)
        header_costs = self._count([arch.header_piece(s) for s in SUPPORTING_ORDER])
        wrapper = int(self._count([CONTEXT_OPEN + CONTEXT_CLOSE])[0])

        weights = cfg.section_weights
        # History chain: current newest → oldest, then prior newest → oldest.
        current = sorted(current_history, key=lambda t: (t.timestamp, t.turn_number))[::-1]
        prior = sorted(prior_history, key=lambda t: (t.timestamp, t.turn_number))[::-1]
        chain = [(t, False) for t in current] + [(t, True) for t in prior]
        chain_costs = self._count([self._turn_piece(t, p) for t, p in chain])
        n_cur = len(current)
        chain_values = np.concatenate(
            [
                history_values(
                    chain_costs[:n_cur],
                    weights[Section.CURRENT_HISTORY],
                    cfg.history_half_life_turns,
                ),
                history_values(
                    chain_costs[n_cur:], weights[Section.PRIOR_HISTORY], cfg.history_half_life_turns
                ),
            ]
        )
        problem = PackingProblem(
            item_costs=costs[live_arr],
            item_values=values[live_arr],
            item_groups=codes[live_arr],  # supporting sections: group == report order
            must_keep=is_core[live_arr],
            group_costs=header_costs,
            wrapper_cost=wrapper,
            chain_costs=chain_costs,
            chain_values=chain_values,
            min_chain=min(cfg.min_current_turns, n_cur),
            budget=packable,
        )
        packing = pack(problem, cfg.strategy, cfg.max_history_probes)

        # Lay out, count the whole prompt, shrink in the rare case joins tokenized longer.
        while True:
            kept_at = live_arr[packing.kept].tolist()
            kept_items = [candidates[i] for i in kept_at]
            kept_pieces = [self._text_piece[texts[i]] for i in kept_at]
            history = sorted(
                chain[: packing.chain_length], key=lambda tp: (tp[0].timestamp, tp[0].turn_number)
            )
            messages = arch.layout(system, history, kept_items, query, kept_pieces)
            rendered = self._counter.count_one(to_text(messages))
            if rendered <= prompt_budget:
                break
            packing = shrink(problem, packing, rendered - prompt_budget)

        # The account: section totals now, per-item reports on demand.
        history_codes = [
            _ORDER_INDEX[Section.PRIOR_HISTORY if p else Section.CURRENT_HISTORY] for _, p in chain
        ]
        kept_all = np.zeros(n_sup + len(chain), dtype=np.bool_)
        kept_all[live_arr[packing.kept]] = True
        kept_all[n_sup : n_sup + packing.chain_length] = True
        tokens_all = np.concatenate([costs, chain_costs])
        all_codes = np.concatenate([codes, np.asarray(history_codes, dtype=np.int64)])
        m = len(_REPORT_ORDER)
        total = np.bincount(all_codes, minlength=m)
        kept_n = np.bincount(all_codes[kept_all], minlength=m)
        kept_tok = np.bincount(all_codes[kept_all], tokens_all[kept_all], minlength=m)
        sections: list[SectionReport] = []
        for code, s in enumerate(_REPORT_ORDER):
            if total[code]:
                tokens = int(kept_tok[code])
                if kept_n[code] and s in _GROUP:
                    tokens += int(header_costs[_GROUP[s]])
                sections.append(
                    SectionReport(s, int(kept_n[code]), int(total[code] - kept_n[code]), tokens)
                )

        def build_items() -> tuple[ItemReport, ...]:
            reports: list[ItemReport] = []
            for i, c in enumerate(candidates):
                code = int(reason_codes[i])
                reason = REASONS[code] if code != LIVE else None
                if reason is None and not kept_all[i]:
                    reason = DropReason.OVER_BUDGET
                reports.append(
                    ItemReport(
                        c.id,
                        c.section,
                        int(costs[i]),
                        c.score,
                        float(values[i]),
                        bool(kept_all[i]),
                        reason,
                        details.get(i, ""),
                    )
                )
            for k, (turn, is_prior) in enumerate(chain):
                is_kept = k < packing.chain_length
                reports.append(
                    ItemReport(
                        turn.id,
                        Section.PRIOR_HISTORY if is_prior else Section.CURRENT_HISTORY,
                        int(chain_costs[k]),
                        1.0,
                        float(chain_values[k]),
                        is_kept,
                        None if is_kept else DropReason.OVER_BUDGET,
                        f"{turn.session_id}#{turn.turn_number}",
                    )
                )
            return tuple(reports)

        account = BudgetAccount(
            budget=cfg.budget,
            output_reserve=cfg.output_reserve,
            tool_schema_tokens=schema_tokens,
            tool_result_reserve=cfg.tools.result_reserve,
            prompt_budget=prompt_budget,
            fixed_tokens=fixed,
            packable=packable,
            accounted=fixed + accounted_cost(problem, packing.kept, packing.chain_length),
            rendered=rendered,
            counter=self._counter.name,
            exact=self._counter.exact,
        )
        return AssembledContext(
            messages=messages,
            sections=tuple(sections),
            account=account,
            tool_schemas_kept=tuple(schema_kept),
            strategy=cfg.strategy,
            method=packing.method,
            probes=packing.probes,
            exhaustive=packing.exhaustive,
            build_items=build_items,
        )
