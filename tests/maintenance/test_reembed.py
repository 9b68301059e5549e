"""``remem reembed``: snapshot, a validated new generation, an atomic switch, the old one kept
until ``--confirm`` — on the embedded default and PostgreSQL."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

import remem
from remem.cli import main
from remem.embeddings import SentenceTransformerEmbedder
from remem.errors import EmbeddingModelMismatchError
from remem.maintenance import ReembedValidationError, reembed
from remem.recovery import Manifest, read_export
from remem.runtime_config import RuntimeConfig
from remem.staging.generation import read_generation
from tests.maintenance.conftest import fill, open_memory

run = asyncio.run


async def _state(
    memory: Path, backend: dict[str, str], dimension: int
) -> tuple[list[str], dict[str, int]]:
    """Recall texts for one query and the collection names → counts, opened at ``dimension``."""
    async with open_memory(memory, backend, embedding_dimension=dimension) as rt:
        texts = [h.record.text for h in await rt.controller.recall("cats and 3 dogs", k=5)]
        infos = await (await rt.controller.settled()).vectors.list_collections()
        return texts, {i.name: i.count for i in infos}


def test_reembed_switches_and_keeps_the_old_generation(
    memory: Path,
    backend: dict[str, str],
    cli_options: list[str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    run(fill(memory, backend, memories=40))
    before, _ = run(_state(memory, backend, 384))
    assert main(["reembed", *cli_options, "--model", "hashing", "--dimension", "256"]) == 0
    captured = capsys.readouterr()
    assert "re-embedding 42/42 (100%)" in captured.err  # the progress bar (not a terminal)
    out = captured.out
    assert (
        "re-embedded 42 memories with remem-hashing-v1-256 (dim 256) into generation memory_g2"
        in out
    )
    assert "sample self-recall@10: new 1.00, old 1.00" in out
    assert "the old generation memory is kept until `remem reembed --confirm`" in out
    generation = read_generation(memory)
    assert (generation.prefix, generation.previous, generation.dimension) == (
        "memory_g2",
        "memory",
        256,
    )
    assert not (memory / "reembed.json").exists()
    # A verified snapshot was taken first: the files, or PostgreSQL's logical snapshot.
    (snap,) = [p for p in memory.parent.iterdir() if ".before-reembed-" in p.name]
    if backend:
        assert read_export(snap).vectors
    else:
        Manifest.read(snap).verify(snap)
    assert f"snapshot: {snap}" in out

    after, counts = run(_state(memory, backend, 256))
    assert after[0] == before[0] == "fact number 3 about cats and 3 dogs"
    assert counts["memory_short_term"] == counts["memory_g2_short_term"] == 42
    with pytest.raises(
        EmbeddingModelMismatchError, match=r"remem reembed --dir .* --model hashing"
    ):
        run(_state(memory, backend, 384))

    # A second re-embed waits for the first to be confirmed.
    assert main(["reembed", *cli_options, "--model", "hashing"]) == 1
    assert "run `remem reembed --confirm`" in capsys.readouterr().err
    assert (
        main(["reembed", *cli_options, "--model", "hashing", "--dimension", "256", "--confirm"])
        == 0
    )
    assert "dropped the previous generation memory (3 collections)" in capsys.readouterr().out
    _, counts = run(_state(memory, backend, 256))
    assert sorted(counts) == ["memory_g2_decayed", "memory_g2_long_term", "memory_g2_short_term"]
    assert read_generation(memory).previous is None


def test_the_same_command_after_the_switch_re_validates_instead_of_refusing(
    memory: Path,
    backend: dict[str, str],
    cli_options: list[str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A run killed after its last step (pointer switched, state file gone) is run again: it
    re-checks the switched generation — counting memories written since against the records,
    as the old generation no longer receives them — and succeeds, embedding nothing."""
    run(fill(memory, backend, memories=12))
    command = ["reembed", *cli_options, "--model", "hashing", "--dimension", "256"]
    assert main(command) == 0
    capsys.readouterr()

    async def remember_more() -> None:
        async with open_memory(memory, backend, embedding_dimension=256) as rt:
            await rt.controller.remember("the user adopted a parrot called Kiwi")

    run(remember_more())
    assert main(command) == 0
    out = capsys.readouterr().out
    assert "re-embedded 15 memories with remem-hashing-v1-256" in out
    assert "0 embedded by this run" in out
    generation = read_generation(memory)
    assert (generation.prefix, generation.previous) == ("memory_g2", "memory")
    assert not (memory / "reembed.json").exists()
    _texts, counts = run(_state(memory, backend, 256))
    assert counts["memory_g2_short_term"] == 15
    assert counts["memory_short_term"] == 14


def test_a_generation_that_does_not_validate_is_not_switched(
    memory: Path, backend: dict[str, str]
) -> None:
    run(fill(memory, backend, memories=10))

    async def stray_vector() -> None:  # a vector no record owns: the counts cannot match
        async with open_memory(memory, backend) as rt:
            await (await rt.controller.settled()).vectors.add(
                "memory_short_term", ["stray"], [[1.0] + [0.0] * 383], documents=["stray"]
            )

    run(stray_vector())
    config = RuntimeConfig(
        path=memory,
        embedding_provider="hashing",
        backend="postgres" if backend else "embedded",
        dsn=backend.get("dsn"),
    )
    with pytest.raises(
        ReembedValidationError, match="short_term: 12 vectors, the old generation 13"
    ):
        run(reembed(config, "hashing", dimension=128))
    assert read_generation(memory).prefix == "memory"
    state = json.loads((memory / "reembed.json").read_text())
    assert state["new_prefix"] == "memory_g2"
    texts, _ = run(_state(memory, backend, 384))  # still the old generation
    assert texts[0] == "fact number 3 about cats and 3 dogs"


@pytest.mark.local_model
def test_reembed_to_the_bundled_minilm(memory: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(fill(memory, {}, memories=20))
    assert (
        main(
            [
                "reembed",
                "--dir",
                str(memory),
                "--embedding-provider",
                "hashing",
                "--model",
                "minilm",
            ]
        )
        == 0
    )
    # The bundled model's precision is this CPU's choice (bf16 with AVX512_BF16).
    want = SentenceTransformerEmbedder.bundled_minilm().model_name
    assert f"with {want} (dim 384)" in capsys.readouterr().out

    async def recall() -> tuple[str, list[str]]:
        async with remem.Runtime.open(memory) as rt:  # auto: the active generation's model
            hits = await rt.controller.recall("where does the user live", k=3)
            return rt.embedder.model_name, [h.record.text for h in hits]

    model, texts = run(recall())
    assert model == want
    assert "The user moved to Porto" in texts
