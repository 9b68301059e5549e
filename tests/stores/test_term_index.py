"""TermIndex: segmented appends and merges rank exactly like one index built at once."""

from __future__ import annotations

import random
import threading
from collections import Counter
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from remem.errors import InvalidArgumentError, ShapeError
from remem.kernels.bm25 import fts5_idf
from remem.reference import bm25 as ref
from remem.stores.term_index import IndexSnapshot, Segment, TermIndex

Doc = list[str]


def expected(
    docs: list[Doc], query: list[str], k: int, mask: list[bool] | None = None, **params: float
) -> tuple[list[int], list[float]]:
    """The reference kernel over one CSR of every document, with global statistics."""
    vocab = sorted({t for d in docs for t in d})
    ids = {t: i for i, t in enumerate(vocab)}
    postings: list[list[tuple[int, int]]] = [[] for _ in vocab]
    for d, tokens in enumerate(docs):
        for t, tf in sorted(Counter(ids[t] for t in tokens).items()):
            postings[t].append((d, tf))
    offsets = [0]
    for p in postings:
        offsets.append(offsets[-1] + len(p))
    terms = [ids[t] for t in query if t in ids]
    idf = [fts5_idf(len(docs), len(postings[t])) for t in terms]
    n_tokens = sum(map(len, docs))
    if not n_tokens:
        return [], []
    return ref.bm25_top_k(
        offsets,
        [d for p in postings for d, _ in p],
        [tf for p in postings for _, tf in p],
        [len(d) for d in docs],
        terms,
        idf,
        avgdl=n_tokens / len(docs),
        k=k,
        mask=mask,
        **params,
    )


def found(snapshot: IndexSnapshot | TermIndex, query: list[str], k: int, **kw: Any) -> Any:
    docs, scores = snapshot.search(query, k, **kw)
    return docs.tolist(), scores.tolist()


WORDS = st.sampled_from(["otter", "kelp", "tide", "shell", "reef", "gull"])


@settings(max_examples=80, deadline=None)
@given(
    batches=st.lists(st.lists(st.lists(WORDS, max_size=5), max_size=6), max_size=12),
    query=st.lists(WORDS | st.just("unknown"), max_size=4),
    k=st.integers(0, 12),
    seed=st.integers(0, 1000),
)
def test_appends_and_merges_rank_like_one_index(
    batches: list[list[Doc]], query: list[str], k: int, seed: int
) -> None:
    # A tiny tail limit: merges happen all the time, and a tail segment usually exists.
    index = TermIndex(min_tail_docs=3, merge_fraction=0.5)
    docs: list[Doc] = []
    for batch in batches:
        index.append(batch)
        docs.extend(batch)
        assert len(index) == len(docs)
    assert found(index, query, k) == expected(docs, query, k)
    mask = [random.Random(seed + i).random() < 0.5 for i in range(len(docs))]
    got = found(index, query, k, mask=np.array(mask, dtype=bool))
    assert got == expected(docs, query, k, mask)


@settings(max_examples=40, deadline=None)
@given(
    docs=st.lists(st.lists(WORDS, max_size=6), min_size=1, max_size=30),
    query=st.lists(WORDS, max_size=3),
    k1=st.sampled_from([0.0, 0.6, 1.6, 3.0]),
    b=st.sampled_from([0.0, 0.3, 1.0]),
)
def test_other_bm25_parameters_rank_like_the_reference(
    docs: list[Doc], query: list[str], k1: float, b: float
) -> None:
    index = TermIndex(min_tail_docs=3, merge_fraction=0.5)
    for start in range(0, len(docs), 7):
        index.append(docs[start : start + 7])
    assert found(index.snapshot(), query, 5, k1=k1, b=b) == expected(docs, query, 5, k1=k1, b=b)


def test_segment_concat_equals_one_build() -> None:
    rng = np.random.default_rng(3)
    lengths = rng.integers(0, 9, size=40)
    ids = rng.integers(0, 25, size=int(lengths.sum()))
    whole = Segment.build(ids, lengths, 25)
    cut = int(lengths[:17].sum())
    left = Segment.build(ids[:cut], lengths[:17], 20 if ids[:cut].max() < 20 else 25)
    joined = left.concat(Segment.build(ids[cut:], lengths[17:], 25))
    for name in ("offsets", "docs", "tfs", "doc_lengths"):
        np.testing.assert_array_equal(getattr(joined, name), getattr(whole, name))
    assert joined.n_tokens == whole.n_tokens
    assert Segment.empty().concat(whole) is whole


def test_snapshots_are_isolated_and_empty_documents_count() -> None:
    index = TermIndex()
    before = index.append([["otter", "kelp"], []])
    index.append([["otter"], ["reef", "otter"]])
    assert before.n_docs == 2
    assert found(before, ["otter", "reef"], 10) == expected([["otter", "kelp"], []], ["otter"], 10)
    docs: list[Doc] = [["otter", "kelp"], [], ["otter"], ["reef", "otter"]]
    assert found(index, ["otter", "reef"], 10) == expected(docs, ["otter", "reef"], 10)
    assert found(TermIndex(), ["otter"], 5) == ([], [])
    with pytest.raises(ShapeError):
        index.search(["otter"], 5, mask=np.ones(3, dtype=bool))
    with pytest.raises(InvalidArgumentError):
        TermIndex(merge_fraction=0.0)


def test_searches_from_threads_while_appending() -> None:
    rng = random.Random(11)
    words = [f"w{i}" for i in range(40)]
    all_docs: list[Doc] = [
        [rng.choice(words) for _ in range(rng.randint(0, 8))] for _ in range(3000)
    ]
    index = TermIndex(min_tail_docs=64)
    failures: list[str] = []
    done = threading.Event()

    def reader(seed: int) -> None:
        r = random.Random(seed)
        while not done.is_set():
            snap = index.snapshot()
            query = r.sample(words, 3)
            got = found(snap, query, 5)
            if got != expected(all_docs[: snap.n_docs], query, 5):
                failures.append(f"{snap.n_docs} {query}")

    threads = [threading.Thread(target=reader, args=(s,)) for s in range(3)]
    for t in threads:
        t.start()
    for start in range(0, len(all_docs), 50):
        index.append(all_docs[start : start + 50])
    done.set()
    for t in threads:
        t.join()
    assert failures == []
    assert len(index.snapshot().segments) >= 1
    assert found(index, ["w1", "w2"], 7) == expected(all_docs, ["w1", "w2"], 7)
