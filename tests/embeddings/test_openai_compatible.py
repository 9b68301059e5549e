"""OpenAICompatibleEmbedder against a scripted HTTP server on 127.0.0.1 (no network)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import numpy as np
import pytest

from remem.embeddings import OpenAICompatibleEmbedder
from remem.errors import ConfigError, EmbeddingError, InvalidArgumentError
from tests.embeddings.stub_server import Response, StubServer, serve, success

KEY = "sk-test-secret-never-shown"


@pytest.fixture
async def stub() -> AsyncIterator[StubServer]:
    async with serve() as server:
        yield server


def make(stub: StubServer, **kwargs: object) -> tuple[OpenAICompatibleEmbedder, list[float]]:
    embedder = OpenAICompatibleEmbedder(stub.url, "test-model", **kwargs)  # type: ignore[arg-type]
    delays: list[float] = []

    async def record(seconds: float) -> None:
        delays.append(seconds)

    embedder._sleep = record
    return embedder, delays


async def test_success_returns_checked_float32_in_input_order(
    stub: StubServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    stub.script.append(lambda p: success(p, reverse=True))  # server lists data out of order
    async with make(stub)[0] as embedder:
        out = await embedder.embed_documents(["a", "bbb", "cc"])
        assert out.dtype == np.float32
        assert out.flags.c_contiguous
        assert out.shape == (3, 4)
        assert out[:, 0].tolist() == [1.0, 3.0, 2.0]
        assert embedder.dimension == 4
        assert embedder.model_name == f"test-model@{stub.url.split('/')[2]}"
        query = await embedder.embed_query("four")
        assert query.shape == (4,)
        assert query[0] == 4.0
    request = stub.requests[0]
    assert request.body == {"model": "test-model", "input": ["a", "bbb", "cc"]}
    assert request.headers["authorization"] == f"Bearer {KEY}"


async def test_no_key_sends_no_authorization(
    stub: StubServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    async with make(stub)[0] as embedder:
        await embedder.embed_query("x")
    assert "authorization" not in stub.requests[0].headers


async def test_batches_of_batch_size(stub: StubServer) -> None:
    async with make(stub, batch_size=2)[0] as embedder:
        out = await embedder.embed_documents(["a", "b", "c", "d", "e"])
    assert [len(r.body["input"]) for r in stub.requests] == [2, 2, 1]
    assert out.shape == (5, 4)
    assert out[:, 1].tolist() == [0.0, 1.0, 0.0, 1.0, 0.0]  # index within each batch


async def test_429_with_retry_after_then_success(stub: StubServer) -> None:
    stub.script.append(lambda p: Response(429, b'{"error":"slow down"}', {"Retry-After": "2"}))
    stub.script.append(lambda p: Response(503, b"busy"))
    embedder, delays = make(stub)
    async with embedder:
        out = await embedder.embed_documents(["hello"])
    assert out.shape == (1, 4)
    assert len(stub.requests) == 3
    assert delays[0] == 2.0  # the server's Retry-After is honoured
    assert 0.5 <= delays[1] <= 1.0  # exponential backoff with jitter: attempt 1 of base 0.5 s


async def test_500_exhausts_retries_and_names_host_status_cause(
    stub: StubServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    stub.script.extend([lambda p: Response(500, b'{"error": "model crashed"}')] * 4)
    embedder, delays = make(stub, max_retries=3)
    async with embedder:
        with pytest.raises(EmbeddingError) as info:
            await embedder.embed_documents(["hello"])
    message = str(info.value)
    assert "127.0.0.1" in message
    assert "HTTP 500" in message
    assert "model crashed" in message
    assert "4 attempts" in message
    assert KEY not in message
    assert len(stub.requests) == 4
    assert len(delays) == 3
    assert all(d <= b for d, b in zip(delays, [0.5, 1.0, 2.0], strict=True))


async def test_client_errors_are_not_retried(stub: StubServer) -> None:
    stub.script.append(lambda p: Response(401, b'{"error": "bad key"}'))
    async with make(stub)[0] as embedder:
        with pytest.raises(EmbeddingError, match=r"HTTP 401.*set OPENAI_API_KEY"):
            await embedder.embed_query("x")
    assert len(stub.requests) == 1


async def test_malformed_json(stub: StubServer) -> None:
    stub.script.append(lambda p: Response(200, b"{not json"))
    async with make(stub)[0] as embedder:
        with pytest.raises(EmbeddingError, match="invalid JSON"):
            await embedder.embed_query("x")


async def test_wrong_count(stub: StubServer) -> None:
    def short(payload: dict[str, object]) -> Response:
        body = json.loads(success(payload).body)
        body["data"] = body["data"][:1]
        return Response(200, json.dumps(body).encode())

    stub.script.append(short)
    async with make(stub)[0] as embedder:
        with pytest.raises(EmbeddingError, match="returned 1 embeddings for 2 inputs"):
            await embedder.embed_documents(["a", "b"])


async def test_inconsistent_dimension_and_non_finite(stub: StubServer) -> None:
    stub.script.append(lambda p: success(p, dimension=5))
    stub.script.append(lambda p: Response(200, b'{"data": [{"index": 0, "embedding": [1, NaN]}]}'))
    async with make(stub, dimension=4)[0] as embedder:
        with pytest.raises(EmbeddingError, match="dimension 5, expected 4"):
            await embedder.embed_query("a")
    async with make(stub)[0] as embedder:
        with pytest.raises(EmbeddingError, match="NaN"):
            await embedder.embed_query("a")


async def test_timeout_is_retried_then_reported(stub: StubServer) -> None:
    stub.script.extend([lambda p: Response(delay=1.0, body=b"{}")] * 2)
    embedder, delays = make(stub, timeout=0.1, max_retries=1)
    async with embedder:
        with pytest.raises(EmbeddingError, match=r"timed out after 0.1 s on all 2 attempts"):
            await embedder.embed_query("x")
    assert len(delays) == 1


async def test_connection_refused_is_reported() -> None:
    async with serve() as stub:
        url = stub.url
    embedder = OpenAICompatibleEmbedder(url, "m", max_retries=1)
    embedder._sleep = _no_sleep
    with pytest.raises(EmbeddingError, match="connection failed on all 2 attempts"):
        await embedder.embed_query("x")
    await embedder.aclose()


async def _no_sleep(seconds: float) -> None:
    return None


async def test_use_after_close_and_bad_config(stub: StubServer) -> None:
    embedder = make(stub)[0]
    await embedder.aclose()
    await embedder.aclose()
    with pytest.raises(EmbeddingError, match="closed"):
        await embedder.embed_query("x")
    with pytest.raises(ConfigError, match="not known until"):
        _ = embedder.dimension
    with pytest.raises(ConfigError):
        OpenAICompatibleEmbedder("ftp://host", "m")
    with pytest.raises(ConfigError):
        OpenAICompatibleEmbedder("http://host", "m", batch_size=0)
    with pytest.raises(InvalidArgumentError):
        await embedder.embed_documents("not a list")
