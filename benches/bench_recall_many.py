"""``recall_many`` throughput at 10k and 100k memories (1M with ``REMEM_BENCH_LARGE=1``), with
the issue's baseline in the same run and the time of each remaining per-query Python step.

Run: ``pytest benches/bench_recall_many.py --benchmark-only -s`` (one world per size; building
100k through ``remember_many`` takes minutes on a busy machine).

* ``remem`` — ``controller.recall_many`` of 1,000 distinct prose queries (the bench_controller
  prose corpus and openers) over n memories written by ``remember_many``, on the embedded
  default stores with the HashingEmbedder; query vectors precomputed (embedding not timed).
  Both sides are also timed with the query encode included (``queries_per_s_encode_included``:
  remem's ``recall_many`` without ``vectors=``, the baseline after the same ``embed_queries``
  call), so neither side gets the encode for free. The default embedder is MiniLM only when its
  weights are installed; they are not here, so both figures are the hashing embedder's.
* ``baseline`` — the obvious stack on the same texts and vectors: BM25 (k1 1.2, b 0.75, the
  same tokeniser as the hashing embedder's lower-cased word split) from a numpy inverted index,
  one dense top-k as a numpy matrix product + argpartition, and a min-max linear fusion in
  numpy. The issue asks for bm25s here; it is not installed in the shared environment (and
  neither is scipy), so the BM25 is numpy's ``bincount`` over posting lists — the same
  algorithm bm25s runs, without its sparse-matrix precomputation.
* ``stages`` (printed largest first, and in ``extra_info``) — seconds spent in each step of the
  pipeline for the 1,000 queries, timed by wrapping the pipeline's methods on this controller
  only: the batched retrievers (``vectors``, ``texts``), the per-query graph match, the record
  fetch (``eligible``), the per-query ranking (``rank``, which contains ``gather``, ``fuse``,
  ``prior_factors`` and ``scored_memory``), the per-query neighbour propagation and prior cut,
  and the access note (``access``: reinforcement's flush). ``graph`` runs as concurrent
  per-query tasks, so its figure sums overlapping spans; ``total`` minus the top-level steps is
  the rest (collector, vector cut, bookkeeping).
* ``recall p50`` — single ``recall`` of 200 distinct queries, one at a time.
* ``first recall after open`` — the runtime is closed, opened again and recalls once: the
  stores' warm-up (the vector scan cache, loaded from its snapshot since
  ``remem.stores.hnsw.scan_file``; the episodic memory index, loaded from its snapshot since
  ``remem.stores.sqlite.episode_snapshot`` and caught up with newer rows; the record store's
  row cache, warmed in the background since ``remem.stores.duckdb.row_warm``).
* ``kb_per_memory`` — resident-set growth over building the world, per memory, measured before
  the bench computes its own copy of the vectors (before session 15 it was measured after, so
  its figures include ~1.5 KiB of the bench's float32 rows). Since session 20 it is the
  resident set held (``/proc/self/statm`` after a collection and glibc's ``malloc_trim``), with
  the texts generated before the first reading (they are the caller's); before, it was the
  growth of the peak (``ru_maxrss``, now ``kb_peak_per_memory``), which a world built earlier
  in the same process had already raised: the 100k world gave 4.33 KiB above the vectors alone
  and 1.41 after the 10k world. Held, one run each (session 20): 10k 10.63, 100k after 10k 2.28,
  100k alone 3.60 KiB above the vectors (peak growth 12.52, 3.41, 5.86) — a process's one-off
  costs (the stores' libraries, fixed-size caches) land on whichever world comes first, so the
  1M world is the one that measures the per-memory cost;
  ``kb_per_memory_above_vectors`` is that less a float32 row and an int8 code per memory
  (``d × 5`` bytes), issue #21's "above the vectors themselves". Session 15, quiet machine
  (``-k "throughput and remem"``, 1M with ``REMEM_BENCH_LARGE=1``): 14.72 / 3.09 / 3.20 KiB
  per memory at 10k / 100k / 1M, 12.85 / 1.21 / 1.32 above the vectors (target ≤ 1.5 at 1M:
  met); measured after the bench's copy, the same worlds had given 18.1 / 7.0 / 7.0.

Measured (issue #21, batch21; the whole file, one run each, on the shared 2-core machine at load
average 11-19, so absolute figures are several times a quiet machine's — compare within a run):

    figure                      before (ffeb23d)        after
    10k q/s remem / baseline    35.4 / 459 (0.077x)     72.8 / 503 (0.145x)
      encode included           32.3 / 592              50.0 / 710
    100k q/s remem / baseline   21.3 / 172 (0.12x)      45.2 / 83.1 (0.54x, baseline noisy)
      encode included           22.1 / 224              36.4 / 167
    10k stage rank (of which gather, fuse)  7.79 s (3.31, 1.82)   5.68 s (2.36, 0.91)
    100k stage rank (gather, fuse)          8.48 s (4.01, 1.65)   4.45 s (1.84, 0.72)
    recall p50 10k / 100k       3.38 / 14.3 ms          24.9 / 43.5 ms (load 19: noise)
    first recall after open     10k 2.54 s, 100k 17.2 s 10k 1.58 s, 100k 13.0 s
    KiB per memory (10k / 100k) 17.1 / 5.4              17.7 / 6.2

At 100k after: texts 14.4 s, vectors 13.9 s, rank 4.4 s, eligible 3.0 s, access 1.0 s of
26.4 s — the batched retrievers (the stores' native calls and their hit rows) are now the
largest steps, then the per-query ranking.

Issue #21, batch21b (10k only: ``pytest benches/bench_recall_many.py --benchmark-only -s
-p no:randomly -k 10k``, once on d797d43 and once after, load average 10-15). The full-text
stage decoded every hit row's metadata JSON, kind and timestamp per hit (1,000 queries × 90
hits = 88k decodes of a few thousand distinct rows: ~70% of the stage's CPU); the SQLite
episodic store's ``HitReader`` now decodes each distinct value once per batch. At this load
wall time is 4-6x CPU time, so the CPU seconds are the steadier figure. The rows below the
first come from a throwaway script (not kept) that reopens the bench's 10k world, runs the
warm-up batch, then times ``recall_many`` (and ``Retrieval.texts`` / ``vectors`` alone) with
``time.process_time``, before and after back to back; the vector path is unchanged (its row is
noise):

    figure (10k)                         before (d797d43)     after
    bench q/s remem / baseline           37.1 / 252 (0.15x)   48.7 / 411 (0.12x, load)
    back-to-back run q/s (2 batches)     31 / 41              75 / 70
    CPU s per 1,000-query batch          4.35 / 4.48          3.56 / 4.22
    texts stage alone, CPU s (3 runs)    2.23 / 1.87 / 1.79   1.46 / 1.37 / 1.35
    vectors stage alone, CPU s           0.64                 0.50
    stage texts (wall s, back to back)   8.87                 4.46
    stage rank                           7.39                 6.67
    stage vectors                        2.43                 2.30

The native kernels are not the cost: the batched ``bm25_top_k_many`` call is ~0.1 s of the
texts stage for the 1,000 queries; the rest is Python per hit (the hit rows' read and order,
one ``EpisodicHit`` per hit). Both retrievers' wall figures include waiting for the GIL while
the per-query graph match runs on the event loop (the three retrievers run concurrently). The
targets (5,000 q/s at 10k, 1,000 at 100k) are far off: ~4 ms of CPU per query remain, most of
it the per-query ranking in Python (fusion, priors, explanation for ~50 candidates a query).

The first recall after open at 100k, by store (a probe timing each store's first call after a
reopen; two reopens, the second with a warm page cache): the vector scan cache took
6.6 s to rebuild from DuckDB (3.9 s of it the columnar read) and now 0.1-0.7 s to load its
snapshot (0.2-2.4 s for the whole first vector query, id maps included); what remains is the
episodic memory index's catch-up (~3.0 s) and the record store's row-cache warm (0.8-1.1 s) —
both outside the vector store, so the 0.5 s target is not met yet.

Issue #21, warm21: ``python -m benches.first_recall_probe /tmp/w 100000`` (and ``10000``;
the world built once, then two reopens per side, the "before" side with ``PYTHONPATH`` on a
checkout of d797d43; before and after back to back in one session). Twice: under load (load
average 9-17, the other helpers running) and once the machine went quiet (load 1.1). Spans run
on different threads and overlap.

    first recall after open (1st / 2nd reopen)   before (d797d43)   after
    quiet  10k                                   0.193 / 0.158 s    0.045 / 0.041 s
    quiet  100k                                  1.440 / 1.268 s    0.217 / 0.186 s
      episodic catch_up                          1.10 / 0.96 s      0.087 / 0.063 s
      records first get (warm-up)                0.27 / 0.26 s      0.015 / 0.013 s
      vector id maps + load_scan                 0.76 / 0.72 s      0.19 / 0.16 s
      max RSS after the second recall            661 / 715 MiB      400 / 436 MiB
      max RSS 8 s after one recall (warm done)   593 MiB            540 MiB
    load 9-17  10k                               2.03 / 0.93 s      1.09 (no snapshot yet) / 0.38 s
    load 9-17  100k                              11.4 / 11.5 s      3.70 / 2.05 s
      episodic catch_up                          8.3 / 9.2 s        1.18 / 0.53 s
      records first get                          2.6 / 2.0 s        0.10 / 0.05 s
      vector load_scan (code unchanged)          2.9 / 5.5 s        2.7 / 1.5 s

What changed: the episodic index loads its snapshot (``episode_snapshot``) and indexes only
newer rows; the record store's first ``get`` reads its own ids and the row-cache warm-up runs
in the background (``row_warm``); the vector id maps come from one columnar read (1.3-1.5x
alone). The vector scan snapshot's load is the same code: it got faster because it no longer
shares the GIL with the episodic rebuild. So the 0.5 s target is met at 100k on a quiet machine
(0.19-0.22 s), not under heavy load, where the 194 MB scan snapshot (``np.load`` reads and
CRC-checks all of it: 1.4 s alone at load 17) and the id maps dominate. What would close that:
memory-map the snapshot's arrays (the first query touches the 38 MB of int8 codes and a few
float rows) with a checksum per block verified when a block is first read, and keep the id maps
in the snapshot. Right after the recalls the RSS is lower mostly because the row cache is
still filling (once it is full, 593 → 540 MiB: the episodic rebuild's transient arrays are
gone); under load the second recall can pay some of that warm-up (0.2-0.5 s at 100k).

Issue #21, scanmap: the scan snapshot is now memory-mapped (``scan_file`` format 2: raw arrays
behind a CRC-checked header; at open the size and 32 sampled 64 KiB blocks are checked, the
whole-file CRC only by ``verify_scan``). Load of the snapshot alone, format 1 (``np.load`` of
the npz) → format 2, same run, load average 0.7, files in the page cache, median of 3:
``python -m benches.scan_snapshot_probe /tmp/scanprobe100k 100000`` (and ``... 10000``)

    rows (dim 384)   file     load npz → mmap       load + first int8 query
    10k              19 MB    0.0113 → 0.0018 s     0.0118 → 0.0023 s
    100k             194 MB   0.1395 → 0.0020 s     0.1458 → 0.0061 s

The first query after the mapped load reads the 38 MB of int8 codes and the rescored float
rows only; the npz load read (and CRC-checked) all 194 MB. Not measured: a cold page cache,
and the end-to-end first recall at 100k under load.
End to end at 10k (``python -m benches.first_recall_probe /tmp/scanmap-frp 10000 --reopens 3``,
once with /work/main's ``python/`` on PYTHONPATH, then this branch's, load average about 1;
reopens that load a snapshot): ``load_scan`` 0.046 / 0.016 s → 0.014 / 0.006 / 0.039 s (spans
share the GIL with the episodic catch-up, so noisy), first recall 0.120 / 0.051 s → 0.062 /
0.079 / 0.096 s (no clear change at 10k: the scan load was not the large part there), max RSS
227 → 186 MiB (the float matrix's pages are mapped, not read).

Issue #21, batch21d (10k only): the batch is ranked as numpy columns
(:mod:`remem.controller.columnar`): one row per (query, candidate) over the whole batch for the
linear fusion's features and score, the prior factors and the final score, one ``lexsort`` for
every query's order, and the ``Fused`` / factor dicts and explanation built for the returned
``k`` only (before: a ``Fused``, a feature dict and a factor dict per candidate, ~50 a query).
Bit-identical to the per-query ranking it replaces (``tests/controller/test_columnar_rank.py``,
both backends; the per-query path stays for rrf / weighted fusion and the sessions, rerank and
diversity stages). Measured back to back in one session at load average 9-11 (the other
helpers running), the "before" side a ``git archive`` of f8a2b0b on ``PYTHONPATH``: the CPU
row is ``time.process_time`` of ``recall_many`` of the 1,000 queries on a reopened 10k world
(after the warm-up batch, three batches per side, sides alternated twice: a throwaway script,
not kept); the others are one run of ``pytest benches/bench_recall_many.py --benchmark-only -s
-p no:randomly -k 10k`` per side (wall seconds, so several times a quiet machine's):

    figure (10k)                         before (f8a2b0b)           after
    CPU s per 1,000-query batch (6 runs) 2.72-3.00 (mean 2.82)      2.36-2.63 (mean 2.52)
    bench q/s remem / baseline           90.6 / 1076 (0.084x)       120.7 / 1135 (0.106x)
    stage rank (wall s)                  3.00 (gather 0.80,         1.99 (gather 0.72,
                                         fuse 0.58)                 rank_columnar 1.25)
    stage texts / vectors (wall s)       3.51 / 2.51                2.93 / 2.36

On a quiet moment of the same session (load ~1, one run each side) the bench gave 348.6 →
365.2 q/s and stage rank 0.93 → 0.65 s. Top self-time functions of one 1,000-query batch after
(cProfile, main thread only — the full-text search runs on the store's worker thread, where
``HitReader.hit`` and ``trusted`` are ~70% of its ~1 s of CPU): the event loop's wait for the
worker threads, ``gather`` (0.44 s), ``propagate_neighbours`` (0.42), ``trusted`` (0.37, the
record and result model construction), the record store's ``row_to_record`` (0.30 for 14.8k
records read per batch), the graph query matcher (0.26), ``scored_memory`` (0.18 for the 10k
results). The ranking is no longer the largest step: the full-text stage is (~1 s CPU: one
``EpisodicHit`` per hit, 88 hits a query, then one ``NeighbourScored`` per hit), then the
vectors stage, the record read and the per-query candidate gather. The 5,000 q/s target is far
off (~2.5 ms CPU a query remain); what would close most of it is a columnar full-text result
(ids, scores, kinds and turn positions as arrays, hit objects built only for the turns and the
cut's survivors) feeding the neighbour propagation, the prior cut and ``gather`` directly.

Issue #21, batch21e (10k only): the full-text hits of the embedded store's memory index come
back as :class:`~remem.stores.sqlite.hit_rows.HitRows` — the store's rows, an ``EpisodicHit``
built only when read — and the neighbour propagation, the transcript expansion and the prior cut
read their columns (positions, scores, speakers; created_at and text only for a query with a
cue): ``remem.controller.stages.prior_depth.cut_texts`` builds a hit and a ``NeighbourScored``
for the ``depth`` survivors only (30 of ~88 a query). Identical to the object path
(``tests/controller/test_hit_rows.py``; PostgreSQL builds its own hits and keeps that path).
Measured back to back in one session at load average 2-3, the "before" side a ``git archive``
of 47bb7cd on ``PYTHONPATH``: CPU is ``time.process_time`` of ``recall_many`` of the 1,000
queries on a copy of one 10k world per run (after the warm-up batch, three batches per run,
three runs per side alternated; a throwaway script, not kept; the returned ids were identical);
the others are ``nice python -m pytest benches/bench_recall_many.py --benchmark-only -s -p
no:randomly -k 10k``, three runs per side (wall seconds; ``cut_texts`` is the new step and
contains ``propagate_neighbours`` + ``prior_cut``'s work and the survivors' hit objects):

    figure (10k)                          before (47bb7cd)          after
    CPU s per 1,000-query batch (9)       2.13-2.39 (mean 2.27)     1.97-2.09 (mean 2.04)
    bench q/s remem (3 runs)              388.7 / 407.0 / 401.5     456.2 / 371.0 / 509.9
    stage texts + neighbours + cut (s)    1.00 / 1.19 / 0.95        0.80 / 0.87 / 0.77
    stages total (s)                      2.38 / 2.85 / 2.40        2.23 / 2.30 / 2.23

The hit objects were not the whole of the stage: in a cProfile of one batch after (main
thread, plus ``time.thread_time`` of the worker's ``fetch_hits``: 0.13-0.16 s) the largest
self times are the event loop's wait, ``gather`` (0.27 s), ``trusted`` (0.24 s for 84k model
constructions: the 29.8k surviving hits, the 14.8k records read and the results), the record
store's ``row_to_record`` (0.14), the column reads of ``HitRows`` (~0.25 for speaker, position
and score of 88k hits) and the graph query matcher. The 5,000 q/s target is still far off
(~2 ms CPU a query). What would close more: a note hit needs only its id in ``gather`` (the
survivors that are notes could stay rows: ``NeighbourScored`` would carry id and kind and
build the hit for turns only), the columns read as numpy arrays from the native index instead
of per-row tuples, and the record read (``row_to_record``) for the ~15 notes a query.

Issue #21 / #20, recall21f (10k only): the per-query Python around the kernels. cProfile of one
1,000-query batch and of 200 single recalls (main thread; the store's worker threads add
~0.55 s CPU a batch: ``time.process_time`` minus ``time.thread_time``) had the record read
first for a single recall: ~56 records a query decoded by ``row_to_record`` (~13 µs each) for
~10 returned, then ``trusted`` model constructions, ``gather``, the graph query matcher and the
speaker reads of the prior cut. Changed, each with the results identical (the returned ids
were equal before and after; ``tests/controller/test_columnar_rank.py``,
``test_recall_many_equivalence.py`` and ``test_hit_rows.py`` pass on both backends):

* the eligibility read is ``get_shared`` (:mod:`remem.stores.shared.record_memo`): the
  embedded record store decodes a row of its row cache once while that same row object is
  held (a write replaces the row, so a changed record is decoded again), up to 20,000 decoded
  records (~3.5 kB each); results carry ``detached`` copies that own their metadata
  (``tests/controller/test_recall_shared_records.py``); PostgreSQL decodes every read as before;
* ``row_to_record`` looks enum values up in a dict and decodes integer-microsecond times
  inline (min of 25 runs: 13.4 → 9.0 µs a record with empty metadata, 14.0 → 11.1 with one key);
* the prior cut reads the hits' speakers as one ``HitRows.speakers()`` column, and a turn
  hit's filter check builds no metadata when the recall has no filter or session.

Measured back to back at load average 1.1-1.5 (the "before" side a ``git archive`` of df1868c
on ``PYTHONPATH``): CPU rows from a throwaway script (not kept) that copies one 10k bench world
per run, runs the 50-query warm-up, three ``recall_many`` of the 1,000 queries
(``time.process_time``; batches 2-3 below, the first pays the cold decode) and 200 single
``recall`` calls (CPU p50); three runs per side, alternated; the bench row is one run each of
``nice python -m pytest benches/bench_recall_many.py --benchmark-only -s -p no:randomly -k 10k``
(load average ~2.5-4, wall seconds):

    figure (10k)                          before (df1868c)            after
    CPU s per 1,000-query batch (6)       2.42-2.77 (mean 2.60)       2.13-2.89 (mean 2.43)
      of it the main thread (6)           1.81-2.12 (mean 1.90)       1.56-2.06 (mean 1.74)
    single recall CPU p50 (3 runs)        11.3 / 10.0 / 8.5 ms        9.5 / 6.8 / 6.4 ms
    single recall wall p50 (3 runs)       10.2 / 9.1 / 7.6 ms         8.7 / 6.2 / 5.9 ms
    bench q/s remem                       325.9                       438.5
    bench recall p50 / p95                8.01 / 12.74 ms             7.03 / 9.83 ms
    bench stages total (s)                2.79 (rank 0.82,            2.21 (rank 0.69,
                                          eligible 0.13)              eligible 0.19)
    bench_controller 10k-prose recall     distinct 13.85 ms,          distinct 8.18 ms,
      (median of 20, load ~2)             repeated 8.53 ms            repeated 6.50 ms

The bench_controller row is ``nice python -m pytest benches/bench_controller.py --benchmark-only
-s -p no:randomly -k "10k-prose and recall_p50 and remem"``, one run per side back to back; an
earlier pair during a load spike (to ~6) gave distinct 11.3 → 12.6 ms and repeated 6.5 → 13.6
ms, so read it as direction, not size.

The cyclic collector's time over a run grew (0.59-0.66 → 0.71-0.91 s: the memo's records are
live objects it walks), which eats part of the gain. The targets stay far off (~2.4 ms CPU a
query in a batch, ~7 ms a single recall at 10k); what is left is spread thin: model
constructions for the cut's surviving hits and the results, ``gather``, the graph matcher
(~0.7 ms a query under cProfile, its n-gram normalisation and fuzzy look-ups per query), and
the decoded records the access note invalidates after every recall (it rewrites the returned
records' rows, so those ~10 a query are decoded again by the next recall that reads them).

Session 17, recall p50 at 100k (``python -m pytest benches/bench_recall_many.py --benchmark-only
-s -p no:randomly -k "p50 and 100k"``, quiet machine): 7.10 / 7.38 ms on f0e11d9 (6.57 on the
commit before it) — every recall paid a DuckDB point read (~2.5 ms of worker time, on the
critical path) for the half of its candidates the record row cache, capped at 50k rows, did
not hold. The cache now holds rows packed (``marshal``, ~3.4x smaller) up to 200k, the last 20k
also unpacked (``remem.stores.duckdb.row_cache``): **3.77 ms** p50 (p95 31.5 ms while the
background warm-up still filled the cache during the measured recalls; a scratch loop after the
warm-up: 4.28 / 7.31 ms), first recall after reopening 0.060 s. Warming the whole 100k store
grows the RSS by 186 MiB (50k tuples before: 173 MiB; DuckDB's own buffers are in both). The
``kb_per_memory`` figures are taken before any recall, so the row cache is not in them.
The whole file in the same session (``REMEM_BENCH_LARGE=1``, quiet machine, one run), after
that and the scan tier's widening of only its tied queries: recall_many 835 / 419 / 188 q/s at
10k / 100k / 1M (session 16: 895 / 380 / 151; the 100k and 1M batches' vectors stage 0.89 → 0.44
and 4.5 → 2.3 s: a tie at the k-th place of one query had re-scanned all 1,000), recall p50
2.56 / 4.32 / 17.2 ms, first recall after reopening 0.023 / 0.074 / 0.73 s. Warming the 1M
world's row cache grew the RSS by 740 MiB (671 MiB with 50k rows), most of it DuckDB
materialising the sorted newest-rows read; ``kb_per_memory`` does not see it. The warm-up now
chooses its rows by a ``created_at`` threshold and streams them unsorted
(``remem.stores.duckdb.row_warm``): 204 MiB at 1M, 124 MiB at 100k (186 before).

Session 19 (``-k "throughput or p50 or first"``, one run, quiet machine): recall_many 894 /
448 q/s at 10k / 100k (baseline 4,049 / 546), recall p50 2.24 / 3.75 ms, first recall after
reopening 0.023 / 0.069 s. Three per-query costs went, the results unchanged: the decoded-record
memo derives the record of a row changed only in its access columns (``reaccessed``: recall's
own access note rewrites ~10 rows a query, each then decoded again) and reuses it for an equal
row; the access note's rescore reads through that memo (``decay_rescore``: it decoded every
reinforced row); ``normalise`` takes an ASCII path. Stages at 10k, two runs per side alternated
(``-k "10k and throughput and remem"``): access 0.121-0.128 → 0.076-0.084 s, graph 0.050-0.051 →
0.037 s, eligible 0.061-0.070 → 0.051-0.054 s. At 100k what is left is the full-text stage
(~0.25 s of bm25 kernel for 1,000 queries, whose terms have long postings in this corpus, and
~0.24 s reading hit rows the 20k-row hit cache does not hold), the ranking, the vector stage and
the record read; dynamic pruning of the bm25 postings (MaxScore) is the next kernel-side step.

Tests never assert timings; ``same_top1`` is the share of queries where remem and the baseline
agree on the first hit (a sanity figure, not a target: remem adds graph and priors).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import gc
import os
import random
import re
import resource
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from benches.bench_controller import _prose_text, _queries
from remem import Runtime
from remem.embeddings import HashingEmbedder, embed_queries

SIZES = [10_000, 100_000] + ([1_000_000] if os.environ.get("REMEM_BENCH_LARGE") == "1" else [])
QUERIES = 1000
K = 10
_TOKEN = re.compile(r"\w+")


class _Bm25:
    """BM25 over an inverted index of numpy posting lists (the baseline)."""

    def __init__(self, texts: list[str], k1: float = 1.2, b: float = 0.75) -> None:
        postings: dict[str, dict[int, int]] = defaultdict(dict)
        lengths = np.zeros(len(texts))
        for i, t in enumerate(texts):
            toks = _TOKEN.findall(t.lower())
            lengths[i] = len(toks)
            for tok in toks:
                postings[tok][i] = postings[tok].get(i, 0) + 1
        n, avgdl = len(texts), float(lengths.mean())
        self.n = n
        self.lists: dict[str, tuple[NDArray[np.int64], NDArray[np.float64]]] = {}
        for tok, docs in postings.items():
            ids = np.fromiter(docs.keys(), dtype=np.int64)
            tf = np.fromiter(docs.values(), dtype=np.float64)
            idf = np.log(1 + (n - len(ids) + 0.5) / (len(ids) + 0.5))
            norm = k1 * (1 - b + b * lengths[ids] / avgdl)
            self.lists[tok] = (ids, idf * tf * (k1 + 1) / (tf + norm))

    def scores(self, query: str) -> NDArray[np.float64]:
        out = np.zeros(self.n)
        for tok in set(_TOKEN.findall(query.lower())):
            hit = self.lists.get(tok)
            if hit is not None:
                out[hit[0]] += hit[1]
        return out


def _top(scores: NDArray[Any], k: int) -> NDArray[np.int64]:
    idx = np.argpartition(-scores, k)[:k]
    return idx[np.argsort(-scores[idx], kind="stable")]


def _minmax(x: NDArray[Any]) -> NDArray[np.float64]:
    lo, hi = float(x.min()), float(x.max())
    return np.ones(len(x)) if hi <= lo else (x - lo) / (hi - lo)


def baseline(
    bm25: _Bm25, vectors: NDArray[np.float32], queries: list[str], qvecs: NDArray[np.float32]
) -> list[list[int]]:
    """BM25 + one batched dense top-k, fused linearly (min-max) in numpy, per query top K."""
    sims = qvecs @ vectors.T
    out = []
    for q, row in zip(queries, sims, strict=True):
        text = bm25.scores(q)
        dense = _top(row, 5 * K)
        lexical = _top(text, 5 * K)
        keys = np.union1d(dense, lexical)
        fused = _minmax(row[keys]) + _minmax(text[keys])
        out.append([int(keys[i]) for i in _top(fused, min(K, len(keys) - 1))])
    return out


def _timed(timings: dict[str, float], name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    if asyncio.iscoroutinefunction(fn):

        async def run_async(*a: Any, **kw: Any) -> Any:
            t = time.perf_counter()
            try:
                return await fn(*a, **kw)
            finally:
                timings[name] = timings.get(name, 0.0) + time.perf_counter() - t

        return run_async

    def run(*a: Any, **kw: Any) -> Any:
        t = time.perf_counter()
        try:
            return fn(*a, **kw)
        finally:
            timings[name] = timings.get(name, 0.0) + time.perf_counter() - t

    return run


def _resident_kib() -> float:
    """The resident set now, in KiB, after a collection and after returning freed heap to the
    system (glibc's ``malloc_trim``, where there is one): what the process holds, not its peak
    (``ru_maxrss``, which a world built earlier in the same process had already raised)."""
    gc.collect()
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    try:
        with open("/proc/self/statm") as f:
            pages = int(f.read().split()[1])
    except OSError:  # not Linux: the peak is all there is
        return float(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    return pages * os.sysconf("SC_PAGE_SIZE") / 1024


class _World:
    def __init__(self, n: int, root: Path) -> None:
        self.n = n
        self.path = root / f"m{n}"
        self.loop = asyncio.new_event_loop()
        rng = random.Random(n)
        self.texts = [_prose_text(rng, i) for i in range(n)]  # the caller's, not the store's
        peak0, held0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, _resident_kib()
        self.rt = Runtime.open(self.path, embedder=HashingEmbedder())
        self.loop.run_until_complete(self.rt.start())
        started = time.perf_counter()
        for lo in range(0, n, 2_000):
            self.loop.run_until_complete(
                self.rt.controller.remember_many(self.texts[lo : lo + 2_000])
            )
        self.loop.run_until_complete(self.rt.controller.writes.barrier())
        self.fill_s = time.perf_counter() - started
        # Before the bench's own copies of the vectors below (n × d float32 of its own).
        self.kb_per_memory = (_resident_kib() - held0) / n
        self.kb_peak_per_memory = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak0) / n
        emb = self.rt.embedder
        # What a store needs per memory at the least: its float32 row and its int8 code.
        self.kb_vectors = emb.dimension * (4 + 1) / 1024
        self.vectors = self.loop.run_until_complete(emb.embed_documents(self.texts))
        self.queries = _queries("prose", self.texts, QUERIES, seed=1)
        self.qvecs = self.loop.run_until_complete(emb.embed_documents(self.queries))

    def reopen(self) -> tuple[float, float]:
        """Close the runtime, open it again and recall once: (open s, first recall s)."""
        self.loop.run_until_complete(self.rt.aclose())
        started = time.perf_counter()
        self.rt = Runtime.open(self.path, embedder=HashingEmbedder())
        self.loop.run_until_complete(self.rt.start())
        opened = time.perf_counter() - started
        started = time.perf_counter()
        self.loop.run_until_complete(
            self.rt.controller.recall(self.queries[0], vector=self.qvecs[0])
        )
        return opened, time.perf_counter() - started

    def close(self) -> None:
        self.loop.run_until_complete(self.rt.aclose())
        self.loop.close()


@pytest.fixture(scope="module", params=SIZES, ids=lambda n: f"{n // 1000}k")
def world(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[_World]:
    w = _World(request.param, tmp_path_factory.mktemp("many"))
    yield w
    w.close()


@pytest.mark.parametrize("impl", ["remem", "baseline"])
def test_recall_many_throughput(benchmark: Any, world: _World, impl: str) -> None:
    benchmark.group = f"recall_many {QUERIES} of {world.n // 1000}k"
    c = world.rt.controller
    emb = world.rt.embedder
    if impl == "baseline":
        started = time.perf_counter()
        bm25 = _Bm25(world.texts)
        benchmark.extra_info["index_s"] = round(time.perf_counter() - started, 2)
        start = time.perf_counter()
        got = baseline(bm25, world.vectors, world.queries, world.qvecs)
        elapsed = time.perf_counter() - start
        # Encode included: the same embedder call recall_many makes for its query batch.
        start = time.perf_counter()
        qvecs = world.loop.run_until_complete(embed_queries(emb, world.queries))
        baseline(bm25, world.vectors, world.queries, qvecs)
        encoded = time.perf_counter() - start
        benchmark.pedantic(
            lambda: baseline(bm25, world.vectors, world.queries, world.qvecs), rounds=1
        )
        assert len(got) == QUERIES
    else:
        world.loop.run_until_complete(c.recall_many(world.queries[:50], vectors=world.qvecs[:50]))
        start = time.perf_counter()
        res = world.loop.run_until_complete(c.recall_many(world.queries, vectors=world.qvecs))
        elapsed = time.perf_counter() - start
        assert len(res) == QUERIES
        start = time.perf_counter()
        world.loop.run_until_complete(c.recall_many(world.queries))
        encoded = time.perf_counter() - start
        benchmark.extra_info.update(_stages(world))
        benchmark.pedantic(
            lambda: world.loop.run_until_complete(
                c.recall_many(world.queries, vectors=world.qvecs)
            ),
            rounds=1,
        )
    benchmark.extra_info["queries_per_s"] = round(QUERIES / elapsed, 1)
    benchmark.extra_info["queries_per_s_encode_included"] = round(QUERIES / encoded, 1)
    benchmark.extra_info["memories"] = world.n
    benchmark.extra_info["fill_s"] = round(world.fill_s, 1)
    benchmark.extra_info["kb_per_memory"] = round(world.kb_per_memory, 2)
    benchmark.extra_info["kb_peak_per_memory"] = round(world.kb_peak_per_memory, 2)
    benchmark.extra_info["kb_per_memory_above_vectors"] = round(
        world.kb_per_memory - world.kb_vectors, 2
    )
    print(
        f"\n{impl} {world.n}: {QUERIES / elapsed:.1f} q/s ({QUERIES / encoded:.1f} with the"
        f" query encode), {world.kb_per_memory:.2f} KiB/memory"
        f" ({world.kb_per_memory - world.kb_vectors:.2f} above the f32 + int8 vectors; peak"
        f" growth {world.kb_peak_per_memory:.2f})"
    )


def test_recall_p50(benchmark: Any, world: _World) -> None:
    """Single ``recall`` latency over distinct queries (precomputed vectors), p50 and p95."""
    benchmark.group = f"recall p50 of {world.n // 1000}k"
    c = world.rt.controller
    times = []
    for q, v in zip(world.queries[:200], world.qvecs[:200], strict=True):
        start = time.perf_counter()
        got = world.loop.run_until_complete(c.recall(q, vector=v))
        times.append(time.perf_counter() - start)
        assert len(got) <= K
    p50, p95 = np.percentile(times, [50, 95]) * 1e3
    benchmark.extra_info.update(p50_ms=round(float(p50), 2), p95_ms=round(float(p95), 2))
    print(f"\nrecall {world.n}: p50 {p50:.2f} ms, p95 {p95:.2f} ms")
    benchmark.pedantic(
        lambda: world.loop.run_until_complete(c.recall(world.queries[0], vector=world.qvecs[0])),
        rounds=1,
    )


def test_first_recall_after_open(benchmark: Any, world: _World) -> None:
    """Close the store, open it again and time the first recall (the index warm-up)."""
    benchmark.group = f"first recall after open of {world.n // 1000}k"
    opened, first = world.reopen()
    benchmark.extra_info.update(open_s=round(opened, 3), first_recall_s=round(first, 3))
    print(f"\nreopen {world.n}: open {opened:.3f} s, first recall {first:.3f} s")
    benchmark.pedantic(
        lambda: world.loop.run_until_complete(
            world.rt.controller.recall(world.queries[1], vector=world.qvecs[1])
        ),
        rounds=1,
    )


_STEPS = (
    "gather",
    "fuse",
    "prior_factors",
    "scored_memory",
    "propagate_neighbours",
    "prior_cut",
    "cut_texts",
    "rank_columnar",
)
"""The steps timed by :func:`_stages`: names in ``remem.controller.recall`` and (where it
has them) ``remem.controller.columnar``, each patched in the module that calls it."""


def _stages(world: _World) -> dict[str, float]:
    """Seconds per pipeline step for one recall_many of the 1,000 queries (see the docstring)."""
    from remem.controller import columnar
    from remem.controller import recall as recall_module

    pipeline = world.rt.controller._recall
    books = world.rt.controller._books
    r = pipeline.retrieval
    timings: dict[str, float] = {}
    saved = {name: getattr(r, name) for name in ("vectors", "texts", "graph", "eligible")}
    modules = (recall_module, columnar)
    steps = {(m, name): getattr(m, name) for m in modules for name in _STEPS if hasattr(m, name)}
    rank, batch, note = pipeline._rank, pipeline._rank_batch, books.note_access
    for name, fn in saved.items():
        setattr(r, name, _timed(timings, name, fn))
    for (m, name), fn in steps.items():
        setattr(m, name, _timed(timings, name, fn))
    # One of the two runs: the columnar batch ranking, or the per-query one it falls back to.
    pipeline._rank = _timed(timings, "rank", rank)  # type: ignore[method-assign]
    pipeline._rank_batch = _timed(timings, "rank", batch)  # type: ignore[method-assign]
    books.note_access = _timed(timings, "access", note)  # type: ignore[method-assign]
    try:
        start = time.perf_counter()
        world.loop.run_until_complete(
            world.rt.controller.recall_many(world.queries, vectors=world.qvecs)
        )
        total = time.perf_counter() - start
    finally:
        for name, fn in saved.items():
            setattr(r, name, fn)
        for (m, name), fn in steps.items():
            setattr(m, name, fn)
        pipeline._rank = rank  # type: ignore[method-assign]
        pipeline._rank_batch = batch  # type: ignore[method-assign]
        books.note_access = note  # type: ignore[method-assign]
    out = {f"stage_{k}_s": round(v, 3) for k, v in sorted(timings.items(), key=lambda t: -t[1])}
    out["stage_total_s"] = round(total, 3)
    print("\nstages (s):", ", ".join(f"{k[6:-2]} {v}" for k, v in out.items()))
    return out
