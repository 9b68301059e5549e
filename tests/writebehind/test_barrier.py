"""behind(): every coroutine method of the wrapped store waits for the journal first."""

from __future__ import annotations

from types import TracebackType

from remem.writebehind import behind, is_behind


class Journal:
    def __init__(self) -> None:
        self.log: list[str] = []

    async def barrier(self) -> None:
        self.log.append("barrier")


class Store:
    timezone = "Europe/Lisbon"

    def __init__(self, journal: Journal) -> None:
        self.journal = journal
        self.entered = False

    async def get(self, key: str, *, default: int = 0) -> int:
        self.journal.log.append(f"get {key}")
        return default

    async def search_many(self, queries: list[str]) -> list[str]:  # a backend extra
        self.journal.log.append("search_many")
        return queries

    def helper(self) -> str:
        return "sync"

    async def __aenter__(self) -> Store:
        self.entered = True
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.entered = False


async def test_coroutine_methods_wait_for_the_journal_first() -> None:
    journal = Journal()
    store = behind(Store(journal), journal)
    assert await store.get("a", default=3) == 3
    assert await store.search_many(["q"]) == ["q"]
    assert journal.log == ["barrier", "get a", "barrier", "search_many"]


async def test_plain_attributes_and_sync_helpers_pass_through() -> None:
    journal = Journal()
    store = behind(Store(journal), journal)
    assert store.timezone == "Europe/Lisbon"
    assert store.helper() == "sync"
    assert getattr(store, "missing", None) is None
    assert journal.log == []
    assert is_behind(store)
    assert not is_behind(Store(journal))


async def test_async_with_enters_the_wrapped_store() -> None:
    journal = Journal()
    inner = Store(journal)
    async with behind(inner, journal) as store:
        assert inner.entered
        assert is_behind(store)
    assert not inner.entered
    assert journal.log == ["barrier", "barrier"]
