"""The collection-generation pointer (remem.staging.generation) and re-embed refusals."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from remem.errors import ConfigError
from remem.maintenance import ReembedError, reembed
from remem.runtime_config import RuntimeConfig
from remem.staging.generation import Generation, read_generation, write_generation
from tests.maintenance.conftest import fill


def test_no_file_is_the_first_generation_and_a_write_round_trips(tmp_path: Path) -> None:
    assert read_generation(tmp_path) == Generation()
    assert Generation().number == 1
    written = Generation("memory_g3", "remem-hashing-v1-256", 256, "memory_g2")
    write_generation(tmp_path, written)
    assert read_generation(tmp_path) == written
    assert written.number == 3
    assert sorted(p.name for p in tmp_path.iterdir()) == ["collections.json"]  # no temp left


@pytest.mark.parametrize("body", ["{", "[]", '{"model_name": "x"}'])
def test_a_damaged_pointer_is_a_config_error_saying_what_to_do(tmp_path: Path, body: str) -> None:
    (tmp_path / "collections.json").write_text(body)
    with pytest.raises(ConfigError, match="restore it from the snapshot"):
        read_generation(tmp_path)


def test_an_unfinished_reembed_to_another_model_is_finished_first(tmp_path: Path) -> None:
    memory = tmp_path / "memory"
    asyncio.run(fill(memory, {}, memories=3))
    state = {
        "provider": "hashing",
        "dimension": 128,
        "model_name": "remem-hashing-v1-128",
        "old_prefix": "memory",
        "new_prefix": "memory_g2",
        "snapshot": None,
        "started_at": "2026-12-02T00:00:00+00:00",
    }
    (memory / "reembed.json").write_text(json.dumps(state))
    config = RuntimeConfig(path=memory, embedding_provider="hashing")
    with pytest.raises(ReembedError, match=r"run `remem reembed --model hashing` to finish it"):
        asyncio.run(reembed(config, "hashing", dimension=256))
    with pytest.raises(ConfigError, match="batch must be a positive"):
        asyncio.run(reembed(config, "hashing", dimension=128, batch=0))
    result = asyncio.run(reembed(config, "hashing", dimension=128))  # resumes the recorded one
    assert (result.new_prefix, result.dimension, result.embedded) == ("memory_g2", 128, 5)
