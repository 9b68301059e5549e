"""The embedded VectorStore: DuckDB for the data, hnswlib for the index."""

from __future__ import annotations

from remem.stores.hnsw.config import HnswConfig
from remem.stores.hnsw.index_file import IndexParams
from remem.stores.hnsw.store import HnswVectorStore

__all__ = ["HnswConfig", "HnswVectorStore", "IndexParams"]
