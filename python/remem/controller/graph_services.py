"""GraphServices: what the controller does with the graph besides storing it.

* ``resolver`` — names to entities (``remember(entities=...)``, extraction, query matching);
  default: an :class:`~remem.graph.EntityResolver` on the bundle's graph store;
* ``scorer`` — the graph retriever of recall; None (the default) runs recall without it;
* ``access`` — counts what recall returns (reinforcement); None counts nothing.

Example::

    graph = GraphServices(scorer=GraphScorer(stores.graph, clock=clock))
    controller = MemoryController(stores, collections, graph=graph, clock=clock)
"""

from __future__ import annotations

from dataclasses import dataclass

from remem.graph import AccessTracker, EntityResolver, GraphScorer


@dataclass(frozen=True, slots=True)
class GraphServices:
    """The controller's graph collaborators (see the module docstring)."""

    resolver: EntityResolver | None = None
    scorer: GraphScorer | None = None
    access: AccessTracker | None = None
