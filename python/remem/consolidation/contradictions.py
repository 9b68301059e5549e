"""Which keyed facts and exclusive relationships a newer one replaces (pure planning, no I/O).

The rule, for facts of one (namespace, subject, attribute) with a single-valued attribute and for
exclusive relationships of one (namespace, source, relation type):

* order the live ones by **validity time** — ``valid_from`` when known, else the time the record
  (or edge) was created — then creation time, then id. Insertion order never decides: a fact
  told late about an earlier time ("I lived in Faro in 2019", said today) sorts *before* the
  current one and so never replaces it. At the same instant an ending (metadata ``operation =
  "end"``) sorts before a new value: "gave my notice at Acme, starting at Globex" leaves Globex
  current, whichever order one batch wrote them in;
* an ending that names a value (not ``"none"``) other than the value it would follow ends
  nothing ("I don't live in Paris any more" while the user lives in Leeds): it is set aside —
  it stays live and supersedes nothing, and the chain goes on without it. An ending names a
  value when the two are equal or one is the other's first or last words, case-folded
  (:func:`ending_names`): "no longer at Halfmoon" ends "Halfmoon Coffee", "given up sea
  swimming" ends "swimming";
* each one is superseded by its successor in that order, with ``valid_to`` = the successor's
  validity time. Only the last stays live. A chain (Lisbon → Porto → Lisbon) therefore keeps a
  correct history: each record's [valid_from, valid_to) is the span it held;
* a successor with the *same* value (a restatement, a duplicate) supersedes the older one too:
  recall then shows the statement once, with the newest provenance. Decision: merge by
  supersession rather than by deleting or rewriting either record — nothing is deleted.

For a *multi-valued* attribute (pets, projects, hobbies …) nothing is contradicted by a new
value — a second dog does not end the first. Only a fact that says which value it replaces does:
an ending (metadata ``operation = "end"``: "our dog Rex died") supersedes the older live facts
of its key whose value it names (:func:`ending_names`), and a correction or a rename
(``previous``: "we renamed Orion to Atlas") supersedes those whose value is ``previous``. The
ending stays live, so "the user's dog Rex died" is what recall shows, and the old fact keeps
its history.

An ending also closes the graph's edge of the fact it ends, with no successor
(:func:`plan_edge_endings`): "I'm not seeing Sam any more" (partner ``Sam``, ``end``) ends the
live ``user -partner_of-> Sam`` edge at the ending's validity time (``valid_to`` set, nothing
superseding it); an ending of ``"none"`` ("I'm single again") ends every live edge of that
relation from the subject. Only an edge that started before the ending is closed: getting back
together later is a new edge the old ending never touches.

Planning only ever looks at live (not superseded, not deleted) items, so running it again after
its plan was applied finds one live item per group and plans nothing (idempotent).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from itertools import pairwise

from remem.models import MemoryRecord, Relationship
from remem.models.keyed_facts import normalize_key_part


@dataclass(frozen=True, slots=True)
class FactChange:
    """``old`` is replaced by ``new`` from ``at`` on."""

    old: MemoryRecord
    new: MemoryRecord
    at: datetime


@dataclass(frozen=True, slots=True)
class EdgeChange:
    """Relationship ``old`` is replaced by ``new`` from ``at`` on."""

    old: Relationship
    new: Relationship
    at: datetime


@dataclass(frozen=True, slots=True)
class EdgeEnding:
    """Relationship ``edge`` stopped holding at ``at``, as keyed fact ``ending`` says."""

    edge: Relationship
    ending: MemoryRecord
    at: datetime


def fact_validity(record: MemoryRecord) -> datetime:
    """When the fact started to hold: ``valid_from``, else when it was recorded."""
    return record.valid_from if record.valid_from is not None else record.lifecycle.created_at


def edge_validity(edge: Relationship) -> datetime:
    return edge.valid_from if edge.valid_from is not None else edge.created_at


def fact_key(record: MemoryRecord) -> tuple[str, str, str] | None:
    """(namespace, subject, attribute) of a keyed fact, normalised; None for other records."""
    subject, attribute = record.metadata.get("subject"), record.metadata.get("attribute")
    if subject is None or attribute is None:
        return None
    return (record.namespace, normalize_key_part(subject), normalize_key_part(attribute))


def fact_value(record: MemoryRecord) -> str | None:
    value = record.metadata.get("value")
    return None if value is None else str(value)


def plan_fact_changes(
    facts: Iterable[MemoryRecord], single_valued: Collection[str]
) -> list[FactChange]:
    """The supersessions that leave one live fact per single-valued key (see module docs)."""
    groups: dict[tuple[str, str, str], list[MemoryRecord]] = {}
    multi: dict[tuple[str, str, str], list[MemoryRecord]] = {}
    for record in facts:
        key = fact_key(record)
        if key is None:
            continue
        if record.superseded_by is not None or record.lifecycle.stage.value == "deleted":
            continue
        (groups if key[2] in single_valued else multi).setdefault(key, []).append(record)
    changes: list[FactChange] = []
    for key in sorted(multi):
        changes += _replaced_values(multi[key])
    for key in sorted(groups):
        chain: list[MemoryRecord] = []
        for record in sorted(groups[key], key=_chain_order):
            if chain and _ends_another_value(record, chain[-1]):
                continue
            chain.append(record)
        changes += [FactChange(a, b, fact_validity(b)) for a, b in pairwise(chain)]
    return changes


def _chain_order(record: MemoryRecord) -> tuple[datetime, datetime, bool, str]:
    """Validity time, creation time, an ending before a new value, id."""
    ending = record.metadata.get("operation") == "end"
    return (fact_validity(record), record.lifecycle.created_at, not ending, record.id)


def _ends_another_value(record: MemoryRecord, current: MemoryRecord) -> bool:
    """``record`` ends a named value that is not ``current``'s."""
    if record.metadata.get("operation") != "end":
        return False
    ended, held = fact_value(record), fact_value(current)
    if ended is None or ended == "none" or held is None:
        return False
    return not ending_names(ended, held)


def ending_names(ended: str, held: str) -> bool:
    """An ending of ``ended`` names the value ``held``: equal, or one is the other's first or
    last whole words, case-folded ("halfmoon" / "Halfmoon Coffee", "sea swimming" /
    "swimming")."""
    a, b = ended.casefold().split(), held.casefold().split()
    if not a or not b:
        return False
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    return long[: len(short)] == short or long[-len(short) :] == short


def replaces(record: MemoryRecord) -> str | None:
    """The value a multi-valued fact says it ends or replaces (case-folded), or None."""
    previous = record.metadata.get("previous")
    if previous:
        return str(previous).casefold()
    if record.metadata.get("operation") == "end":
        value = fact_value(record)
        return None if value is None or value == "none" else value.casefold()
    return None


def _replaced_values(live: list[MemoryRecord]) -> list[FactChange]:
    """Within one multi-valued key: each ending, correction or rename supersedes the older
    facts holding the value it names (see the module docstring)."""
    ordered = sorted(live, key=lambda r: (fact_validity(r), r.lifecycle.created_at, r.id))
    changes: list[FactChange] = []
    taken: set[str] = set()
    for n, new in enumerate(ordered):
        target = replaces(new)
        if target is None:
            continue
        ending = new.metadata.get("operation") == "end" and not new.metadata.get("previous")
        for old in ordered[:n]:
            value = fact_value(old)
            if old.id in taken or value is None:
                continue
            if not (ending_names(target, value) if ending else value.casefold() == target):
                continue
            if old.metadata.get("operation") == "end" and ending_names(target, replaces(old) or ""):
                continue  # an earlier ending of the same value stays as it was
            taken.add(old.id)
            changes.append(FactChange(old, new, fact_validity(new)))
    return changes


def is_exclusive(edge: Relationship) -> bool:
    return edge.attributes.get("exclusive") is True


def plan_edge_changes(edges: Iterable[Relationship]) -> list[EdgeChange]:
    """The supersessions that leave one live exclusive edge per (namespace, source, type)."""
    groups: dict[tuple[str, str, str], dict[str, Relationship]] = {}
    for edge in edges:
        if not is_exclusive(edge) or edge.superseded_by is not None:
            continue
        key = (edge.namespace, edge.source_id, edge.relation_type)
        groups.setdefault(key, {})[edge.id] = edge  # an edge seen from both ends counts once
    changes: list[EdgeChange] = []
    for key in sorted(groups):
        ordered = sorted(groups[key].values(), key=lambda e: (edge_validity(e), e.created_at, e.id))
        changes += [EdgeChange(a, b, edge_validity(b)) for a, b in pairwise(ordered)]
    return changes


def plan_edge_endings(
    edges: Iterable[Relationship],
    endings: Iterable[MemoryRecord],
    names: Mapping[str, str],
    relations: Mapping[str, str],
) -> list[EdgeEnding]:
    """The open edges each live ending closes (see the module docstring). ``names`` maps an
    entity id to its name, ``relations`` a fact attribute to its relation type (``partner`` →
    ``partner_of``); an edge is closed once, by the earliest ending that names it."""
    open_edges = [
        e for e in edges if e.superseded_by is None and e.valid_to is None and e.source_id in names
    ]
    out: dict[str, EdgeEnding] = {}
    for ending in sorted(endings, key=lambda r: (fact_validity(r), r.id)):
        key, ended = fact_key(ending), fact_value(ending)
        if ending.metadata.get("operation") != "end" or key is None or ended is None:
            continue
        if ending.superseded_by is not None or key[2] not in relations:
            continue
        at = fact_validity(ending)
        for edge in open_edges:
            if edge.id in out or edge.namespace != key[0]:
                continue
            if edge.relation_type != relations[key[2]] or edge_validity(edge) >= at:
                continue
            if names[edge.source_id].casefold() != key[1]:
                continue
            target = names.get(edge.target_id)
            if ended != "none" and (target is None or not ending_names(ended, target)):
                continue
            out[edge.id] = EdgeEnding(edge, ending, at)
    return list(out.values())
