"""NameIndex: the in-memory name/alias index of one namespace, for resolution without scans.

Three maps, all keyed by :func:`remem.graph.names.normalise` output:

* ``key → ids`` (names and aliases) answers exact lookups in O(1);
* ``id → entry`` (type, name key, all keys) lets a write replace an entity's keys;
* ``(number tokens, 2-letter word prefix) → keys`` is the blocking index for fuzzy matching:
  a fuzzy candidate must share the query's number tokens exactly (the version guard, for free)
  and the first two letters of at least one word. rapidfuzz then scores only that block.

An entity merged into another (``attributes["merged_into"]``, set by the consolidator) is not
indexed: its names live on as aliases of the entity it was merged into, so they resolve there.

Recall trade-off of the blocking key: a misspelling inside the first two letters of *every* word
("Jhonathan Smith" vs "Jonathan Smyth" still shares "sm") is not found fuzzily.

Memory: each key string is held once by ``key → ids`` plus one reference per block it sits in,
with a set per key and per block. Measured with ``tracemalloc`` on the benchmark's 10k entities:
about 2 kB per entity with one alias (≈ 20 MB for 10k entities; measured by
``benches/bench_graph.py``, ``extra_info["index_kib"]``, which holds names only).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from rapidfuzz import fuzz, process

from remem.graph.names import guards_allow, normalise, number_tokens, word_tokens
from remem.models import Entity

KeyKind = Literal["name", "alias"]
FUZZY_MEMO_SIZE = 16_384
"""How many fuzzy look-ups :meth:`NameIndex.fuzzy` remembers between two index changes."""
MERGED_INTO = "merged_into"
"""The entity attribute naming the entity a duplicate was merged into."""


@dataclass(slots=True)
class _Entry:
    entity_type: str
    name_key: str
    keys: frozenset[str]


@dataclass(frozen=True, slots=True)
class IndexMatch:
    """One entity found by the index: how (``name``/``alias``/``fuzzy``), the key and the score."""

    entity_id: str
    entity_type: str
    how: Literal["name", "alias", "fuzzy"]
    key: str
    score: float


def best_match(key: str, candidates: Sequence[str], threshold: float) -> tuple[str, float] | None:
    """The candidate most similar to ``key`` by max(``ratio``, ``token_sort_ratio``) if it reaches
    ``threshold``; ties go to the first candidate. ``token_sort_ratio`` forgives word order
    ("Smith, John"); plain ``ratio`` forgives a typo that changes the sorted order of the words
    ("Rui antos" vs "Rui Santos", which token sorting scores far apart). Two C-level
    ``extractOne`` passes, no Python callback per candidate."""
    best: tuple[str, float] | None = None
    for scorer in (fuzz.token_sort_ratio, fuzz.ratio):
        hit = process.extractOne(
            key, candidates, scorer=scorer, processor=None, score_cutoff=threshold
        )
        if hit is not None and (
            best is None or hit[1] > best[1] or (hit[1] == best[1] and hit[0] < best[0])
        ):
            best = (hit[0], float(hit[1]))
    return best


def _blocks(key: str) -> set[tuple[tuple[str, ...], str]]:
    numbers = number_tokens(key)
    return {(numbers, w[:2]) for w in word_tokens(key)}


@dataclass(slots=True)
class NameIndex:
    """Names and aliases of one namespace's entities; kept current by :meth:`add`."""

    _entries: dict[str, _Entry] = field(default_factory=dict)
    _by_key: dict[str, set[str]] = field(default_factory=dict)
    _blocks: dict[tuple[tuple[str, ...], str], set[str]] = field(default_factory=dict)
    _fuzzy_memo: dict[tuple[str, str | None, float], list[IndexMatch]] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self._entries)

    def add(self, entity: Entity) -> None:
        """Index ``entity`` (replacing whatever was indexed under its id); a merged duplicate
        is only removed."""
        self.remove(entity.id)
        self._fuzzy_memo.clear()
        if entity.attributes.get(MERGED_INTO):
            return
        name_key = normalise(entity.name)
        keys = frozenset(k for k in (name_key, *map(normalise, entity.aliases)) if k)
        self._entries[entity.id] = _Entry(entity.entity_type, name_key, keys)
        for key in keys:
            ids = self._by_key.setdefault(key, set())
            if not ids:
                for block in _blocks(key):
                    self._blocks.setdefault(block, set()).add(key)
            ids.add(entity.id)

    def add_all(self, entities: Iterable[Entity]) -> None:
        for entity in entities:
            self.add(entity)

    def remove(self, entity_id: str) -> None:
        entry = self._entries.pop(entity_id, None)
        if entry is None:
            return
        self._fuzzy_memo.clear()
        for key in entry.keys:
            ids = self._by_key[key]
            ids.discard(entity_id)
            if not ids:
                del self._by_key[key]
                for block in _blocks(key):
                    self._blocks[block].discard(key)

    def entity_type(self, entity_id: str) -> str | None:
        entry = self._entries.get(entity_id)
        return None if entry is None else entry.entity_type

    def exact(self, key: str, entity_type: str | None = None) -> list[IndexMatch]:
        """Entities whose name or an alias normalises to ``key``; names first, then by id."""
        out = []
        for eid in self._by_key.get(key, ()):
            entry = self._entries[eid]
            if entity_type is None or entry.entity_type == entity_type:
                how: KeyKind = "name" if entry.name_key == key else "alias"
                out.append(IndexMatch(eid, entry.entity_type, how, key, 100.0))
        out.sort(key=lambda m: (m.how != "name", m.entity_id))
        return out

    def fuzzy(self, key: str, entity_type: str | None, threshold: float) -> list[IndexMatch]:
        """The best fuzzy match of ``key`` (:func:`best_match` ≥ ``threshold``) within its blocks,
        guards applied; all entities sharing the best key, names first. [] if none.

        Answers are memoised until the next :meth:`add`/:meth:`remove` (at most
        ``FUZZY_MEMO_SIZE`` keys, then the memo starts over): a batch of queries looks up the
        same spans again and again, and each miss costs two rapidfuzz passes over a block."""
        memo_key = (key, entity_type, threshold)
        memo = self._fuzzy_memo.get(memo_key)
        if memo is None:
            if len(self._fuzzy_memo) >= FUZZY_MEMO_SIZE:
                self._fuzzy_memo.clear()
            memo = self._fuzzy_memo[memo_key] = self._fuzzy(key, entity_type, threshold)
        return list(memo)

    def _fuzzy(self, key: str, entity_type: str | None, threshold: float) -> list[IndexMatch]:
        keys: set[str] = set()
        for block in _blocks(key):
            keys |= self._blocks.get(block, set())
        candidates = sorted(
            k
            for k in keys
            if k != key
            and guards_allow(key, k)
            and any(
                entity_type is None or self._entries[i].entity_type == entity_type
                for i in self._by_key[k]
            )
        )
        if not candidates:
            return []
        best = best_match(key, candidates, threshold)
        if best is None:
            return []
        found, score = best
        return [
            IndexMatch(m.entity_id, m.entity_type, "fuzzy", found, float(score))
            for m in self.exact(found, entity_type)
        ]
