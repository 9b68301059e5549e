"""The variants ``remem eval --variants`` knows, by name.

``raw-recall`` is the naive baseline (:class:`~remem.eval.persona.baseline.RawRecallBaseline`);
the others are :mod:`remem.companion` variants.

    variants = resolve_variants(["raw-recall"])
"""

from __future__ import annotations

from collections.abc import Sequence

from remem.errors import ConfigError
from remem.eval.persona.baseline import RawRecallBaseline
from remem.eval.persona.protocol import Variant

__all__ = ["DEFAULT_VARIANTS", "QUICK_VARIANTS", "available_variants", "resolve_variants"]

DEFAULT_VARIANTS: tuple[str, ...] = ("raw-recall",)
QUICK_VARIANTS: tuple[str, ...] = ("raw-recall",)


def available_variants() -> dict[str, Variant]:
    return {
        "raw-recall": Variant(
            "raw-recall",
            lambda runtime, brain: RawRecallBaseline(runtime),
            "baseline: every user message stored verbatim, top-8 recalled",
        )
    }


def resolve_variants(names: Sequence[str]) -> list[Variant]:
    known = available_variants()
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ConfigError(
            f"unknown variant(s) {', '.join(unknown)}; choose from {', '.join(known)}"
        )
    if len(set(names)) != len(names):
        raise ConfigError(f"variant names repeat in {', '.join(names)}; list each once")
    return [known[n] for n in names]
