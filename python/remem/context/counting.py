"""How the assembler counts tokens: exact when the model's encoding is known, estimated otherwise.

``TokenCounter.for_model(encoding)`` picks the exact native BPE counter for ``"o200k_base"`` and
``"cl100k_base"`` (both vocabularies are compiled into the extension: never a network fetch) and
the calibrated estimator (:func:`remem.kernels.estimate_tokens`, a few percent off on English)
for any other or unknown encoding. ``mode`` forces either.

>>> TokenCounter.for_model("o200k_base").exact
True
>>> TokenCounter.for_model("llama-3").exact
False
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from remem.errors import ConfigError
from remem.kernels import count_tokens, count_tokens_one, estimate_tokens, estimate_tokens_one

__all__ = ["EXACT_ENCODINGS", "CountMode", "TokenCounter"]

EXACT_ENCODINGS: frozenset[str] = frozenset({"o200k_base", "cl100k_base"})
"""Encodings counted exactly; anything else is estimated."""

CountMode = Literal["auto", "exact", "estimate"]


@dataclass(frozen=True, slots=True)
class TokenCounter:
    """Counts tokens of texts; ``encoding`` is None or a name from :data:`EXACT_ENCODINGS`."""

    encoding: str | None = "o200k_base"

    def __post_init__(self) -> None:
        if self.encoding is not None and self.encoding not in EXACT_ENCODINGS:
            raise ConfigError(
                f"TokenCounter encoding {self.encoding!r} is not built in; use one of "
                f"{sorted(EXACT_ENCODINGS)} or None for the estimator"
            )

    @classmethod
    def for_model(cls, encoding: str | None, mode: CountMode = "auto") -> TokenCounter:
        """Exact for a known encoding (``mode="auto"``), else the estimator.

        ``mode="exact"`` with an unknown encoding is a ConfigError; ``mode="estimate"`` always
        estimates.
        """
        if mode not in ("auto", "exact", "estimate"):
            raise ConfigError(f"count mode {mode!r} is unknown; use auto, exact or estimate")
        if mode == "estimate":
            return cls(None)
        if encoding in EXACT_ENCODINGS:
            return cls(encoding)
        if mode == "exact":
            raise ConfigError(
                f"exact token counting needs one of {sorted(EXACT_ENCODINGS)}, got "
                f"{encoding!r}; pass mode='auto' to fall back to the estimator"
            )
        return cls(None)

    @property
    def exact(self) -> bool:
        """True when counts are exact for the target model."""
        return self.encoding is not None

    @property
    def name(self) -> str:
        """The encoding name, or ``"estimate"``."""
        return self.encoding or "estimate"

    def count(self, texts: Sequence[str]) -> NDArray[np.int64]:
        """Token count of each text."""
        if not texts:
            return np.zeros(0, dtype=np.int64)
        if self.encoding is None:
            return estimate_tokens(texts)
        return count_tokens(texts, self.encoding)

    def count_one(self, text: str) -> int:
        """Token count of one text."""
        if self.encoding is None:
            return estimate_tokens_one(text)
        return count_tokens_one(text, self.encoding)
