"""The controller's entry-point scope rule (remem.controller.scope_checks), without stores:
which scopes a call names and whether a multi-scope controller lets it name none."""

from __future__ import annotations

import pytest

from remem.controller import ControllerConfig
from remem.controller.scope_checks import read_scopes, write_scope
from remem.errors import InvalidArgumentError, ScopeRequiredError

SINGLE = ControllerConfig()
MULTI = ControllerConfig(scopes="multi")


def test_a_read_naming_no_scope_sees_all_in_a_single_scope_controller() -> None:
    assert read_scopes(SINGLE, None, "recall") is None


def test_a_read_naming_no_scope_is_refused_in_a_multi_scope_controller_naming_the_call() -> None:
    with pytest.raises(ScopeRequiredError, match="keyed_facts"):
        read_scopes(MULTI, None, "keyed_facts")


def test_a_read_normalises_the_scopes_it_names() -> None:
    assert read_scopes(MULTI, "a", "recall") == ("a",)
    assert read_scopes(MULTI, ["b", "a", "b"], "recall") == ("b", "a")
    with pytest.raises(InvalidArgumentError, match="empty list"):
        read_scopes(SINGLE, [], "recall")


def test_a_turn_write_naming_no_scope_goes_to_the_default_unless_multi_scope() -> None:
    assert write_scope(SINGLE, None, "record_turn") is None
    with pytest.raises(ScopeRequiredError, match="record_turns"):
        write_scope(MULTI, None, "record_turns")


def test_a_turn_write_checks_the_scope_it_names() -> None:
    assert write_scope(MULTI, "alice", "record_turn") == "alice"
    with pytest.raises(InvalidArgumentError, match="namespace"):
        write_scope(SINGLE, "", "record_turn")
