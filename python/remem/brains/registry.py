"""``PROVIDER:MODEL`` specs: the brain a CLI flag or a config file names.

Providers: ``anthropic``, ``gemini``, ``openai``, ``groq``, ``openrouter``, ``together``,
``ollama`` (local, no key) and ``openai-compatible`` (its base URL from ``base_url`` or
``REMEM_OPENAI_COMPATIBLE_URL``: vLLM, llama.cpp server, LM Studio). Keys come from the
provider's usual environment variable (:data:`PROVIDERS`); ``base_url`` points any provider at
another server (a proxy, a local stub).

    brain = brain_from_spec("gemini:gemini-2.0-flash")
"""

from __future__ import annotations

import os

from remem.brains.anthropic import AnthropicBrain
from remem.brains.gemini import GeminiBrain
from remem.brains.openai_compatible import OpenAICompatibleBrain
from remem.brains.protocol import Brain
from remem.errors import ConfigError

__all__ = ["OPENAI_COMPATIBLE", "PROVIDERS", "brain_from_spec", "parse_spec"]

OPENAI_COMPATIBLE: dict[str, tuple[str, str | None]] = {
    "openai": ("https://api.openai.com/v1", "OPENAI_API_KEY"),
    "groq": ("https://api.groq.com/openai/v1", "GROQ_API_KEY"),
    "openrouter": ("https://openrouter.ai/api/v1", "OPENROUTER_API_KEY"),
    "together": ("https://api.together.xyz/v1", "TOGETHER_API_KEY"),
    "ollama": ("http://localhost:11434/v1", None),
}
"""OpenAI-compatible providers: (base URL, API key variable)."""

PROVIDERS: tuple[str, ...] = tuple(
    sorted([*OPENAI_COMPATIBLE, "anthropic", "gemini", "openai-compatible"])
)
"""Every provider name a spec may start with."""


def parse_spec(spec: str) -> tuple[str, str]:
    """``(provider, model)`` of ``PROVIDER:MODEL``; ConfigError for a malformed spec or an
    unknown provider."""
    if not isinstance(spec, str):
        raise ConfigError(f"a brain spec is a PROVIDER:MODEL string, got {type(spec).__name__}")
    provider, sep, model = spec.partition(":")
    provider, model = provider.strip().lower(), model.strip()
    if not sep or not provider or not model:
        raise ConfigError(
            f"brain spec {spec!r} must be PROVIDER:MODEL, e.g. gemini:gemini-2.0-flash"
        )
    if provider not in PROVIDERS:
        raise ConfigError(f"unknown brain provider {provider!r}; use one of {', '.join(PROVIDERS)}")
    return provider, model


def brain_from_spec(spec: str, *, base_url: str | None = None) -> Brain:
    """The brain ``spec`` names (module docstring); ``base_url`` overrides the provider's."""
    provider, model = parse_spec(spec)
    if provider == "anthropic":
        return AnthropicBrain(base_url or "https://api.anthropic.com/v1", model)
    if provider == "gemini":
        return GeminiBrain(base_url or "https://generativelanguage.googleapis.com/v1beta", model)
    if provider == "openai-compatible":
        url = base_url or os.environ.get("REMEM_OPENAI_COMPATIBLE_URL")
        if not url:
            raise ConfigError(
                "openai-compatible needs the server's base URL: set REMEM_OPENAI_COMPATIBLE_URL "
                "or [brain] base_url in the config file"
            )
        return OpenAICompatibleBrain(url, model, api_key_env=None)
    url, key = OPENAI_COMPATIBLE[provider]
    return OpenAICompatibleBrain(base_url or url, model, api_key_env=key)
