"""Small LoCoMo-format conversations with known evidence, for tests and benchmarks.

Each conversation has ``sessions`` dated sessions of ``turns_per_session`` utterances
alternating between two speakers. Most turns are filler drawn from a shared pool of bland
sentences; ``facts`` turns each hold two invented, distinctive words (``"glimbrook"``) that the
question about that turn repeats — so a retriever that works finds the evidence, and one that
maps ids wrongly cannot. Every third question is a two-evidence question (category 1) naming the
words of two fact turns; the rest are category 4 (single-hop). One fact turn per conversation
carries an image (``blip_caption``) and its question asks about the caption's words only.
"""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

FILLER = [
    "How was your week? Mine was pretty busy with work and errands.",
    "That sounds nice, I hope you get some rest this weekend.",
    "I have been thinking about what we talked about last time.",
    "Yeah, it has been a long day but I am doing fine.",
    "Thanks for asking, things are going well overall.",
    "I totally understand, sometimes you just need a break.",
    "Let me know how it goes, I would love to hear about it.",
    "Haha that is so true, we should catch up more often.",
]
_SYLLABLES = ["glim", "brok", "zan", "tuv", "quel", "marp", "drix", "olv", "snef", "pyra", "wub"]


def _word(rng: random.Random, used: set[str]) -> str:
    while True:
        word = "".join(rng.choice(_SYLLABLES) for _ in range(3))
        if word not in used:
            used.add(word)
            return word


def _date(when: datetime) -> str:
    hour = when.hour % 12 or 12
    ampm = "am" if when.hour < 12 else "pm"
    return f"{hour}:{when.minute:02d} {ampm} on {when.day} {when:%B}, {when.year}"


def make_conversation(
    sample_id: str,
    *,
    seed: int = 0,
    sessions: int = 3,
    turns_per_session: int = 10,
    facts: int = 6,
    nested: bool = True,
    start: datetime | None = None,
) -> dict[str, Any]:
    """One LoCoMo conversation object (nested under ``"conversation"`` or flat)."""
    rng = random.Random(seed)
    speakers = ["Caroline", "Melanie"]
    used: set[str] = set()
    slots = [(s, t) for s in range(1, sessions + 1) for t in range(1, turns_per_session + 1)]
    fact_slots = set(rng.sample(slots, facts))
    image_slot = sorted(fact_slots)[0]
    body: dict[str, Any] = {"speaker_a": speakers[0], "speaker_b": speakers[1]}
    when = start or datetime(2023, 5, 8, 13, 56)
    fact_turns: list[tuple[str, str, str, str]] = []  # dia_id, speaker, word1 word2, caption
    for s in range(1, sessions + 1):
        body[f"session_{s}_date_time"] = _date(when)
        turns: list[dict[str, Any]] = []
        for t in range(1, turns_per_session + 1):
            speaker = speakers[(t - 1) % 2]
            turn: dict[str, Any] = {"speaker": speaker, "dia_id": f"D{s}:{t}"}
            if (s, t) in fact_slots:
                a, b = _word(rng, used), _word(rng, used)
                turn["text"] = f"Guess what, I finally tried {a} with my {b} today!"
                caption = ""
                if (s, t) == image_slot:
                    c1, c2 = _word(rng, used), _word(rng, used)
                    caption = f"a photo of a {c1} next to a {c2}"
                    turn["blip_caption"] = caption
                    turn["img_url"] = ["https://example.invalid/photo.jpg"]
                fact_turns.append((f"D{s}:{t}", speaker, f"{a} {b}", caption))
            else:
                turn["text"] = rng.choice(FILLER)
            turns.append(turn)
        body[f"session_{s}"] = turns
        when += timedelta(days=rng.randint(3, 20), hours=rng.randint(0, 5))
    qa: list[dict[str, Any]] = []
    for i, (dia_id, speaker, words, caption) in enumerate(fact_turns):
        if caption:
            c1, c2 = caption.split()[4], caption.split()[-1]
            question = f"What was in the photo {speaker} shared of the {c1} and the {c2}?"
            qa.append({"question": question, "answer": c1, "evidence": [dia_id], "category": 4})
        elif i % 3 == 2:
            prev = fact_turns[i - 1]
            question = f"What did {speaker} try: {words}, and what about {prev[2]}?"
            qa.append(
                {
                    "question": question,
                    "answer": words,
                    "evidence": [dia_id, prev[0]],
                    "category": 1,
                }
            )
        else:
            question = f"When did {speaker} try {words}?"
            qa.append({"question": question, "answer": words, "evidence": [dia_id], "category": 4})
    qa.append(
        {
            "question": "What did Melanie say about quantum chromodynamics?",
            "adversarial_answer": "Nothing; it never came up.",
            "evidence": [],
            "category": 5,
        }
    )
    if nested:
        return {"sample_id": sample_id, "conversation": body, "qa": qa}
    return {"sample_id": sample_id, **body, "qa": qa}


def write_dataset(
    directory: Path, *, conversations: int = 3, single_file: bool = True, **kwargs: Any
) -> Path:
    """Write ``conversations`` synthetic conversations; returns the file or directory to load."""
    directory.mkdir(parents=True, exist_ok=True)
    items = [
        make_conversation(f"conv-{i}", seed=i, nested=i % 2 == 0, **kwargs)
        for i in range(conversations)
    ]
    if single_file:
        path = directory / "locomo10.json"
        path.write_text(json.dumps(items), encoding="utf-8")
        return path
    for item in items:
        (directory / f"{item['sample_id']}.json").write_text(json.dumps(item), encoding="utf-8")
    return directory
