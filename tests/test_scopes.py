"""remem.scopes: namespace lists normalised, and canonical names from (user, agent, run)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from remem.errors import InvalidArgumentError, ScopeRequiredError
from remem.scopes import normalize_namespaces, require_scope, scope_name

parts = st.none() | st.text(
    alphabet=st.characters(blacklist_categories=["Cs"], blacklist_characters="\x00"),
    min_size=1,
    max_size=12,
)


def test_namespaces_are_normalised() -> None:
    assert normalize_namespaces(None) is None
    assert normalize_namespaces("a") == ("a",)
    assert normalize_namespaces(["b", "a", "b"]) == ("b", "a")
    for bad in ([], "", ["ok", ""], b"a", 3, ["x" * 513]):
        with pytest.raises(InvalidArgumentError):
            normalize_namespaces(bad)


def test_scope_names() -> None:
    assert scope_name(user="alice", agent="planner") == "user:alice/agent:planner"
    assert scope_name(run="r1") == "run:r1"
    assert scope_name(user="a/agent:b") == "user:a%2Fagent%3Ab"
    assert scope_name(user="a/agent:b") != scope_name(user="a", agent="b")
    with pytest.raises(InvalidArgumentError, match="at least one"):
        scope_name()
    with pytest.raises(InvalidArgumentError):
        scope_name(user="")


@given(parts, parts, parts, parts, parts, parts)
def test_two_different_triples_never_share_a_name(
    u1: str | None, a1: str | None, r1: str | None, u2: str | None, a2: str | None, r2: str | None
) -> None:
    if (u1, a1, r1) == (None, None, None) or (u2, a2, r2) == (None, None, None):
        return
    same = scope_name(user=u1, agent=a1, run=r1) == scope_name(user=u2, agent=a2, run=r2)
    assert same == ((u1, a1, r1) == (u2, a2, r2))


def test_a_multi_scope_runtime_requires_a_scope() -> None:
    require_scope(None, multi=False, action="recall")
    require_scope(("a",), multi=True, action="recall")
    with pytest.raises(ScopeRequiredError, match="pass namespace="):
        require_scope(None, multi=True, action="recall")
