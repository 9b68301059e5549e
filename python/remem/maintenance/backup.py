"""Snapshot and export of a *running* memory, held still by its quiescence token.

``remem.recovery.snapshot`` / ``export_memory`` refuse a directory a Runtime has open ("writers
active"): a copy of a live directory is no backup. From the process that runs the Runtime,
these hold it still instead, then copy::

    async with Runtime.open("./memory") as rt:
        manifest = await snapshot_live(rt, "./backup-2026-12-02")
        await export_live(rt, "./memory.export", vectors=True)
        # the runtime goes on writing afterwards

Contract:

* **Quiescence first.** ``rt.quiesce()`` stops compaction, drains extraction, closes the write
  gate (tool-driven ingestion — the MCP/REST tools, the chat — writes through it too, so it
  waits at the gate), applies what the write-behind journal holds and holds access-count
  flushes; a participant that does not stop within ``pause_timeout`` seconds refuses the copy
  with :class:`~remem.recovery.WritersActiveError` ("writers active") and nothing is written.
* **Then the copy**, on a worker thread, with the token passed to the recovery function as the
  proof that the directory is still (:func:`remem.recovery.participants.writer_lock`). The HNSW
  index files are saved first, so the snapshot's sidecars match its vectors.
* **Release on every path.** The token is released when the copy ends, fails or the caller is
  cancelled — a cancellation waits for the copy thread to end first, so writers never resume
  under a copy in progress.
* **Another process** holding the directory cannot be quiesced from here: refused with
  ``WritersActiveError`` as before. PostgreSQL: :func:`export_live` quiesces the Runtime and
  reads one repeatable-read transaction; for a snapshot use :func:`remem.recovery.
  snapshot_postgres` (a transaction needs no quiescence for consistency).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from typing import TypeVar

from remem.cancel_safe import run_to_end
from remem.recovery import ExportManifest, Manifest, RecoveryError, export_memory, snapshot
from remem.runtime import Runtime
from remem.stores.hnsw import HnswVectorStore

__all__ = ["export_live", "snapshot_live"]

T = TypeVar("T")
Location = str | os.PathLike[str]


async def snapshot_live(rt: Runtime, out: Location, *, pause_timeout: float = 30.0) -> Manifest:
    """Snapshot the embedded memory ``rt`` runs into ``out`` while ``rt`` is held still."""
    config = rt.config
    if config.backend != "embedded":
        raise RecoveryError(
            "snapshot_live copies an embedded memory directory; for PostgreSQL use "
            "remem.recovery.snapshot_postgres(dsn, out) (`remem snapshot --dsn`)"
        )
    async with rt.quiesce(pause_timeout=pause_timeout) as token:
        await _save_index_files(rt)
        return await _in_thread(lambda: snapshot(config.path, out, quiesced=token))


async def export_live(
    rt: Runtime, out: Location, *, vectors: bool = False, pause_timeout: float = 30.0
) -> ExportManifest:
    """Export the memory ``rt`` runs (either backend) to ``out`` while ``rt`` is held still."""
    config = rt.config
    source: Location = config.dsn if config.backend == "postgres" and config.dsn else config.path
    async with rt.quiesce(pause_timeout=pause_timeout) as token:
        return await _in_thread(lambda: export_memory(source, out, vectors=vectors, quiesced=token))


async def _save_index_files(rt: Runtime) -> None:
    # The live HNSW store saves its index files only on close; a snapshot of stale sidecars
    # would make the restored memory rebuild every index on first use.
    vectors = (await rt.controller.settled()).vectors
    if isinstance(vectors, HnswVectorStore):
        await vectors.flush()


async def _in_thread(copy: Callable[[], T]) -> T:
    # run_to_end: cancelling the caller must not release the token under a running copy.
    return await run_to_end(asyncio.to_thread(copy))
