"""Fact tables: family and friends (``family``) and pets (``pet``); partners are in
:mod:`.partners`."""

from __future__ import annotations

from remem.extraction.grammar.rule import END, Rule, rule
from remem.extraction.grammar.tables.common import PRE as _PRE

__all__ = ["FAMILY", "PET"]

_CALLED_TEXT = "{Ss} {role} is called {v}."

FAMILY: tuple[Rule, ...] = (
    rule(
        "family",
        "{role}",
        "my|our {role:kin} 's name is|'s {v:lname}",
        _CALLED_TEXT,
        entity="person",
    ),
    rule(
        "family",
        "{role}",
        "my|our {role:kin} is|'s called|named {v:lname}",
        _CALLED_TEXT,
        entity="person",
    ),
    rule("family", "{role}", "my|our {role:kin} goes by {v:lname}", _CALLED_TEXT, entity="person"),
    rule(
        "family",
        "{role}",
        "i|we @have* got? a|an|one {role:kin} ,? who|that? @be? called|named {v:lname}",
        _CALLED_TEXT,
        entity="person",
    ),
    rule(
        "family",
        "{role}",
        "i|we @have* got? a|an|one {role:kin} ,|: {v:name} $",
        _CALLED_TEXT,
        entity="person",
    ),
    rule(
        "family",
        "{role}",
        "i|we @have* got? two|three|four|2|3|4 {role:kins} ,|: {v:names} $",
        _CALLED_TEXT,
        entity="person",
    ),
    rule(
        "family",
        "child",
        "{who} @have? @adv* had|welcomed|have a|our baby|little? girl|boy|daughter|son ,? "
        "called|named {v:lname}",
        "{Ss} child is called {v}.",
        event=True,
        entity="person",
    ),
    rule("family", "{role}", "{v:name} is|'s my|our {role:kin}", _CALLED_TEXT, entity="person"),
    # "my sister is Sofia", "my partner is Marek": the name and nothing after it ("my wife is
    # Greek" is a nationality, "my brother is Sam's age" no name of his)
    rule("family", "{role}", "my|our {role:kin} is|'s {v:pname} $", _CALLED_TEXT, entity="person"),
    rule(
        "family",
        "{role}",
        "my|our {role:kin} ,? {v:name}",
        _CALLED_TEXT,
        entity="person",
        scan=True,
    ),
)

_HAS = "{S} has {a_animal} {animal} named {v}."
_LOST = "{Ss} {animal} {v} died."
_ADOPT = "got|get|getting|adopted|adopting|adopt|rescued|rescuing|brought|bought|have|has"
PET: tuple[Rule, ...] = (
    rule(
        "pet",
        "pet",
        f"{_PRE} {_ADOPT}? home? a|an|another|one|two|three|2|3 new? "
        "{animal:animal} ,? called|named|:? {v:names}",
        _HAS,
        entity="animal",
    ),
    rule(
        "pet",
        "pet",
        f"{_PRE} {_ADOPT}? home? a|an|another|one|two|three|2|3 new? "
        "{animal:animal} ,? her|his|its|their|they|she|he name|names? is|'s|are|'re "
        "called? {v:names}",
        _HAS,
        entity="animal",
    ),
    rule("pet", "pet", "my|our {animal:animal} 's name is|'s {v:lname}", _HAS, entity="animal"),
    rule(
        "pet", "pet", "my|our {animal:animal} is|'s called|named {v:lname}", _HAS, entity="animal"
    ),
    rule("pet", "pet", "my|our {animal:animal} ,? {v:name}", _HAS, entity="animal", scan=True),
    rule(
        "pet",
        "pet",
        # only an animal sees a vet: "took Pepper to the vet", "taking Rolo to the vets"
        f"{_PRE} took|take|taking|brought|bring|bringing {{v:name}} to|for the? "
        "vet|vets|vet's|groomer|groomers|groomer's|kennels",
        "{S} has a pet named {v}.",
        entity="animal",
    ),
    rule(
        "pet",
        "pet",
        # an adoption named in a second sentence: "We adopted a tortoise! Named her Juniper"
        f"{_PRE} named|naming her|him|it|them? {{v:name}}",
        "{S} has a pet named {v}.",
        entity="animal",
        needs="@animal",
    ),
    rule(
        "pet",
        "pet",
        # a pet's mischief by name, beside "my parrot" said in this message or the one before:
        # "My parrot is being a menace today." / "Pip chewed the remote, I swear." ("Sam
        # chewed me out" is a person: an object, not "me", must follow)
        "{v:name} @adv* chewed|gnawed|shredded|scratched|knocked|peed|pooped|puked "
        "the|my|our|a|an|through|up|over|on|in",
        "{S} has a pet named {v}.",
        entity="animal",
        needs="~my|our @animal_adj* @animal",
    ),
    rule("pet", "pet", "{v:name} ,? the|my|our {animal:animal}", _HAS, entity="animal", scan=True),
    rule(
        "pet",
        "pet",
        "my|our {animal:animal} ,? {v:name} ,? @adv* @have? @adv* died|passed|gone",
        _LOST,
        op=END,
        entity="animal",
    ),
    rule(
        "pet",
        "pet",
        "{v:name} ,? my|our {animal:animal} ,? @adv* @have? @adv* died|passed|gone",
        _LOST,
        op=END,
        entity="animal",
    ),
    rule(
        "pet",
        "pet",
        # said of a pet only when the message names an animal: "We had to say goodbye to
        # Biscuit today. Best cat there ever was."
        f"{_PRE} had|have|having to? say|said goodbye to {{v:name}}",
        "{S} said goodbye to {v}.",
        op=END,
        entity="animal",
        needs="@animal",
    ),
    rule(
        "pet",
        "pet",
        f"{_PRE} lost|losing|buried|bury my|our {{animal:animal}} ,? {{v:name}}",
        _LOST,
        op=END,
        entity="animal",
    ),
    rule(
        "pet",
        "pet",
        f"{_PRE} had|have|having to? put {{v:name}} down|to",
        _LOST,
        op=END,
        entity="animal",
    ),
    rule(
        "pet",
        "pet",
        f"{_PRE} had|have|having to? put my|our {{animal:animal}} ,? {{v:name}} down|to",
        _LOST,
        op=END,
        entity="animal",
    ),
    rule(
        "pet",
        "pet",
        # "we had to have Cooper put down", "had Mittens put to sleep"
        f"{_PRE} had|have|having|got to? have|get? my|our? {{animal:animal}}? {{v:name}} "
        "put down|to",
        _LOST,
        op=END,
        entity="animal",
    ),
    rule(
        "pet",
        "pet",
        "the|our|my? vet|vets put|had|has my|our? {animal:animal}? {v:name} down|to",
        _LOST,
        op=END,
        entity="animal",
    ),
    rule(
        "pet",
        "pet",
        # "RIP Bonnie, the best cat in the world": the animal word says the name is a pet's
        "rip {v:name} ,? the|my|our? best|bestest|goodest|sweetest|good|old|little* "
        "@animal|boy|girl",
        _LOST,
        op=END,
        entity="animal",
    ),
    rule(
        "pet",
        "pet",
        f"{_PRE} rehomed|rehoming my|our? {{animal:animal}}? ,? {{v:name}}",
        "{S} rehomed {v}.",
        op=END,
        entity="animal",
    ),
    rule(
        "pet",
        "pet",
        f"{_PRE} gave|give away my|our? {{animal:animal}}? ,? {{v:name}}",
        "{S} rehomed {v}.",
        op=END,
        entity="animal",
    ),
)
