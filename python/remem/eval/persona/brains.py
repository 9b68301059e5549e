"""``PROVIDER:MODEL`` specs for the CLI's ``--brain`` and ``--judge`` options.

Providers: ``openai``, ``anthropic``, ``groq``, ``openrouter``, ``together``, ``ollama`` (local,
no key) and ``openai-compatible`` with ``REMEM_OPENAI_COMPATIBLE_URL`` naming the base URL (vLLM,
llama.cpp server, LM Studio). Keys come from the provider's usual environment variable.

    brain = brain_from_spec("anthropic:claude-sonnet-4-5")
"""

from __future__ import annotations

import os

from remem.brains import AnthropicBrain, Brain, OpenAICompatibleBrain
from remem.errors import ConfigError

__all__ = ["PROVIDERS", "brain_from_spec"]

PROVIDERS: dict[str, tuple[str, str | None]] = {
    "openai": ("https://api.openai.com/v1", "OPENAI_API_KEY"),
    "groq": ("https://api.groq.com/openai/v1", "GROQ_API_KEY"),
    "openrouter": ("https://openrouter.ai/api/v1", "OPENROUTER_API_KEY"),
    "together": ("https://api.together.xyz/v1", "TOGETHER_API_KEY"),
    "ollama": ("http://localhost:11434/v1", None),
}
"""OpenAI-compatible providers: (base URL, API key variable)."""


def brain_from_spec(spec: str) -> Brain:
    """The brain a ``PROVIDER:MODEL`` spec names (see module docstring)."""
    provider, sep, model = spec.partition(":")
    provider = provider.strip().lower()
    if not sep or not model.strip():
        raise ConfigError(f"brain spec {spec!r} must be PROVIDER:MODEL, e.g. openai:gpt-4o-mini")
    model = model.strip()
    if provider == "anthropic":
        return AnthropicBrain(model=model)
    if provider == "openai-compatible":
        url = os.environ.get("REMEM_OPENAI_COMPATIBLE_URL")
        if not url:
            raise ConfigError(
                "openai-compatible needs REMEM_OPENAI_COMPATIBLE_URL set to the server's base URL"
            )
        return OpenAICompatibleBrain(url, model, api_key_env=None)
    if provider in PROVIDERS:
        url, key = PROVIDERS[provider]
        return OpenAICompatibleBrain(url, model, api_key_env=key)
    known = ", ".join(sorted([*PROVIDERS, "anthropic", "openai-compatible"]))
    raise ConfigError(f"unknown brain provider {provider!r}; use one of {known}")
