"""fts5_tokens gives exactly the tokens SQLite FTS5 (unicode61 remove_diacritics 2) indexes."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

import pytest

from remem.stores.shared.search_text import MAX_INDEXED_CHARS, search_text
from remem.stores.sqlite.fts5_tokens import MAX_TOKEN_BYTES, fts5_tokens


@pytest.fixture
def fts() -> Iterator[sqlite3.Connection]:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE f USING fts5(t, tokenize='unicode61 remove_diacritics 2')")
    conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(f, instance)")
    yield conn
    conn.close()


def _fts5(conn: sqlite3.Connection, texts: list[str]) -> list[list[str]]:
    """FTS5's tokens of each text, in order (read back through fts5vocab)."""
    conn.execute("DELETE FROM f")
    conn.executemany("INSERT INTO f (rowid, t) VALUES (?, ?)", enumerate(texts))
    out: list[list[str]] = [[] for _ in texts]
    conn.text_factory = lambda b: b.decode("utf-8", "surrogateescape")
    for term, doc in conn.execute("SELECT term, doc FROM v ORDER BY doc, offset"):
        out[doc].append(term)
    return out


def _alphabet() -> list[str]:
    """Every character a search text can hold: those of the tokens of every folded code point."""
    chars = [chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]
    step = MAX_INDEXED_CHARS // 2  # search_text reads only the first MAX_INDEXED_CHARS
    tokens = (search_text("\n".join(chars[i : i + step])) for i in range(0, len(chars), step))
    return sorted(set("".join("".join(t.split()) for t in tokens)))


def test_every_character_inside_a_word(fts: sqlite3.Connection) -> None:
    # FTS5 folds and splits per code point, so each character between two letters covers every
    # token search_text can produce (but for length, tested below). 500 words per row: fast.
    words = [f"a{ch}b" for ch in _alphabet()]
    texts = [" ".join(words[i : i + 500]) for i in range(0, len(words), 500)]
    want = _fts5(fts, texts)
    assert [fts5_tokens(t) for t in texts] == want
    assert len(words) > 100_000
    assert sum(fts5_tokens(w) != [w] for w in words) >= 20  # the differences are real


@pytest.mark.parametrize(
    "text",
    [
        "οδος ς σς",
        search_text("東・京に住む゛"),
        "x" * (MAX_TOKEN_BYTES + 5) + " y",
        "λ" * (MAX_TOKEN_BYTES // 2 + 3),  # 2-byte characters: cut on a character boundary
        "z " + "क" * (MAX_TOKEN_BYTES // 3 + 3),  # 3-byte characters: cut inside one
        "ᦀᦰᦁ ᦀ",
        "",
    ],
)
def test_special_cases(fts: sqlite3.Connection, text: str) -> None:
    assert fts5_tokens(text) == _fts5(fts, [text])[0]
