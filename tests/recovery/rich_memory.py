"""A memory with every kind of row the portable export carries, and what compares two exports."""

from __future__ import annotations

import json
from datetime import date, timedelta
from pathlib import Path

from remem.blocks import BlockEdit
from remem.models import DaySummary, Entity, Relationship
from tests.recovery.memory_dirs import T0, open_runtime


async def build_rich_memory(path: Path) -> None:
    """Turns, memories in two namespaces with metadata and a supersession chain, entities,
    aliases and relationships, a core block with history, and a day summary."""
    async with open_runtime(path) as rt:
        ctl = rt.controller
        for i in range(4):
            await ctl.record_turn("s1", f"Ada moved to city {i}", f"Noted, city {i}.")
        await ctl.record_turn("s2", "Bob likes chess", "Chess it is.")
        await ctl.remember_many(
            [f"fact number {i} about cats and {i % 7} dogs" for i in range(30)],
            metadata={"source": "seed", "zeta": 1, "alpha": 2.5},
        )
        await ctl.remember("Bob plays chess on Sundays", namespace="bob", session_id="s2")
        old = await ctl.remember("Ada lives in Berlin", memory_id="mem-ada-berlin")
        new = await ctl.remember("Ada lives in Lisbon", memory_id="mem-ada-lisbon")
        await ctl.supersede(old.id, new.id, at=T0 + timedelta(days=1))
        ada = Entity(id="ent-ada", name="Ada", entity_type="person", aliases=("Ada L.",))
        lisbon = Entity(
            id="ent-lisbon", name="Lisbon", entity_type="place", attributes={"country": "PT"}
        )
        stores = await ctl.settled()
        await stores.graph.upsert_entities([ada, lisbon])
        await stores.graph.add_relationships(
            [
                Relationship(
                    id="rel-1",
                    source_id="ent-ada",
                    target_id="ent-lisbon",
                    relation_type="lives_in",
                )
            ]
        )
        await stores.episodic.put_day_summary(
            DaySummary(
                session_id="s1",
                day=date(2026, 6, 1),
                text="Ada talked about moving.",
                turn_count=4,
                first_turn=1,
                last_turn=4,
                created_at=T0,
            )
        )
        core = await rt.blocks("ada")
        await core.apply("user", [BlockEdit.add("Lives in Berlin")], at=T0)
        await core.apply(
            "user", [BlockEdit.replace("Berlin", "Lives in Lisbon")], at=T0 + timedelta(hours=1)
        )


def table_lines(export: Path) -> dict[str, list[dict[str, object]]]:
    """Every row of every table file of an export (parsed, in file order)."""
    return {
        p.name: [json.loads(line) for line in p.read_text(encoding="utf-8").splitlines()]
        for p in sorted((export / "tables").glob("*.jsonl"))
    }


def vector_lines(export: Path) -> dict[str, list[dict[str, object]]]:
    return {
        p.name: [json.loads(line) for line in p.read_text(encoding="utf-8").splitlines()]
        for p in sorted((export / "vectors").glob("*.jsonl"))
    }
