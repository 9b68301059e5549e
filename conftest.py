"""Fixtures shared by tests/ and benches/: a real PostgreSQL + pgvector (tests/postgres.py).

OpenBLAS starts one thread per core in every process that imports numpy; on a small machine the
test processes (pytest, the PostgreSQL server, subprocess tests) then fight for the same cores,
measured 5-20× slower for the numpy-heavy tests. The suite runs numpy single-threaded unless the
caller chose otherwise; results do not depend on it. Set here, before anything imports numpy.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

pytest_plugins = ["tests.postgres"]
