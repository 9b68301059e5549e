"""A seeded, labelled recall evaluation set: synthetic persona memories + paraphrased questions.

40 people × 5 facts = 200 memories. Each question paraphrases one memory (different verb and
word order, the person's name and one content word kept) and has exactly one correct answer;
every other fact of the same person and every fact of the same category about other people are
near-miss distractors that share words with the question. Also 100 conversation turns that
mention the same people (noise for the full-text retriever). Used by the fusion test and by
benches/bench_controller.py; deterministic for a given seed.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

FIRST = [
    "Ana",
    "Maria",
    "Joao",
    "Pedro",
    "Lucia",
    "Tomas",
    "Ines",
    "Rui",
    "Carla",
    "Bruno",
    "Sofia",
    "Marta",
    "Hugo",
    "Diana",
    "Nuno",
    "Rita",
    "Paulo",
    "Vera",
    "Luis",
    "Clara",
    "Andre",
    "Joana",
    "Filipe",
    "Beatriz",
    "Miguel",
    "Teresa",
    "Ricardo",
    "Helena",
    "Jorge",
    "Sara",
    "Vasco",
    "Laura",
    "Duarte",
    "Alice",
    "Goncalo",
    "Eva",
    "Tiago",
    "Ester",
    "Raquel",
    "Simao",
]
CITIES = [
    "Lisbon",
    "Porto",
    "Madrid",
    "Paris",
    "Berlin",
    "Rome",
    "Vienna",
    "Prague",
    "Dublin",
    "Oslo",
    "Tokyo",
    "Lima",
]
FOODS = [
    "sushi",
    "lasagna",
    "ramen",
    "paella",
    "tacos",
    "curry",
    "risotto",
    "falafel",
    "pierogi",
    "goulash",
]
PETS = ["cat", "dog", "parrot", "hamster", "tortoise", "rabbit", "ferret", "goldfish"]
JOBS = [
    "nurse",
    "architect",
    "teacher",
    "pilot",
    "chef",
    "lawyer",
    "plumber",
    "dentist",
    "baker",
    "engineer",
]
SPORTS = ["tennis", "rowing", "chess", "climbing", "surfing", "fencing", "judo", "cycling"]

# (memory template, question templates...) — questions reword the memory.
FACTS = (
    (
        "{name} lives in {x} with her family",
        "Which city is {name}'s home?",
        "where does {name} live now",
    ),
    (
        "{name}'s favourite food is {x}",
        "what dish does {name} love eating",
        "{name} enjoys which meal most",
    ),
    ("{name} has a pet {x} at home", "what animal does {name} keep", "which pet belongs to {name}"),
    ("{name} works as a {x}", "what is {name}'s job", "{name}'s profession?"),
    (
        "{name} plays {x} every weekend",
        "which sport does {name} practise",
        "what does {name} do on weekends for exercise",
    ),
)
VALUES = (CITIES, FOODS, PETS, JOBS, SPORTS)


@dataclass(frozen=True, slots=True)
class EvalItem:
    question: str
    answer_id: str


@dataclass(frozen=True, slots=True)
class EvalSet:
    memories: list[tuple[str, str]]  # (id, text)
    questions: list[EvalItem]
    turns: list[tuple[str, str]]  # (user, assistant)


def build(seed: int = 7, people: int = 40) -> EvalSet:
    rng = random.Random(seed)
    memories: list[tuple[str, str]] = []
    questions: list[EvalItem] = []
    for p in range(people):
        name = FIRST[p % len(FIRST)]
        for f, (template, *asks) in enumerate(FACTS):
            mid = f"p{p:02d}f{f}"
            memories.append((mid, template.format(name=name, x=rng.choice(VALUES[f]))))
            questions.append(EvalItem(rng.choice(asks).format(name=name), mid))
    turns = []
    for t in range(100):
        name = FIRST[rng.randrange(people) % len(FIRST)]
        turns.append(
            (f"Did you talk to {name} about the weekend?", f"Not yet, {name} was busy ({t}).")
        )
    return EvalSet(memories, questions, turns)


def mrr_and_recall(
    ranked: list[list[str]], items: list[EvalItem], at: int = 5
) -> tuple[float, float]:
    rr = 0.0
    hit = 0
    for ids, item in zip(ranked, items, strict=True):
        if item.answer_id in ids:
            pos = ids.index(item.answer_id)
            rr += 1.0 / (pos + 1)
            hit += pos < at
    return rr / len(items), hit / len(items)
