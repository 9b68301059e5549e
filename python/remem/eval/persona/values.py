"""Value pools a persona's facts are drawn from, and the aliases that count as the same value.

A value appears in rendered text either literally or as one of its aliases (a neighbourhood
stands for its city — "the commute from Alfama" says Lisbon to anyone who knows Lisbon — a short
name for an employer). Scoring matches any alias, so an indirect statement is still findable in
the assembled context. Pools are disjoint across attributes so a lure never collides with a
fact.
"""

from __future__ import annotations

import re
from types import MappingProxyType

__all__ = ["ALIASES", "MONTHS", "POOLS", "UNANSWERABLE", "aliases_of"]

_CITIES = {
    "Lisbon": ("Alfama", "Lisboa"),
    "Porto": ("Ribeira", "Oporto"),
    "Berlin": ("Kreuzberg",),
    "Montreal": ("Plateau Mont-Royal", "Montréal"),
    "Osaka": ("Namba",),
    "Melbourne": ("Fitzroy",),
    "Edinburgh": ("Leith",),
    "Valencia": ("Ruzafa",),
    "Seattle": ("Ballard",),
    "Copenhagen": ("Nørrebro", "Norrebro"),
    "Nairobi": ("Kilimani",),
    "Vienna": ("Neubau", "Wien"),
    "Wellington": ("Te Aro",),
    "Kraków": ("Kazimierz", "Krakow"),
    "New York": ("NYC", "Brooklyn"),
    "Buenos Aires": ("Palermo Soho",),
}
_EMPLOYERS = {
    "Northwind Logistics": ("Northwind",),
    "Brightline Studio": ("Brightline",),
    "Kestrel Labs": ("Kestrel",),
    "Harbor & Finch": ("Harbor and Finch",),
    "Quillon Health": ("Quillon",),
    "Tidewater Bank": ("Tidewater",),
    "Oakmere School": ("Oakmere",),
    "Lumen Robotics": ("Lumen",),
    "Saltmarsh Press": ("Saltmarsh",),
    "Copperleaf Games": ("Copperleaf",),
    "Vantor Energy": ("Vantor",),
    "Meridian Hospital": ("Meridian",),
}
_PLAIN: dict[str, tuple[str, ...]] = {
    "job_title": (
        "nurse",
        "data analyst",
        "product designer",
        "teacher",
        "line cook",
        "architect",
        "software engineer",
        "physiotherapist",
        "copy editor",
        "sound engineer",
        "pharmacist",
        "urban planner",
    ),
    "partner": (
        "Sam",
        "Rui",
        "Dana",
        "Marek",
        "Chloe",
        "Idris",
        "Freya",
        "Tariq",
        "Elena",
        "Jules",
        "Nadia",
        "Bastian",
    ),
    "pet": (
        "Miso",
        "Biscuit",
        "Pepper",
        "Juniper",
        "Mochi",
        "Olive",
        "Waffles",
        "Pip",
        "Ziggy",
        "Clementine",
        "Turnip",
        "Noodle",
    ),
    "pet_kind": ("dog", "cat", "rabbit", "parrot", "tortoise"),
    "diet": ("vegetarian", "vegan", "pescatarian", "keto", "gluten-free"),
    "hobby": (
        "bouldering",
        "pottery",
        "trail running",
        "chess",
        "salsa dancing",
        "birdwatching",
        "sourdough baking",
        "watercolour painting",
        "the cello",
        "sailing",
        "knitting",
        "film photography",
    ),
    "sister": ("Ana", "Lena", "Mira", "Sofia", "Greta"),
    "brother": ("Bruno", "Theo", "Pavel", "Omar", "Emil"),
    "allergy": ("peanuts", "shellfish", "penicillin", "pollen", "tree nuts", "sesame", "latex"),
    "favourite_food": (
        "ramen",
        "pierogi",
        "pho",
        "paella",
        "dumplings",
        "tacos",
        "shakshuka",
        "lasagna",
        "jollof rice",
        "bibimbap",
    ),
    "hometown": ("Braga", "Leeds", "Ghent", "Tromsø", "Cusco", "Galway", "Mysore", "Nantes"),
    "health": ("asthma", "migraines", "a bad knee", "insomnia", "a slipped disc"),
    "persona": (
        "Maya",
        "Tomás",
        "Priya",
        "Jonas",
        "Leila",
        "Kenji",
        "Inês",
        "Oskar",
        "Amara",
        "Felix",
        "Noor",
        "Mateo",
    ),
}
_EXTRA_ALIASES = {
    "vegetarian": ("veggie",),
    "the cello": ("cello",),
    "trail running": ("trail runs", "trail run"),
    "film photography": ("film camera",),
    "Tromsø": ("Tromso",),
    "sourdough baking": ("sourdough",),
    "watercolour painting": ("watercolours", "watercolor"),
    "salsa dancing": ("salsa",),
    "gluten-free": ("gluten free", "coeliac", "celiac"),
    "keto": ("ketogenic",),
    "a bad knee": ("knee",),
    "a slipped disc": ("slipped disc",),
}

POOLS: MappingProxyType[str, tuple[str, ...]] = MappingProxyType(
    {"city": tuple(_CITIES), "employer": tuple(_EMPLOYERS), **_PLAIN}
)
"""attribute -> the values a persona may have (``pet_kind``, ``persona``, ``sister`` and
``brother`` are helper pools)."""

ALIASES: MappingProxyType[str, tuple[str, ...]] = MappingProxyType(
    {**_CITIES, **_EMPLOYERS, **_EXTRA_ALIASES}
)
"""value -> other strings that name the same thing in text."""

UNANSWERABLE: tuple[tuple[str, str], ...] = (
    ("car", "What car do I drive?"),
    ("dentist", "What's my dentist's name?"),
    ("first_school", "Which primary school did I go to?"),
    ("shoe_size", "What's my shoe size?"),
    ("blood_type", "What's my blood type?"),
    ("favourite_band", "What's my favourite band?"),
    ("childhood_pet", "What was my first pet called when I was a kid?"),
    ("landlord", "What's my landlord's name?"),
)
"""(topic, question) the plans never state; the right answer is to say so."""


MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
_DATE = re.compile(r"^(" + "|".join(MONTHS) + r") (\d{1,2})$")


def aliases_of(value: str) -> tuple[str, ...]:
    """``value`` followed by its aliases (the value alone when it has none).

    A "Month D" date also matches "D Month", "Month Dth" and "Dth of Month".
    """
    date = _DATE.match(value)
    if date is not None:
        month, day = date.group(1), int(date.group(2))
        th = f"{day}{_ordinal(day)}"
        return (value, f"{day} {month}", f"{month} {th}", f"{th} of {month}")
    return (value, *ALIASES.get(value, ()))


def _ordinal(day: int) -> str:
    if day in (11, 12, 13):
        return "th"
    return {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
