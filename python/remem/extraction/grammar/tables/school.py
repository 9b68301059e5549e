"""Fact table: study (``school``) — starting, attending, leaving and finishing a school."""

from __future__ import annotations

from remem.extraction.grammar.rule import END, Rule, rule
from remem.extraction.grammar.tables.common import PRE as _PRE

__all__ = ["SCHOOL"]

_STUDIES = "{S} studies at {v}."
_STUDY = (
    "doing|studying a|an|my? masters|master's|phd|doctorate|degree|ma|msc|ba|bsc|mba|pgce|"
    "history|law|medicine|english|maths|math|physics|chemistry|biology|economics|politics|"
    "philosophy|psychology|engineering|architecture|art|music|nursing|geography|sociology|"
    "classics|literature|lit|drama|film|design|business|accounting|finance|linguistics|"
    "computer|compsci|cs|french|spanish|german|theology|dentistry|pharmacy|veterinary"
)
"""A subject or degree being studied: "at Durham doing history" is a school, "at Tesco doing
the big shop" is not."""
SCHOOL: tuple[Rule, ...] = (
    rule(
        "school",
        "school",
        f"{_PRE} study|studies|studying {{t:phrase}}? at {{v:cschool}}",
        _STUDIES,
        entity="org",
        negated="end",
    ),
    rule(
        "school",
        "school",
        f"{_PRE} go|goes|going to {{v:school}}",
        _STUDIES,
        entity="org",
        negated="end",
    ),
    rule(
        "school",
        "school",
        f"{_PRE} got|been|was into|accepted|admitted to|at|into? {{v:school}}",
        _STUDIES,
        event=True,
        entity="org",
    ),
    rule(
        "school",
        "school",
        f"{_PRE} got|been|was|were? accepted|admitted|enrolled|enrolling|enrol|enroll "
        "to|at|into|by|in {v:cschool}",
        _STUDIES,
        event=True,
        entity="org",
    ),
    rule(
        "school",
        "school",
        f"{_PRE} doing a|an|my|our masters|master's|phd|doctorate|degree|ma|msc|ba|bsc|mba|pgce "
        "{t:phrase}? at {v:cschool}",
        _STUDIES,
        entity="org",
        negated="end",
    ),
    rule(
        "school",
        "school",
        "{who} @be @adv* at {v:school}",
        _STUDIES,
        entity="org",
        negated="end",
    ),
    rule(
        "school",
        "school",
        f"{{who}} @be @adv* at {{v:cschool}} {_STUDY}",
        _STUDIES,
        entity="org",
        negated="end",
    ),
    rule(
        "school",
        "school",
        "{who} @be @adv* at {v:cschool} studying",
        _STUDIES,
        entity="org",
        negated="end",
    ),
    rule(
        "school",
        "school",
        # a year of study names the school: "I left Keele after second year"
        f"{_PRE} left|leaving|quit|quitting|dropped {{v:cschool}} after|in my|the? "
        "first|second|third|fourth|final|last year",
        "{S} left {v}.",
        op=END,
        entity="org",
    ),
    rule(
        "school",
        "school",
        f"{_PRE} a|an first|second|third|fourth|final year at|in {{v:cschool}}",
        _STUDIES,
        entity="org",
        negated="end",
    ),
    rule(
        "school",
        "school",
        f"{_PRE} finished|left|leaving|quit at? {{v:school}}",
        "{S} left {v}.",
        op=END,
        entity="org",
    ),
    rule(
        "school",
        "school",
        f"{_PRE} started|starting|start at|to|in {{v:nschool}}",
        _STUDIES,
        event=True,
        entity="org",
    ),
    rule(
        "school",
        "school",
        f"{_PRE} enrolled|enrolling|transferred|transferring|transfer at|to|in {{v:school}}",
        _STUDIES,
        event=True,
        entity="org",
    ),
    rule(
        "school",
        "school",
        f"{_PRE} a|an first|second|third|final? year? phd|grad|masters|mature|exchange|medical|"
        "law|art|music? student|freshman|fresher|sophomore|undergrad|postgrad at|in {v:cschool}",
        _STUDIES,
        entity="org",
        negated="end",
    ),
    rule(
        "school",
        "school",
        f"{_PRE} in my|our|the first|second|third|fourth|final|last year at|of {{v:cschool}}",
        _STUDIES,
        entity="org",
        negated="end",
    ),
    rule(
        "school",
        "school",
        f"{_PRE} got|offered a place at|on {{v:cschool}}",
        _STUDIES,
        event=True,
        entity="org",
    ),
    rule(
        "school",
        "school",
        f"{_PRE} started|starting|start|begin|began|beginning "
        "my|a? uni|university|college|school|degree|course|masters|master's|phd|doctorate|ma|"
        "msc|ba|bsc|mba|pgce|sixth form? at|in {v:cschool}",
        _STUDIES,
        event=True,
        entity="org",
    ),
    rule(
        "school",
        "school",
        f"{_PRE} finished|finishing|completed|completing my|a|the "
        "degree|masters|master's|phd|course|studies|ba|bsc|ma|msc at {v:cschool}",
        "{S} finished studying at {v}.",
        op=END,
        entity="org",
    ),
    rule(
        "school",
        "school",
        "my|our uni|university|school|college is|'s {v:school}",
        _STUDIES,
        entity="org",
    ),
    rule(
        "school",
        "school",
        f"{_PRE} both? graduated|graduating from {{v:cschool}}",
        "{S} graduated from {v}.",
        op=END,
        entity="org",
    ),
    rule(
        "school",
        "school",
        f"{_PRE} dropped|dropping out of {{v:cschool}}",
        "{S} dropped out of {v}.",
        op=END,
        entity="org",
    ),
)
