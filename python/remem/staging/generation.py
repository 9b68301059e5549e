"""Which generation of the staged collections a memory directory uses (the re-embed switch).

A memory starts on the collections named ``memory_<stage>`` (generation 1). ``remem reembed``
builds a new generation beside it (``memory_g2_<stage>``, ``memory_g3_<stage>`` …) and switches
to it by replacing one small JSON file, ``collections.json`` in the memory directory, with an
atomic rename — the only moment that decides which generation recall reads. Until
``remem reembed --confirm`` the file also names the previous generation, which is kept intact.

The file lives in the memory directory for PostgreSQL too (beside the move journal, see
:mod:`remem.runtime`); with no file, the generation is the first.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from remem.errors import ConfigError

__all__ = ["FIRST_PREFIX", "POINTER_FILE", "Generation", "read_generation", "write_generation"]

POINTER_FILE = "collections.json"
FIRST_PREFIX = "memory"


@dataclass(frozen=True, slots=True)
class Generation:
    """The active collection ``prefix`` (a :class:`StagingConfig` prefix), the model it was
    built with (None for the first generation, whose collections record it) and the
    ``previous`` generation's prefix while it is kept."""

    prefix: str = FIRST_PREFIX
    model_name: str | None = None
    dimension: int | None = None
    previous: str | None = None

    @property
    def number(self) -> int:
        """1 for ``memory``, n for ``memory_g<n>``."""
        return generation_number(self.prefix)


def generation_number(prefix: str) -> int:
    head, _, tail = prefix.rpartition("_g")
    return int(tail) if head == FIRST_PREFIX and tail.isdigit() else 1


def read_generation(directory: str | os.PathLike[str]) -> Generation:
    """The generation ``directory`` uses (the first when it has no pointer file)."""
    file = Path(directory) / POINTER_FILE
    try:
        raw = json.loads(file.read_text(encoding="utf-8"))
        return Generation(
            prefix=str(raw["prefix"]),
            model_name=raw.get("model_name"),
            dimension=raw.get("dimension"),
            previous=raw.get("previous"),
        )
    except FileNotFoundError:
        return Generation()
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ConfigError(
            f"{file} is not a valid collection-generation file ({exc}); restore it from the "
            "snapshot `remem reembed` took, or delete it to use the first generation"
        ) from exc


def write_generation(directory: str | os.PathLike[str], generation: Generation) -> None:
    """Replace the pointer file atomically (write, fsync, rename, fsync the directory)."""
    folder = Path(directory)
    tmp = folder / f".{POINTER_FILE}.tmp"
    body = {
        "prefix": generation.prefix,
        "model_name": generation.model_name,
        "dimension": generation.dimension,
        "previous": generation.previous,
    }
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(body, fh, indent=2)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, folder / POINTER_FILE)
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
