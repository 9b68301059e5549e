"""Small talk of the year horizon: a year of everyday turns that share words with the facts.

Most of what a person tells a companion over a year is not about their facts, and much of it
*sounds* like them: a friend who moved to Berlin, a colleague allergic to sesame, someone's
dog, a birthday party, a new job at another company. These turns are the lures a memory has to
see past: they use the words of the questions ("live", "work", "allergic", "birthday", "dog",
"dating") and values from the same pools as the facts (other cities, companies, names, foods),
but never a value the persona has — ``{lure_*}`` slots take only values outside the persona's
plan, and the fixed words avoid every alias (no "knee", "salsa", "veggie"), which
``tests/eval/persona/test_year.py`` checks over whole rendered years.

    texts = small_talk(rng, lures_for(plan), 3)   # three different turns for one day
"""

from __future__ import annotations

import random

from remem.eval.persona.plan import PersonaPlan
from remem.eval.persona.values import POOLS

__all__ = ["CHATTER", "lures_for", "small_talk"]

CHATTER: tuple[str, ...] = (
    # Lures: other people's moves, jobs, partners, pets, diets, allergies and birthdays.
    "My friend {lure_name} just moved to {lure_city} for work, I'm so jealous.",
    "{lure_name} got a job at {lure_employer}, we went out to celebrate.",
    "My colleague lives in {lure_city} and commutes two hours, madness.",
    "{lure_name} is allergic to {lure_allergy}, so the party menu was a puzzle.",
    "It's {lure_name}'s birthday on Saturday, no idea what to get them.",
    "{lure_name} from the gym is dating someone from {lure_employer} now.",
    "My neighbour's {lure_kind} is called {lure_pet}, cutest thing on the street.",
    "{lure_name} went {lure_diet} for a month and won't stop talking about it.",
    "Someone at the next table was a {lure_job}, had the wildest stories.",
    "{lure_name} grew up near {lure_city}, she says the winters are brutal.",
    "Heard {lure_employer} is hiring again, half my friends applied.",
    "{lure_name} and their partner just split up, everyone is taking sides.",
    "My cousin adopted a {lure_kind} named {lure_pet}, sent me forty photos.",
    "{lure_name} keeps trying to get me into {lure_hobby}, not my thing.",
    "A friend of a friend works as a {lure_job} at {lure_employer}.",
    "{lure_name} moved out of {lure_city} last year and already misses it.",
    "Had {lure_food} for lunch with {lure_name}, it was fine, nothing special.",
    "The new place near the station does {lure_food}, long queue though.",
    "Watched a documentary about {lure_city}, gorgeous place.",
    "Thinking about a weekend trip to {lure_city} some day.",
    "My cousin's wedding is in {lure_city}, should be fun.",
    "{lure_name} swears by cold showers, not convinced.",
    "My neighbour is learning {lure_hobby}, I can hear it through the wall.",
    "{lure_name} asked if I wanted to share a flat in {lure_city}, tempting but no.",
    # Everyday talk with nothing to remember.
    "The weather has been grey all week, I miss the sun.",
    "Any good podcast recommendations? I've run out.",
    "Traffic was terrible this morning.",
    "Do you think it's weird to reread the same book every year?",
    "Ugh, I forgot to water the plants again.",
    "I can't decide what to watch tonight.",
    "Is it normal to be this tired on a Wednesday?",
    "Finally fixed the squeaky door, felt like a hero.",
    "My phone battery dies by lunch now, time for a new one?",
    "Tried a new coffee place, the flat white was excellent.",
    "Why do all the good films come out at the same time?",
    "Went for a long walk, needed to clear my head.",
    "The washing machine flooded the bathroom, what a morning.",
    "Spent an hour choosing a paint colour for the hallway.",
    "Is it too early to put up the fairy lights?",
    "I keep meaning to learn to cook something new.",
    "Got caught in the rain without an umbrella, classic me.",
    "Accidentally stayed up until two reading, worth it.",
    "The supermarket moved everything around again, why.",
    "Cleaned out the fridge, found things I won't describe.",
    "Do you know any good stretches for a stiff neck?",
    "My group chat has been unbearable about the football.",
    "Bought a plant, let's see how long it survives this time.",
    "Sunday scaries are real tonight.",
    "The neighbours are renovating, drilling since seven.",
    "I need a holiday from my holiday plans.",
    "Tried meditating for ten minutes, thought about lunch the whole time.",
    "Found an old photo album at the back of a drawer.",
    "Is it rude to leave a party without saying goodbye?",
    "The sunset tonight was unreal, pink and orange everywhere.",
    "I've been humming the same song for three days.",
    "Lost my keys for twenty minutes, they were in my hand.",
    "Started a puzzle with a thousand pieces, big mistake.",
    "The bakery ran out of croissants before nine, tragic.",
    "Should I get a standing desk or is that a fad?",
    "Spent the evening sorting photos on my laptop.",
)
"""Small-talk turns; ``{lure_*}`` slots take values the persona never has (:func:`lures_for`)."""


def lures_for(plan: PersonaPlan) -> dict[str, list[str]]:
    """Per ``{lure_*}`` slot, the pool values outside ``plan`` (a lure never names a fact)."""
    taken = plan.all_values()

    def free(*pools: str) -> list[str]:
        return [v for p in pools for v in POOLS[p] if v not in taken]

    return {
        "lure_city": free("city", "hometown"),
        "lure_name": free("partner", "sister", "brother"),
        "lure_employer": free("employer"),
        "lure_allergy": free("allergy"),
        "lure_kind": list(POOLS["pet_kind"]),
        "lure_pet": free("pet"),
        "lure_diet": free("diet"),
        "lure_job": free("job_title"),
        "lure_food": free("favourite_food"),
        "lure_hobby": free("hobby"),
    }


def small_talk(rng: random.Random, lures: dict[str, list[str]], count: int) -> list[str]:
    """``count`` different small-talk turns (one day's) with their slots filled from ``lures``."""
    return [
        template.format(**{k: rng.choice(v) for k, v in lures.items()})
        for template in rng.sample(CHATTER, count)
    ]
