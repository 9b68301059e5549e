"""Wiring: the parts a MemoryController is made of, built from its bundle and collaborators.

One place says how the pieces connect: the write port (the given one, else direct writes on the
bundle), the resolver (the given one, else one on the bundle's graph), the memory writer, the
recall pipeline (with the graph retriever only when a scorer is given), the turn log and the
bookkeeping. The controller's methods are then thin: validate, call a part, report.

Example::

    parts = wire(stores, collections, writes=None, graph=GraphServices(), config=cfg,
                 clock=clock, telemetry=None)
    record = build_record("Ana lives in Lisbon", kind="fact", provenance=None,
                          namespace="default", session_id=None, metadata=None,
                          memory_id=None, now=clock.now())
    await parts.writer.remember(record, entities=None, vector=None, own_id=False)
"""

from __future__ import annotations

from dataclasses import dataclass

from remem.controller.bookkeeping import Bookkeeping
from remem.controller.config import ControllerConfig
from remem.controller.graph_services import GraphServices
from remem.controller.recall import RecallPipeline
from remem.controller.telemetry import Telemetry
from remem.controller.turns import TurnLog
from remem.controller.writes import MemoryWriter
from remem.errors import ConfigError
from remem.failures import FailureLog
from remem.graph import EntityResolver, QueryEntityMatcher
from remem.models import Clock
from remem.staging import CollectionManager
from remem.stores.bundle import Stores
from remem.writebehind import DirectWrites, WritePort


@dataclass(frozen=True, slots=True)
class Wiring:
    """The connected parts of one controller (see the module docstring)."""

    writes: WritePort
    resolver: EntityResolver
    writer: MemoryWriter
    recall: RecallPipeline
    turns: TurnLog
    books: Bookkeeping


def wire(
    stores: Stores,
    collections: CollectionManager,
    *,
    writes: WritePort | None,
    graph: GraphServices,
    config: ControllerConfig,
    clock: Clock,
    telemetry: Telemetry | None,
) -> Wiring:
    """The parts, or ConfigError when ``stores`` is not a bundle or ``collections`` was built
    on another vector store."""
    if not isinstance(stores, Stores):
        raise ConfigError(
            f"MemoryController takes a Stores bundle first, got {type(stores).__name__}; "
            "use MemoryController.from_parts(...) for the store-by-store signature"
        )
    if collections.vector_store is not stores.vectors:
        raise ConfigError(
            "the collection manager was built on another vector store than the bundle's; "
            "build it on stores.vectors"
        )
    if writes is None:
        writes = DirectWrites(
            transcript_store=stores.transcript,
            episodic_store=stores.episodic,
            record_store=stores.records,
            collection_manager=collections,
            failures=FailureLog(),
            now=clock.now,
        )
    resolver = graph.resolver or EntityResolver(stores.graph, clock=clock)
    return Wiring(
        writes=writes,
        resolver=resolver,
        writer=MemoryWriter(
            record_store=stores.records,
            collection_manager=collections,
            resolver=resolver,
            writes=writes,
            now=clock.now,
        ),
        recall=RecallPipeline(
            record_store=stores.records,
            episodic_store=stores.episodic,
            collection_manager=collections,
            matcher=QueryEntityMatcher(resolver) if graph.scorer is not None else None,
            graph_scorer=graph.scorer,
            config=config,
            transcript_store=stores.transcript,
        ),
        turns=TurnLog(stores.transcript, stores.episodic, writes, now=clock.now),
        books=Bookkeeping(writes.failures, graph.access, telemetry, clock.now),
    )
