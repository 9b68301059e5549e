"""Normalisation and the merge guards (pure functions; property tests)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from remem.graph import guards_allow, normalise, number_tokens
from remem.graph.names import _normalise_unicode


def test_normalise_examples() -> None:
    assert normalise("  The   Python  3.11! ") == "python 3.11"
    assert normalise("\uff30ython") == "python"  # NFKC folds the full-width P
    assert normalise("STRASSE") == normalise("straße")
    assert normalise("The") == "the"  # an article alone is the name
    assert normalise("C++") == "c++"
    assert normalise("C#.") == "c#"
    assert normalise('"Acme, Inc."') == "acme, inc"
    assert normalise("?!") == ""


version = st.tuples(st.integers(0, 40), st.integers(0, 40)).map(lambda t: f"{t[0]}.{t[1]}")


@given(st.sampled_from(["Python", "Node", "PostgreSQL"]), version, version)
def test_versions_must_match_exactly(name: str, a: str, b: str) -> None:
    x, y = normalise(f"{name} {a}"), normalise(f"{name} {b}")
    assert guards_allow(x, y) == (a == b)


@given(st.integers(0, 3000), st.integers(0, 3000))
def test_years_and_v_numbers(a: int, b: int) -> None:
    assert guards_allow(normalise(f"Report {a}"), normalise(f"Report {b}")) == (a == b)
    assert guards_allow(normalise(f"Engine v{a}"), normalise(f"Engine v{b}")) == (a == b)


@given(st.text(min_size=1, max_size=30))
def test_normalise_is_idempotent(s: str) -> None:
    assert normalise(normalise(s)) == normalise(s)


@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=40))
def test_the_ascii_path_gives_the_unicode_paths_key(s: str) -> None:
    assert normalise(s) == _normalise_unicode(s)


@given(st.lists(st.sampled_from(["the", "A", "an", "Ana", "-", "!", "#", "C++", "  ", "\t"])))
def test_the_ascii_path_on_articles_and_punctuation(parts: list[str]) -> None:
    s = " ".join(parts)
    assert normalise(s) == _normalise_unicode(s)


def test_numbers_are_a_multiset() -> None:
    assert number_tokens("python 3.11 v2") == ("2", "3.11")
    assert not guards_allow("version 2 2", "version 2")
    assert guards_allow("release 1 2", "release 2 1")
    assert not guards_allow("ana", "anna")  # ≤ 3 characters: exact only
    assert guards_allow("ana", "ana")
