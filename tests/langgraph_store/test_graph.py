"""LangGraph itself on RememStore: a compiled StateGraph whose nodes write and read ``store``."""

from __future__ import annotations

import asyncio
from typing import TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.store.base import BaseStore

from remem.langgraph_store import RememStore


class State(TypedDict):
    user: str
    fact: str
    recalled: list[str]


def remember(state: State, *, store: BaseStore) -> dict[str, object]:
    store.put(("memories", state["user"]), f"fact-{len(state['fact'])}", {"text": state["fact"]})
    return {}


def recall(state: State, *, store: BaseStore) -> dict[str, object]:
    hits = store.search(("memories", state["user"]), query=state["fact"], limit=5)
    return {"recalled": [h.value["text"] for h in hits]}


async def arecall(state: State, *, store: BaseStore) -> dict[str, object]:
    hits = await store.asearch(("memories", state["user"]), query=state["fact"], limit=5)
    return {"recalled": [h.value["text"] for h in hits]}


def build(store: RememStore, recall_node: object) -> object:
    builder = StateGraph(State)
    builder.add_node("remember", remember)
    builder.add_node("recall", recall_node)  # type: ignore[call-overload]
    builder.add_edge(START, "remember")
    builder.add_edge("remember", "recall")
    builder.add_edge("recall", END)
    return builder.compile(store=store)


def test_a_compiled_graph_writes_and_reads_through_the_store(store: RememStore) -> None:
    graph = build(store, recall)
    out = graph.invoke({"user": "ana", "fact": "Ana lives in Lisbon", "recalled": []})  # type: ignore[attr-defined]
    assert out["recalled"] == ["Ana lives in Lisbon"]
    out = graph.invoke({"user": "ana", "fact": "Ana keeps bees on her roof", "recalled": []})  # type: ignore[attr-defined]
    assert out["recalled"][0] == "Ana keeps bees on her roof"
    assert sorted(out["recalled"]) == ["Ana keeps bees on her roof", "Ana lives in Lisbon"]
    # another user's graph run sees none of it
    out = graph.invoke({"user": "bob", "fact": "Bob rides a bike", "recalled": []})  # type: ignore[attr-defined]
    assert out["recalled"] == ["Bob rides a bike"]
    assert store.list_namespaces(prefix=("memories",)) == [("memories", "ana"), ("memories", "bob")]


def test_a_graph_run_async_uses_abatch(store: RememStore) -> None:
    graph = build(store, arecall)

    async def main() -> list[str]:
        out = await graph.ainvoke({"user": "cy", "fact": "Cy plays the cello", "recalled": []})  # type: ignore[attr-defined]
        return list(out["recalled"])

    assert asyncio.run(main()) == ["Cy plays the cello"]
