"""Fact tables: where the user lives (``move``) and where they come from (``origin``)."""

from __future__ import annotations

from remem.extraction.grammar.rule import END, Rule, rule
from remem.extraction.grammar.tables.common import PRE as _PRE

__all__ = ["MOVE", "ORIGIN"]

_LIVES = "{S} lives in {v}."
_WAY = "back|over|out|away|down|up|across|home|north|south|east|west"
"""Words between "moved" and "to" ("moved up north to Durham")."""

MOVE: tuple[Rule, ...] = (
    rule(
        "move",
        "city",
        # "Relocation survived. Montreal feels like home already": home only after a move
        # said in the message (on a holiday "Paris feels like home" is no address)
        "{v:place} @adv* feels|feel|felt|is|'s @adv* feeling? like home",
        _LIVES,
        event=True,
        entity="place",
        needs="@relocation",
    ),
    rule(
        "move",
        "city",
        "and|, {v:place} @adv* feels|feel|felt|is|'s @adv* feeling? like home",
        _LIVES,
        event=True,
        entity="place",
        scan=True,  # "We relocated in March and Lisbon already feels like home"
        needs="@relocation",
    ),
    rule(
        "move",
        "city",
        f"{_PRE} @move {_WAY}* to|into {{v:place}}",
        _LIVES,
        event=True,
        entity="place",
        negated="end",
    ),
    rule(
        "move",
        "city",
        f"{_PRE} @move back|over? to|into a|an|the|our|my new? "
        "flat|house|place|apartment|home|flatshare in {v:place}",
        _LIVES,
        event=True,
        entity="place",
    ),
    rule(
        "move",
        "city",
        f"{_PRE} @move from {{prev:place}} to {{v:place}}",
        _LIVES,
        event=True,
        entity="place",
    ),
    rule(
        "move",
        "city",
        f"{_PRE} @live|based|settled|settling|living here? in {{v:place}}",
        _LIVES,
        entity="place",
        negated="end",
    ),
    rule(
        "move",
        "city",
        f"{_PRE} got|get|getting|picked|collected the|our|my keys to|for "
        "the|our|my new? place|flat|house|home|apartment in {v:place}",
        _LIVES,
        event=True,
        entity="place",
    ),
    rule(
        "move",
        "city",
        f"{_PRE} bought|buying|rented|renting|found a|an|our|my new? "
        "house|flat|home|place|apartment in {v:place}",
        _LIVES,
        event=True,
        entity="place",
    ),
    rule("move", "city", "{who} @be @adv* back|home? in {v:place} now", _LIVES, entity="place"),
    rule(
        "move",
        "city",
        "{who} @be @adv* back in {v:place} for? good|permanently? $",  # not "… for a week"
        _LIVES,
        entity="place",
    ),
    rule("move", "city", "{who} @be now in {v:place}", _LIVES, entity="place"),
    rule(
        "move",
        "city",
        # settling in, not a visit: "first full month in Lisbon", "first proper week in Leith"
        # ("first night in Rome" and "first week in Rome" stay unread)
        "my|our|the? first|1st proper|full|real week|month|weeks|months in {v:place}",
        _LIVES,
        event=True,
        entity="place",
    ),
    rule(
        "move",
        "city",
        # only with its negation: "we're not in Brighton any more" ends the fact, "I'm not in
        # Leeds" alone is dropped, and "I'm in Rome" (a visit) never matches
        "{who} @be not|n't|no|never @adv* in {v:place}",
        _LIVES,
        entity="place",
        negated="end",
    ),
    rule(
        "move",
        "city",
        "{who} @adv* @have? @adv* lived|living in {v:place} all? my|our whole|entire|adult* "
        "life|lives",
        _LIVES,
        entity="place",
    ),
    rule("move", "city", "{who} @be @adv* in {v:place} these days", _LIVES, entity="place"),
    rule(
        "move",
        "city",
        "{who} @adv* @have @adv* lived|living in {v:place} for|since",
        _LIVES,
        entity="place",
        negated="end",
    ),
    rule(
        "move",
        "city",
        "my|our|the new flat|house|place|home|apartment in {v:place}",
        _LIVES,
        entity="place",
    ),
    rule(
        "move",
        "city",
        "my|our new? home|flat|apartment|house|place|address is in {v:place}",
        _LIVES,
        entity="place",
    ),
    rule(
        "move",
        "city",
        f"{_PRE} moved|moving out|away of|from {{v:place}}",
        "{S} no longer lives in {v}.",
        op=END,
        entity="place",
    ),
)

ORIGIN: tuple[Rule, ...] = (
    rule(
        "origin",
        "hometown",
        f"{_PRE} originally? from {{v:place}}",
        "{S} is from {v}.",
        entity="place",
    ),
    rule(
        "origin",
        "hometown",
        "{who} @adv* originally? come|comes from {v:place}",
        "{S} is from {v}.",
        entity="place",
    ),
    rule(
        "origin",
        "hometown",
        f"{_PRE} grew|grown up in {{v:place}}",
        "{S} is from {v}.",
        entity="place",
    ),
    rule(
        "origin",
        "hometown",
        f"{_PRE} born and? raised? in {{v:place}}",
        "{S} is from {v}.",
        entity="place",
    ),
    rule(
        "origin",
        "hometown",
        # "Mum rang from Cork, it's lashing rain back home": where the family is, when the
        # message calls it home
        "my? @kin|family|folks|parents @adv* called|rang|phoned|texted|messaged|wrote|visited "
        "me? from {v:place}",
        "{S} is from {v}.",
        entity="place",
        needs="@home_word",
    ),
    rule(
        "origin",
        "hometown",
        # … or names the house they grew up in: "Mum rang from Cusco, the old house finally
        # got a new roof" ("Mum texted from Paris, they found a house to rent" is a trip; a
        # sibling's "old house" may be their own)
        "my? mum|mom|mam|ma|dad|da|mother|father|parents|folks|family|nan|gran|grandma|grandad "
        "@adv* called|rang|phoned|texted|messaged|wrote|visited "
        "me? from {v:place}",
        "{S} is from {v}.",
        entity="place",
        needs="~the|our old|family house|home|place",
    ),
    rule(
        "origin",
        "hometown",
        "my|our home? town|hometown is|'s {v:place}",
        "{S} is from {v}.",
        entity="place",
    ),
    # an elided subject with a gerund: "Growing up in Hull, we never had snow days"
    rule("origin", "hometown", "growing up in {v:place}", "{S} is from {v}.", entity="place"),
    rule(
        "origin",
        "hometown",
        # the place first: "Galway is where I grew up", "Leeds was where I was born"
        "{v:place} is|was|'s where i|we grew|grow up",
        "{S} is from {v}.",
        entity="place",
    ),
    rule(
        "origin",
        "hometown",
        "{v:place} is|was|'s where i|we was|were born|raised|a|kids kid|kids?",
        "{S} is from {v}.",
        entity="place",
    ),
    rule(
        "origin",
        "hometown",
        # "I'm a Cusco kid", "we're Yorkshire lads": a place word before a word for its people
        "{who} @be @adv* a? proud? {v:place} kid|kids|girl|girls|boy|boys|lad|lads|lass|lasses"
        "|native|natives|born",
        "{S} is from {v}.",
        entity="place",
    ),
)
