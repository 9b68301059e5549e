"""The fact tables, one per kind of fact; :data:`TABLES` is the order they are tried in."""

from __future__ import annotations

from types import MappingProxyType

from remem.extraction.grammar.rule import Rule
from remem.extraction.grammar.tables.details import CONTACT, DATE, IDENTITY, PREFERENCE, PROJECT
from remem.extraction.grammar.tables.health_habits import DIET, HABIT, HEALTH
from remem.extraction.grammar.tables.partners import PARTNER
from remem.extraction.grammar.tables.people_pets import FAMILY, PET
from remem.extraction.grammar.tables.places import MOVE, ORIGIN
from remem.extraction.grammar.tables.school import SCHOOL
from remem.extraction.grammar.tables.work import JOB

__all__ = ["KINDS", "TABLES"]

TABLES: MappingProxyType[str, tuple[Rule, ...]] = MappingProxyType(
    {
        "move": MOVE,
        "origin": ORIGIN,
        "job": JOB,
        "school": SCHOOL,
        "partner": PARTNER,
        "family": FAMILY,
        "pet": PET,
        "diet": DIET,
        "habit": HABIT,
        "health": HEALTH,
        "preference": PREFERENCE,
        "contact": CONTACT,
        "project": PROJECT,
        "date": DATE,
        "identity": IDENTITY,
    }
)
"""Kind of fact → its rules (a new kind is a new table here)."""

KINDS: tuple[str, ...] = tuple(TABLES)
