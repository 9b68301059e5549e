"""benches/friday_peer.py builds and queries Friday's MemoryController with no network access.

Run in a child process whose sockets refuse (and record) every connection and name lookup, so
an import-time fetch (litellm's price map), a telemetry ping or a vocabulary download
(tiktoken) shows up as a recorded attempt instead of a silent fallback.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import remem

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import socket
import sys

attempts = []


def refuse(*args, **kwargs):
    attempts.append(repr(args[:2]))
    raise OSError("network access in an offline benchmark")


socket.socket.connect = refuse
socket.socket.connect_ex = refuse
socket.getaddrinfo = refuse
socket.create_connection = refuse

import asyncio
from pathlib import Path

from benches.friday_peer import FridayPeer, PrecomputedEmbeddings
from remem.embeddings import HashingEmbedder

texts = [f"note {i}: the {w} was fine" for i, w in enumerate(["river", "piano", "tennis"] * 10)]
texts[17] = "Ana keeps the spare house key under the blue flowerpot"
query = "where is the spare house key"
vectors = HashingEmbedder().encode([*texts, query])
loop = asyncio.new_event_loop()
peer = FridayPeer(Path(sys.argv[1]), loop, PrecomputedEmbeddings([*texts, query], vectors))
peer.load(texts, [("s0", "hello", "hi")])
print(peer.count(), peer.recall(query)[:1], attempts)
"""


def test_friday_peer_recalls_the_planted_memory_without_touching_the_network(
    tmp_path: Path,
) -> None:
    path = [str(ROOT), str(Path(remem.__file__).parents[1])]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path)}
    env.pop("LITELLM_LOCAL_MODEL_COST_MAP", None)  # the peer must set it itself
    result = subprocess.run(
        [sys.executable, "-c", CHILD, str(tmp_path / "friday")],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "30 ['m17'] []", result.stderr
