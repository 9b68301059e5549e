"""ServerSettings: how a memory server is started — from command-line flags, a TOML file, env.

The TOML file is the Runtime's (:mod:`remem.runtime_config`) with one more section, read here
and removed before the Runtime sees the rest::

    [server]
    host = "127.0.0.1"        # a non-loopback host needs a token (remem.service.auth)
    port = 8765
    token = "..."             # or the environment variable REMEM_SERVER_TOKEN (which wins)
    namespace = "default"     # the namespace of a request that names none
    namespaces = ["ana", "bob"]   # the only namespaces served (absent: any)
    max_body_bytes = 1048576  # REST requests larger than this get 413
    extract = "rules"         # recorded turns become facts by the offline RuleExtractor; "off"

With ``extract = "rules"`` (the default) every turn recorded through ``record_turn`` is turned
into keyed facts as the companion's are (``remem.extraction.RuleExtractor``), so a new value
supersedes the old one and ``get_context`` marks the old one earlier; ``"off"`` keeps the
transcripts and the memories written by ``remember`` only.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from remem.errors import ConfigError, shown
from remem.extraction import RuleExtractor
from remem.runtime import Runtime
from remem.runtime_config import RuntimeConfig
from remem.service.auth import TOKEN_ENV, check_binding
from remem.service.config import ServiceConfig

__all__ = ["DEFAULT_MAX_BODY_BYTES", "DEFAULT_PORT", "EXTRACT", "ServerSettings"]

DEFAULT_PORT = 8765
DEFAULT_MAX_BODY_BYTES = 1 << 20
"""1 MiB: ten times the longest text a request may store (ServiceConfig.max_text_chars)."""

_KEYS = {"host", "port", "token", "namespace", "namespaces", "max_body_bytes", "extract"}
EXTRACT = ("rules", "off")
"""What ``[server] extract`` may say: the offline rule extractor, or no extraction."""


@dataclass(frozen=True)
class ServerSettings:
    """A server's runtime, service and network settings; ``check()`` before binding."""

    runtime: RuntimeConfig
    service: ServiceConfig = field(default_factory=ServiceConfig)
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    token: str | None = field(default=None, repr=False)
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    extract: str = "rules"

    def __post_init__(self) -> None:
        if self.extract not in EXTRACT:
            raise ConfigError(
                f"extract must be one of {', '.join(map(repr, EXTRACT))}, got {shown(self.extract)}"
            )
        if isinstance(self.port, bool) or not isinstance(self.port, int):
            raise ConfigError(f"port must be an int, got {shown(self.port)}")
        if not 0 <= self.port <= 65535:
            raise ConfigError(f"port must be in 0..65535, got {self.port}")
        if not isinstance(self.max_body_bytes, int) or self.max_body_bytes < 1024:
            raise ConfigError(f"max_body_bytes must be ≥ 1024, got {shown(self.max_body_bytes)}")
        check_binding(self.host, self.token)

    @classmethod
    def load(
        cls,
        *,
        path: Path | None = None,
        config_file: Path | None = None,
        host: str | None = None,
        port: int | None = None,
        namespace: str | None = None,
        namespaces: tuple[str, ...] | None = None,
        embeddings: str | None = None,
        environ: dict[str, str] | None = None,
        default_port: int = DEFAULT_PORT,
    ) -> ServerSettings:
        """Flags win over the file's ``[server]`` section; ``$REMEM_SERVER_TOKEN`` over its
        ``token``; ``path`` over the file's ``path``."""
        env = os.environ if environ is None else environ
        data: dict[str, Any] = {}
        if config_file is not None:
            try:
                data = tomllib.loads(Path(config_file).read_text(encoding="utf-8"))
            except (OSError, tomllib.TOMLDecodeError) as exc:
                raise ConfigError(f"cannot read the config file {config_file}: {exc}") from exc
        server = data.pop("server", {})
        if not isinstance(server, dict) or set(server) - _KEYS:
            raise ConfigError(
                f"[server] takes only {sorted(_KEYS)}; got {shown(server)} in {config_file}"
            )
        overrides: dict[str, Any] = {}
        if path is not None:
            overrides["path"] = path
        if embeddings is not None:
            overrides["embedding_provider"] = embeddings
        runtime = RuntimeConfig.from_mapping(data, **overrides)
        served = namespaces if namespaces is not None else server.get("namespaces")
        service = ServiceConfig(
            namespace=namespace or server.get("namespace") or (served[0] if served else "default"),
            namespaces=None if served is None else tuple(served),
        )
        return cls(
            runtime=runtime,
            service=service,
            host=host or server.get("host", "127.0.0.1"),
            port=port if port is not None else server.get("port", default_port),
            token=env.get(TOKEN_ENV) or server.get("token"),
            max_body_bytes=server.get("max_body_bytes", DEFAULT_MAX_BODY_BYTES),
            extract=server.get("extract", "rules"),
        )

    def open_runtime(self) -> Runtime:
        """The Runtime these settings serve, with the extractor ``extract`` names."""
        return Runtime(self.runtime, extractor=RuleExtractor() if self.extract == "rules" else None)
