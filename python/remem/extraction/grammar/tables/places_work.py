"""Fact tables: where the user lives and comes from (``move``, ``origin``), work (``job``) and
study (``school``)."""

from __future__ import annotations

from remem.extraction.grammar.rule import END, Rule, rule

__all__ = ["JOB", "MOVE", "ORIGIN", "SCHOOL"]

_LIVES = "{S} lives in {v}."
_PRE = "{who} @adv* @have? @adv* @be? @adv*"
"""Subject, then any of "just", "'ve", "been", "finally", "not" …"""
_WAY = "back|over|out|away|down|up|across|home|north|south|east|west"
"""Words between "moved" and "to" ("moved up north to Durham")."""

MOVE: tuple[Rule, ...] = (
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
        "my|our home? town|hometown is|'s {v:place}",
        "{S} is from {v}.",
        entity="place",
    ),
)

_WORKS = "{S} works at {v}."
_LEFT = "{S} no longer works at {v}."
_JOBSTART = f"{_PRE} @start|@get a|an|my|the|this? new? @job_noun"
JOB: tuple[Rule, ...] = (
    rule(
        "job",
        "employer",
        f"{_JOBSTART} as? {{t:job}}? at|with {{v:org}}",
        _WORKS,
        event=True,
        entity="org",
    ),
    rule("job", "job_title", f"{_JOBSTART} as {{v:job}}", "{S} works as {a} {v}.", event=True),
    rule(
        "job",
        "employer",
        f"{_PRE} work|works|working @adv* as? {{t:job}}? at|for {{v:org}}",
        _WORKS,
        entity="org",
        negated="end",
    ),
    rule("job", "employer", f"{_PRE} employed by|at {{v:org}}", _WORKS, entity="org"),
    rule(
        "job",
        "employer",
        f"{_PRE} work|works|working in {{t:phrase1}} at|for {{v:corg}}",
        _WORKS,
        entity="org",
        negated="end",
    ),
    rule(
        "job",
        "employer",
        f"{_PRE} started|start|starting|began|begin|joined|joining|join at|with? {{v:corg}}",
        _WORKS,
        event=True,
        entity="org",
    ),
    rule(
        "job",
        "employer",
        f"{_PRE} got|been|was hired by|at {{v:org}}",
        _WORKS,
        event=True,
        entity="org",
    ),
    rule(
        "job",
        "employer",
        f"{_PRE} @start|starting working|work at|for {{v:org}}",
        _WORKS,
        event=True,
        entity="org",
    ),
    rule("job", "employer", "{who} @be @adv* now at {v:org}", _WORKS, entity="org"),
    rule(
        "job",
        "employer",
        "{who} @have? @adv* accepted|took|taking|accepting|signed a|an|"
        "the new? offer|job from|at|with {v:org}",
        _WORKS,
        event=True,
        entity="org",
    ),
    rule(
        "job",
        "job_title",
        f"{_PRE} work|works|working as {{v:job}}",
        "{S} works as {a} {v}.",
        negated="end",
    ),
    rule(
        "job",
        "job_title",
        f"{_PRE} got|been|was|getting promoted to {{v:job}}",
        "{S} works as {a} {v}.",
        event=True,
    ),
    rule("job", "job_title", f"{_PRE} promoted to {{v:job}}", "{S} works as {a} {v}.", event=True),
    rule(
        "job",
        "job_title",
        f"{_PRE} got|been|was|being made a|an|the? {{v:job}} $",
        "{S} works as {a} {v}.",
        event=True,
    ),
    rule(
        "job",
        "job_title",
        "they|work|management|my|the boss? promoted|made me a|an? {v:job}",
        "{S} works as {a} {v}.",
        event=True,
    ),
    rule(
        "job",
        "job_title",
        "they|work|management|my|the boss? promoted me to {v:job}",
        "{S} works as {a} {v}.",
        event=True,
    ),
    rule(
        "job",
        "job_title",
        f"{_PRE} became|become|becoming a|an|the new? {{v:job}}",
        "{S} works as {a} {v}.",
        event=True,
    ),
    rule(
        "job",
        "job_title",
        "{who} @be @adv* a|an|the {v:job}",
        "{S} works as {a} {v}.",
        negated="end",
    ),
    rule(
        "job",
        "employer",
        "{who} @be @adv* a|an|the new? {t:job} at|for {v:org}",
        _WORKS,
        entity="org",
    ),
    rule(
        "job",
        "job_title",
        "my|our new? job? title|role|position|job is|'s now? a|an? {v:job}",
        "{S} works as {a} {v}.",
    ),
    rule(
        "job",
        "employer",
        f"{_PRE} gave|give|giving|handed|hand|handing|put|putting|"
        "turned|turning in? my|in|the? in? @notice in? at|to {v:org}",
        _LEFT,
        op=END,
        entity="org",
    ),
    rule(
        "job",
        "employer",
        f"{_PRE} gave|give|giving|handed|hand|handing|put|putting|"
        "turned|turning in? my|in|the? in? @notice",
        _LEFT,
        op=END,
        fixed="none",
    ),
    rule(
        "job",
        "employer",
        f"{_PRE} resigned|resigning|resign from? {{v:org}}",
        _LEFT,
        op=END,
        entity="org",
    ),
    rule(
        "job",
        "employer",
        f"{_PRE} resigned|resigning|retired|retiring|resign|retire",
        _LEFT,
        op=END,
        fixed="none",
    ),
    rule(
        "job",
        "employer",
        f"{_PRE} @leave|lost|losing my|the|his|her|their job|role|position at|with {{v:org}}",
        _LEFT,
        op=END,
        entity="org",
    ),
    rule(
        "job",
        "employer",
        f"{_PRE} @leave|lost|losing my|the|his|her|their job|role|position",
        _LEFT,
        op=END,
        fixed="none",
    ),
    rule("job", "employer", f"{_PRE} quit {{v:corg}}", _LEFT, op=END, entity="org"),
    rule(
        "job",
        "employer",
        "i? @adv* @have? @adv* @be? @adv* left|leaving {v:corg}",  # "we left Glasgow": a city
        _LEFT,
        op=END,
        entity="org",
        needs="employer",
    ),
    rule(
        "job",
        "employer",
        f"{_PRE} left {{v:corg}} and|to @adv* joined|join|start|started",
        _LEFT,
        op=END,
        entity="org",
    ),
    rule(
        "job",
        "employer",
        f"{_PRE} got|been|was|being laid|let off|go from? {{v:org}}?",
        _LEFT,
        op=END,
        fixed="none",
        entity="org",
    ),
    rule(
        "job",
        "employer",
        f"{_PRE} got|been|was|being made? fired|sacked|redundant from|by? {{v:org}}?",
        _LEFT,
        op=END,
        fixed="none",
        entity="org",
    ),
    rule("job", "employer", "my|our|the? last day|shift at {v:org}", _LEFT, op=END, entity="org"),
    rule(
        "job",
        "employer",
        f"{_PRE} finished|finishing at {{v:corg}}",
        _LEFT,
        op=END,
        entity="org",
    ),
    rule(
        "job",
        "employer",
        "my|our|the? first day|week|shift|month at {v:org}",
        _WORKS,
        event=True,
        entity="org",
    ),
)

_STUDIES = "{S} studies at {v}."
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
        "my|a? uni|university|college|school|degree|course|sixth form? at|in {v:cschool}",
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
