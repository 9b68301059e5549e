"""The scope isolation contract: what scope A wrote, through any write path, no read as B shows.

One secret word is written in scope A through every write path — ``remember``,
``remember_many`` (a keyed fact too), ``record_turn`` and ``record_turns`` in sessions of A, a
full-text note, a graph entity, a core block of A, A's companion (its turn, the facts and graph
entities extracted from it) and the multi-agent wrapper for agent A (a memory, a turn and the
fact and entity extracted from it). Then every read path runs
as B and as A: the controller's recall, recall_many, search_text, keyed_facts, prime,
list_sessions and the transcripts of the sessions listed, graph entities, B's core blocks, B's
companion prompt and its ``search_memory`` tool, the lifecycle preview, day summaries, the
wrapper's reads for agent B (recall, recall_many, prime, keyed facts, full-text search, its
sessions and their transcripts), and the MemoryService reads (which REST and MCP translate) named
for B. As B the secret must appear zero times; as A it must appear, so a check that could never
see the secret fails instead of passing vacuously.

Scope names are drawn by hypothesis, with quotes, ``%``, ``/``, ``:``, FTS syntax and SQL among
them, since a namespace reaches SQL parameters, FTS joins and posting masks. Few examples: each
builds a full memory, on the embedded files and on PostgreSQL.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import remem
from remem.blocks import BlockEdit
from remem.brains import Completion, ScriptedBrain, ToolCall
from remem.companion import Companion, CompanionConfig
from remem.consolidation import MemoryConsolidator
from remem.context.priming import PrimingConfig
from remem.controller import ExtractedEntity, ExtractedMemory, ExtractionResult
from remem.errors import InvalidArgumentError, NotFoundError
from remem.models import ManualClock, ScoredMemory
from remem.multiagent import MultiAgentMemoryController
from remem.scopes import check_namespace
from remem.service import MemoryService
from tests.companion.doubles import PatternExtractor

T0 = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
QUERY = "what is the vault word, the door code, where did I move, my password"
"""What B (and A) ask: it names the secret's context, never the secret itself."""

HOSTILE = [
    "'; DROP TABLE x; --",
    "NEAR(a b, 2)",
    '"',
    "*",
    "a*",
    "%",
    "_%",
    "/",
    ":",
    "user:alice/agent:planner",
    "it's",
    "a OR b",
    "ünïcødé ✓ 名前",
    "default",
]


def _valid(name: str) -> bool:
    try:
        check_namespace(name)
    except InvalidArgumentError:  # blank names included: every entry point refuses them
        return False
    return True


scope_names = st.one_of(st.sampled_from(HOSTILE), st.text(min_size=1, max_size=24).filter(_valid))
scope_pairs = st.tuples(scope_names, scope_names).filter(lambda p: p[0] != p[1])


@pytest.fixture(params=["embedded", pytest.param("postgres", marks=pytest.mark.postgres)])
def backend(request: pytest.FixtureRequest) -> dict[str, str]:
    if request.param == "embedded":
        return {}
    return {"backend": "postgres", "dsn": request.getfixturevalue("pg_dsn")}


def texts(hits: list[ScoredMemory]) -> str:
    return "\n".join(h.record.text for h in hits)


def search_call(query: str) -> Completion:
    return Completion(tool_calls=(ToolCall("call_1", "search_memory", {"query": query}),))


@dataclasses.dataclass
class World:
    """One memory after A and B wrote; ``tag`` keeps ids unique on a database shared by examples."""

    rt: remem.Runtime
    a: str
    b: str
    secret: str
    tag: str
    a_sessions: list[str]
    b_sessions: list[str]
    a_record_ids: set[str]
    multi: MultiAgentMemoryController
    agents: tuple[str, str]
    fresh: itertools.count[int] = dataclasses.field(default_factory=itertools.count)

    def session(self, prefix: str) -> str:
        """A session id no one used yet (prompts and tool turns must not continue A's)."""
        return f"{prefix}-{self.tag}-{next(self.fresh)}"


async def write(rt: remem.Runtime, a: str, b: str) -> World:
    tag = uuid.uuid4().hex[:10]
    secret = "Zq" + "".join(chr(ord("a") + int(ch, 16)) for ch in tag)  # one word, [A-Z][a-z]+
    c = rt.controller
    ids: set[str] = set()
    ids.add((await c.remember(f"the vault word is {secret}", namespace=a, entities=[secret])).id)
    many = await c.remember_many(
        [f"the door code is {secret}", f"my password is {secret} too"], namespace=a
    )
    ids |= {r.id for r in many}
    keyed = {"subject": "vault", "attribute": "word", "value": secret}
    ids.add((await c.remember(f"vault word {secret}", namespace=a, metadata=keyed)).id)
    sa, sa2, ca = f"sa-{tag}", f"sa2-{tag}", f"ca-{tag}"
    await c.record_turn(sa, f"my password is {secret}", "noted", namespace=a)
    await c.record_turns(
        sa2, [(f"the door code is {secret}", "ok"), ("thanks", "sure")], namespace=a
    )
    episodic = (await c.settled()).episodic
    await episodic.add_note(
        f"note-{tag}", f"note: the vault word is {secret}", created_at=T0, namespace=a
    )
    core_a = await rt.blocks(a)
    await core_a.apply("user", [BlockEdit.add(f"Vault word: {secret}")])
    companion_a = Companion(
        ScriptedBrain(default="Noted."),
        rt,
        config=CompanionConfig(namespace=a),
        extractor=PatternExtractor(),
    )
    await companion_a.turn(f"I moved to {secret}", session_id=ca)

    multi = await MultiAgentMemoryController.open(c, rt.block_store)
    agents = (a, b)
    try:
        for agent in agents:
            await multi.register_agent(agent)
    except InvalidArgumentError:  # an agent id has its own limits; the scopes are still drawn
        agents = (f"agent-a-{tag}", f"agent-b-{tag}")
        for agent in agents:
            await multi.register_agent(agent)
    await multi.remember(agents[0], f"the agent vault word is {secret}")
    turn = await multi.record_turn(agents[0], f"ma-{tag}", f"the agent door code is {secret}")
    extracted = ExtractedMemory(
        f"the agent door word is {secret}",
        entities=(secret,),
        subject="agent door",
        attribute="word",
        value=secret,
    )
    await c.apply_extraction(
        ExtractionResult(entities=(ExtractedEntity(secret),), memories=(extracted,)), [turn]
    )

    sb, cb = f"sb-{tag}", f"cb-{tag}"
    await c.record_turn(sb, "my favourite flower is the tulip", "lovely", namespace=b)
    core_b = await rt.blocks(b)
    await core_b.apply("user", [BlockEdit.add(f"Name: Bob {tag}")])
    companion_b = Companion(
        ScriptedBrain(default="Noted."),
        rt,
        config=CompanionConfig(namespace=b),
        extractor=PatternExtractor(),
    )
    await companion_b.turn("I moved to Lisbon", session_id=cb)
    await c.settled()
    return World(rt, a, b, secret, tag, [sa, sa2, ca], [sb, cb], ids, multi, agents)


Read = Callable[[str], Awaitable[str]]


def reads(w: World) -> dict[str, Read]:
    """Every read path, as a function of the reader's scope, returning what it shows as text."""
    rt, c = w.rt, w.rt.controller
    everything = dataclasses.replace(
        PrimingConfig.controller_fallback(), previous_sessions=5, previous_session_turns=5
    )
    service = MemoryService(rt)

    async def recall(ns: str) -> str:
        return texts(await c.recall(QUERY, namespace=ns, k=50))

    async def recall_in_a_session_of_a(ns: str) -> str:
        return texts(await c.recall(QUERY, namespace=ns, session_id=w.a_sessions[0], k=50))

    async def recall_many(ns: str) -> str:
        batches = await c.recall_many([QUERY, "vault word", "password"], namespace=ns, k=50)
        return "\n".join(texts(h) for h in batches)

    async def search_text(ns: str) -> str:
        return "\n".join(h.text for h in await c.search_text(w.secret, namespace=ns, limit=50))

    async def keyed_facts(ns: str) -> str:
        return "\n".join(f.text for f in await c.keyed_facts(namespace=ns))

    async def prime(ns: str) -> str:
        return repr(await c.prime(w.session("prime"), namespace=ns, config=everything))

    async def sessions_and_transcripts(ns: str) -> str:
        transcript = (await c.settled()).transcript
        assert transcript is not None  # the Runtime always wires one
        out = []
        for session in await c.list_sessions(namespace=ns):
            out.append(session.session_id)
            out += [repr(e) for e in await transcript.get_entries(session.session_id)]
        return "\n".join(out)

    async def graph(ns: str) -> str:
        store = (await c.settled()).graph
        return "\n".join(repr(e) for e in await store.list_entities(namespace=ns))

    async def blocks(ns: str) -> str:
        return (await rt.blocks(ns)).render()

    async def companion_prompt(ns: str) -> str:
        companion = Companion(ScriptedBrain(default="ok"), rt, config=CompanionConfig(namespace=ns))
        prompt = await companion.build_prompt(QUERY, session_id=w.session("prompt"))
        return prompt.text + texts(list(prompt.recalled))

    async def search_memory_tool(ns: str) -> str:
        brain = ScriptedBrain([search_call(QUERY), "done"])
        companion = Companion(brain, rt, config=CompanionConfig(namespace=ns))
        result = await companion.turn("search please", session_id=w.session("tool"))
        return result.tool_results[0].result

    async def day_summaries(ns: str) -> str:
        episodic = (await c.settled()).episodic
        out = []
        for session_id in w.a_sessions + w.b_sessions:
            out += [s.text for s in await episodic.get_day_summaries(session_id, namespace=ns)]
        return "\n".join(out)

    def agent_of(ns: str) -> str:
        return w.agents[0] if ns == w.a else w.agents[1]

    async def multi_agent_recall(ns: str) -> str:
        hits = await w.multi.recall(agent_of(ns), "agent vault word", k=50)
        many = await w.multi.recall_many(agent_of(ns), ["agent vault word", QUERY], k=50)
        return texts(hits) + "\n".join(texts(h) for h in many)

    async def multi_agent_turns(ns: str) -> str:
        turns = await w.multi.recall(agent_of(ns), "agent door code", k=50, stages=["episodic"])
        return texts(turns)

    async def multi_agent_prime(ns: str) -> str:
        return repr(await w.multi.prime(agent_of(ns), w.session("multi"), config=everything))

    async def multi_agent_keyed_facts(ns: str) -> str:
        return "\n".join(f.text for f in await w.multi.keyed_facts(agent_of(ns)))

    async def multi_agent_search_text(ns: str) -> str:
        hits = await w.multi.search_text(agent_of(ns), w.secret, limit=50)
        return "\n".join(h.text for h in hits)

    async def multi_agent_sessions(ns: str) -> str:
        out = []
        for session in await w.multi.list_sessions(agent_of(ns)):
            out.append(session.session_id)
            out += [repr(e) for e in await w.multi.transcript(agent_of(ns), session.session_id)]
        return "\n".join(out)

    async def service_reads(ns: str) -> str:
        out = [
            repr(await service.recall(QUERY, namespace=ns, k=50)),
            repr(await service.list_sessions(namespace=ns)),
            repr(await service.core_memory(namespace=ns)),
        ]
        own = w.a_sessions[0] if ns == w.a else w.b_sessions[0]
        out.append(repr(await service.get_context(QUERY, namespace=ns, session_id=own)))
        for session_id in w.a_sessions:
            if ns == w.a:
                out.append(repr(await service.get_transcript(session_id, namespace=ns)))
            else:  # A's sessions are reported to B exactly as missing ones
                with pytest.raises(NotFoundError, match="there is no session"):
                    await service.get_transcript(session_id, namespace=ns)
        return "\n".join(out)

    return {
        "recall": recall,
        "recall in a session of A": recall_in_a_session_of_a,
        "recall_many": recall_many,
        "search_text": search_text,
        "keyed_facts": keyed_facts,
        "prime": prime,
        "list_sessions and transcripts": sessions_and_transcripts,
        "graph entities": graph,
        "core blocks": blocks,
        "companion prompt": companion_prompt,
        "companion search_memory tool": search_memory_tool,
        "day summaries": day_summaries,
        "multi-agent recall": multi_agent_recall,
        "multi-agent recall of turns": multi_agent_turns,
        "multi-agent prime": multi_agent_prime,
        "multi-agent keyed_facts": multi_agent_keyed_facts,
        "multi-agent search_text": multi_agent_search_text,
        "multi-agent sessions and transcripts": multi_agent_sessions,
        "MemoryService (REST/MCP)": service_reads,
    }


async def check_isolation(root: Path, options: dict[str, Any], a: str, b: str) -> None:
    clock = ManualClock(T0)
    opened = remem.Runtime.open(root, clock=clock, embedding_provider="hashing", **options)
    async with opened as rt:
        w = await write(rt, a, b)
        consolidator = MemoryConsolidator(rt.controller)
        for session_id in w.a_sessions + w.b_sessions:
            await consolidator.summarise_days(session_id)

        leaks, blind = [], []
        for name, read in reads(w).items():
            if w.secret not in await read(w.a):
                blind.append(name)
            if w.secret in (shown := await read(w.b)):
                leaks.append(f"{name}: {shown[:300]!r}")
        assert blind == [], f"these reads never show A its own secret: {blind}"
        assert leaks == [], f"A's secret reached B through: {leaks}"
        # B's own memory is there (the reads are not simply empty for B).
        assert "tulip" in await reads(w)["list_sessions and transcripts"](w.b)
        listed = {s.session_id for s in await rt.controller.list_sessions(namespace=w.b)}
        assert set(w.b_sessions) <= listed
        assert not set(w.a_sessions) & listed

        # The lifecycle plan of B lists none of A's records; A's plan lists them.
        clock.set(T0 + timedelta(days=60))
        assert rt.lifecycle is not None  # opened with the runtime
        plan_a = await rt.lifecycle.preview(namespace=a)
        plan_b = await rt.lifecycle.preview(namespace=b)
        assert w.a_record_ids & {ch.id for ch in plan_a.changes}
        assert not w.a_record_ids & {ch.id for ch in plan_b.changes}
        assert w.secret not in plan_b.describe()


@settings(
    max_examples=10,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(scopes=scope_pairs)
def test_nothing_written_in_a_is_read_as_b(
    backend: dict[str, str], tmp_path_factory: pytest.TempPathFactory, scopes: tuple[str, str]
) -> None:
    a, b = scopes
    root = tmp_path_factory.mktemp("iso") / "memory"
    asyncio.run(check_isolation(root, backend, a, b))
