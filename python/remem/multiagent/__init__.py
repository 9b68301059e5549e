"""Multi-agent memory: private scopes, one shared scope, explicit handoffs, provenance.

Opt-in composition around a :class:`~remem.controller.MemoryController`
(:class:`MultiAgentMemoryController`); the policies are in-process objects, not authentication.
:class:`ProvenanceMetadata` is the record model's own (re-exported here): the wrapper fills it on
every memory it writes.
"""

from __future__ import annotations

from remem.errors import PolicyViolationError
from remem.models import ProvenanceMetadata
from remem.multiagent.controller import MultiAgentMemoryController
from remem.multiagent.policy import (
    PRIVATE_SCOPE_PREFIX,
    SharedWritePolicy,
    VisibilityPolicy,
    private_scope,
)

__all__ = [
    "PRIVATE_SCOPE_PREFIX",
    "MultiAgentMemoryController",
    "PolicyViolationError",
    "ProvenanceMetadata",
    "SharedWritePolicy",
    "VisibilityPolicy",
    "private_scope",
]
