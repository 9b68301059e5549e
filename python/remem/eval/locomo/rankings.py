"""Rankings as JSONL: one ``{"qid": ..., "ranked": [dia_id, ...]}`` line per question.

The format other retrieval scorers read; ``ranked`` is best first, at most ``max(ks)`` long.

>>> import io; buf = io.StringIO()
>>> write_rankings_to(buf, [("conv-1/q0", ["D1:3", "D2:1"])])
>>> buf.getvalue()
'{"qid": "conv-1/q0", "ranked": ["D1:3", "D2:1"]}\\n'
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TextIO

from remem.errors import ConfigError

__all__ = ["read_rankings", "write_rankings", "write_rankings_to"]


def write_rankings_to(stream: TextIO, rankings: Iterable[tuple[str, Sequence[str]]]) -> None:
    for qid, ranked in rankings:
        stream.write(json.dumps({"qid": qid, "ranked": list(ranked)}, ensure_ascii=False) + "\n")


def write_rankings(path: str | Path, rankings: Iterable[tuple[str, Sequence[str]]]) -> Path:
    """Write the JSONL file (parents created); ConfigError if the path cannot be written."""
    target = Path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with target.open("w", encoding="utf-8") as stream:
            write_rankings_to(stream, rankings)
    except OSError as exc:
        raise ConfigError(f"cannot write rankings to {target}: {exc}; pick another path") from exc
    return target


def read_rankings(path: str | Path) -> dict[str, list[str]]:
    """qid → ranked dia_ids, as written by :func:`write_rankings`."""
    out: dict[str, list[str]] = {}
    with Path(path).open(encoding="utf-8") as stream:
        for line in stream:
            if line.strip():
                row = json.loads(line)
                out[str(row["qid"])] = [str(d) for d in row["ranked"]]
    return out
