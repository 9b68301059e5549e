"""QueryEntityMatcher over the resolver's index, on the real DuckDB graph store."""

from __future__ import annotations

import pytest

from remem.errors import InvalidArgumentError
from remem.graph import EntityResolver, QueryEntityMatcher
from remem.stores import GraphStore
from tests.stores.factories import entity


@pytest.fixture
async def matcher(graph: GraphStore) -> QueryEntityMatcher:
    await graph.upsert_entities(
        [
            entity("Ana", entity_type="person"),
            entity("Maria Silva", entity_type="person", aliases=("Mia",)),
            entity("New York", entity_type="place"),
            entity("New York Times", entity_type="org"),
            entity("Python 3.11", entity_type="language"),
            entity("Kubernetes", entity_type="tool"),
            entity("the", entity_type="thing"),
        ]
    )
    return QueryEntityMatcher(EntityResolver(graph))


async def test_longest_match_first_and_non_overlapping(matcher: QueryEntityMatcher) -> None:
    q = "Did Ana read the New York Times in New York?"
    got = [(m.entity_id, m.text, m.how) for m in await matcher.match(q)]
    assert got == [
        ("ana", "Ana", "name"),
        ("new york times", "the New York Times", "name"),  # the article is part of it
        ("new york", "New York", "name"),
    ]
    for m in await matcher.match(q):
        assert q[m.start : m.end] == m.text


async def test_alias_possessive_and_versions(matcher: QueryEntityMatcher) -> None:
    got = await matcher.match("Is Mia's code on python 3.11 or Python 3.12?")
    assert [(m.entity_id, m.text, m.how, m.score) for m in got] == [
        ("maria silva", "Mia", "alias", 100.0),
        ("python 3.11", "python 3.11", "name", 100.0),
    ]


async def test_fuzzy_only_for_long_spans(matcher: QueryEntityMatcher) -> None:
    (m,) = await matcher.match("how do I scale kubernets pods")
    assert (m.entity_id, m.how, m.text) == ("kubernetes", "fuzzy", "kubernets")
    assert 90 <= m.score < 100
    assert await matcher.match("Anna and Mara") == []  # short: exact only
    assert await matcher.match("Pyton 3.12") == []  # fuzzy, but the version differs


async def test_types_stop_words_and_empty(matcher: QueryEntityMatcher) -> None:
    got = await matcher.match("Ana in New York", entity_type="place")
    assert [m.entity_id for m in got] == ["new york"]
    assert await matcher.match("what is the answer") == []  # "the" is a stop word span
    assert await matcher.match("") == []
    assert await matcher.match("东京 😀 مرحبا") == []
    with pytest.raises(InvalidArgumentError):
        await matcher.match("a\x00b")
    with pytest.raises(InvalidArgumentError):
        QueryEntityMatcher(EntityResolver.__new__(EntityResolver), max_ngram=0)
