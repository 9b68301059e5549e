"""QueryEntityMatcher: find the entities a query names, by n-gram lookup in the resolver's index.

The query is split into word tokens (letters/digits, keeping inner ``.``, ``+``, ``#``, ``'``,
``-`` so "3.11", "C++" and "O'Brien" stay whole; a possessive ``'s`` is cut off). Every span of
1..4 consecutive tokens is normalised like an entity name and looked up, longest spans first,
left to right; a span that overlaps an already matched one is skipped. An exact hit (name or
alias) scores 100; a span of ≥ 5 normalised characters that has no exact hit may match fuzzily
under the resolver's threshold and guards (numbers equal, types respected). Spans consisting
only of stop words are never looked up.

    matcher = QueryEntityMatcher(resolver)
    for m in await matcher.match("What does Ana think of python 3.11?"):
        print(m.entity_id, m.text, m.score)
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from remem.errors import InvalidArgumentError
from remem.graph.names import normalise
from remem.graph.resolver import EntityResolver
from remem.models import check_text
from remem.scopes import normalize_namespaces

MAX_NGRAM = 4
FUZZY_MIN_CHARS = 5
_STOP = """a an and are as at be by did do does for from has have how i in is it me my of on or our
    she he they that the their this to was we were what when where which who why will with you
    your about tell know"""
STOP_WORDS = frozenset(_STOP.split())
_RSQUO = "\u2019"
_TOKEN = re.compile(r"\w(?:[\w'" + _RSQUO + r"+#.-]*[\w+#])?")


@dataclass(frozen=True, slots=True)
class EntityMention:
    """An entity named in the query: ``text == query[start:end]``; ``how`` as in ResolvedEntity."""

    entity_id: str
    start: int
    end: int
    text: str
    how: Literal["name", "alias", "fuzzy"]
    score: float


class QueryEntityMatcher:
    """Entities named in free text, via the :class:`EntityResolver`'s name/alias index."""

    def __init__(self, resolver: EntityResolver, *, max_ngram: int = MAX_NGRAM) -> None:
        if isinstance(max_ngram, bool) or not isinstance(max_ngram, int) or max_ngram < 1:
            raise InvalidArgumentError(f"max_ngram must be an integer ≥ 1, got {max_ngram!r}")
        self._resolver = resolver
        self._max_ngram = max_ngram

    async def match(
        self,
        query: str,
        *,
        namespace: str | Sequence[str] = "default",
        entity_type: str | None = None,
    ) -> list[EntityMention]:
        """Mentions in order of position; several entities sharing one name give one mention
        each (same span). ``namespace``: one scope, or several (each matched in its own entity
        index, the mentions merged) — entities of any other scope are never matched."""
        if not isinstance(query, str):
            raise InvalidArgumentError(f"match takes a query string, got {type(query).__name__}")
        check_text(query, field="query")
        if not isinstance(namespace, str):
            scopes = normalize_namespaces(namespace)
            assert scopes is not None
            merged: dict[tuple[int, str], EntityMention] = {}
            for scope in scopes:
                for m in await self.match(query, namespace=scope, entity_type=entity_type):
                    merged.setdefault((m.start, m.entity_id), m)
            return sorted(merged.values(), key=lambda m: (m.start, m.entity_id))
        idx = await self._resolver.index(namespace)
        tokens = [_span(m) for m in _TOKEN.finditer(query)]
        taken = [False] * len(tokens)
        found: list[EntityMention] = []
        for n in range(min(self._max_ngram, len(tokens)), 0, -1):
            for i in range(len(tokens) - n + 1):
                if any(taken[i : i + n]):
                    continue
                start, end = tokens[i][0], tokens[i + n - 1][1]
                key = normalise(query[start:end])
                if not key or all(w in STOP_WORDS for w in key.split()):
                    continue
                hits = idx.exact(key, entity_type)
                if not hits and len(key) >= FUZZY_MIN_CHARS:
                    hits = idx.fuzzy(key, entity_type, self._resolver.threshold)
                if not hits:
                    continue
                taken[i : i + n] = [True] * n
                text = query[start:end]
                found += [
                    EntityMention(h.entity_id, start, end, text, h.how, h.score) for h in hits
                ]
        found.sort(key=lambda m: (m.start, m.entity_id))
        return found


def _span(m: re.Match[str]) -> tuple[int, int]:
    # "Ana's sister": the possessive belongs to the sentence, not to the name.
    end = (
        m.end() - 2 if m.group().endswith(("'s", _RSQUO + "s")) and len(m.group()) > 2 else m.end()
    )
    return m.start(), end
