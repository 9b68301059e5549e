"""The word classes patterns refer to as ``@name`` and the slot readers use (all case-folded).

Adding a way of saying something usually means adding a word here: a new move verb to
``move``, a breed to ``animal``, a job to ``job_head``. Multi-word entries are written with a
space and matched token by token by the readers that accept them (diets, habits).
"""

from __future__ import annotations

from types import MappingProxyType

__all__ = ["CLASSES", "NOT_PLACES", "ROLE_ATTRIBUTE", "STOP", "words"]


def words(text: str) -> frozenset[str]:
    """The set of whitespace-separated words of ``text``."""
    return frozenset(text.split())


_KIN_ROLES = {
    "sister": "sibling",
    "brother": "sibling",
    "sibling": "sibling",
    "sis": "sibling",
    "bro": "sibling",
    "twin": "sibling",
    "mother": "parent",
    "mom": "parent",
    "mum": "parent",
    "mam": "parent",
    "mommy": "parent",
    "mummy": "parent",
    "father": "parent",
    "dad": "parent",
    "daddy": "parent",
    "stepmom": "parent",
    "stepmum": "parent",
    "stepdad": "parent",
    "step-dad": "parent",
    "step-mum": "parent",
    "step-mom": "parent",
    "stepmother": "parent",
    "stepfather": "parent",
    "step-son": "child",
    "step-daughter": "child",
    "eldest": "child",
    "youngest": "child",
    "stepsister": "sibling",
    "stepbrother": "sibling",
    "step-sister": "sibling",
    "step-brother": "sibling",
    "half-sister": "sibling",
    "half-brother": "sibling",
    "mother-in-law": "relative",
    "father-in-law": "relative",
    "sister-in-law": "relative",
    "brother-in-law": "relative",
    "son-in-law": "relative",
    "daughter-in-law": "relative",
    "son": "child",
    "daughter": "child",
    "kid": "child",
    "stepson": "child",
    "stepdaughter": "child",
    "partner": "partner",
    "boyfriend": "partner",
    "girlfriend": "partner",
    "bf": "partner",
    "gf": "partner",
    "wife": "partner",
    "husband": "partner",
    "hubby": "partner",
    "fiance": "partner",
    "fiancé": "partner",
    "fiancee": "partner",
    "fiancée": "partner",
    "spouse": "partner",
    "cousin": "relative",
    "aunt": "relative",
    "auntie": "relative",
    "uncle": "relative",
    "niece": "relative",
    "nephew": "relative",
    "grandma": "relative",
    "granny": "relative",
    "nan": "relative",
    "nana": "relative",
    "grandpa": "relative",
    "grandad": "relative",
    "granddad": "relative",
    "grandmother": "relative",
    "grandfather": "relative",
    "grandson": "relative",
    "granddaughter": "relative",
    "friend": "friend",
    "bestie": "friend",
    "mate": "friend",
}
ROLE_ATTRIBUTE = MappingProxyType(_KIN_ROLES)
"""A kinship or friendship word → the attribute of the user's fact naming that person."""

_OTHERS = (
    "friend friends bestie mate mates boss manager colleague coworker co-worker neighbour "
    "neighbor roommate flatmate housemate teacher doctor therapist ex landlord landlady "
    "buddy pal classmate client team parents kids sisters brothers cousins in-laws family "
    "folks grandparents ex-wife ex-husband ex-boyfriend ex-girlfriend ex-partner ex-fiance "
    "ex-fiancé ex-fiancee ex-fiancée"
)

CLASSES: MappingProxyType[str, frozenset[str]] = MappingProxyType(
    {
        # subjects and people
        "kin": frozenset(_KIN_ROLES),
        "partner_word": words(
            "partner boyfriend girlfriend bf gf wife husband hubby fiance fiancé fiancee "
            "fiancée spouse"
        ),
        "other_person": words(_OTHERS) | frozenset(_KIN_ROLES),
        "kin_adj": words(
            "older younger little lil big baby twin elder oldest youngest step half eldest middle "
            "new lovely best close childhood"
        ),
        "pronoun_other": words("he she they him her them his their"),
        # verbs and function words
        "adv": words(
            "just recently finally now currently actually also really still officially already "
            "even totally basically kinda literally definitely do does did not n't never no "
            "longer technically mostly mainly happily pretty fully properly somehow part full time "
            "part-time full-time remotely"
        ),
        "have": words("have 've has 's had got"),
        "be": words("am 'm is 's are 're was were be been"),
        "am": words("am 'm"),
        "move": words("moved relocated moving relocating move"),
        "live": words("live lives living reside resides residing"),
        "start": words(
            "started start starting began begin beginning joined joining join took taking"
        ),
        "get": words("got get getting landed accepted accept found took"),
        "leave": words("left leave leaving quit quitting quitted"),
        "end_verb": words(
            "quit quitting stopped stop stopping gave give giving given ditched ditching dropped "
            "cut kicked"
        ),
        "notice": words("notice resignation badge"),
        # words that make "everyone at Brightline is swamped" talk about a workplace
        "work_event": words(
            "payroll all-hands quarter-end year-end month-end appraisals onboarding"
        ),
        "work_talk": words(
            "review reviews appraisal appraisals deadline deadlines meeting meetings overtime "
            "layoffs redundancies restructure reorg all-hands standup payroll quarterly "
            "bonus bonuses rota shift shifts office boss manager clients colleagues promotion "
            "promotions quarter-end year-end month-end"
        ),
        "workmates": words("colleagues coworkers co-workers workmates"),
        # what a new job hands out on the first day: "got my badge and laptop at Meridian"
        "work_kit": words("badge laptop lanyard keycard key-card login logins"),
        # a relocation said in the message makes "Montreal feels like home" a city lived in
        "relocation": words(
            "relocation relocated relocating relocate moved move moving emigrated emigrating "
            "unpacked unpacking"
        ),
        # an allergy talked about: makes "penicillin hides in everything" an allergen
        "allergy_cue": words(
            "label labels ingredients allergy allergies allergic reaction reactions epipen "
            "epi-pen antihistamines"
        ),
        "appointment": words(
            "appointment appointments check-up checkup check-ups checkups consultation review"
        ),
        "home_word": words("home hometown"),
        # a home left emptier: makes "Rui picked up the last of their stuff" a break-up
        "home_emptied": words("flat apartment house place quiet quieter empty emptier"),
        "work_status": words(
            "freelancing freelance self-employed unemployed jobless contracting retired job-hunting"
        ),
        "joy": words(
            "loved love bliss blissful heaven heavenly hooked happy fun joy favourite favorite "
            "addictive therapeutic"
        ),
        "num_word": words(
            "two three four five six seven eight nine ten eleven twelve fifteen twenty thirty "
            "forty a few several many"
        ),
        "job_noun": words("job position role internship gig post placement contract"),
        # "a part-time job at Tesco", "a weekend job at the cinema", "a summer job"
        "job_adj": words(
            "part-time full-time part full time weekend summer saturday sunday evening night "
            "temp temporary permanent seasonal holiday christmas side second little proper "
            "paid"
        ),
        "det": words("a an the my our this that"),
        "my": words("my our"),
        "a": words("a an"),
        "new": words("new first dream"),
        "animal": words(
            "dog cat puppy pup kitten kitty rabbit bunny hamster parrot bird horse pony "
            "tortoise turtle snake lizard gecko ferret goldfish fish budgie cockatiel chicken "
            "hen rat mouse pig beagle labrador lab spaniel terrier poodle collie husky pug "
            "dachshund corgi retriever greyhound whippet labradoodle cockapoo schnauzer "
            "chihuahua boxer dalmatian rottweiler shepherd doodle tabby moggy siamese "
            "axolotl hedgehog guinea-pig"
        ),
        "animal_adj": words(
            "old new little baby rescue black white ginger grey gray brown tabby tiny big "
            "sweet fat lazy senior young second other"
        ),
        "called": words("called named"),
        "baby_word": words("baby daughter son boy girl"),
        "when": words(
            "yesterday today tonight last this next week month weekend year monday tuesday "
            "wednesday thursday friday saturday sunday"
        ),
        "nationality": words(
            "british english scottish welsh irish american canadian australian french german "
            "spanish portuguese italian dutch belgian swiss austrian polish czech slovak "
            "hungarian romanian bulgarian greek turkish swedish norwegian danish finnish "
            "icelandic russian ukrainian lithuanian latvian estonian croatian serbian slovenian "
            "albanian chinese japanese korean indian pakistani bangladeshi nepali filipino "
            "vietnamese thai indonesian malaysian singaporean nigerian ghanaian kenyan "
            "ethiopian egyptian moroccan algerian tunisian brazilian argentinian argentine "
            "mexican colombian chilean peruvian venezuelan cuban jamaican iranian iraqi syrian "
            "lebanese israeli palestinian saudi emirati maltese cypriot"
        ),
        "pronoun": words("she her hers he him his they them theirs xe xem ze zir it its any"),
        "named_as": words("named called"),
        "like": words("like likes love loves adore adores enjoy enjoys"),
        "dislike": words("hate hates dislike dislikes loathe detest"),
        "die": words("died passed"),
        "weekday": words(
            "monday tuesday wednesday thursday friday saturday sunday mon tue tues wed thu "
            "thur thurs fri sat sun"
        ),
        "month": words(
            "january february march april may june july august september october november "
            "december jan feb mar apr jun jul aug sep sept oct nov dec"
        ),
        "date_word": words(
            "today tomorrow tonight next this the on of at noon midnight morning afternoon "
            "evening night weekend am pm o'clock"
        ),
        "job_head": words(
            "engineer developer programmer nurse teacher doctor designer manager lawyer "
            "solicitor barrister accountant architect analyst chef cook writer scientist "
            "consultant pharmacist electrician plumber lecturer professor researcher barista "
            "paramedic firefighter vet dentist librarian journalist editor photographer artist "
            "musician mechanic pilot therapist carpenter tutor lead director intern officer "
            "technician administrator coordinator specialist assistant clerk cashier driver "
            "waiter waitress bartender nanny midwife surgeon physio physiotherapist "
            "translator copywriter marketer recruiter paralegal receptionist baker butcher "
            "farmer gardener cleaner builder welder supervisor planner surveyor optician dietitian "
            "nutritionist counsellor psychologist "
            "ceo cto cfo founder owner freelancer contractor illustrator animator data "
            "ux dev sde swe sre pm"
        ),
        "diet": words(
            "vegetarian vegan pescatarian pescetarian flexitarian plant-based keto paleo "
            "gluten-free dairy-free halal kosher carnivore veggie"
        ),
        "school_noun": words(
            "uni university college school academy polytechnic institute bootcamp"
        ),
        "neg": words("not n't never no nobody none neither nor hardly nothing"),
        "end_time": words("anymore"),
        "correction": words(
            "sorry misspoke misspoken misread mistyped typo correction oops meant mean "
            "scratch wrong mistake"
        ),
        "hypothetical": words(
            "if unless would 'd might maybe perhaps probably could should wish wished imagine "
            "suppose supposing hypothetically someday whether gonna wanna considering "
            "thinking planning plan plans hope hoping dream dreaming tempted debating "
            "possibly ideally eventually unsure idk dunno"
        ),
        "question_aux": words(
            "do does did should could would can is are am have has will shall was were may might"
        ),
        "question_subject": words("i you we he she they it my your there"),
        "discourse": words(
            "well so oh ok okay yeah yes yep yup no nope btw also and but anyway anyways "
            "hey hi hello haha hahaha lol lmao omg honestly basically um uh right alright "
            "cool great thanks sure update news fyi ps ah aw aww ugh wow hmm tbh ngl "
            "reminder"
        ),
    }
)
"""Word classes by name (``@move`` in a pattern)."""

DISCOURSE_PHRASES: tuple[tuple[str, ...], ...] = tuple(
    tuple(p.split())
    for p in (
        "by the way",
        "guess what",
        "fun fact",
        "you know what",
        "just so you know",
        "heads up",
        "big news",
        "quick update",
        "oh and",
        "not gonna lie",
    )
)
"""Discourse openers of several words, skipped at the start of a clause like one word."""

VERB_STARTS = words(
    "moving moved living lived started starting got getting just finally quit quitting joined "
    "joining adopted switched went gone broke split gave giving handed lost married turned "
    "relocated relocating working work studying graduated dropped took taking picked bought "
    "renamed shelved scrapped stopped rescued walked had having became become doing done "
    "been living signed signing enrolled booked tried trying ordered found showed spent watched "
    "trained dealing struggling coping suffering named naming brought bringing "
    "carrying carried packing packed keeping met meeting "
    "sore aching achy tired exhausted knackered shattered hungover stuffed "
    "first second third two three four five six seven eight nine ten twelve fifteen twenty thirty"
)
"""Capitalised words at the start of a clause that are verbs (or a state, an ordinal) with the
subject left out ("Moving to Denver next month", "Sore from football", "Ten years as a nurse"),
not names."""

STOP = words(
    "with for at in on by from to and or but because since so which who where when while "
    "after before until though although if lol haha btw now anymore any again too as last "
    "this next these today yesterday tomorrow recently lately already actually yet really "
    "tho cause cos bc is was are were 's 're 'm am be been it its that there here than "
    "would could should will might must can originally honestly though "
    "not n't never longer ago soon around about over into onto off out up like "
    "every each all both either some lmao omg tbh ngl xx x :) :( though then also "
    "rn atm asap though whilst instead fyi jsyk ftr"
)
"""Words that end a name, a place, an organisation or a short phrase."""

NOT_PLACES = words(
    "home city town village countryside suburbs house flat apartment place work school bed "
    "area neighbourhood neighborhood centre center room studio dorm office hospital gym "
    "country abroad somewhere overseas uni university college the a an my our it there here "
    "them future past moment weekend"
)
"""Words that make "I live in a small flat" a dwelling, not a place name."""
