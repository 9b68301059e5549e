"""Every exception remem raises. All derive from :class:`RememError`.

The tree::

    RememError
    ├── ConfigError                (ValueError)   invalid configuration; fix the value named
    ├── InputError                 (ValueError)   invalid input to a kernel or an API call
    │   ├── DTypeError                            wrong numpy dtype (expected vs actual)
    │   ├── LayoutError                           array not C-contiguous
    │   ├── ShapeError                            length or dimension mismatch
    │   ├── NonFiniteError                        NaN or infinity where not allowed
    │   ├── InvalidArgumentError                  value out of range, unknown option
    │   │   └── ScopeRequiredError                an unscoped read/write in a multi-scope runtime
    │   ├── NaiveDatetimeError                    a datetime without a timezone
    │   ├── UnknownScopeError                     a namespace the server was not set to serve
    │   └── DatasetError                          a benchmark data file is malformed (file + field)
    ├── BudgetError                (ValueError)   must-keep items exceed the token budget
    ├── PolicyViolationError                      a multi-agent read or write the policy refuses
    ├── UnknownEncodingError       (ValueError)   tokenizer encoding not built in
    ├── NativeError                (RuntimeError) a bug inside the native core (never user input)
    ├── EmbeddingError                            an embedding provider failed or answered badly
    ├── BrainError                                a language-model provider failed or answered badly
    │   └── ToolArgumentsError                    a tool call's arguments are not a JSON object
    ├── ExtractionError                           turning turns into memories failed
    │   └── ExtractionRejectedError               the model's output stayed invalid after repair
    ├── LifecycleError                            lifecycle maintenance refused or failed
    │   └── StalePlanError                        records changed since the plan was previewed
    ├── BlockError                                a core memory block refused an edit; unchanged
    │   ├── BlockFullError                        the edit would exceed the block's char limit
    │   ├── EntryNotFoundError                    no entry contains the given substring
    │   ├── AmbiguousEditError                    the substring matches several entries
    │   ├── DuplicateEntryError                   the entry (nearly) repeats an existing one
    │   └── BlockConflictError                    the stored block changed since it was loaded
    └── StoreError                                a store refused or failed an operation
        ├── StoreClosedError                      used after aclose()
        ├── DuplicateIdError                      an id that already exists; nothing changed
        ├── NotFoundError          (KeyError)     unknown id, session or collection
        ├── DimensionMismatchError                vector of another dimension than the collection's
        ├── EmbeddingModelMismatchError           collection opened with another embedding model
        ├── IntegrityError                        stored data failed a consistency check
        ├── PendingWritesError                    accepted writes not yet applied; kept, retried
        └── BackendError                          the database or index library itself failed

Native kernels raise these same classes (see ``rust/src/py/errors.rs``), so one ``except`` clause
covers both layers. Messages say what was wrong and what to do next; :func:`shown` renders the bad
value in them (bounded, so a 10 MB string or a deeply nested list cannot flood or break a message).
``tests/hostile`` holds the contract: every public entry point, driven with wrong types, lone
surrogates, NaN/inf/huge numbers and deep nesting, lets only these escape.
"""

from __future__ import annotations

import reprlib

__all__ = [
    "AmbiguousEditError",
    "BackendError",
    "BlockConflictError",
    "BlockError",
    "BlockFullError",
    "BrainError",
    "BudgetError",
    "ConfigError",
    "DTypeError",
    "DatasetError",
    "DimensionMismatchError",
    "DuplicateEntryError",
    "DuplicateIdError",
    "EmbeddingError",
    "EmbeddingModelMismatchError",
    "EntryNotFoundError",
    "ExtractionError",
    "ExtractionRejectedError",
    "InputError",
    "IntegrityError",
    "InvalidArgumentError",
    "LayoutError",
    "LifecycleError",
    "NaiveDatetimeError",
    "NativeError",
    "NonFiniteError",
    "NotFoundError",
    "PendingWritesError",
    "PolicyViolationError",
    "RememError",
    "ScopeRequiredError",
    "ShapeError",
    "StalePlanError",
    "StoreClosedError",
    "StoreError",
    "ToolArgumentsError",
    "UnknownEncodingError",
    "UnknownScopeError",
]


class RememError(Exception):
    """Base class of every error remem raises."""


class ConfigError(RememError, ValueError):
    """A configuration value is invalid; the message names the field and its valid range."""


class InputError(RememError, ValueError):
    """Invalid input to a kernel or an API call."""


class DTypeError(InputError):
    """An array has the wrong dtype."""


class LayoutError(InputError):
    """An array is not C-contiguous."""


class ShapeError(InputError):
    """Lengths or dimensions do not match."""


class NonFiniteError(InputError):
    """A NaN or infinity where only finite values are allowed."""


class InvalidArgumentError(InputError):
    """A value is out of range or an option is unknown."""


class NaiveDatetimeError(InputError):
    """A datetime has no timezone; remem compares instants and needs aware datetimes."""


class UnknownScopeError(InputError):
    """A request names a namespace the server does not serve (``remem serve --namespace``)."""


class ScopeRequiredError(InvalidArgumentError):
    """A read or write names no namespace in a runtime that holds several scopes
    (``RuntimeConfig(scopes="multi")``): without one it would see or write every user's memory."""


class DatasetError(InputError):
    """A benchmark data file (e.g. LoCoMo JSON) is malformed; the message names file and field."""


class BudgetError(RememError, ValueError):
    """Items that must be kept cost more than the budget allows."""


class PolicyViolationError(RememError):
    """The multi-agent policy refuses a read or a write (an unregistered agent, a scope it may not
    read, a shared write it may not make); nothing was read or written. The policy is an
    in-process object, not authentication."""


class UnknownEncodingError(RememError, ValueError):
    """A tokenizer encoding that is not built in."""


class NativeError(RememError, RuntimeError):
    """A bug in the native core. User input never causes this; please report it."""


class EmbeddingError(RememError):
    """An embedding provider failed or returned an invalid response; the message names it."""


class BrainError(RememError):
    """A language-model provider failed or returned an invalid response; the message names it."""


class ToolArgumentsError(BrainError):
    """A model's tool call carried arguments that are not a JSON object; the message names the
    provider and the tool."""


class ExtractionError(RememError):
    """Extracting memories from turns failed; the turns stay in the transcript and can be
    extracted again (the controller records the failure with their ids)."""


class ExtractionRejectedError(ExtractionError):
    """The model's extraction output was invalid and its repair was invalid too; nothing from it
    was stored.

    Attributes: ``reason`` (the last validation error), ``raw`` (an excerpt of the last output,
    at most 500 characters) and ``attempts`` (model calls made).
    """

    def __init__(self, message: str, *, reason: str, raw: str, attempts: int) -> None:
        super().__init__(message)
        self.reason = reason
        self.raw = raw
        self.attempts = attempts


class LifecycleError(RememError):
    """Lifecycle maintenance refused or failed an operation."""


class StalePlanError(LifecycleError):
    """A lifecycle plan no longer matches the records it would change; nothing was changed."""


class BlockError(RememError):
    """A core memory block refused an edit; the block is unchanged.

    The message is written for the model that made the edit (it is sent back as the tool
    result), so it says what to do next and, where it helps, shows the block's contents.
    """


class BlockFullError(BlockError):
    """An edit would push a block past its character limit; merge or drop entries, then retry.

    Attributes: ``label``, ``entries`` (the block's current entries), ``used``, ``limit`` and
    ``attempted`` (the size the edit would have produced). The message carries the full block.
    """

    def __init__(
        self,
        message: str,
        *,
        label: str,
        entries: tuple[str, ...],
        used: int,
        limit: int,
        attempted: int,
    ) -> None:
        super().__init__(message)
        self.label = label
        self.entries = entries
        self.used = used
        self.limit = limit
        self.attempted = attempted


class EntryNotFoundError(BlockError):
    """No entry of the block contains the substring an edit named."""


class AmbiguousEditError(BlockError):
    """The substring an edit named occurs in several entries; ``candidates`` lists them."""

    def __init__(self, message: str, *, candidates: tuple[str, ...]) -> None:
        super().__init__(message)
        self.candidates = candidates


class DuplicateEntryError(BlockError):
    """The new entry repeats (exactly or nearly) an existing one, named in ``existing``."""

    def __init__(self, message: str, *, existing: str) -> None:
        super().__init__(message)
        self.existing = existing


class BlockConflictError(BlockError):
    """The stored block changed since it was loaded (another writer); reload and retry."""


class StoreError(RememError):
    """A store refused or failed an operation."""


class StoreClosedError(StoreError):
    """The store was used after ``aclose()``."""


class DuplicateIdError(StoreError):
    """An id that already exists was written again; nothing was changed."""


class NotFoundError(StoreError, KeyError):
    """An unknown id, session or collection."""

    def __str__(self) -> str:
        # KeyError.__str__ quotes its argument; keep the message readable.
        return str(self.args[0]) if self.args else ""


class DimensionMismatchError(StoreError):
    """A vector's dimension differs from its collection's."""


class EmbeddingModelMismatchError(StoreError):
    """A collection was opened with another embedding model than it was built with."""


class IntegrityError(StoreError):
    """Stored data failed a consistency check."""


class PendingWritesError(StoreError):
    """Accepted (journaled) writes could not be applied to the stores yet; they are kept and
    retried (see :mod:`remem.writebehind`)."""


class BackendError(StoreError):
    """The underlying database or index library failed; the original error is chained."""


_REPR = reprlib.Repr()  # keyword arguments need Python 3.12
_REPR.maxlevel, _REPR.maxstring, _REPR.maxother = 3, 60, 60
_REPR.maxlist = _REPR.maxdict = _REPR.maxtuple = _REPR.maxset = 4


def shown(value: object) -> str:
    """A short, bounded ``repr`` of a bad value for an error message: safe on huge strings and
    on deeply nested or self-referencing containers (a plain ``repr`` would recurse)."""
    try:
        return _REPR.repr(value)
    except Exception:  # a broken __repr__ must not hide the real error
        return f"<{type(value).__name__}>"
