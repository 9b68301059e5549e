"""Fact tables for the body and the day: diet, habits and health (conditions, allergies,
medication, pregnancy)."""

from __future__ import annotations

from remem.extraction.grammar.rule import END, Rule, rule
from remem.extraction.grammar.tables.common import PRE as _PRE

__all__ = ["DIET", "HABIT", "HEALTH"]

_DIET = "{S} is {v}."
_AS_A = "speaking|talking? as|being a|an?"
_DIET_END = "{S} is no longer {v}."

DIET: tuple[Rule, ...] = (
    rule("diet", "diet", f"{_PRE} @a? fully? {{v:diet}}", _DIET, negated="end"),
    rule(
        "diet",
        "diet",
        f"{_PRE} went|gone|going|turned|become|became|go|gonna fully? {{v:diet}}",
        _DIET,
        event=True,
    ),
    rule(
        "diet",
        "diet",
        f"{_PRE} switched|switching|changed|moved|converted|switch to being? a? {{v:diet}}",
        _DIET,
        event=True,
    ),
    rule(
        "diet",
        "diet",
        f"{_PRE} doing|on|following|eating|trying|started|starting|do a|the? {{v:diet}}",
        _DIET,
        event=True,
        negated="end",
    ),
    rule(
        "diet",
        "diet",
        f"{_PRE} @end_verb up|off|on? being|doing|eating? a? {{v:diet}}",
        _DIET_END,
        op=END,
    ),
    rule("diet", "diet", f"{_PRE} off {{v:diet}}", _DIET_END, op=END),
    rule("diet", "diet", "{v:diet} from now on|onwards", _DIET, event=True),
    # "As a vegan, I can't eat half the menu", "being a pescatarian I get the fish", "speaking
    # as a keto person, …": the role the speaker talks as, ended by the clause, a comma or the
    # speaker; a diet word before another noun ("as a vegan option") is no such role.
    rule("diet", "diet", f"{_AS_A} {{v:diet}} person|eater? $", _DIET),
    rule("diet", "diet", f"{_AS_A} {{v:diet}} person|eater? ,|:|i|we|myself", _DIET),
    # "Somewhere good for a pescatarian like me?", "not easy for a vegan like me": the diet is
    # taken as given, so also inside a question.
    rule("diet", "diet", "a|an {v:diet} like me|myself", _DIET, scan=True, presupposed=True),
    rule(
        "diet",
        "diet",
        # "finding vegan options at lunch is hard", "looking for halal food near work"
        "finding|find|found|hunting|looking for? decent|good|any|enough? "
        "{v:diet} options|choices|food|meals|dishes",
        _DIET,
    ),
)

HABIT: tuple[Rule, ...] = (
    rule(
        "habit",
        "habit",
        f"{_PRE} started|start|starting|took|taken|taking|picked up? {{v:habit}}",
        "{S} has taken up {v}.",
        event=True,
    ),
    rule(
        "habit",
        "habit",
        f"{_PRE} @end_verb up|out|off|down|on? {{v:habit}}",
        "{S} has given up {v}.",
        op=END,
    ),
    rule("habit", "habit", f"{_PRE} off {{v:habit}}", "{S} has given up {v}.", op=END),
    rule(
        "habit",
        "habit",
        f"{_PRE} signed|signing|sign|enrolled|enrolling|enrol|booked|started|starting|taking|"
        "took up? for|in|on|onto? {v:pastime}",
        "{S} has taken up {v}.",
        event=True,
    ),
    rule(
        "habit",
        "habit",
        f"{_PRE} joined|joining|join {{v:group}}",
        "{S} has joined {a} {v}.",
        event=True,
    ),
    rule(
        "habit",
        "habit",
        "{who} @adv* smoke|smokes",
        "{S} smokes.",
        fixed="smoking",
        negated="end",
    ),
    rule(
        "habit",
        "habit",
        "{who} @adv* vape|vapes",
        "{S} vapes.",
        fixed="vaping",
        negated="end",
    ),
    rule(
        "habit",
        "habit",
        "{who} @adv* drink|drinks alcohol|booze?",
        "{S} drinks alcohol.",
        fixed="drinking",
        negated="end",
    ),
    rule("habit", "habit", f"{_PRE} a smoker", "{S} smokes.", fixed="smoking", negated="end"),
    rule(
        "habit",
        "habit",
        # only with its negation, and an ending only when it stopped: "not smoking anymore"
        "{who} @be? not|n't|no|never @adv* {v:vice}",
        "{S} does {v}.",
        negated="end",
    ),
)

HEALTH: tuple[Rule, ...] = (
    rule(
        "health",
        "allergy",
        f"{_PRE} severely|very|mildly|super|deathly? allergic to {{v:list}}",
        "{S} is allergic to {v}.",
        negated="end",
    ),
    rule(
        "health",
        "allergy",
        f"{_PRE} react|reacts|reacted|reacting badly|terribly|really? to {{v:list}}",
        "{S} is allergic to {v}.",
    ),
    rule(
        "health",
        "allergy",
        "{who} @have a|an|bad|severe? {v:phrase} allergy",
        "{S} has {a} {v} allergy.",
    ),
    rule(
        "health",
        "allergy",
        # "I carry an EpiPen for peanuts", "carrying my epipen everywhere because of wasps"
        f"{_PRE} always|still|usually? carry|carrying|carries|pack|packing|packed|keep|keeping|"
        "need|needs|got|have "
        "my|an|the|a? epipen|epipens|epi-pen|epi-pens|antihistamines "
        "everywhere|around|always|now|with|me|on|all|the|time|again* "
        "because|due of|to {v:phrase}",
        "{S} is allergic to {v}.",
    ),
    rule(
        "health",
        "allergy",
        f"{_PRE} always|still|usually? carry|carrying|carries|pack|packing|packed|keep|keeping|"
        "need|needs|got|have "
        "my|an|the|a? epipen|epipens|epi-pen|epi-pens|antihistamines "
        "everywhere|around|always|now|with|me|on|all|the|time|again* for {v:list}",
        "{S} is allergic to {v}.",
    ),
    rule(
        "health",
        "allergy",
        # "I had an allergic reaction to penicillin"
        f"{_PRE} had|have|has|got|get|getting|having a|an|another|bad|severe|my* "
        "allergic reaction|reactions to {v:list}",
        "{S} is allergic to {v}.",
    ),
    rule(
        "health",
        "allergy",
        f"{_PRE} lactose intolerant",
        "{S} is lactose intolerant.",
        fixed="lactose",
    ),
    rule(
        "health",
        "allergy",
        # an allergen hidden in food, beside a label or allergy word: "Read every label twice,
        # penicillin hides in everything"
        "{v:phrase1} @adv* hides|hide|hiding|lurks|lurk in everything|anything",
        "{S} is allergic to {v}.",
        needs="@allergy_cue",
    ),
    rule(
        "health",
        "allergy",
        ", {v:phrase1} @adv* hides|hide|hiding|lurks|lurk in everything|anything",
        "{S} is allergic to {v}.",
        scan=True,  # after a comma inside one clause: "Read every label twice, penicillin …"
        needs="@allergy_cue",
    ),
    rule(
        "health",
        "allergy",
        # "it's penicillin that sets me off" beside an allergy word
        "it @be @adv* {v:phrase1} that|which @adv* sets|set|triggers|trigger me off",
        "{S} is allergic to {v}.",
        needs="@allergy_cue",
    ),
    rule(
        "health",
        "allergy",
        # the same put right against a harmless one: "it's penicillin that sets me off, tree
        # nuts is totally fine" (the correction marker makes it a correction)
        "it @be @adv* {v:phrase1} that|which @adv* sets|set|triggers|trigger me off , "
        "{o:phrase} is|are @adv* fine|ok|okay",
        "{S} is allergic to {v}.",
    ),
    rule(
        "health",
        "health",
        # "Specialist appointment about asthma again", "my GP check-up for migraines"
        "i|we? had|have|got|at|off|to? my|a|an|another|the? specialist|gp|doctor|doctor's|"
        "hospital|clinic|consultant|nurse|follow-up|annual|yearly? @appointment about|for|re "
        "{v:condition}",
        "{S} has {v}.",
    ),
    rule("health", "health", f"{_PRE} diagnosed with {{v:phrase}}", "{S} has {v}.", event=True),
    rule(
        "health",
        "health",
        # a long-term condition lived with: "Dealing with migraines again", "I live with asthma"
        f"{_PRE} dealing|living|live|lives|coping|struggling|suffering with|from {{v:condition}}",
        "{S} has {v}.",
        negated="end",
    ),
    rule(
        "health",
        "health",
        "{who} @have* got? {v:condition}",
        "{S} has {v}.",
        negated="end",
    ),
    rule(
        "health",
        "health",
        f"{_PRE} coeliac|celiac|diabetic|asthmatic|epileptic",
        "{S} has a chronic condition.",
        fixed="chronic condition",
    ),
    # A pregnancy holds until a birth ends it: the birth is an ending of "pregnant" whose text
    # is the news itself ("The user's baby Selam arrived."), so it never claims a pregnancy
    # that was not told (a father's news ends nothing that was held).
    rule(
        "health",
        "health",
        f"{_PRE} {{w:num}}? weeks|months? pregnant",
        "{S} is pregnant.",
        fixed="pregnant",
        event=True,
        negated="end",
    ),
    rule(
        "health",
        "health",
        f"{_PRE} gave|given|giving birth",
        "{S} gave birth.",
        op=END,
        fixed="pregnant",
    ),
    rule(
        "health",
        "health",
        f"{_PRE} had|welcomed the|our baby",
        "{S} had the baby.",
        op=END,
        fixed="pregnant",
    ),
    rule(
        "health",
        "health",
        "my|our new? baby|little? @baby_word {n:name} arrived|came",
        "{Ss} baby {n} arrived.",
        op=END,
        fixed="pregnant",
    ),
    rule(
        "health",
        "health",
        "my|our new? baby|little? @baby_word {n:name} is|'s here",
        "{Ss} baby {n} is here.",
        op=END,
        fixed="pregnant",
    ),
    rule(
        "health",
        "health",
        "my|our new? baby|little? @baby_word {n:name} was born",
        "{Ss} baby {n} was born.",
        op=END,
        fixed="pregnant",
    ),
)
