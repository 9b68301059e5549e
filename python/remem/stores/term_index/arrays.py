"""A :class:`~remem.stores.term_index.TermIndex` as plain numpy arrays, and back, checked.

Why: an index rebuilt from its documents costs a tokenisation of every one of them (seconds at
100k); saved as arrays (:mod:`remem.stores.sqlite.episode_snapshot` writes them into an ``.npz``)
it loads in milliseconds. :func:`index_from_arrays` trusts nothing it reads: every shape, dtype,
bound and offset the native kernel relies on is checked, so a damaged or foreign file raises
:class:`SavedIndexError` (and the caller rebuilds) instead of reaching the kernel.

Strings (the terms) are stored NUL-joined as UTF-8 (``surrogatepass``: FTS5-truncated tokens keep
lone surrogates); :func:`index_arrays` gives None when a term holds a NUL (never for FTS5
tokens, which are letters and digits), so such an index is simply not saved.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from remem.errors import RememError
from remem.stores.term_index.index import TermIndex
from remem.stores.term_index.segment import Segment

Arrays = dict[str, NDArray[Any]]
_SEGMENTS = ("main", "tail")


class SavedIndexError(RememError):
    """Saved index arrays are inconsistent (damaged, or written by something else)."""


def join_strings(values: Sequence[str]) -> NDArray[np.uint8] | None:
    """``values`` NUL-joined as UTF-8 bytes, or None if one of them holds a NUL."""
    text = "\x00".join(values)
    if text.count("\x00") != max(len(values) - 1, 0):
        return None
    return np.frombuffer(text.encode("utf-8", "surrogatepass"), dtype=np.uint8)


def split_strings(blob: NDArray[Any], count: int) -> list[str]:
    """The ``count`` strings :func:`join_strings` joined into ``blob``."""
    if blob.dtype != np.uint8 or blob.ndim != 1:
        raise SavedIndexError(f"a string blob has dtype {blob.dtype}, shape {blob.shape}")
    if count == 0:
        if blob.size:
            raise SavedIndexError("an empty string list has bytes")
        return []
    try:
        values = blob.tobytes().decode("utf-8", "surrogatepass").split("\x00")
    except UnicodeDecodeError as exc:
        raise SavedIndexError(f"a string blob is not UTF-8 ({exc})") from exc
    if len(values) != count:
        raise SavedIndexError(f"a string blob holds {len(values)} strings, not {count}")
    return values


def index_arrays(index: TermIndex) -> Arrays | None:
    """The arrays :func:`index_from_arrays` rebuilds ``index`` from (None: not saveable)."""
    terms, main, tail = index.parts()
    vocabulary = join_strings(terms)
    if vocabulary is None:
        return None
    out: Arrays = {"vocabulary": vocabulary, "n_terms": np.array([len(terms)], dtype=np.int64)}
    for name, segment in zip(_SEGMENTS, (main, tail), strict=True):
        out[f"{name}_offsets"] = segment.offsets
        out[f"{name}_docs"] = segment.docs
        out[f"{name}_tfs"] = segment.tfs
        out[f"{name}_lengths"] = segment.doc_lengths
    return out


def index_from_arrays(arrays: Arrays) -> TermIndex:
    """The :class:`TermIndex` :func:`index_arrays` saved; :class:`SavedIndexError` if the
    arrays are not a consistent index."""
    n_terms = _array(arrays, "n_terms", np.int64)
    if n_terms.shape != (1,) or n_terms[0] < 0:
        raise SavedIndexError("n_terms is not one count")
    terms = split_strings(_any(arrays, "vocabulary"), int(n_terms[0]))
    main, tail = (segment_from_arrays(arrays, name, len(terms)) for name in _SEGMENTS)
    try:
        return TermIndex.restore(terms, main, tail)
    except ValueError as exc:
        raise SavedIndexError(str(exc)) from exc


def segment_from_arrays(arrays: Arrays, name: str, n_terms: int) -> Segment:
    """Segment ``name``'s arrays, checked: CSR offsets from 0 to the postings' size, never
    decreasing, over at most ``n_terms`` terms; documents within the segment; as many tokens in
    the lengths as in the tfs (so ``n_tokens`` follows). (A per-document check cost more than
    the rest of a load; numpy's CRC already guards the bytes.)"""
    offsets = _array(arrays, f"{name}_offsets", np.int64)
    docs = _array(arrays, f"{name}_docs", np.int32)
    tfs = _array(arrays, f"{name}_tfs", np.uint32)
    lengths = _array(arrays, f"{name}_lengths", np.uint32)
    if not 1 <= len(offsets) <= n_terms + 1 or offsets[0] != 0 or offsets[-1] != len(docs):
        raise SavedIndexError(f"segment {name}: offsets do not span its postings")
    if np.any(np.diff(offsets) < 0) or len(tfs) != len(docs):
        raise SavedIndexError(f"segment {name}: offsets decrease or tfs do not match postings")
    if docs.size and (int(docs.min()) < 0 or int(docs.max()) >= len(lengths)):
        raise SavedIndexError(f"segment {name}: a posting names a document outside it")
    n_tokens = int(lengths.sum(dtype=np.int64))
    if int(tfs.sum(dtype=np.int64)) != n_tokens:
        raise SavedIndexError(f"segment {name}: document lengths disagree with the postings")
    return Segment(offsets=offsets, docs=docs, tfs=tfs, doc_lengths=lengths, n_tokens=n_tokens)


def _any(arrays: Arrays, key: str) -> NDArray[Any]:
    try:
        return arrays[key]
    except KeyError as exc:
        raise SavedIndexError(f"the saved index has no {key!r}") from exc


def _array(arrays: Arrays, key: str, dtype: type[np.generic]) -> NDArray[Any]:
    value = _any(arrays, key)
    if value.dtype != dtype or value.ndim != 1:
        raise SavedIndexError(
            f"{key!r} has dtype {value.dtype} and {value.ndim} dimensions; expected 1-d {dtype}"
        )
    return value
