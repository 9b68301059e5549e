"""The labelled statement corpus: loading it and scoring an extractor against it.

``data/statements.txt`` is the development slice (tuned against); ``data/heldout.txt`` was
written at the same time and is only scored, never tuned on. One statement per line::

    text<TAB>=> fact; fact

A fact is ``[subject.]attribute=value[!op]`` — subject ``user`` and op ``set`` by default,
op ``end`` or ``correct`` otherwise; nothing after ``=>`` means the statement states no fact.
``## tag`` lines tag the statements below them (first person, distractors, corrections …).
A predicted fact is right when subject, attribute, value (case-folded) and op all match; its
kind (move, job, pet …) comes from the attribute (:data:`KIND_OF`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

DATA = Path(__file__).parent / "data"

Fact = tuple[str, str, str, str]
"""(subject, attribute, value, op), subject and value case-folded."""

KIND_OF: dict[str, str] = {
    "city": "move",
    "hometown": "origin",
    "employer": "job",
    "job_title": "job",
    "school": "school",
    "partner": "partner",
    "sibling": "family",
    "parent": "family",
    "child": "family",
    "relative": "family",
    "friend": "family",
    "pet": "pet",
    "diet": "diet",
    "habit": "habit",
    "allergy": "health",
    "health": "health",
    "preference": "preference",
    "hobby": "preference",
    "dislike": "preference",
    "favourite_food": "preference",
    "email": "contact",
    "phone": "contact",
    "project": "project",
    "birthday": "date",
    "date": "date",
    "name": "identity",
    "age": "identity",
    "pronouns": "identity",
    "nationality": "identity",
}


@dataclass(frozen=True)
class Labelled:
    text: str
    facts: frozenset[Fact]
    tag: str
    line: int


def fact(subject: str, attribute: str, value: str, op: str = "set") -> Fact:
    return (subject.casefold(), attribute, value.casefold(), op)


def _parse_fact(raw: str, where: str) -> Fact:
    key, sep, value = raw.partition("=")
    if not sep or not value:
        raise ValueError(f"{where}: fact {raw!r} needs attribute=value")
    op = "set"
    if "!" in value:
        value, op = value.rsplit("!", 1)
    subject, dot, attribute = key.rpartition(".")
    if op not in ("set", "end", "correct") or attribute not in KIND_OF:
        raise ValueError(f"{where}: bad op or unknown attribute in {raw!r}")
    return fact(subject if dot else "user", attribute, value.strip(), op)


def load(name: str) -> list[Labelled]:
    """The statements of ``data/<name>.txt`` in file order."""
    out: list[Labelled] = []
    tag = ""
    for n, line in enumerate((DATA / f"{name}.txt").read_text("utf-8").splitlines(), 1):
        if line.startswith("## "):
            tag = line[3:].strip()
            continue
        if not line.strip() or line.startswith("#"):
            continue
        text, sep, facts = line.partition("\t=>")
        if not sep:
            raise ValueError(f"{name}.txt:{n}: expected text<TAB>=> facts")
        parsed = frozenset(
            _parse_fact(f.strip(), f"{name}.txt:{n}") for f in facts.split(";") if f.strip()
        )
        out.append(Labelled(text, parsed, tag, n))
    return out


@dataclass
class KindScore:
    tp: int = 0
    fp: int = 0
    fn: int = 0

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0


@dataclass
class Score:
    kinds: dict[str, KindScore] = field(default_factory=dict)
    wrong: list[tuple[Labelled, frozenset[Fact]]] = field(default_factory=list)

    @property
    def total(self) -> KindScore:
        t = KindScore()
        for k in self.kinds.values():
            t.tp, t.fp, t.fn = t.tp + k.tp, t.fp + k.fp, t.fn + k.fn
        return t

    def table(self) -> str:
        rows = [f"{'kind':<11} {'P':>6} {'R':>6} {'tp':>4} {'fp':>4} {'fn':>4}"]
        for name, k in [*sorted(self.kinds.items()), ("ALL", self.total)]:
            rows.append(
                f"{name:<11} {k.precision:6.3f} {k.recall:6.3f} {k.tp:4d} {k.fp:4d} {k.fn:4d}"
            )
        return "\n".join(rows)


def score(extract: Callable[[str], Iterable[Fact]], corpus: list[Labelled]) -> Score:
    """Precision and recall per kind of ``extract`` (text → facts) over ``corpus``."""
    result = Score()
    for item in corpus:
        got = frozenset(extract(item.text))
        for f in got | item.facts:
            k = result.kinds.setdefault(KIND_OF.get(f[1], f[1]), KindScore())
            if f in got and f in item.facts:
                k.tp += 1
            elif f in got:
                k.fp += 1
            else:
                k.fn += 1
        if got != item.facts:
            result.wrong.append((item, got))
    return result
