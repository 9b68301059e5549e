"""EpisodicStoreBase: the EpisodicStore lifecycle and the default of its optional batch search.

``search_many`` is a protocol method, never discovered with ``getattr``: a backend that has a
faster batch (SQLite's in-memory index, PostgreSQL's pool) overrides it; any other gets this
one, which validates every query first and then searches them one by one.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from datetime import datetime

from remem.models import EpisodicHit
from remem.scopes import Namespaces, normalize_namespaces
from remem.stores.base.lifecycle import StoreLifecycle
from remem.stores.episodic import check_search


class EpisodicStoreBase(StoreLifecycle, ABC):
    """Base of the EpisodicStore backends (``search`` is the backend's)."""

    @abstractmethod
    async def search(
        self,
        query: str,
        *,
        limit: int = 10,
        session_id: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        namespace: Namespaces = None,
    ) -> list[EpisodicHit]: ...

    async def search_many(
        self,
        queries: Sequence[str],
        *,
        limit: int = 10,
        session_id: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        namespace: Namespaces = None,
    ) -> list[list[EpisodicHit]]:
        """``[await search(q, ...) for q in queries]``; every query is checked before any runs."""
        self._check_open()
        for q in queries:
            check_search(q, limit, since, until)
        normalize_namespaces(namespace)
        return [
            await self.search(
                q,
                limit=limit,
                session_id=session_id,
                since=since,
                until=until,
                namespace=namespace,
            )
            for q in queries
        ]
