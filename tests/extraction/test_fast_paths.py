"""The grammar's speed-ups change no output: the engine (rule index, sentence rejection, shared
tokenisation) against the unindexed grammar of :mod:`tests.extraction.slow_grammar`, over the
labelled corpus, the persona messages and drawn messages."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from remem.eval.persona.handwritten import load_set
from remem.eval.persona.plan import generate_plans
from remem.eval.persona.render import render_plan
from remem.eval.persona.year_plan import generate_year_plans
from remem.eval.persona.year_render import render_year
from remem.extraction import extract_statements
from remem.extraction.grammar.corrections import apply_corrections
from remem.extraction.grammar.engine import Grammar
from remem.extraction.grammar.rule import Rule, rule
from remem.extraction.grammar.tables import TABLES
from remem.extraction.grammar.tokens import sentences
from tests.extraction.corpus import load
from tests.extraction.slow_grammar import slow_parse, slow_sentences

AT = datetime(2026, 5, 14, 12, 0, tzinfo=UTC)
GRAMMAR = Grammar()


def corpus_messages() -> list[str]:
    return [
        s.text
        for name in (
            "statements",
            "heldout",
            "heldout2",
            "heldout3",
            "heldout4",
            "heldout5",
            "heldout6",
            "heldout7",
        )
        for s in load(name)
    ]


def persona_messages() -> list[str]:
    texts = [t.text for plan in generate_plans(8) for t in render_plan(plan)]
    texts += [t.text for plan in generate_year_plans(1) for t in render_year(plan)]
    texts += [t.text for turns in load_set()[1] for t in turns]
    return texts


def assert_same(grammar: Grammar, message: str, tables: Mapping[str, tuple[Rule, ...]]) -> None:
    assert sentences(message) == slow_sentences(message), message
    fast = grammar.parse(message, AT, "t")
    slow = slow_parse(message, AT, "t", tables)
    assert fast == slow, message
    assert apply_corrections(fast, ()) == apply_corrections(slow, ())


def test_the_corpus_gives_what_the_unindexed_grammar_gives() -> None:
    texts = corpus_messages()
    assert len(texts) > 1500
    found = 0
    for text in texts:
        assert_same(GRAMMAR, text, TABLES)
        found += bool(extract_statements(text, AT))
    assert found > 1000  # the comparison covers statements, not only empty results


def test_the_persona_messages_give_what_the_unindexed_grammar_gives() -> None:
    texts = persona_messages()
    assert len(texts) > 1000
    for text in texts:
        assert_same(GRAMMAR, text, TABLES)


_WORDS = sorted(
    {w for rules in TABLES.values() for r in rules for w in r.pattern.source.split() if w.isalpha()}
    | {"I", "my", "Sam", "Lisbon", "Rex", "not", "if", "would", "and", "but", "so", "then"}
    | {"a", "the", "dog", "vegan", "sister", "no", "longer", "anymore", "actually", "sorry"}
)
_MARKS = [",", ".", "?", "!", "-", "(", "+", "3", "2019", "sam@example.com", "+44 7700 900123"]
_PIECES = st.sampled_from(
    [*_WORDS, *(w.capitalize() for w in _WORDS[:80]), *_MARKS, "\n", "I'm", "don't", "Sam's", "…"]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES, max_size=24))
def test_drawn_messages_give_what_the_unindexed_grammar_gives(pieces: list[str]) -> None:
    assert_same(GRAMMAR, " ".join(pieces), TABLES)


def test_a_row_needing_no_word_and_a_scan_row_are_tried_everywhere() -> None:
    # a table with a row that requires no word (every clause is a candidate) and a scan row
    tables: dict[str, tuple[Rule, ...]] = {
        "test": (
            rule("identity", "name", "{v:name} here?", "{S} is called {v}."),
            rule("pet", "pet", "my dog {v:name}", "{S} has a dog, {v}.", scan=True),
        )
    }
    grammar = Grammar(tables)
    for text in (
        "Sam here",
        "so, Ana here lol",
        "took my dog Rex to the vet",
        "if Sam here",
        "is Sam here?",
        "I love it, my dog Pepper and Ana here",
        "",
        "...",
    ):
        assert_same(grammar, text, tables)
    assert [s.value for s in grammar.statements("took my dog Rex to the vet", AT)] == ["Rex"]
