"""The validated base model every remem record derives from.

pydantic does the validation; this base turns its ``ValidationError`` into
:class:`remem.errors.InputError` so callers catch one exception tree, and freezes instances so a
record handed to a store cannot change underneath it.
"""

from __future__ import annotations

from typing import Any, Self, TypeVar

import pydantic

from remem.errors import InputError, RememError

M = TypeVar("M", bound=pydantic.BaseModel)


class Model(pydantic.BaseModel):
    """Frozen, strict-about-extras pydantic model raising :class:`InputError` on bad input."""

    model_config = pydantic.ConfigDict(frozen=True, extra="forbid", validate_default=True)

    def __init__(self, /, **data: Any) -> None:
        try:
            super().__init__(**data)
        except pydantic.ValidationError as exc:
            raise _error_class(exc)(
                f"invalid {type(self).__name__}: {_describe(exc)}; fix the named field"
            ) from exc

    @classmethod
    def model_validate(cls, obj: Any, *args: Any, **kwargs: Any) -> Self:
        try:
            return super().model_validate(obj, *args, **kwargs)
        except pydantic.ValidationError as exc:
            raise _error_class(exc)(f"invalid {cls.__name__}: {_describe(exc)}") from exc

    def replace(self, **changes: Any) -> Self:
        """A copy with ``changes`` applied and validated (``model_copy`` does not validate)."""
        return type(self)(**{**self.model_dump(), **changes})


def trusted(cls: type[M], values: dict[str, Any]) -> M:
    """An instance of ``cls`` holding ``values`` as they are: no validation, no copy.

    For data remem itself validated on the way in (a store's rows, a result the recall pipeline
    computed). With every field given it is ``model_construct`` minus its per-field alias and
    default handling (3x faster, which recall pays per candidate); otherwise it is
    ``model_construct``. ``values`` is adopted as the instance's ``__dict__``: pass a fresh dict.

        lifecycle = trusted(MemoryLifecycleMetadata, {"stage": ..., ...})  # every field
    """
    if values.keys() != cls.__pydantic_fields__.keys() or cls.__private_attributes__:
        return cls.model_construct(**values)
    m = cls.__new__(cls)
    _set = object.__setattr__
    _set(m, "__dict__", values)
    _set(m, "__pydantic_fields_set__", set(values))
    _set(m, "__pydantic_extra__", None)
    _set(m, "__pydantic_private__", None)
    return m


def _describe(exc: pydantic.ValidationError) -> str:
    parts = []
    for err in exc.errors()[:5]:
        where = ".".join(str(p) for p in err["loc"]) or "value"
        parts.append(f"{where}: {err['msg']}")
    more = len(exc.errors()) - 5
    if more > 0:
        parts.append(f"and {more} more")
    return "; ".join(parts)


def _error_class(exc: pydantic.ValidationError) -> type[RememError]:
    """The most specific remem error behind a validation failure (e.g. NaiveDatetimeError)."""
    for err in exc.errors():
        cause = (err.get("ctx") or {}).get("error")
        cause = cause.__cause__ if isinstance(cause, ValueError) else None
        if isinstance(cause, RememError):
            return type(cause)
    return InputError
