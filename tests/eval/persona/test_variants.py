"""Variant names, with and without a config file (``NAME@FILE``, ``config=``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from remem.errors import ConfigError
from remem.eval.persona.variants import resolve_variants


def _toml(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_name_at_file_opens_that_variant_with_the_file(tmp_path: Path) -> None:
    on = _toml(tmp_path, "rr.toml", "[recall.stages.rerank]\nenabled = true\ndepth = 12\n")
    full, configured = resolve_variants(["full", f"full@{on}"])
    assert full.runtime is None  # the defaults
    assert configured.name == "full@rr"
    assert configured.runtime is not None
    rerank = configured.runtime.controller.stages.rerank
    assert (rerank.enabled, rerank.depth) == (True, 12)


def test_config_applies_to_every_variant_without_its_own_file(tmp_path: Path) -> None:
    base = _toml(tmp_path, "base.toml", '[full_text]\nlanguage = "none"\n')
    own = _toml(tmp_path, "own.toml", "[recall.stages.rerank]\nenabled = true\n")
    plain, other = resolve_variants(["fulltext", f"full@{own}"], config=base)
    assert plain.runtime is not None
    assert plain.runtime.full_text.language is None
    assert other.runtime is not None
    assert other.runtime.full_text.language is not None


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("nope@x.toml", "unknown variant 'nope'"),
        ("full@", "names no config file"),
        ("full@/no/such/file.toml", "cannot read the variant config file"),
    ],
)
def test_bad_specs_are_refused(spec: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        resolve_variants([spec])


def test_files_that_place_the_store_or_repeat_a_name_are_refused(tmp_path: Path) -> None:
    pg = _toml(tmp_path, "pg.toml", 'backend = "postgres"\ndsn = "postgresql://x"\n')
    with pytest.raises(ConfigError, match="sets backend, dsn; remove them"):
        resolve_variants([f"full@{pg}"])
    a = _toml(tmp_path, "a.toml", "")
    sub = tmp_path / "d"
    sub.mkdir()
    b = _toml(sub, "a.toml", "")
    with pytest.raises(ConfigError, match="repeat"):
        resolve_variants([f"full@{a}", f"full@{b}"])
    with pytest.raises(ConfigError, match="unknown config keys"):
        resolve_variants([f"full@{_toml(tmp_path, 'k.toml', 'colour = 1')}"])
    with pytest.raises(ConfigError, match="cannot read"):
        resolve_variants([f"full@{_toml(tmp_path, 'bad.toml', '[[[')}"])
