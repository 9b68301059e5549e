"""Scopes: which namespaces a read may see, and canonical namespace names from mem0-style ids.

A **scope is a namespace string** — the ``Identifier`` that ``MemoryRecord.namespace``, graph
entities, core blocks and transcript sessions carry (default ``"default"``). A read names the
scopes it may see as :data:`Namespaces`: one name, several names, or None. None means *every
scope*, which a single-scope runtime allows (today's calls keep working) and a multi-scope
runtime (``RuntimeConfig(scopes="multi")``) refuses with
:class:`~remem.errors.ScopeRequiredError`, because an unscoped read there would see every user's
memory.

Stores receive the normalised tuple and push it into their index (SQL ``WHERE``, the FTS join, a
posting mask, a vector ``where``), never filter after the top-k, so a scope of 1k memories among
100k is searched as fast as a store holding only it.

**Sessions.** A transcript session's namespace is immutable: it is fixed when the session is
created (by its first turn, or by a companion claiming it), no operation changes it, and a
multi-agent handoff moves memory records, never a session. So the per-process caches of
``session id -> namespace`` (the controller's turn log, the direct write port, the extraction
runner) cannot go stale: a second Runtime or process reads the stored value the first time it
meets the session, and two processes creating one session id in different scopes race on the
store's unique key — one wins, the other is refused and caches nothing
(``tests/scopes/test_session_scope_cache.py``). The one way around it is outside the public API:
deleting a session through the raw ``TranscriptStore.delete_session`` and re-creating the id in
another scope while another controller still has it cached; do not reuse a session id for
another scope.

Example::

    ns = scope_name(user="alice", agent="planner")       # 'user:alice/agent:planner'
    normalize_namespaces(ns)                              # ('user:alice/agent:planner',)
    normalize_namespaces(["a", "b", "a"])                 # ('a', 'b')
"""

from __future__ import annotations

from collections.abc import Sequence

from remem.errors import InvalidArgumentError, ScopeRequiredError, shown
from remem.models.text import check_text

__all__ = [
    "DEFAULT_NAMESPACE",
    "MAX_NAMESPACE_CHARS",
    "Namespaces",
    "check_namespace",
    "normalize_namespaces",
    "require_scope",
    "scope_name",
]

Namespaces = str | Sequence[str] | None
"""The scopes a read may see: one namespace, several, or None (every scope; single-scope only)."""

DEFAULT_NAMESPACE = "default"
"""The namespace of data written without one, and of every row migrated from before scopes."""

MAX_NAMESPACE_CHARS = 512
"""The longest namespace (the models' ``Identifier`` limit)."""


def check_namespace(value: object, *, field: str = "namespace") -> str:
    """``value`` if it can name a scope, else InvalidArgumentError naming it and what to pass.

    The one namespace rule, used by every entry point (controller reads and writes, the
    service, the companion, the multi-agent controller): a str of 1..512 characters
    (the models' ``Identifier``) that is not blank — empty or whitespace-only names are
    refused, since ``"  "`` would be a scope no one can tell from ``" "`` or from a typo — and
    holds no NUL or lone surrogate. A name is used exactly as given (never stripped), so
    ``" alice"`` and ``"alice"`` stay two scopes."""
    if not isinstance(value, str):
        raise InvalidArgumentError(
            f"{field} must be a str naming a scope, got {shown(value)}; "
            "pass e.g. 'default' or scope_name(user='alice')"
        )
    if not value.strip():
        raise InvalidArgumentError(
            f"{field} {shown(value)} is empty or blank; pass a non-empty name with a visible "
            "character, e.g. 'default' or scope_name(user='alice')"
        )
    if len(value) > MAX_NAMESPACE_CHARS:
        raise InvalidArgumentError(
            f"{field} has {len(value)} characters; use at most {MAX_NAMESPACE_CHARS}"
        )
    return check_text(value, field=field)


def normalize_namespaces(namespace: object) -> tuple[str, ...] | None:
    """The scopes of a read as a deduplicated tuple in first-seen order; None stays None.

    A bare str is one scope; an empty sequence (which would see nothing, almost surely a bug)
    and an invalid name raise InvalidArgumentError."""
    if namespace is None:
        return None
    if isinstance(namespace, str):
        return (check_namespace(namespace),)
    if isinstance(namespace, bytes) or not isinstance(namespace, Sequence | set | frozenset):
        raise InvalidArgumentError(
            f"namespace must be a str, a list of str or None, got {shown(namespace)}"
        )
    names = list(namespace)
    if not names:
        raise InvalidArgumentError(
            "namespace is an empty list, which would see nothing; pass at least one namespace"
        )
    out: dict[str, None] = {}
    for i, name in enumerate(names):
        out[check_namespace(name, field=f"namespace[{i}]")] = None
    return tuple(out)


def require_scope(namespaces: tuple[str, ...] | None, *, multi: bool, action: str) -> None:
    """ScopeRequiredError when a multi-scope runtime gets an unscoped ``action``."""
    if multi and namespaces is None:
        raise ScopeRequiredError(
            f"this runtime holds several scopes; pass namespace=... to {action} "
            "(e.g. namespace=scope_name(user='alice'))"
        )


def _escape(part: object, field: str) -> str:
    if not isinstance(part, str) or not part:
        raise InvalidArgumentError(f"{field} must be a non-empty str, got {shown(part)}")
    check_text(part, field=field)
    # '%' first, so an escaped '/' or ':' can never be read back as a literal one.
    return part.replace("%", "%25").replace("/", "%2F").replace(":", "%3A")


def scope_name(*, user: str | None = None, agent: str | None = None, run: str | None = None) -> str:
    """The canonical namespace of a mem0-style (user, agent, run) triple.

    The parts given are joined in the fixed order user, agent, run as ``kind:value`` separated
    by ``/`` — ``scope_name(user="alice", agent="planner")`` is ``'user:alice/agent:planner'``.
    ``%``, ``/`` and ``:`` inside a value are percent-escaped (``%25``, ``%2F``, ``%3A``), so two
    different triples never give the same name (the mapping is injective and reversible).
    At least one part is required; the result must fit a namespace (512 characters)."""
    parts = [
        f"{kind}:{_escape(value, kind)}"
        for kind, value in (("user", user), ("agent", agent), ("run", run))
        if value is not None
    ]
    if not parts:
        raise InvalidArgumentError(
            "scope_name needs at least one of user=, agent=, run=; e.g. scope_name(user='alice')"
        )
    return check_namespace("/".join(parts))
