"""Build the grammar's list of English words (``remem/extraction/grammar/data/english.txt.gz``).

The clause tokeniser restores the capital of a likely name in a message typed without any
capitals ("my boyfriend callum says…" → "Callum"): a word counts as a name only when it is
*not* an English word. This script writes that list from SCOWL's American and British word
lists as Debian ships them (packages ``wamerican`` and ``wbritish``, public word lists under
SCOWL's permissive licence, kept in the file's header). Only the entries written in lower case
are taken — SCOWL writes proper nouns with their capital, so "sam" and "leeds" stay out while
"rose", "max" and "will" (also words) are in: a lower-cased word that is also a name is left
alone, which misses a name rather than inventing one.

    apt-get download wamerican wbritish
    for p in wamerican wbritish; do dpkg-deb -x ${p}_*.deb /tmp/$p; done
    python scripts/build_wordlist.py /tmp/wamerican/usr/share/dict/american-english \\
        /tmp/wbritish/usr/share/dict/british-english

Deterministic: the same lists give the same file (sorted, gzip without a timestamp).
"""

from __future__ import annotations

import argparse
import gzip
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "python/remem/extraction/grammar/data/english.txt.gz"

HEADER = """\
# English words written in lower case, from SCOWL (Spell Checker Oriented Word Lists) as
# Debian's wamerican and wbritish packages ship them (2020.12.07), built by
# scripts/build_wordlist.py. SCOWL: Copyright 2000-2011 by Kevin Atkinson. Permission to use,
# copy, modify, distribute and sell these word lists, the associated scripts, the output
# created from the scripts, and its documentation for any purpose is hereby granted without
# fee, provided that the above copyright notice appears in all copies and that both that
# copyright notice and this permission notice appear in supporting documentation. Kevin
# Atkinson makes no representations about the suitability of this array for any purpose. It
# is provided "as is" without express or implied warranty.
"""


def build(sources: list[Path]) -> list[str]:
    """The lower-case, letters-only entries of ``sources`` (possessives dropped), sorted."""
    found: set[str] = set()
    for source in sources:
        for line in source.read_text(encoding="utf-8").splitlines():
            word = line.strip()
            if word and word.isalpha() and word.islower():
                found.add(word)
    return sorted(found)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sources", nargs="+", type=Path, help="SCOWL word list files")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    entries = build(args.sources)
    body = HEADER + "\n".join(entries) + "\n"
    with args.out.open("wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as out:
        out.write(body.encode("utf-8"))
    print(f"{len(entries)} words -> {args.out} ({args.out.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()
