"""Fact tables: diet and habits, health, likes (``preference``), contact details, projects,
dates and who the user is (``identity``)."""

from __future__ import annotations

from remem.extraction.grammar.rule import END, Rule, rule

__all__ = ["CONTACT", "DATE", "DIET", "HABIT", "HEALTH", "IDENTITY", "PREFERENCE", "PROJECT"]

_PRE = "{who} @adv* @have? @adv* @be? @adv*"
_DIET = "{S} is {v}."
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
