"""The controller's scope rule at its entry points: which scopes a call names, and whether it
may name none.

A read names one scope, several, or None for all; a turn write names its session's scope or
None (the store's default). In a multi-scope controller (``ControllerConfig(scopes="multi")``)
naming none is refused with :class:`~remem.errors.ScopeRequiredError` before anything is read
or written (:func:`remem.scopes.require_scope`). Memory writes (``remember``) always name a
scope (default ``"default"``), checked by :func:`memory_scope`.

Every name is checked by :func:`remem.scopes.check_namespace`, the one namespace rule (a blank
or whitespace-only name is refused here exactly as the service refuses it).
"""

from __future__ import annotations

from remem.controller.config import ControllerConfig
from remem.scopes import Namespaces, check_namespace, normalize_namespaces, require_scope


def is_multi(config: ControllerConfig) -> bool:
    """Whether ``config`` is a multi-scope controller's (every read and turn write names one)."""
    return config.scopes == "multi"


def read_scopes(
    config: ControllerConfig, namespace: Namespaces, action: str
) -> tuple[str, ...] | None:
    """The scopes a read of ``action`` sees (None: every scope, single-scope controllers only)."""
    scopes = normalize_namespaces(namespace)
    require_scope(scopes, multi=is_multi(config), action=action)
    return scopes


def write_scope(config: ControllerConfig, namespace: str | None, action: str) -> str | None:
    """The checked scope a turn write of ``action`` goes to (None: the store's default,
    single-scope controllers only)."""
    if namespace is None:
        require_scope(None, multi=is_multi(config), action=action)
        return None
    return check_namespace(namespace)


def memory_scope(namespace: object) -> str:
    """The checked scope a memory write goes to (every memory names one)."""
    return check_namespace(namespace)
