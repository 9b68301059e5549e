"""RuntimeConfig: the one place remem's application defaults live.

Built from keyword arguments (``RuntimeConfig(path="./memory")``), from a TOML file
(``RuntimeConfig.from_toml("remem.toml")``) or a dict; validated on construction; printed by
``describe()`` (secrets in the DSN masked). TOML layout — every key optional::

    path = "./memory"
    backend = "embedded"          # or "postgres"
    dsn = "postgresql://..."      # postgres only
    timezone = "UTC"
    durability = "normal"         # or "full": commits also survive power loss
    write_behind = true           # default: true for embedded, false for postgres
    scopes = "single"             # or "multi": every read and write must name namespace=

    [brain]                       # the model `remem chat` talks to; absent: the offline companion
    provider = "gemini:gemini-2.0-flash"   # PROVIDER:MODEL, see remem.brains.registry
    base_url = "https://..."      # optional: another server for that provider (proxy, local)

    [embeddings]
    provider = "auto"             # MiniLM when installed, else "hashing"; or "minilm"
    dimension = 384

    [recall]
    fusion = "rrf"                # or "weighted"
    rrf_k = 60
    candidates = 30
    weights = { vector = 1.0, fulltext = 1.0, graph = 1.0 }

    [recall.stages.speaker]       # any stage of remem.controller.stages.RecallStagesConfig
    boost = 1.0                   # recency (weight), neighbours, speaker, dates,
    enabled = true                # time_expressions, conflicts, answer_type (on, boost 2) …

    [extraction]
    interval = 1
    supersede = true              # a new keyed fact ends the one it contradicts (Runtime)

    [full_text]
    language = "english"          # Snowball stemming of indexed and queried words; "none": off

    [lifecycle]
    decay_rate = 0.01
    recency_rate = 0.005

    [memory.priming]              # what MemoryController.prime (and so a new session) starts with
    preset = "controller_fallback"  # or "chat_template"; the keys below override the preset's
    enabled = true
    top_entities = 10
    max_insights = 5
    max_summaries = 3
    max_known_facts = 10
    recency_days = 30             # 0: no age limit
    token_budget = 1000
    previous_sessions = 0
    previous_session_turns = 0
"""

from __future__ import annotations

import dataclasses
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from remem.context.priming import PrimingConfig
from remem.controller.config import ControllerConfig, ExtractionConfig, FusionConfig
from remem.controller.stages import STAGE_NAMES, RecallStagesConfig
from remem.errors import ConfigError
from remem.lifecycle import DecayConfig, InclusionScorerConfig
from remem.stores.episodic import load_timezone
from remem.stores.shared.search_text import FullTextConfig

Backend = Literal["embedded", "postgres"]
PRIMING_PRESETS = ("controller_fallback", "chat_template")
"""``[memory.priming] preset`` names: the :class:`PrimingConfig` classmethods of those names."""
EMBEDDING_PROVIDERS = ("hashing", "auto", "minilm")
"""Providers the Runtime builds by name; pass ``embedder=`` for any other EmbeddingService.

``hashing``: :class:`~remem.embeddings.HashingEmbedder`. ``minilm``: the bundled all-MiniLM-L6-v2
(native encoder, bf16 on a CPU with AVX512_BF16, else float32; ConfigError when its weights are
not installed). ``auto``: MiniLM when its weights are installed and the dimension is its 384,
else hashing — except that a directory whose collections were built by the hashing embedder
keeps it, and one built by MiniLM keeps the precision it was built with (see
:class:`~remem.runtime.Runtime`)."""


@dataclass(frozen=True)
class RuntimeConfig:
    """Where memory lives and how the controller behaves.

    ``backend="embedded"`` (default) keeps everything in ``path``: ``transcript.db`` and
    ``episodic.db`` (SQLite), ``memory.duckdb`` (records + graph), ``vectors/`` (hnswlib +
    DuckDB) and ``moves.journal``. ``backend="postgres"`` keeps the data in the database at
    ``dsn``; ``path`` then only holds the move journal (see :mod:`remem.runtime`).
    """

    path: Path = Path("./memory")
    backend: Backend = "embedded"
    dsn: str | None = None
    timezone: str = "UTC"
    embedding_provider: str = "auto"
    """``auto``: the bundled MiniLM when its weights are installed, else hashing. Measured in
    one session: LoCoMo dev, categories 1-4, R@10 78.8 with MiniLM vs 75.0 with hashing;
    ``remem eval --quick`` ``full`` context recall 93.5 % vs 75.3 %, stale-only 4.8 % vs
    14.3 % (MiniLM with its own similarity floors,
    :data:`remem.embeddings.sentence_transformer.MINILM_FLOORS`)."""
    embedding_dimension: int = 384
    controller: ControllerConfig = field(default_factory=ControllerConfig)
    durability: Literal["normal", "full"] = "normal"
    priming: PrimingConfig = field(default_factory=PrimingConfig.controller_fallback)
    """The controller's session priming (``MemoryController.prime``); TOML ``[memory.priming]``."""
    full_text: FullTextConfig = field(default_factory=FullTextConfig)
    """The full-text normalisation every episodic backend indexes and queries with (stemming
    language, query stop words); changing the language re-indexes the stored texts on open."""
    write_behind: bool | None = None
    """Journal turns and memories and apply them in batches (:mod:`remem.writebehind`). None:
    on for ``embedded`` (one process owns the directory), off for ``postgres`` (other processes
    read the database directly and would not see journaled writes until applied)."""

    scopes: Literal["single", "multi"] = "single"
    """``"single"`` (default): one user's memory; calls without ``namespace=`` work as they
    always did (a read sees every scope). ``"multi"``: the runtime holds several scopes (users,
    agents, runs; :mod:`remem.scopes`), so every controller read and write without
    ``namespace=`` raises :class:`~remem.errors.ScopeRequiredError` instead of mixing them."""

    brain: str | None = None
    """The ``PROVIDER:MODEL`` the chat front end talks to (TOML ``[brain] provider``); None: the
    offline companion. Checked on construction; the brain itself is built by the caller
    (:func:`remem.brains.brain_from_spec`), so a config never needs an API key to load."""
    brain_url: str | None = None
    """Another base URL for :attr:`brain`'s provider (TOML ``[brain] base_url``)."""

    @property
    def uses_write_behind(self) -> bool:
        """The effective write-behind setting (see ``write_behind``)."""
        if self.write_behind is None:
            return self.backend == "embedded"
        return self.write_behind

    def __post_init__(self) -> None:
        object.__setattr__(self, "path", Path(self.path))
        if self.backend not in ("embedded", "postgres"):
            raise ConfigError(f"backend {self.backend!r} is unknown; use 'embedded' or 'postgres'")
        if self.backend == "postgres" and not self.dsn:
            raise ConfigError("backend 'postgres' needs dsn='postgresql://user@host/db'")
        if self.embedding_provider not in EMBEDDING_PROVIDERS:
            raise ConfigError(
                f"embedding provider {self.embedding_provider!r} is not built in; use "
                f"{', '.join(EMBEDDING_PROVIDERS)} or pass embedder= to Runtime.open"
            )
        if self.durability not in ("normal", "full"):
            raise ConfigError(f"durability {self.durability!r} is unknown; use normal or full")
        if not isinstance(self.full_text, FullTextConfig):
            raise ConfigError(
                f"full_text must be a FullTextConfig, got {type(self.full_text).__name__}"
            )
        if self.scopes not in ("single", "multi"):
            raise ConfigError(
                f"scopes must be 'single' or 'multi', got {self.scopes!r}; 'multi' requires "
                "namespace= on every read and write"
            )
        if self.write_behind not in (None, True, False):
            raise ConfigError(f"write_behind must be true or false, got {self.write_behind!r}")
        if not isinstance(self.priming, PrimingConfig):
            raise ConfigError(
                f"priming must be a PrimingConfig, got {type(self.priming).__name__}; "
                "in TOML set [memory.priming] keys"
            )
        if self.brain is not None:
            from remem.brains.registry import parse_spec  # only when a brain is configured

            parse_spec(self.brain)
        if self.brain_url is not None and self.brain is None:
            raise ConfigError("[brain] base_url was given without a provider; add provider=")
        load_timezone(self.timezone)

    @classmethod
    def from_toml(cls, file: str | Path, **overrides: Any) -> RuntimeConfig:
        """Read a TOML file (layout in the module docstring); ``overrides`` win."""
        try:
            data = tomllib.loads(Path(file).read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise ConfigError(f"cannot read the config file {file}: {exc}") from exc
        return cls.from_mapping(data, **overrides)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], **overrides: Any) -> RuntimeConfig:
        """Build from the TOML layout as a dict; unknown keys raise ConfigError."""
        data = dict(data)
        top: dict[str, Any] = {}
        for key in (
            "path",
            "backend",
            "dsn",
            "timezone",
            "durability",
            "write_behind",
            "scopes",
        ):
            if key in data:
                top[key] = data.pop(key)
        emb = _section(data, "embeddings", {"provider", "dimension"})
        rec = _section(
            data,
            "recall",
            {"fusion", "rrf_k", "candidates", "weights", "features", "merge_copies", "stages"},
        )
        ext = _section(data, "extraction", {"interval", "queue_size", "drain_timeout", "supersede"})
        text = _section(data, "full_text", {"language"})
        if text:
            top["full_text"] = FullTextConfig(language=text["language"])
        life = _section(
            data,
            "lifecycle",
            {f.name for f in dataclasses.fields(DecayConfig)} | {"recency_rate", "hit_weight"},
        )
        priming = _priming(data)
        chosen = _section(data, "brain", {"provider", "base_url"})
        if "provider" in chosen:
            top["brain"] = chosen["provider"]
        if "base_url" in chosen:
            top["brain_url"] = chosen["base_url"]
        if data:
            raise ConfigError(f"unknown config keys {sorted(data)}; see remem.runtime_config")
        fusion = FusionConfig(
            method=rec.get("fusion", FusionConfig.method),
            rrf_k=rec.get("rrf_k", FusionConfig.rrf_k),
            **{k: rec[k] for k in ("weights", "features", "merge_copies") if k in rec},
        )
        inclusion_keys = {"recency_rate", "hit_weight"}
        controller = ControllerConfig(
            fusion=fusion,
            candidates=rec.get("candidates", ControllerConfig.candidates),
            inclusion=InclusionScorerConfig(
                **{k: v for k, v in life.items() if k in inclusion_keys}
            ),
            decay=DecayConfig(**{k: v for k, v in life.items() if k not in inclusion_keys}),
            stages=RecallStagesConfig.from_mapping(_table(rec.get("stages", {}), "recall.stages")),
            extraction=ExtractionConfig(**ext),
        )
        if "provider" in emb:
            top["embedding_provider"] = emb["provider"]
        if "dimension" in emb:
            top["embedding_dimension"] = emb["dimension"]
        if priming is not None:
            top["priming"] = priming
        return cls(**{**top, "controller": controller, **overrides})

    def describe(self) -> str:
        """The effective configuration, one ``key = value`` per line (DSN password masked)."""
        c = self.controller
        lines = [
            f"backend = {self.backend}",
            f"path = {self.path}",
            f"dsn = {mask_dsn(self.dsn) if self.dsn else '-'}",
            f"timezone = {self.timezone}",
            f"durability = {self.durability}",
            f"write_behind = {str(self.uses_write_behind).lower()}",
            f"brain = {self.brain or 'offline'}"
            + (f" at {self.brain_url}" if self.brain_url else ""),
            f"embeddings.provider = {self.embedding_provider}",
            f"embeddings.dimension = {self.embedding_dimension}",
            f"recall.fusion = {c.fusion.method}",
            f"recall.rrf_k = {c.fusion.rrf_k}",
            f"recall.weights = {dict(sorted(c.fusion.weights.items()))}",
            "recall.features = "
            + (
                "fitted for the embedder"
                if c.fusion.features is None
                else str(dict(sorted(c.fusion.features.items())))
            ),
            f"recall.merge_copies = {str(c.fusion.merge_copies).lower()}",
            f"recall.candidates = {c.candidates}",
            f"recall.recency_rate = {c.inclusion.recency_rate}",
            f"recall.hit_weight = {c.inclusion.hit_weight}",
            f"extraction.interval = {c.extraction.interval}",
            f"extraction.queue_size = {c.extraction.queue_size}",
            f"extraction.drain_timeout = {c.extraction.drain_timeout}",
            f"extraction.supersede = {str(c.extraction.supersede).lower()}",
            f"full_text.language = {self.full_text.language or 'none'}",
        ]
        lines += [f"lifecycle.{k} = {v}" for k, v in dataclasses.asdict(c.decay).items()]
        lines += [
            f"memory.priming.{f.name} = {str(v).lower() if isinstance(v, bool) else v}"
            for f in dataclasses.fields(self.priming)
            for v in (getattr(self.priming, f.name),)
        ]
        for name in STAGE_NAMES:
            section = dataclasses.asdict(getattr(c.stages, name))
            lines += [f"recall.stages.{name}.{k} = {v}" for k, v in section.items()]
        return "\n".join(lines)


def _table(value: object, name: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ConfigError(f"[{name}] must be a table")
    return value


def _section(data: dict[str, Any], name: str, allowed: set[str]) -> dict[str, Any]:
    section = data.pop(name, {})
    if not isinstance(section, dict):
        raise ConfigError(f"[{name}] must be a table")
    unknown = sorted(set(section) - allowed)
    if unknown:
        raise ConfigError(f"[{name}] has unknown keys {unknown}; allowed: {sorted(allowed)}")
    return section


def _priming(data: dict[str, Any]) -> PrimingConfig | None:
    """``[memory.priming]`` as a PrimingConfig: its ``preset`` (default ``controller_fallback``)
    with the other keys merged over it; None when the table is absent."""
    memory = _section(data, "memory", {"priming"})
    if "priming" not in memory:
        return None
    table = memory["priming"]
    if not isinstance(table, dict):
        raise ConfigError("[memory.priming] must be a table")
    settings = dict(table)
    preset = settings.pop("preset", "controller_fallback")
    if preset not in PRIMING_PRESETS:
        raise ConfigError(
            f"[memory.priming] preset {preset!r} is unknown; use one of {list(PRIMING_PRESETS)}"
        )
    base: PrimingConfig = getattr(PrimingConfig, preset)()
    try:
        return base.merged(settings)
    except ConfigError as exc:
        raise ConfigError(f"[memory.priming]: {exc}") from exc


def mask_dsn(dsn: str) -> str:
    """``postgresql://user:secret@host/db`` → ``postgresql://user:***@host/db``."""
    masked = re.sub(r"(://[^:/@]+:)[^@]*@", r"\1***@", dsn)
    return re.sub(r"(password=)\S+", r"\1***", masked)
