"""Configuration of :class:`~remem.stores.hnsw.HnswVectorStore`: search tiers and index tuning."""

from __future__ import annotations

from dataclasses import dataclass, field

from remem.errors import ConfigError
from remem.stores.hnsw.index_file import IndexParams

DEFAULT_EXACT_THRESHOLD = 2048
"""Collections (or filtered eligible sets) at most this large are searched exactly in float32."""
DEFAULT_SCAN_THRESHOLD = 1_000_000
"""Collections at most this large are searched by the in-memory int8 scan (no hnswlib index)."""


@dataclass(frozen=True, slots=True)
class HnswConfig:
    """Tuning for :class:`HnswVectorStore`.

    ``exact_threshold``: at or below this many (eligible) items a query is an exact native top-k.
    ``scan_threshold``: collections with at most this many items are answered by the scan tier
    (:mod:`remem.stores.hnsw.scan`: int8 scan + exact float32 rescoring, recall@10 >= 0.99) and
    never build an hnswlib index. Cost, measured on 2 shared cores (release build, random
    384-d): ``5·d + 17`` bytes of RAM per item (1.9 kB at d=384, ~1.9 GB at the default 1M — about
    what an hnswlib index of the same items holds), a kernel scan of ~6-12 ms per query at 100k
    and ~34 ms at 400k (linear, so ~85 ms at 1M; numpy brute force is ~4x slower), and ingest
    without graph building (~40x faster at 10k). The default sits where the scan still answers
    within ~0.1 s; larger collections use hnswlib, whose recall depends on the data (0.15 at
    ef 128 on 100k random 384-d vectors, better on real embeddings). 0 sends every collection
    to hnswlib.
    ``overfetch``: unfiltered approximate queries ask hnswlib for ``k * overfetch`` candidates and
    rescore them exactly. ``lock_timeout``: seconds to wait for another process to release the
    directory before raising BackendError (0 = fail at once).
    """

    exact_threshold: int = DEFAULT_EXACT_THRESHOLD
    scan_threshold: int = DEFAULT_SCAN_THRESHOLD
    overfetch: int = 2
    index: IndexParams = field(default_factory=IndexParams)
    lock_timeout: float = 0.0

    def __post_init__(self) -> None:
        if min(self.exact_threshold, self.scan_threshold, self.lock_timeout) < 0:
            raise ConfigError(
                "HnswConfig needs exact_threshold, scan_threshold and lock_timeout >= 0"
            )
        if self.overfetch < 1:
            raise ConfigError("HnswConfig needs overfetch >= 1")
