"""ServiceConfig: what a memory server serves, and the bounds it holds every request to.

Scoping: a request names a ``namespace`` (default: :attr:`ServiceConfig.namespace`, a scope of
:mod:`remem.scopes`). It scopes everything the request touches: the memories ``remember``
writes, the turns ``record_turn`` appends (to a session of that scope; another scope's session
answers as not found), what ``recall``, ``get_context``, ``list_sessions`` and
``get_transcript`` return (the scope is pushed into every index), what ``forget`` may delete (an
id outside the scope is "not found") and the core memory blocks. ``namespaces`` limits which
namespaces a server accepts at all (anything else is :class:`~remem.errors.UnknownScopeError`);
None accepts any valid name.
"""

from __future__ import annotations

from dataclasses import dataclass

from remem.errors import ConfigError, InvalidArgumentError, UnknownScopeError, shown
from remem.scopes import check_namespace

__all__ = ["MAX_NAMESPACE_CHARS", "ServiceConfig"]

MAX_NAMESPACE_CHARS = 200
"""The longest namespace a request may name."""

DEFAULT_MAX_K = 100
DEFAULT_MAX_BUDGET = 128_000
DEFAULT_MAX_TEXT_CHARS = 100_000
DEFAULT_MAX_TURNS = 1_000


@dataclass(frozen=True)
class ServiceConfig:
    """The operations layer's settings; validated on construction (ConfigError).

    ``max_k`` bounds ``recall``'s ``k``; ``max_budget`` the token budget of ``get_context``;
    ``max_text_chars`` any one text a request stores; ``max_turns`` a transcript page.
    """

    namespace: str = "default"
    namespaces: tuple[str, ...] | None = None
    max_k: int = DEFAULT_MAX_K
    max_budget: int = DEFAULT_MAX_BUDGET
    max_text_chars: int = DEFAULT_MAX_TEXT_CHARS
    max_turns: int = DEFAULT_MAX_TURNS

    def __post_init__(self) -> None:
        try:
            _check_name(self.namespace)
            if self.namespaces is not None:
                object.__setattr__(self, "namespaces", tuple(self.namespaces))
                for name in self.namespaces:
                    _check_name(name)
        except InvalidArgumentError as exc:
            raise ConfigError(f"ServiceConfig: {exc}") from exc
        if self.namespaces is not None and self.namespace not in self.namespaces:
            raise ConfigError(
                f"the default namespace {self.namespace!r} is not among the served namespaces "
                f"{list(self.namespaces)}; add it or choose another default"
            )
        for name in ("max_k", "max_budget", "max_text_chars", "max_turns"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ConfigError(f"ServiceConfig.{name} must be an int ≥ 1, got {shown(value)}")

    def scope(self, namespace: str | None) -> str:
        """The namespace a request runs in: ``namespace`` checked, or the default when None.

        InvalidArgumentError for a malformed name, UnknownScopeError for one not served."""
        if namespace is None:
            return self.namespace
        _check_name(namespace)
        if self.namespaces is not None and namespace not in self.namespaces:
            raise UnknownScopeError(
                f"namespace {shown(namespace)} is not served here; use one of "
                f"{', '.join(self.namespaces)} (or omit it for {self.namespace!r})"
            )
        return namespace


def _check_name(name: object) -> str:
    # The namespace rule is remem.scopes' (one home); the server only adds its tighter length
    # bound, which its REST query parameters also declare.
    check_namespace(name)
    assert isinstance(name, str)
    if len(name) > MAX_NAMESPACE_CHARS:
        raise InvalidArgumentError(
            f"namespace has {len(name)} characters; use at most {MAX_NAMESPACE_CHARS}"
        )
    return name
