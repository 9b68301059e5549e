"""Where a memory came from."""

from __future__ import annotations

import pydantic

from remem.models.base import Model
from remem.models.text import Identifier
from remem.models.time import UTCDateTime


class ProvenanceMetadata(Model):
    """Source, author, confidence and time of a memory.

    ``confidence`` is the extractor's or author's stated confidence, clamped to 0..1 by validation;
    it is not verification. ``parent_ids`` name the records or turns this one was derived from.
    """

    source_id: Identifier | None = None
    source_type: str = "user"
    author_id: Identifier | None = None
    confidence: float = pydantic.Field(default=1.0, ge=0.0, le=1.0, allow_inf_nan=False)
    created_at: UTCDateTime | None = None
    parent_ids: tuple[Identifier, ...] = ()
