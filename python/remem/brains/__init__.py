"""Brains: language models behind one small protocol, so memory code never sees a provider.

- :class:`Brain` — the protocol: ``await brain.complete(messages, tools=..., ...)``, and
  ``brain.stream(messages)``: a :class:`DeltaStream` of text deltas, then the Completion.
- :class:`Message`, :class:`ToolSpec`, :class:`ToolCall`, :class:`Completion`, :class:`Usage` —
  the provider-neutral conversation types.
- :class:`OpenAICompatibleBrain` — OpenAI, Groq, Ollama, vLLM, the llama.cpp server.
- :class:`AnthropicBrain` — the Anthropic Messages API.
- :class:`GeminiBrain` — Google's Gemini ``generateContent`` API.
- :func:`brain_from_spec` — the brain a ``PROVIDER:MODEL`` spec names (``gemini:gemini-2.0-flash``).
- :class:`ScriptedBrain` — deterministic and offline (scripts and rules) for tests and demos.

Swap one for another without touching memory::

    brain: Brain = AnthropicBrain(model="claude-sonnet-4-5")
    brain = OpenAICompatibleBrain("https://api.groq.com/openai/v1", "llama-3.3-70b-versatile",
                                  api_key_env="GROQ_API_KEY")
    brain = ScriptedBrain(rules=[(r"name is (\\w+)", r"Hello, \\1!")])
"""

from __future__ import annotations

from remem.brains.anthropic import ANTHROPIC_VERSION, AnthropicBrain
from remem.brains.gemini import GeminiBrain
from remem.brains.messages import (
    Completion,
    FinishReason,
    Message,
    Role,
    ToolCall,
    ToolSpec,
    Usage,
)
from remem.brains.openai_compatible import OpenAICompatibleBrain
from remem.brains.protocol import DEFAULT_MAX_TOKENS, DEFAULT_TEMPERATURE, Brain, ToolChoice
from remem.brains.registry import PROVIDERS, brain_from_spec, parse_spec
from remem.brains.scripted import BrainRequest, Reply, Rule, ScriptedBrain
from remem.brains.stream import DeltaStream, Done, ReplyStream

__all__ = [
    "ANTHROPIC_VERSION",
    "DEFAULT_MAX_TOKENS",
    "DEFAULT_TEMPERATURE",
    "PROVIDERS",
    "AnthropicBrain",
    "Brain",
    "BrainRequest",
    "Completion",
    "DeltaStream",
    "Done",
    "FinishReason",
    "GeminiBrain",
    "Message",
    "OpenAICompatibleBrain",
    "Reply",
    "ReplyStream",
    "Role",
    "Rule",
    "ScriptedBrain",
    "ToolCall",
    "ToolChoice",
    "ToolSpec",
    "Usage",
    "brain_from_spec",
    "parse_spec",
]
