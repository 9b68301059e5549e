"""LangGraph namespace tuples ↔ remem namespaces.

A LangGraph namespace ``("users", "ana", "memories")`` is stored in the remem namespace
``"lg:users/ana/memories"``: the prefix :data:`PREFIX`, then the labels joined by ``/``, each
label percent-encoded (``%`` → ``%25``, ``/`` → ``%2F``, and so on for anything outside
:data:`_SAFE` and the alphanumerics), so any tuple of non-empty strings round-trips exactly and
two different tuples never share a remem namespace. The tuple itself is also kept in each
item's metadata, which is what reads return.

    >>> to_remem(("users", "a/b"))
    'lg:users/a%2Fb'
    >>> from_remem("lg:users/a%2Fb")
    ('users', 'a/b')
"""

from __future__ import annotations

from urllib.parse import quote, unquote

from remem.errors import InvalidArgumentError

__all__ = ["MAX_REMEM_NAMESPACE_CHARS", "PREFIX", "from_remem", "to_remem"]

PREFIX = "lg:"
"""Marks a remem namespace as holding LangGraph items."""

MAX_REMEM_NAMESPACE_CHARS = 512
"""The longest namespace a memory record accepts (``remem.models.Identifier``)."""

_SEPARATOR = "/"
_SAFE = " -_.~!$&'()*+,;=:@"  # printable, readable, and never the separator or '%'


def to_remem(namespace: tuple[str, ...]) -> str:
    """The remem namespace of a (validated, non-empty) LangGraph namespace tuple."""
    encoded = PREFIX + _SEPARATOR.join(quote(label, safe=_SAFE) for label in namespace)
    if len(encoded) > MAX_REMEM_NAMESPACE_CHARS:
        raise InvalidArgumentError(
            f"namespace {namespace!r} encodes to {len(encoded)} characters; remem stores at "
            f"most {MAX_REMEM_NAMESPACE_CHARS} — use shorter or fewer labels"
        )
    return encoded


def from_remem(name: str) -> tuple[str, ...]:
    """The LangGraph namespace tuple stored as ``name`` (the inverse of :func:`to_remem`)."""
    if not name.startswith(PREFIX):
        raise InvalidArgumentError(f"{name!r} is not a LangGraph namespace (no {PREFIX!r})")
    return tuple(unquote(label) for label in name[len(PREFIX) :].split(_SEPARATOR))
