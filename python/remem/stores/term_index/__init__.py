"""An in-memory full-text index that ranks exactly like SQLite FTS5's bm25, far faster.

FTS5 scores every document matching any query word before it can sort, so a query with common
words costs milliseconds; this index keeps postings in CSR arrays and ranks them with the native
kernel :func:`remem.kernels.bm25.bm25_top_k` (same formula, same float operations, same ties).

- :class:`Vocabulary` — terms → dense ids (vocabulary.py)
- :class:`Segment` — immutable CSR postings of a run of documents, built with numpy (segment.py)
- :class:`IndexSnapshot` — a frozen view with global N / df / avgdl that searches (snapshot.py)
- :class:`TermIndex` — main + tail segments, append, merge, thread-safe snapshots (index.py)
"""

from __future__ import annotations

from remem.stores.term_index.index import TermIndex
from remem.stores.term_index.segment import Segment
from remem.stores.term_index.snapshot import IndexSnapshot
from remem.stores.term_index.vocabulary import Vocabulary

__all__ = ["IndexSnapshot", "Segment", "TermIndex", "Vocabulary"]
