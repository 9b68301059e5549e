"""PostgreSQL's binary COPY format for vector batches, built in one buffer."""

from __future__ import annotations

import json
import struct

import numpy as np
from numpy.typing import NDArray

from remem.stores.shared.vector_input import Batch


def vector_text(vector: NDArray[np.float32]) -> str:
    return "[" + ",".join(map(repr, vector.tolist())) + "]"


_COPY_HEADER = b"PGCOPY\n\xff\r\n\x00" + struct.pack(">ii", 0, 0)
_NULL = struct.pack(">i", -1)


def _field(data: bytes) -> bytes:
    return struct.pack(">i", len(data)) + data


def copy_payload(batch: Batch, stored: NDArray[np.float32], norms: NDArray[np.float32]) -> bytes:
    """The whole batch in PostgreSQL's binary COPY format, built in one buffer.

    Columns: id text, document text, metadata jsonb (version byte 1 + text), embedding vector
    (int16 dim, int16 unused, big-endian float4s), norm float4. The fixed-size vector and norm
    fields are laid out for all rows at once by numpy; only the text fields are per row.
    """
    n, dim = stored.shape
    tail = np.empty(
        n,
        dtype=[
            ("vlen", ">i4"),
            ("dim", ">i2"),
            ("unused", ">i2"),
            ("vec", ">f4", (dim,)),
            ("nlen", ">i4"),
            ("norm", ">f4"),
        ],
    )
    tail["vlen"], tail["dim"], tail["unused"] = 4 + 4 * dim, dim, 0
    tail["vec"], tail["nlen"], tail["norm"] = stored, 4, norms
    raw = tail.tobytes()
    width = tail.dtype.itemsize
    count = struct.pack(">h", 5)
    parts = [_COPY_HEADER]
    for i, item_id in enumerate(batch.ids):
        doc = batch.documents[i]
        meta = json.dumps(batch.metadatas[i], ensure_ascii=False).encode()
        parts.append(count)
        parts.append(_field(item_id.encode()))
        parts.append(_NULL if doc is None else _field(doc.encode()))
        parts.append(_field(b"\x01" + meta))
        parts.append(raw[i * width : (i + 1) * width])
    parts.append(struct.pack(">h", -1))
    return b"".join(parts)
