"""A RememStore on a real embedded memory directory (DuckDB + hnswlib files, hashing embedder)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from remem.langgraph_store import RememStore


def open_store(path: Path) -> RememStore:
    return RememStore.open(path, embedding_provider="hashing")


@pytest.fixture
def store(tmp_path: Path) -> Iterator[RememStore]:
    with open_store(tmp_path / "memory") as s:
        yield s
