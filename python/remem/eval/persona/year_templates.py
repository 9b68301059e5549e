"""Phrasings of the year horizon: how a fact comes up once, and how it comes up again in passing.

Written apart from the weeks-mode :mod:`~remem.eval.persona.templates` and from the quiz: no
template repeats a quiz question as a statement ("Which city do I live in now?" is never
answered by "I live in …" here), so neither a keyword index nor a rule extractor is handed the
question's words. Styles are those of the weeks mode (``paraphrase``, ``indirect``, ``split``;
``canonical`` is left out on purpose). Placeholders: ``{v}`` the value, ``{a}`` an alias,
``{old}`` the value replaced, ``{q}`` the qualifier (``dog``, ``sister``).

``RESTATE`` are passing mentions of a *current* value of a fact that changes (the city, the
employer, the partner, …): people bring those up again over a year, so those facts are not
stated once — the stable facts (allergy, birthday, hometown, siblings, pets, …) are, and the
quiz's ``long_gap`` questions ask for them.
"""

from __future__ import annotations

from types import MappingProxyType

from remem.eval.persona.templates import Template

__all__ = ["RESTATE", "YEAR_TEMPLATES"]

_T: dict[str, dict[str, list[Template]]] = {
    "city": {
        "initial": [
            ("paraphrase", "Rent in {v} went up again, landlords here have no shame."),
            ("paraphrase", "{v} in the rain is still my favourite view from the flat."),
            ("indirect", "Took the long way home through {a} tonight, the lights were lovely."),
            ("indirect", "The tram past {a} was packed, our street is always chaos on Fridays."),
            ("split", ("Our neighbourhood has a street party tonight.", "{a} knows how to party.")),
        ],
        "update": [
            (
                "paraphrase",
                "Boxes everywhere: we've left {old} behind and the flat in {v} is ours.",
            ),
            ("indirect", "First proper week in {a}, found a bakery two doors down already."),
            ("split", ("The movers came and went, we're done!", "{v} it is, {old} is history.")),
            ("paraphrase", "Relocation survived. {v} feels like home already, {old} feels far."),
        ],
        "restate": [
            ("indirect", "Cycled along the river in {v} this morning, cold but beautiful."),
            ("indirect", "Our corner of {a} smells of roasted chestnuts tonight."),
            ("indirect", "The buses in {v} are on strike again, walking everywhere."),
            ("indirect", "Farmers market in {v} was heaving today, bought too many tomatoes."),
            (
                "indirect",
                "Power cut on our street in {a} for three hours, candles and board games.",
            ),
            ("indirect", "Showed a visiting friend around {v}, my feet are destroyed."),
        ],
    },
    "employer": {
        "initial": [
            ("paraphrase", "Quarter-end at {v} means nobody leaves before eight."),
            ("indirect", "The coffee machine at {a} broke and the whole office nearly rioted."),
            ("split", ("My manager moved the deadline again.", "Peak {v} behaviour honestly.")),
        ],
        "update": [
            ("paraphrase", "Last day at {old} today. After the weekend I'm joining {v}!"),
            ("indirect", "Got my badge and laptop at {a}, the new team took me for lunch."),
            ("split", ("I signed the contract!!", "Goodbye {old}, hello {v}.")),
        ],
        "restate": [
            ("indirect", "All-hands at {a} ran over by an hour, my brain is soup."),
            ("indirect", "{v} is doing a team offsite next month, dreading the icebreakers."),
            ("indirect", "Someone at {a} microwaved fish again, the office is in uproar."),
            ("indirect", "Payroll at {a} messed up my overtime again, sorting it tomorrow."),
            ("indirect", "Free pizza Friday at {v}, morale restored for about an hour."),
            ("indirect", "The new printer at {a} hates me personally."),
        ],
    },
    "job_title": {
        "initial": [
            ("paraphrase", "Ten years as a {v} and the paperwork still surprises me."),
            ("indirect", "Nobody warns you how tiring {v} work is on your feet and brain."),
            ("split", ("Long shift today.", "The life of a {v}, never a dull moment.")),
        ],
        "update": [
            ("paraphrase", "It's official, I'm done being a {old}: new role as a {v} from Monday."),
            (
                "indirect",
                "First week working as a {v} and I already miss nothing about {old} life.",
            ),
            ("split", ("The promotion came through!", "Title on the email says {v}. Bye, {old}.")),
        ],
        "restate": [
            ("indirect", "Trained a newbie today, being a {v} means explaining everything twice."),
            ("indirect", "Conference for {v}s next week, mostly going for the free pastries."),
            ("indirect", "Renewed my licence as a {v}, the forms were endless."),
            ("indirect", "Mentoring a student who wants to become a {v}, made me nostalgic."),
            ("indirect", "Some days being a {v} is just answering emails."),
        ],
    },
    "partner": {
        "initial": [
            ("paraphrase", "{v} and I just hit three years together, can you believe it."),
            ("indirect", "{v} cooked for me tonight, I'm a lucky one."),
            ("split", ("Anniversary dinner booked!", "{v} has no idea where we're going.")),
        ],
        "end": [
            ("paraphrase", "{old} and I called it quits. Mutual, but it stings."),
            ("indirect", "{old} picked up the last of their stuff today. Weird quiet flat."),
            ("split", ("Bit of a rough week, sorry.", "{old} and I aren't together anymore.")),
        ],
        "update": [
            ("paraphrase", "Okay so I've been seeing someone, {v}. Early days, feels good."),
            ("indirect", "Third date with {v} and we talked until the café closed."),
            (
                "split",
                ("I have news about my love life.", "Met {v} at a friend's gig, we're an item!"),
            ),
        ],
        "restate": [
            ("indirect", "{v} and I are binging a terrible reality show, zero regrets."),
            ("indirect", "{v} surprised me with breakfast in bed, best Sunday."),
            ("indirect", "Had a silly argument with {v} about the thermostat again."),
            ("indirect", "{v} dragged me to a craft fair, secretly loved it."),
            ("indirect", "Picked up {v} from the airport, the flight was two hours late."),
            ("indirect", "{v} is away for work this week, the flat feels empty."),
        ],
    },
    "diet": {
        "initial": [
            ("paraphrase", "Cooking {v} at home is easy, eating out is the hard part."),
            ("indirect", "The canteen had exactly one {v} option again, and it was soup."),
            ("split", ("Dinner party at a friend's on Saturday.", "Hope they remember I eat {v}.")),
        ],
        "update": [
            ("paraphrase", "Dropped the {old} thing, I've gone {v} since the check-up."),
            ("indirect", "Two weeks of eating {v} and I honestly don't miss being {old}."),
            ("split", ("Big change to how I eat, doctor's orders.", "{v} from now on.")),
        ],
        "restate": [
            ("indirect", "Found a great {v} cookbook at the market, trying three recipes."),
            ("indirect", "Meal-prepped a whole week of {v} lunches, feeling smug."),
            ("indirect", "Tried a {v} recipe from a video, surprisingly good."),
            ("indirect", "Restaurant menu had three {v} dishes, I nearly cried with joy."),
        ],
    },
    "favourite_food": {
        "initial": [
            ("paraphrase", "If I could eat one thing forever it would be {v}, no contest."),
            ("indirect", "Ordered {v} again tonight, third time this week, zero shame."),
        ],
        "correction": [
            ("paraphrase", "Wait, I said {old} was the one? Nah, {v} wins every time."),
            ("split", ("Food correction, this is important.", "It's {v}, {old} is second.")),
        ],
    },
    "hometown": {
        "initial": [
            ("paraphrase", "Growing up in {v} meant everyone knew your business."),
            ("indirect", "Mum rang from {v}, the old house finally got a new roof."),
            ("split", ("Homesick today for some reason.", "Miss {v} and its one traffic light.")),
        ],
        "correction": [
            ("paraphrase", "Did I say {old} was where I was a kid? No, that was {v}."),
            ("split", ("I misspoke the other day.", "I'm a {v} kid, {old} is my cousin's town.")),
        ],
    },
    "allergy": {
        "initial": [
            ("paraphrase", "Had to send a dish back, it had {v} in it and I react badly."),
            ("indirect", "Read every label twice at the shop, {v} hides in everything."),
            ("split", ("Nearly had a reaction at lunch.", "Someone snuck {v} into the salad.")),
        ],
        "correction": [
            ("paraphrase", "Correction: it's {v} that sets me off, {old} is totally fine."),
            ("split", ("I mixed something up earlier.", "{v} is my problem, not {old}, sorry!")),
        ],
    },
    "birthday": {
        "initial": [
            ("paraphrase", "I was born on {v}, so start planning the cake."),
            ("indirect", "Every {v} my family does a huge lunch for me."),
        ],
        "correction": [
            ("paraphrase", "Ha, I got my own birthday wrong: {v}, not {old}."),
            ("split", ("Embarrassing one.", "Born on {v}. I told you {old} before, oops.")),
        ],
    },
    "health": {
        "initial": [
            ("paraphrase", "Dealing with {v} means some mornings are slow."),
            ("indirect", "Specialist appointment about {v} again, same advice."),
        ],
    },
    "pet": {
        "initial": [
            ("paraphrase", "{v}, my {q}, stole a sock and ran under the bed again."),
            ("indirect", "Took {v} to the vet, the poor {q} sulked all evening."),
            ("split", ("My {q} is being a menace today.", "{v} chewed the remote, I swear.")),
        ],
        "add": [
            ("paraphrase", "We adopted a {q}! Named {v}, a tiny chaos machine."),
            ("split", ("New family member arrived today!", "A {q} called {v}, look at that face.")),
        ],
        "end": [
            ("paraphrase", "We had to say goodbye to {old} today. Best {q} there ever was."),
            ("split", ("Sad news, sorry to dump it on you.", "{old}, our {q}, passed away.")),
        ],
    },
    "hobby": {
        "initial": [
            ("paraphrase", "Spent the whole Saturday on {v}, my happy place."),
            ("indirect", "Sore from {v} yesterday but worth it."),
        ],
        "add": [
            ("paraphrase", "Signed up for {v} classes, first session was amazing."),
            ("split", ("Tried something new this week.", "{v}! I'm hooked already.")),
        ],
    },
    "sibling": {
        "initial": [
            ("paraphrase", "Called my {q} {v} for an hour, we always end up laughing."),
            ("indirect", "{v} is visiting next month, my {q} never stays long enough."),
        ],
    },
}

YEAR_TEMPLATES = MappingProxyType({k: MappingProxyType(v) for k, v in _T.items()})
"""attribute -> event kind -> templates (a misstatement is phrased like an initial fact)."""

RESTATE = frozenset(a for a, kinds in _T.items() if "restate" in kinds)
"""Attributes whose current value comes up again in passing over the year."""
