"""Fact table: partners (``partner``) — dating, together, met, engaged, married, break-ups."""

from __future__ import annotations

from remem.extraction.grammar.rule import END, Rule, rule
from remem.extraction.grammar.tables.common import PRE as _PRE

__all__ = ["PARTNER"]

_WHEN = "last|this|in|over? the? week|month|night|weekend|year|spring|summer|autumn|fall|winter"
"""A trailing time phrase: "… ended things last week", "… in the spring"."""

PARTNER: tuple[Rule, ...] = (
    rule(
        "partner",
        "partner",
        f"{_PRE} dating {{v:name}}",
        "{Ss} partner is {v}.",
        entity="person",
        negated="end",
    ),
    # "seeing" only before the end or a duration: "I'm seeing Jess on Friday" is a plan
    rule(
        "partner",
        "partner",
        f"{_PRE} seeing {{v:name}} any|anymore? more|longer? $",
        "{Ss} partner is {v}.",
        entity="person",
        negated="end",
    ),
    rule(
        "partner",
        "partner",
        f"{_PRE} seeing {{v:name}} for|since",
        "{Ss} partner is {v}.",
        entity="person",
        negated="end",
    ),
    # "with" only before the end or a duration: "I'm with Sophie on this one" is agreement
    rule(
        "partner",
        "partner",
        f"{_PRE} with {{v:name}} any|anymore? more|longer? $",
        "{Ss} partner is {v}.",
        entity="person",
        negated="end",
    ),
    rule(
        "partner",
        "partner",
        f"{_PRE} with {{v:name}} for|since",
        "{Ss} partner is {v}.",
        entity="person",
        negated="end",
    ),
    rule(
        "partner",
        "partner",
        f"{_PRE} dating|seeing a|this|someone|somebody new? guy|girl|man|woman|lad|lass|bloke? "
        "called|named {v:lname}",
        "{Ss} partner is {v}.",
        entity="person",
        negated="end",
    ),
    rule(
        "partner",
        "partner",
        f"{_PRE} going|gone|went out with {{v:name}}",
        "{Ss} partner is {v}.",
        entity="person",
        negated="end",
    ),
    rule(
        "partner",
        "partner",
        f"{_PRE} engaged|married|together any|anymore? more? $",
        "{Ss} partner is {v}.",
        value_from_with=True,
        entity="person",
        negated="end",
    ),
    rule(
        "partner",
        "partner",
        # time together: "Chloe and I just hit three years together", "we've been together
        # since 2019" (the name from "X and I")
        f"{_PRE} hit|hitting|celebrated|celebrating|reached|made|been|together* "
        "@num_word|{n:num}|a|one? years|year|months|month? together",
        "{Ss} partner is {v}.",
        value_from_with=True,
        entity="person",
    ),
    rule(
        "partner",
        "partner",
        f"{_PRE} been? together for|since",
        "{Ss} partner is {v}.",
        value_from_with=True,
        entity="person",
    ),
    rule(
        "partner",
        "partner",
        f"{_PRE} seeing|dating someone|somebody new? ,|:? {{v:name}}",
        "{Ss} partner is {v}.",
        event=True,
        entity="person",
    ),
    rule(
        "partner",
        "partner",
        # a new partner met, with the news in another clause: "Met Elena at a friend's gig,
        # we're an item!" ("met Sam at the station, we grabbed a coffee" is nothing)
        f"{_PRE} met|meeting {{v:name}} at|through|on|via|in|over",
        "{Ss} partner is {v}.",
        event=True,
        entity="person",
        needs="~we @be @adv* an|a? item|couple|thing|official now|again|already? $",
    ),
    rule(
        "partner",
        "partner",
        # breakfast in bed is a partner's: "Nadia surprised me with breakfast in bed"
        "{v:name} @adv* surprised|spoiled|spoilt|treated|brought|made me with|to? breakfast in bed",
        "{Ss} partner is {v}.",
        entity="person",
    ),
    rule(
        "partner",
        "partner",
        "second|third|fourth|fifth|another date with {v:name}",
        "{Ss} partner is {v}.",
        event=True,
        entity="person",
    ),
    rule(
        "partner",
        "partner",
        f"{_PRE} married|marrying|engaged|marry to? {{v:name}}",
        "{Ss} partner is {v}.",
        event=True,
        entity="person",
    ),
    rule(
        "partner",
        "partner",
        f"{_PRE} got|getting|get married|engaged to {{v:name}}",
        "{Ss} partner is {v}.",
        event=True,
        entity="person",
    ),
    rule(
        "partner",
        "partner",
        f"{_PRE} got|getting|get married|engaged",
        "{Ss} partner is {v}.",
        event=True,
        value_from_with=True,
        entity="person",
    ),
    rule(
        "partner",
        "partner",
        f"{_PRE} moved|moving in together|with {{v:name}}",
        "{Ss} partner is {v}.",
        event=True,
        entity="person",
    ),
    rule(
        "partner",
        "partner",
        f"{_PRE} split|broke|broken|breaking|splitting up with {{v:name}}",
        "{S} broke up with {v}.",
        op=END,
        entity="person",
    ),
    rule(
        "partner",
        "partner",
        f"{_PRE} split|broke|broken|breaking|splitting up with my|our @kin_adj* @partner_word",
        "{S} broke up with their partner.",
        op=END,
        fixed="none",
    ),
    rule(
        "partner",
        "partner",
        f"{_PRE} split|broke|broken|breaking|splitting|separated|separating|divorced|divorcing up?",
        "{S} broke up with {v}.",
        op=END,
        value_from_with=True,
        fixed="none",
    ),
    rule(
        "partner",
        "partner",
        # "Freya and I decided to end things", "we've ended things", "me and Jo went our
        # separate ways" (not "ended things at work": the clause must end there)
        f"{_PRE} decided|agreed? to? end|ended|ending things {_WHEN}? $",
        "{S} broke up with {v}.",
        op=END,
        value_from_with=True,
        fixed="none",
    ),
    rule(
        "partner",
        "partner",
        f"{_PRE} went|gone|go|going our|their separate ways {_WHEN}? $",
        "{S} broke up with {v}.",
        op=END,
        value_from_with=True,
        fixed="none",
    ),
    rule(
        "partner",
        "partner",
        f"{_PRE} ended|end|ending things with {{v:name}}",
        "{S} broke up with {v}.",
        op=END,
        entity="person",
    ),
    rule(
        "partner",
        "partner",
        # "Sam and I called it quits", not "we called it quits on the project"
        f"{_PRE} called|calling|call it quits $",
        "{S} broke up with {v}.",
        op=END,
        value_from_with=True,
        fixed="none",
    ),
    rule(
        "partner",
        "partner",
        # a break-up told by the moving out: "Rui picked up the last of their stuff today.
        # Weird quiet flat." — only beside the home it leaves ("Jess picked up the last of
        # her stuff from uni" is nothing)
        "{v:name} @adv* came|picked|collected|fetched|grabbed|took|moved|cleared "
        "up|round|over|for|out* the last of their|his|her stuff|things|boxes|bits|clothes",
        "{S} broke up with {v}.",
        op=END,
        entity="person",
        needs="@home_emptied",
    ),
    rule(
        "partner",
        "partner",
        f"{_PRE} dumped|left my|our @kin_adj* @partner_word",
        "{S} broke up with their partner.",
        op=END,
        fixed="none",
    ),
    rule(
        "partner",
        "partner",
        f"{_PRE} divorced|divorcing {{v:name}}",
        "{S} divorced {v}.",
        op=END,
        entity="person",
    ),
    rule(
        "partner",
        "partner",
        "{s:name} and {v:name} got|are|'re|were|have|'ve @adv* married|engaged",
        "{S} and {v} are partners.",
        subject_slot="s",
        entity="person",
        event=True,
    ),
    rule(
        "partner",
        "partner",
        "{s:name} and {v:name} got|are|'re|were|have|'ve|getting|just* "
        "split|broke|broken|splitting|breaking|separated|separating|divorced|divorcing",
        "{S} and {v} are no longer partners.",
        op=END,
        subject_slot="s",
        entity="person",
    ),
    rule(
        "partner",
        "partner",
        f"{_PRE} dumped {{v:name}}",
        "{S} broke up with {v}.",
        op=END,
        entity="person",
    ),
    rule(
        "partner",
        "partner",
        "{v:name} dumped|left me",
        "{v} broke up with {S}.",
        op=END,
        entity="person",
    ),
    rule(
        "partner",
        "partner",
        f"{_PRE} got|getting|get divorced",
        "{S} got divorced.",
        op=END,
        value_from_with=True,
        fixed="none",
    ),
    rule("partner", "partner", f"{_PRE} single again|now?", "{S} is single.", op=END, fixed="none"),
    rule(
        "partner",
        "partner",
        f"{_PRE} met {{who2:name}}? my|our new? @partner_word ,? {{v:name}}",
        "{Ss} partner is {v}.",
        event=True,
        entity="person",
    ),
)
