"""Start-up stays cheap: ``import remem`` and ``remem --help`` load no store, model or harness.

What is asserted is which modules load (deterministic), never how long it takes; the
measured times are in the README (``python -X importtime``, hyperfine).
"""

from __future__ import annotations

import argparse
import importlib
import json
import subprocess
import sys

import pytest

from remem.cli import COMMANDS, build_parser, main

HEAVY = ("numpy", "pydantic", "duckdb", "hnswlib", "httpx", "rapidfuzz", "remem.controller")


def _loaded_after(code: str) -> set[str]:
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    return set(json.loads(out.stdout.splitlines()[-1]))


def test_import_remem_loads_nothing_heavy() -> None:
    loaded = _loaded_after("import remem")
    assert not [m for m in HEAVY if m in loaded], sorted(m for m in HEAVY if m in loaded)
    assert "remem.errors" in loaded
    assert "remem._native" in loaded


def test_public_names_still_resolve_lazily() -> None:
    loaded = _loaded_after(
        "from remem import Runtime, kernels\nimport remem\nremem.MemoryController"
    )
    assert "remem.runtime" in loaded
    assert "remem.controller" in loaded
    assert "remem.kernels" in loaded


def test_unknown_attribute_is_an_attribute_error() -> None:
    import remem

    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        _ = remem.nope  # type: ignore[attr-defined]


def test_help_lists_every_command_without_importing_them() -> None:
    code = "from remem.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass"
    loaded = _loaded_after(code)
    assert not [m for _, (m, _) in COMMANDS.items() if m in loaded]
    assert not [m for m in HEAVY if m in loaded]
    text = build_parser().format_help()
    for name, (_, help_text) in COMMANDS.items():
        assert name in text
        assert help_text in text


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_each_command_module_states_the_help_the_table_shows(name: str) -> None:
    module, help_text = COMMANDS[name]
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command")
    importlib.import_module(module).add_parser(sub)
    assert sub.choices[name].prog.endswith(name)
    shown = {action.dest: action.help for action in sub._choices_actions}
    assert shown[name] == help_text


def test_a_command_still_parses_its_own_options(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["bench", "locomo", "--help"])
    assert exit_info.value.code == 0
    assert "--data" in capsys.readouterr().out
