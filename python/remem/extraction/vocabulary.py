"""The attribute vocabulary of keyed facts, and which attributes hold one value at a time.

A keyed fact is ``(subject, attribute, value)``: ``("user", "city", "Lisbon")``. Both extractors
use these attribute names so that the consolidator can compare facts: two facts with the same
subject and a *single-valued* attribute but different values contradict each other (the newer
supersedes the older); a *multi-valued* attribute (a second pet, another hobby) never does.

Decision where the shared contract was silent: ``parent`` and ``health`` are multi-valued (people
have two parents and may have several conditions); ``name`` and ``age`` are added as
single-valued attributes because people state them constantly; ``habit``, ``project``,
``relative``, ``friend`` and ``dislike`` are multi-valued (one fact per habit, project or
person), ``email``, ``phone``, ``school`` and ``date`` (the day of an event: the subject is the
event, "dentist appointment") single-valued.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

__all__ = [
    "ATTRIBUTES",
    "EXCLUSIVE_RELATIONS",
    "MULTI_VALUED",
    "RELATIONS",
    "SINGLE_VALUED",
    "USER",
]

USER = "user"
"""The subject (and graph entity name) of facts about the person talking."""

ATTRIBUTES: tuple[str, ...] = (
    "name",
    "age",
    "pronouns",
    "nationality",
    "city",
    "hometown",
    "employer",
    "job_title",
    "partner",
    "pet",
    "diet",
    "hobby",
    "sibling",
    "parent",
    "child",
    "health",
    "allergy",
    "preference",
    "favourite_food",
    "birthday",
    "habit",
    "email",
    "phone",
    "school",
    "project",
    "date",
    "relative",
    "friend",
    "dislike",
)

MULTI_VALUED: frozenset[str] = frozenset(
    {
        "hobby",
        "pet",
        "sibling",
        "parent",
        "child",
        "health",
        "allergy",
        "preference",
        "habit",
        "project",
        "relative",
        "friend",
        "dislike",
    }
)
"""Attributes a new value adds to rather than replaces."""

SINGLE_VALUED: frozenset[str] = frozenset(a for a in ATTRIBUTES if a not in MULTI_VALUED)
"""Attributes a new value replaces: city, employer, job_title, partner, diet, favourite_food,
birthday, hometown, name, age. Attributes outside :data:`ATTRIBUTES` are treated as
multi-valued (never contradicted) by whoever consumes this set."""

RELATIONS: Mapping[str, str] = MappingProxyType(
    {
        "city": "lives_in",
        "hometown": "from",
        "employer": "works_at",
        "partner": "partner_of",
        "pet": "has_pet",
        "sibling": "sibling",
        "parent": "parent",
        "child": "child",
    }
)
"""The graph edge ``user -[relation]-> value`` a fact of this attribute also becomes (attributes
whose value is not an entity — diet, hobby, birthday … — become no edge)."""

EXCLUSIVE_RELATIONS: frozenset[str] = frozenset(
    rel for attr, rel in RELATIONS.items() if attr in SINGLE_VALUED
)
"""``lives_in``, ``from``, ``works_at``, ``partner_of``: a newer edge supersedes the older."""
