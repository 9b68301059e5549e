"""A LangGraph store backed by remem (the ``remem[langgraph]`` extra): :class:`RememStore`
implements ``langgraph.store.base.BaseStore``, so LangGraph graphs (``compile(store=...)``)
and LangMem tools run on a remem memory unchanged. Namespace tuples map to remem namespaces
as :mod:`remem.langgraph_store.namespaces` documents."""

from __future__ import annotations

from remem.langgraph_store.namespaces import from_remem, to_remem
from remem.langgraph_store.store import RememStore

__all__ = ["RememStore", "from_remem", "to_remem"]
