"""``remem reembed --model M``: move a memory to another embedding model as an explicit migration.

    result = await reembed(config, "minilm", progress=print_bar)
    print(result.describe())
    await confirm_reembed(config)   # later: drop the previous generation

Steps, each recorded in ``reembed.json`` in the memory directory so that a process killed at
any point resumes where it stopped when the same command runs again:

1. **Preflight** — no journaled writes or vector moves left by a crash (open and close the
   memory once to apply them), no previous generation still kept (``--confirm`` it first).
2. **Snapshot** — :func:`remem.recovery.snapshot` (embedded) or
   :func:`remem.recovery.snapshot_postgres` into ``<dir>.before-reembed-<time>``, verified,
   before anything is written; ``remem restore`` (``--dsn`` for PostgreSQL) puts it back.
3. **Build** — every record of a staged stage (superseded ones too: the old collections hold
   them) is embedded by the new model into a new collection generation (``memory_g<n>_<stage>``,
   :mod:`remem.staging.generation`), in batches; ids already in it (a resumed run) are skipped.
   The old generation is not touched and stays the one recall reads.
4. **Validate** — per stage, the new collection holds as many vectors as the old one; its
   dimension is the model's; and for a sample of memories, querying the new generation with a
   memory's own text finds it in the top 10 (self-recall, compared with the same figure on the
   old generation when the old model is available). A failure raises
   :class:`ReembedValidationError`; nothing is switched.
5. **Switch** — the generation pointer is replaced with one atomic rename; from the next open,
   recall reads the new generation. The old one is kept until :func:`confirm_reembed`.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

from remem.embeddings import EmbeddingService, HashingEmbedder
from remem.errors import ConfigError, NotFoundError
from remem.maintenance.checks import REEMBED_STATE
from remem.maintenance.errors import ReembedError, ReembedValidationError
from remem.models import MemoryRecord
from remem.recovery import QuiescenceToken, WritersActiveError, memory_identity
from remem.runtime import Runtime, provider_embedder
from remem.runtime_config import RuntimeConfig
from remem.staging import STAGED, FileMoveJournal
from remem.staging.generation import Generation, read_generation, write_generation

__all__ = ["ReembedResult", "confirm_reembed", "embedder_for", "reembed"]

Progress = Callable[[int, int], None]
"""Called with (memories done, total) as the build advances."""

BATCH = 256
SAMPLE = 20
SELF_RECALL_K = 10
MIN_SELF_RECALL = 0.9
"""The share of sampled memories the new generation must find by their own text."""


@dataclass(frozen=True)
class ReembedResult:
    old_prefix: str
    new_prefix: str
    model_name: str
    dimension: int
    counts: dict[str, int]
    embedded: int
    """Embedded by this run (less than the total when it resumed)."""
    self_recall_new: float
    self_recall_old: float | None
    snapshot: str | None
    seconds: float

    def describe(self) -> str:
        total = sum(self.counts.values())
        old = "n/a" if self.self_recall_old is None else f"{self.self_recall_old:.2f}"
        lines = [
            f"re-embedded {total} memories with {self.model_name} (dim {self.dimension}) into "
            f"generation {self.new_prefix}; {self.embedded} embedded by this run in "
            f"{self.seconds:.1f} s",
            "  counts: " + ", ".join(f"{k} {v}" for k, v in self.counts.items()),
            f"  sample self-recall@{SELF_RECALL_K}: new {self.self_recall_new:.2f}, old {old}",
            f"  snapshot: {self.snapshot or 'none (nothing was stored yet, or a resumed run)'}",
            f"switched: recall now reads {self.new_prefix}; the old generation "
            f"{self.old_prefix} is kept until `remem reembed --confirm` drops it",
        ]
        return "\n".join(lines)


@dataclass
class _State:
    provider: str
    dimension: int
    model_name: str
    old_prefix: str
    new_prefix: str
    snapshot: str | None
    started_at: str


def embedder_for(provider: str, dimension: int | None = None) -> EmbeddingService:
    """The embedder ``--model`` names: ``hashing`` (``dimension``, default 384) or ``minilm``."""
    if provider not in ("hashing", "minilm"):
        raise ConfigError(f"unknown model {provider!r}; use hashing or minilm")
    if provider == "minilm" and dimension not in (None, 384):
        raise ConfigError("minilm embeds 384 dimensions; drop --dimension")
    return provider_embedder(provider, dimension or 384)


def _state_file(config: RuntimeConfig) -> Path:
    return Path(config.path) / REEMBED_STATE


def _read_state(config: RuntimeConfig) -> _State | None:
    try:
        return _State(**json.loads(_state_file(config).read_text(encoding="utf-8")))
    except FileNotFoundError:
        return None
    except (OSError, ValueError, TypeError) as exc:
        raise ReembedError(
            f"{_state_file(config)} is unreadable ({exc}); restore the snapshot it names, or "
            "delete it to start the re-embed over (the active generation is untouched)"
        ) from exc


def _write_state(config: RuntimeConfig, state: _State) -> None:
    file = _state_file(config)
    tmp = file.with_name(f".{file.name}.tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(asdict(state), fh, indent=2)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, file)


def _preflight(config: RuntimeConfig) -> None:
    path = Path(config.path)
    problems = []
    journal = path / "writebehind.db"
    if journal.is_file():
        conn = sqlite3.connect(f"file:{journal}?mode=ro", uri=True)
        try:
            pending = conn.execute("SELECT count(*) FROM pending").fetchone()[0]
        except sqlite3.OperationalError:
            pending = 0
        finally:
            conn.close()
        if pending:
            problems.append(f"{pending} journaled write(s) not yet applied")
    if (path / "moves.journal").is_file() and FileMoveJournal(path / "moves.journal").pending():
        problems.append("a vector move interrupted by a crash")
    if problems:
        raise ReembedError(
            "refused: " + "; ".join(problems) + " — open and close the memory once with its "
            "current model (e.g. `remem migrate --execute`) to apply them, then re-embed"
        )


async def reembed(
    config: RuntimeConfig,
    provider: str,
    *,
    dimension: int | None = None,
    progress: Progress | None = None,
    batch: int = BATCH,
    now: Callable[[], datetime] = lambda: datetime.now(UTC),
    quiesced: QuiescenceToken | None = None,
) -> ReembedResult:
    """Re-embed the memory ``config`` names with ``provider`` (module docstring).

    ``quiesced``: a re-embed opens the memory itself and switches its generation, so it never
    runs beside a Runtime holding it: a token of another memory is
    :class:`~remem.recovery.ForeignTokenError`, one of this memory
    :class:`~remem.recovery.WritersActiveError` (close that Runtime first); both before
    anything is read or written."""
    if quiesced is not None:
        location = config.dsn if config.backend == "postgres" and config.dsn else config.path
        quiesced.admit(location, "re-embed")
        raise WritersActiveError(
            f"writers active: a Runtime of this process has {memory_identity(location)} open "
            "(its quiescence token was given); a re-embed switches the generation under it, so "
            "close it (`await rt.aclose()`) and re-embed without a token"
        )
    started = time.perf_counter()
    if batch < 1:
        raise ConfigError(f"batch must be a positive number of memories, got {batch}")
    embedder = embedder_for(provider, dimension)
    path = Path(config.path)
    state = _read_state(config)
    active = read_generation(path)
    # A run killed after the switch resumes here too: the build finds every vector present,
    # the validation passes again and the pointer is rewritten unchanged. So does a run killed
    # after it removed its state file: the memory is already on this model, so the same
    # command re-validates the switch instead of refusing.
    if state is None and _already_switched(active, embedder):
        assert active.previous is not None
        assert active.model_name is not None
        state = _State(  # what the finished run's state file held, bar the snapshot's name
            provider=provider,
            dimension=embedder.dimension,
            model_name=active.model_name,
            old_prefix=active.previous,
            new_prefix=active.prefix,
            snapshot=None,
            started_at=now().isoformat(),
        )
    elif state is None:
        if active.previous is not None:
            raise ReembedError(
                f"the previous generation {active.previous} is still kept; run `remem reembed "
                "--confirm` to drop it before re-embedding again"
            )
        _preflight(config)
        stamp = f"{now():%Y%m%d-%H%M%S}"
        snapshot_dir = _take_snapshot(config, path.with_name(f"{path.name}.before-reembed-{stamp}"))
        state = _State(
            provider=provider,
            dimension=embedder.dimension,
            model_name=embedder.model_name,
            old_prefix=active.prefix,
            new_prefix=f"memory_g{active.number + 1}",
            snapshot=snapshot_dir,
            started_at=now().isoformat(),
        )
        _write_state(config, state)
    elif (state.provider, state.dimension) != (provider, embedder.dimension):
        raise ReembedError(
            f"an unfinished re-embed to {state.provider} (dim {state.dimension}) is in progress; "
            f"run `remem reembed --model {state.provider}` to finish it first"
        )
    switched = active.prefix == state.new_prefix
    async with Runtime(config, embedder=embedder, generation=state.new_prefix) as rt:
        embedded = await _build(rt, state, progress, batch)
        counts, self_new, self_old = await _validate(rt, state, config, switched=switched)
    write_generation(
        path,
        Generation(
            prefix=state.new_prefix,
            model_name=state.model_name,
            dimension=state.dimension,
            previous=state.old_prefix,
        ),
    )
    _state_file(config).unlink(missing_ok=True)
    return ReembedResult(
        old_prefix=state.old_prefix,
        new_prefix=state.new_prefix,
        model_name=state.model_name,
        dimension=state.dimension,
        counts=counts,
        embedded=embedded,
        self_recall_new=self_new,
        self_recall_old=self_old,
        snapshot=state.snapshot,
        seconds=time.perf_counter() - started,
    )


def _take_snapshot(config: RuntimeConfig, out: Path) -> str | None:
    """A verified snapshot before anything is written: the embedded files, or PostgreSQL's
    consistent logical snapshot (one REPEATABLE READ transaction, vectors included). None for
    an embedded memory that holds no records yet (nothing to lose)."""
    if config.backend == "postgres":
        from remem.recovery import snapshot_postgres

        assert config.dsn is not None  # RuntimeConfig requires a dsn for postgres
        snapshot_postgres(config.dsn, out)
        return str(out)
    if not (Path(config.path) / "memory.duckdb").is_file():
        return None
    from remem.recovery import snapshot

    snapshot(Path(config.path), out)
    return str(out)


def _already_switched(active: Generation, embedder: EmbeddingService) -> bool:
    """The active generation was switched to by a re-embed to ``embedder``'s model and the
    previous one is still kept: the command ran to its end (perhaps killed just after)."""
    return (
        active.previous is not None
        and active.model_name == embedder.model_name
        and active.dimension == embedder.dimension
    )


async def _staged_records(rt: Runtime) -> list[MemoryRecord]:
    records = await (await rt.controller.settled()).records.scan(
        stages=list(STAGED), include_superseded=True
    )
    return sorted(records, key=lambda r: r.id)


async def _build(rt: Runtime, state: _State, progress: Progress | None, batch: int) -> int:
    collections = rt.controller.collection_manager
    vectors = (await rt.controller.settled()).vectors
    records = await _staged_records(rt)
    total, done, embedded = len(records), 0, 0
    if progress is not None:
        progress(0, total)
    for start in range(0, total, batch):
        chunk = records[start : start + batch]
        present: set[str] = set()
        for stage in STAGED:
            ids = [r.id for r in chunk if r.lifecycle.stage is stage]
            if ids:
                name = f"{state.new_prefix}_{stage.value}"
                present |= {item.id for item in await vectors.get(name, ids)}
        todo = [r for r in chunk if r.id not in present]
        if todo:
            await collections.add(todo)
            embedded += len(todo)
        done += len(chunk)
        if progress is not None:
            progress(done, total)
    return embedded


async def _validate(
    rt: Runtime, state: _State, config: RuntimeConfig, *, switched: bool
) -> tuple[dict[str, int], float, float | None]:
    """Check the new generation (module docstring, step 4). Once ``switched``, memories written
    since live only in the new generation, so its counts are checked against the records
    alone, not against the old generation's."""
    vectors = (await rt.controller.settled()).vectors
    records = await _staged_records(rt)
    counts: dict[str, int] = {}
    problems: list[str] = []
    old_models: set[str] = set()
    for stage in STAGED:
        new = await vectors.get_collection(f"{state.new_prefix}_{stage.value}")
        try:
            old = await vectors.get_collection(f"{state.old_prefix}_{stage.value}")
            old_count = old.count
            old_models.add(old.model_name)
        except NotFoundError:
            old_count = 0
        counts[stage.value] = new.count
        expected = sum(r.lifecycle.stage is stage for r in records)
        if new.count != expected:
            problems.append(f"{stage.value}: {new.count} vectors for {expected} memories")
        elif not switched and new.count != old_count:
            problems.append(f"{stage.value}: {new.count} vectors, the old generation {old_count}")
        if new.dimension != state.dimension or new.model_name != state.model_name:
            problems.append(
                f"{stage.value}: built as {new.model_name} dim {new.dimension}, expected "
                f"{state.model_name} dim {state.dimension}"
            )
    sample = _sample(records)
    self_new = await _self_recall(rt, rt.embedder, state.new_prefix, sample)
    old_embedder = _old_embedder(config, old_models)
    self_old = (
        None
        if old_embedder is None
        else await _self_recall(rt, old_embedder, state.old_prefix, sample)
    )
    floor = MIN_SELF_RECALL * (1.0 if self_old is None else min(1.0, self_old))
    if sample and self_new < floor:
        problems.append(f"sample self-recall@{SELF_RECALL_K} is {self_new:.2f}, below {floor:.2f}")
    if problems:
        raise ReembedValidationError(
            "the new generation did not validate, so it was not switched: "
            + "; ".join(problems)
            + ". Run the same command again to resume and re-check"
        )
    return counts, self_new, self_old


def _sample(records: Sequence[MemoryRecord]) -> list[MemoryRecord]:
    if len(records) <= SAMPLE:
        return list(records)
    step = len(records) / SAMPLE
    return [records[int(i * step)] for i in range(SAMPLE)]


async def _self_recall(
    rt: Runtime, embedder: EmbeddingService, prefix: str, sample: Sequence[MemoryRecord]
) -> float:
    if not sample:
        return 1.0
    vectors = (await rt.controller.settled()).vectors
    queries = await embedder.embed_documents([r.text for r in sample])
    found = 0
    for stage in STAGED:
        rows = [i for i, r in enumerate(sample) if r.lifecycle.stage is stage]
        if not rows:
            continue
        try:
            hits = await vectors.query(f"{prefix}_{stage.value}", queries[rows], k=SELF_RECALL_K)
        except NotFoundError:
            continue
        found += sum(
            any(h.id == sample[i].id for h in row) for i, row in zip(rows, hits, strict=True)
        )
    return found / len(sample)


def _old_embedder(config: RuntimeConfig, models: set[str]) -> EmbeddingService | None:
    """The old generation's model, when it can be built here (hashing, or installed MiniLM)."""
    if len(models) != 1:
        return None
    (name,) = models
    hashing = HashingEmbedder(dimension=config.embedding_dimension)
    if hashing.model_name == name:
        return hashing
    try:
        minilm = embedder_for("minilm")
    except ConfigError:
        return None
    return minilm if minilm.model_name == name else None


async def confirm_reembed(config: RuntimeConfig, embedder: EmbeddingService) -> str:
    """Drop the previous generation's collections; one line saying what was dropped."""
    path = Path(config.path)
    active = read_generation(path)
    if active.previous is None:
        return "nothing to confirm: no previous generation is kept"
    dropped = 0
    async with Runtime(config, embedder=embedder) as rt:
        vectors = (await rt.controller.settled()).vectors
        for stage in STAGED:
            try:
                await vectors.delete_collection(f"{active.previous}_{stage.value}")
                dropped += 1
            except NotFoundError:
                pass
    write_generation(
        path,
        Generation(
            prefix=active.prefix,
            model_name=active.model_name,
            dimension=active.dimension,
            previous=None,
        ),
    )
    return f"dropped the previous generation {active.previous} ({dropped} collections)"
