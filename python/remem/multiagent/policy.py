"""Who may read which scope and who may write the shared one: plain in-process values.

These policies are **not authentication**. They are objects in the caller's process that the
:class:`~remem.multiagent.MultiAgentMemoryController` consults; any code holding the controller
(or the underlying :class:`~remem.controller.MemoryController`) can read every scope. Use them to
keep cooperating agents of one application from seeing each other's working notes by mistake,
never as a multi-tenant authorisation system between mutually distrusting users.

Scope names: each agent's private scope is ``agent:<agent id>`` (:func:`private_scope`). Agent
ids are non-empty identifiers, so the mapping is one-to-one, and a shared scope name may not
start with ``agent:`` (refused when the controller is built), so a private scope never collides
with the shared one or with another agent's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from remem.errors import InvalidArgumentError, shown
from remem.models.text import check_text

__all__ = [
    "PRIVATE_SCOPE_PREFIX",
    "SharedWritePolicy",
    "VisibilityPolicy",
    "check_agent_id",
    "private_scope",
]

PRIVATE_SCOPE_PREFIX = "agent:"
"""Every private scope starts with this; a shared scope name may not."""

_MAX_AGENT_ID = 512 - len(PRIVATE_SCOPE_PREFIX)  # the namespace is an Identifier (≤ 512 chars)


def check_agent_id(agent_id: object) -> str:
    """Return ``agent_id`` if it can name an agent, else raise InvalidArgumentError (blank ids
    are refused like blank namespaces, :func:`remem.scopes.check_namespace`)."""
    if not isinstance(agent_id, str) or not agent_id.strip() or len(agent_id) > _MAX_AGENT_ID:
        raise InvalidArgumentError(
            f"an agent id must be a non-blank string of at most {_MAX_AGENT_ID} characters, "
            f"got {shown(agent_id)}; pass e.g. 'planner'"
        )
    return check_text(agent_id, field="agent id")


def private_scope(agent_id: str) -> str:
    """The namespace holding ``agent_id``'s private memories: ``agent:<agent_id>``."""
    return PRIVATE_SCOPE_PREFIX + check_agent_id(agent_id)


@dataclass(frozen=True, slots=True)
class VisibilityPolicy:
    """What each agent may read besides its own private scope and the shared scope.

    ``grants`` maps a reader's id to the ids of agents whose private scope it may also read. An
    agent always reads its own private scope and the shared scope; nothing else unless granted.
    The policy is a value: :meth:`granting` / :meth:`revoking` return a new one.
    """

    grants: Mapping[str, frozenset[str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.grants, Mapping):
            raise InvalidArgumentError(
                f"grants must map reader ids to owner ids, got {type(self.grants).__name__}"
            )
        clean: dict[str, frozenset[str]] = {}
        for reader, owners in self.grants.items():
            if isinstance(owners, str) or not isinstance(owners, Iterable):
                raise InvalidArgumentError(
                    f"grants[{shown(reader)}] must be a set of agent ids, got {shown(owners)}"
                )
            clean[check_agent_id(reader)] = frozenset(check_agent_id(o) for o in owners)
        object.__setattr__(self, "grants", clean)

    def may_read(self, reader: str, owner: str) -> bool:
        """Whether ``reader`` may read ``owner``'s private scope."""
        return reader == owner or owner in self.grants.get(reader, frozenset())

    def owners_readable_by(self, reader: str) -> frozenset[str]:
        """The agents whose private scope ``reader`` may read (itself included)."""
        return self.grants.get(reader, frozenset()) | {reader}

    def granting(self, reader: str, owner: str) -> VisibilityPolicy:
        """This policy plus: ``reader`` may read ``owner``'s private scope."""
        grants = dict(self.grants)
        grants[reader] = grants.get(reader, frozenset()) | {owner}
        return VisibilityPolicy(grants)

    def revoking(self, reader: str, owner: str) -> VisibilityPolicy:
        """This policy without the grant of ``owner``'s private scope to ``reader``."""
        grants = dict(self.grants)
        left = grants.get(reader, frozenset()) - {owner}
        if left:
            grants[reader] = left
        else:
            grants.pop(reader, None)  # no empty entries: equal policies compare equal
        return VisibilityPolicy(grants)


@dataclass(frozen=True, slots=True)
class SharedWritePolicy:
    """Who may write the shared scope.

    ``writers`` is ``"any"`` (every registered agent), ``"none"`` (nobody: the shared scope is
    read-only through the multi-agent controller) or a set of agent ids (an allow-list). A
    permitted write — ``remember(..., shared=True)`` or a :meth:`handoff` — lands in the shared
    scope at once; there is no pending-proposal queue: an agent that should not publish directly
    writes privately and another component that holds the allow-list hands off (see the
    README's multi-agent section).

    Example::

        SharedWritePolicy.only("planner")    # only the planner publishes
        SharedWritePolicy.anyone()           # the default
    """

    writers: Literal["any", "none"] | frozenset[str] = "any"

    def __post_init__(self) -> None:
        if self.writers in ("any", "none"):
            return
        if isinstance(self.writers, str) or not isinstance(self.writers, Iterable):
            raise InvalidArgumentError(
                f"writers must be 'any', 'none' or a set of agent ids, got {shown(self.writers)}"
            )
        object.__setattr__(self, "writers", frozenset(check_agent_id(w) for w in self.writers))

    @classmethod
    def anyone(cls) -> SharedWritePolicy:
        """Every registered agent may write the shared scope."""
        return cls("any")

    @classmethod
    def nobody(cls) -> SharedWritePolicy:
        """No agent may write the shared scope (handoffs included)."""
        return cls("none")

    @classmethod
    def only(cls, *agent_ids: str) -> SharedWritePolicy:
        """Only ``agent_ids`` may write the shared scope."""
        return cls(frozenset(agent_ids))

    def may_write(self, agent_id: str) -> bool:
        """Whether ``agent_id`` may write the shared scope."""
        if self.writers == "any":
            return True
        if self.writers == "none":
            return False
        return agent_id in self.writers
