"""Stores: small async protocols and their backends (embedded default and PostgreSQL)."""

from __future__ import annotations

from remem.stores.base.lifecycle import StoreLifecycle, StoreState
from remem.stores.episodic import EpisodicStore
from remem.stores.graph import GraphStore, Neighbour
from remem.stores.records import LifecycleColumns, RecordStore
from remem.stores.transcript import TranscriptStore
from remem.stores.vector import VectorStore, Where

__all__ = [
    "EpisodicStore",
    "GraphStore",
    "LifecycleColumns",
    "Neighbour",
    "RecordStore",
    "StoreLifecycle",
    "StoreState",
    "TranscriptStore",
    "VectorStore",
    "Where",
]
