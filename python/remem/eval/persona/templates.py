"""Phrasings the offline renderer draws from: how a person actually mentions facts.

Each template has a style:

- ``canonical`` — the textbook sentence a rule extractor is written for ("I live in Lisbon.");
  deliberately the rarest style, so a rule-based extractor is not trivially aligned with the
  data;
- ``paraphrase`` — the same fact in other words ("Home is Lisbon these days.");
- ``indirect`` — the fact is implied ("The commute from Alfama is brutal." — ``{a}`` is an alias
  of the value, such as a neighbourhood);
- ``split`` — the fact spread over two turns (a tuple: the first turn announces, the second
  names the value).

Placeholders: ``{v}`` the value, ``{a}`` an alias of it, ``{old}`` the value it replaces,
``{q}`` the qualifier (``dog``, ``sister``).
"""

from __future__ import annotations

from types import MappingProxyType

__all__ = ["CANONICAL_WEIGHT", "SMALL_TALK", "STYLE_WEIGHTS", "TEMPLATES", "Template"]

Template = tuple[str, str | tuple[str, str]]
"""``(style, text)``; a split template's text is a pair of turns."""

STYLE_WEIGHTS = MappingProxyType(
    {"canonical": 0.15, "paraphrase": 0.35, "indirect": 0.3, "split": 0.2}
)
CANONICAL_WEIGHT = STYLE_WEIGHTS["canonical"]

_T: dict[str, dict[str, list[Template]]] = {
    "city": {
        "initial": [
            ("canonical", "I live in {v}."),
            ("paraphrase", "Home is {v} these days, have been here a while."),
            ("paraphrase", "Rent in {v} is getting ridiculous, honestly, for what my flat is."),
            ("indirect", "The commute from {a} is brutal this week."),
            ("indirect", "Walked around {a} after dinner, it's so pretty at night near my place."),
            (
                "split",
                (
                    "I love my neighbourhood so much.",
                    "{a} has the best bakeries, and I live five minutes away.",
                ),
            ),
        ],
        "update": [
            ("canonical", "I moved to {v}."),
            ("paraphrase", "The move is done! Said goodbye to {old}, unpacking boxes in {v} now."),
            ("indirect", "First week living in {a} and I already know the barista by name."),
            ("paraphrase", "New city, new me: {v} is home now that {old} is behind me."),
            (
                "split",
                ("We got the keys to the new flat today!", "It's in {v}, finally out of {old}."),
            ),
        ],
    },
    "employer": {
        "initial": [
            ("canonical", "I work at {v}."),
            ("paraphrase", "Long day at {v} again, the usual chaos."),
            ("indirect", "Everyone at {a} is burnt out before the quarterly review."),
            ("split", ("My boss scheduled a meeting at 6pm, who does that.", "Classic {v} move.")),
        ],
        "update": [
            ("canonical", "I started a new job at {v}."),
            ("paraphrase", "Handed in my badge at {old}. Monday I start at {v}!"),
            ("indirect", "Orientation day at {a}, my new team seems lovely."),
            ("split", ("I accepted the offer!!", "So yes, I'm leaving {old} for {v}.")),
        ],
    },
    "job_title": {
        "initial": [
            ("canonical", "I am a {v}."),
            ("paraphrase", "Being a {v} pays the bills, mostly."),
            ("indirect", "People think working as a {v} is glamorous, it really isn't."),
            (
                "split",
                ("Work question for you.", "Do all {v}s have this much paperwork or just me?"),
            ),
        ],
        "update": [
            ("canonical", "I am now a {v}."),
            ("paraphrase", "Career change made official: no longer a {old}, I'm a {v} now."),
            ("indirect", "My first week as a {v} and I've learned more than in a year as a {old}."),
            ("split", ("Got the promotion letter.", "New title: {v}. Goodbye {old} days.")),
        ],
    },
    "partner": {
        "initial": [
            ("canonical", "My partner is {v}."),
            ("paraphrase", "{v} and I have been together for three years now."),
            ("indirect", "{v} made dinner for us again, I'm so spoiled."),
            ("split", ("Date night tonight!", "{v} booked that little place by the river.")),
        ],
        "end": [
            ("paraphrase", "{old} and I broke up. It was mutual, but it still hurts."),
            ("indirect", "{old} moved their things out on Sunday. The flat is so quiet now."),
            ("split", ("Rough weekend, honestly.", "{old} and I decided to end things.")),
        ],
        "update": [
            ("canonical", "My partner is {v}."),
            ("paraphrase", "I've started seeing someone new, {v}. Early days but it feels good."),
            ("indirect", "Second date with {v} went even better than the first."),
            (
                "split",
                ("Okay, I have gossip about myself.", "I'm seeing someone! {v}, we met at a gig."),
            ),
        ],
    },
    "diet": {
        "initial": [
            ("canonical", "I am {v}."),
            ("paraphrase", "Eating {v} has been easy since I learned to cook properly."),
            ("indirect", "Finding {v} options at work lunches is a constant battle."),
            ("split", ("Restaurant tip needed for Friday.", "Somewhere good for a {v} like me?")),
        ],
        "update": [
            ("canonical", "I am {v} now."),
            ("paraphrase", "I've switched to a {v} diet; being {old} wasn't working for me."),
            ("indirect", "Week two of eating {v}, and I don't miss my {old} days at all."),
            ("split", ("Doctor suggested I change how I eat.", "So I'm going {v} from now on.")),
        ],
    },
    "favourite_food": {
        "initial": [
            ("canonical", "My favourite food is {v}."),
            ("paraphrase", "Nothing beats a big bowl of {v}, I could eat it every day."),
            (
                "indirect",
                "Found a place doing {v} and now I have a problem, three times this week.",
            ),
        ],
        "correction": [
            ("paraphrase", "I told you {old} was my favourite — nope, it's {v}, it always was."),
            ("split", ("Correction on the food thing.", "My real favourite is {v}, not {old}.")),
        ],
    },
    "hometown": {
        "initial": [
            ("canonical", "I'm from {v}."),
            ("paraphrase", "I grew up in {v}, small place, everyone knows everyone."),
            ("indirect", "Mum called from {v} to say it's snowing back home."),
        ],
        "correction": [
            ("paraphrase", "Wait, I said I grew up in {old}? Not at all: I'm from {v}."),
            (
                "split",
                (
                    "Funny, I misspoke the other day.",
                    "It's {v} where I grew up, {old} is my cousin's town.",
                ),
            ),
        ],
    },
    "allergy": {
        "initial": [
            ("canonical", "I'm allergic to {v}."),
            ("paraphrase", "Always have to check menus for {v}, my allergy is no joke."),
            ("indirect", "Carrying the EpiPen everywhere because of {v}, as usual."),
        ],
        "correction": [
            ("paraphrase", "Small correction: it's {v} I'm allergic to, not {old}. {old} is fine."),
            ("split", ("I mixed something up earlier.", "My allergy is to {v}. Not {old}, sorry!")),
        ],
    },
    "birthday": {
        "initial": [
            ("canonical", "My birthday is {v}."),
            ("paraphrase", "I was born on {v}, in case you want to plan something."),
            ("indirect", "Every {v} my family does a huge lunch for me."),
        ],
        "correction": [
            ("paraphrase", "I got my own birthday wrong, ha: it's {v}, not {old}."),
            (
                "split",
                ("Embarrassing correction incoming.", "My birthday is {v}. I said {old} before."),
            ),
        ],
    },
    "health": {
        "initial": [
            ("canonical", "I have {v}."),
            ("paraphrase", "Living with {v} means some days are just slower."),
            ("indirect", "Saw the specialist about {v} again, no news."),
        ],
    },
    "pet": {
        "initial": [
            ("canonical", "I have a {q} named {v}."),
            ("paraphrase", "{v}, my {q}, knocked the plant over again this morning."),
            ("indirect", "Had to take {v} to the vet, the poor {q} hates the carrier."),
            ("split", ("My {q} is being a menace today.", "{v} ate a whole sock, I swear.")),
        ],
        "add": [
            ("canonical", "I got a {q} named {v}."),
            ("paraphrase", "We adopted a {q}! Named {v}, a tiny chaos machine."),
            ("split", ("New family member arrived today!", "A {q} called {v}, look at that face.")),
        ],
    },
    "hobby": {
        "initial": [
            ("canonical", "My hobby is {v}."),
            ("paraphrase", "Spent the whole Saturday on {v}, my happy place."),
            ("indirect", "Sore from {v} yesterday but worth it."),
        ],
        "add": [
            ("canonical", "I started {v}."),
            ("paraphrase", "Signed up for {v} classes, first session was amazing."),
            ("split", ("I finally tried something new this week.", "{v}! I'm hooked already.")),
        ],
    },
    "sibling": {
        "initial": [
            ("canonical", "My {q} is {v}."),
            ("paraphrase", "Called my {q} {v} for an hour, we talk every Sunday."),
            ("indirect", "{v} is visiting next month, my {q} never stays long enough."),
        ],
    },
}

TEMPLATES = MappingProxyType({k: MappingProxyType(v) for k, v in _T.items()})
"""attribute -> event kind -> templates (a misstatement is phrased like an initial fact)."""

SMALL_TALK: tuple[str, ...] = (
    "The weather has been grey all week, I miss the sun.",
    "Any good podcast recommendations? I've run out.",
    "My colleague just got back from {lure_city} and won't stop talking about it.",
    "Watched a documentary about {lure_city} last night, gorgeous place.",
    "My friend {lure_name} adopted a puppy, I'm jealous.",
    "Had {lure_food} for lunch, it was fine, nothing special.",
    "Do you think it's weird to reread the same book every year?",
    "Traffic was terrible this morning.",
    "{lure_name} from the gym swears by cold showers, not convinced.",
    "My neighbour is learning {lure_hobby}, I can hear it through the wall.",
    "Thinking about a weekend trip to {lure_city} some day.",
    "Ugh, I forgot to water the plants again.",
    "I can't decide what to watch tonight.",
    "Someone at the cafe ordered {lure_food} at 8am, respect.",
    "Is it normal to be this tired on a Wednesday?",
    "My cousin's wedding is in {lure_city}, should be fun.",
)
"""Distractor turns; ``{lure_*}`` placeholders take values the persona never has."""
