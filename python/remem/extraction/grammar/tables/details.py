"""Fact tables for who the user is and what is theirs: likes (``preference``), contact
details, projects, dates and identity (name, pronouns)."""

from __future__ import annotations

from remem.extraction.grammar.rule import END, Rule, rule
from remem.extraction.grammar.tables.common import PRE as _PRE

__all__ = ["CONTACT", "DATE", "IDENTITY", "PREFERENCE", "PROJECT"]

_LIKES = "{S} likes {v}."
PREFERENCE: tuple[Rule, ...] = (
    rule("preference", "preference", "{who} @adv* @like {v:list}", _LIKES, negated="end"),
    rule("preference", "preference", "{who} @adv* @be @adv* into {v:list}", _LIKES, negated="end"),
    rule("preference", "preference", f"{_PRE} obsessed with {{v:list}}", _LIKES, negated="end"),
    rule(
        "preference",
        "preference",
        f"{_PRE} a|an big|huge|massive? fan of {{v:list}}",
        _LIKES,
        negated="end",
    ),
    rule("preference", "dislike", "{who} @adv* @dislike {v:list}", "{S} dislikes {v}."),
    rule(
        "preference",
        "dislike",
        "{who} @adv* can|cannot n't|not? stand|bear {v:list}",
        "{S} dislikes {v}.",
        negated="keep",  # "can't stand" is the dislike, not its negation
    ),
    rule("preference", "hobby", "{who} @adv* play|plays {v:list}", "{S} plays {v}.", negated="end"),
    rule(
        "preference",
        "hobby",
        "{who} @adv* @like to {v:activity}",
        "{S} likes to {v}.",
        negated="end",
    ),
    rule(
        "preference",
        "preference",
        # the same dish again and again: "Ordered ramen again tonight, third time this week"
        f"{_PRE} ordered|had|ate|eaten|made|cooked|got {{v:dish}} again ,? tonight|today? ,? "
        "the? second|third|fourth|fifth|sixth time this|that week|month",
        _LIKES,
    ),
    rule(
        "preference",
        "hobby",
        "{v:activity} is|'s|was @adv* my happy place",
        "{S} enjoys {v}.",
    ),
    rule(
        "preference",
        "hobby",
        # a day given to it, said with joy: "Spent all Sunday on pottery, bliss", "spent the
        # whole weekend doing jigsaws and loved it" ("spent Saturday on my taxes" is no hobby)
        f"{_PRE} spent|spend|spending all|the|my? whole|entire? @weekday|day|morning|afternoon|"
        "evening|weekend on|doing {v:activity}",
        "{S} enjoys {v}.",
        needs="@joy",
    ),
    rule(
        "preference",
        "hobby",
        # the soreness of a sport: "Sore from climbing yesterday", "aching from football"
        "{who} @be? @adv* sore|aching|achy|stiff from {v:activity} yesterday|today|again|but|,|$",
        "{S} does {v}.",
    ),
    rule(
        "preference",
        "favourite",
        "my|our all-time? favourite|favorite|fave {role:phrase1} is|'s|are now? {v:phrase}",
        "{Ss} favourite {role} is {v}.",
    ),
)

CONTACT: tuple[Rule, ...] = (
    rule(
        "contact",
        "email",
        "my|our new? work? email|e-mail address? is|'s|changed now? to? :? {v:email}",
        "{Ss} email is {v}.",
    ),
    rule("contact", "email", "me|us at|on {v:email}", "{Ss} email is {v}.", scan=True),
    rule(
        "contact",
        "email",
        "{who} @have? @adv* a new email|e-mail address? ,? :? it's|its|it|is? 's? {v:email}",
        "{Ss} email is {v}.",
    ),
    rule(
        "contact",
        "phone",
        "my|our new? phone|mobile|cell|work? number|no|phone is|'s|changed now? to? :? {v:phone}",
        "{Ss} phone number is {v}.",
    ),
    rule("contact", "phone", "me|us at|on {v:phone}", "{Ss} phone number is {v}.", scan=True),
    rule(
        "contact",
        "phone",
        "{who} @have* @adv* a new phone|mobile? number ,? :? it|its|it's|is? 's? {v:phone}",
        "{Ss} phone number is {v}.",
    ),
)

_PROJECT = "{S} is working on a project called {v}."
PROJECT: tuple[Rule, ...] = (
    rule(
        "project",
        "project",
        f"{_PRE} working|work|building|making|writing|developing|"
        "coding on? a|an|my|our|this new? side? project|app|startup|game|book|thing|website|"
        "tool|podcast|novel called|named {v:lname}",
        _PROJECT,
    ),
    rule(
        "project",
        "project",
        "my|our side|new|current|main? project|app|startup ,? {v:name}",
        _PROJECT,
        scan=True,
    ),
    rule(
        "project",
        "project",
        "my|our|the side|new|current|main? project|app|startup is|'s now? called|named {v:lname}",
        _PROJECT,
    ),
    rule(
        "project",
        "project",
        f"{_PRE} renamed|renaming|rebranded|rebranding "
        "my|our|the? project|app? {prev:name} to|as {v:lname}",
        "{S} renamed the project {prev} to {v}.",
    ),
    rule(
        "project",
        "project",
        "{prev:name} is|'s @adv* now? called|named {v:lname} now?",
        "{S} renamed the project {prev} to {v}.",
    ),
    rule(
        "project",
        "project",
        "{prev:name} @have? @be? been? renamed|rebranded to|as {v:lname}",
        "{S} renamed the project {prev} to {v}.",
    ),
    rule("project", "project", "the|my|our project|app 's new name is|'s {v:lname}", _PROJECT),
    rule(
        "project",
        "project",
        f"{_PRE} shelved|shelving|abandoned|abandoning|scrapped|"
        "scrapping|killed|killing|cancelled|canceled|dropped|dropping|paused|pausing|"
        "ditched|ditching|shut my|our|the? project|app? {v:name}",
        "{S} stopped working on {v}.",
        op=END,
    ),
)

DATE: tuple[Rule, ...] = (
    rule("date", "birthday", "my|our? birthday|bday is|'s on? {v:date}", "{Ss} birthday is {v}."),
    rule("date", "birthday", "{who} was born on {v:date}", "{Ss} birthday is {v}."),
    rule(
        "date",
        "date",
        "my|our|the {s:event} is|'s @adv* on? {v:date}",
        "{S} is on {v}.",
        subject_slot="s",
    ),
    rule(
        "date",
        "date",
        "my|our|the {s:event} is|'s|has|was @adv* been? booked|scheduled|set|fixed|planned|"
        "arranged for|on {v:date}",
        "{S} is on {v}.",
        subject_slot="s",
    ),
    rule(
        "date",
        "date",
        "my|our|the {s:event} got|was|has|'s|is been? moved|pushed|"
        "rescheduled|changed|bumped|brought back|forward? to {v:date}",
        "{S} is on {v}.",
        subject_slot="s",
    ),
    rule(
        "date",
        "date",
        "{who} @have @adv* got? a|an|my|our {s:event} at|with? {o:org}? on|this|next {v:date}",
        "{S} is on {v}.",
        subject_slot="s",
    ),
)

_NAME = "{Ss} name is {v}."
_PRONOUNS = "{Ss} pronouns are {v}."
IDENTITY: tuple[Rule, ...] = (
    rule("identity", "name", "my? name is|'s {v:lname}", _NAME, entity="person"),
    rule("identity", "name", "{who} 'm|am called|named {v:name}", _NAME, entity="person"),
    rule("identity", "name", "i 'm|am {v:selfname} $", _NAME, entity="person"),
    rule("identity", "name", "i 'm|am {v:selfname} ,", _NAME, entity="person"),
    rule("identity", "name", "{who} go|goes by {v:name} $", _NAME, entity="person"),
    rule("identity", "name", "call me {v:name} $", _NAME, entity="person"),
    rule("identity", "name", "you can call me {v:name} $", _NAME, entity="person"),
    rule(
        "identity",
        "name",
        "my? everyone|everybody|people|friends|mates|family|they call|calls me {v:name} $",
        _NAME,
        entity="person",
    ),
    rule("identity", "age", "{who} @be @adv* {v:num} years|yrs|yo? old? $", "{S} is {v}."),
    rule("identity", "age", f"{_PRE} turned|turning {{v:num}} @when* $", "{S} is {v}.", event=True),
    rule("identity", "pronouns", "my pronouns are|'re|: {v:pronouns}", _PRONOUNS),
    rule("identity", "pronouns", "{who} use {v:pronouns} pronouns? $", _PRONOUNS),
    rule("identity", "pronouns", "{who} go by {v:pronouns} pronouns? $", _PRONOUNS),
    rule(
        "identity",
        "nationality",
        "{who} @be @adv* a|an? {v:nationality} citizen|national? $",
        "{S} is {v}.",
    ),
    rule("identity", "nationality", "{who} @be @adv* {v:nationality} ,", "{S} is {v}."),
)
